/* trace.c: the one hook through which the GPU layer's debugging lines leave (gpu.h). */
#include "gpu/gpu.h"

#include <stdarg.h>
#include <stdlib.h>

#include "base/util.h"

static gpu_trace_fn trace_hook;

void gpu_set_trace(gpu_trace_fn fn)
{
	trace_hook = fn;
}

int gpu_tracing(void)
{
	return trace_hook != NULL;
}

void gpu_trace(const char *fmt, ...)
{
	if (!trace_hook)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	trace_hook(line);
	free(line);
}
