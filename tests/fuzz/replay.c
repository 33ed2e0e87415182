/* replay.c: main() for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once
 * on each file named on the command line (after LLVMFuzzerInitialize), so the seeds and the
 * regression inputs of tests/data/fuzz/ replay in `make test` under any compiler. Prints
 * nothing on success; a crash or sanitizer report ends the process with its status. */
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		char *buf;
		size_t len;
		if (read_file(argv[i], 0, &buf, &len)) {
			fprintf(stderr, "fuzz-replay: cannot read '%s'\n", argv[i]);
			return 5;
		}
		/* an exact-size copy, so an overread past the input is the harness's to catch */
		unsigned char *data = malloc(len ? len : 1);
		if (!data)
			return 5;
		for (size_t j = 0; j < len; j++)
			data[j] = (unsigned char)buf[j];
		free(buf);
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	return 0;
}
