/* datadir.h: where tunetab finds configs/, schemas/ and scripts/, and the Python environment
 * it is installed in when it came as a wheel. */
#ifndef TUNETAB_DATADIR_H
#define TUNETAB_DATADIR_H

#include <stddef.h>

/* TUNETAB_DATA_DIR when set; else the checkout holding the binary (build/tunetab or
 * build/<variant>/tunetab); else the package folder of a wheel (<site>/tunetab, the binary in
 * its bin/); else <prefix>/share/tunetab next to an installed binary; else the compiled-in
 * prefix. A folder with a VERSION file (the wheel's and the release tarball's data) counts only
 * when that file names this binary's version. Returns a path holding configs/devices, or NULL
 * (data_dir_problem() then says why when a candidate was refused). Caller frees. */
char *data_dir(void);

/* Why the last data_dir() call refused a folder that held data ("" when none was refused). */
const char *data_dir_problem(void);

/* The Python environment the running binary was installed into by pip (the wheel puts it at
 * <site>/tunetab/bin/tunetab, <site> a site-packages or dist-packages folder): fills site and,
 * when <site> is <prefix>/lib/pythonX.Y/site-packages and <prefix>/bin/python3 (or python)
 * exists, python (else ""). Returns 0 when the binary is not installed in one. */
int data_python_env(char *site, size_t site_n, char *python, size_t python_n);

/* scripts/<name> of the data folder (caller frees); NULL when it is missing. */
char *data_script_path(const char *name);

#endif
