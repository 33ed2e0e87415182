/* python.h: the server's Python, and the one that runs the flashinfer backend's worker, found
 * where doctor looks for FlashInfer: --python PATH, then $VIRTUAL_ENV, $CONDA_PREFIX, the Python environment pip
 * installed tunetab into (data_python_env), then python3 on PATH. */
#ifndef TUNETAB_PYTHON_H
#define TUNETAB_PYTHON_H

#include <stddef.h>

/* The interpreter's path (caller frees) and *from, where it came from ("--python",
 * "$VIRTUAL_ENV", "$CONDA_PREFIX", "tunetab's Python environment", "PATH"); NULL with a
 * reason in why when there is none. */
char *python_find(const char *given, const char **from, char *why, size_t n);

/* The executable a command word names: itself when it holds a '/', else found on PATH (as
 * a shell finds it). Caller frees; NULL when there is none. */
char *python_resolve(const char *word);

/* scripts/tunetab-fi-worker.py of the data folder (caller frees); NULL when it is missing. */
char *python_worker_script(void);

#endif
