/* datadir.h: where tunetab finds configs/, schemas/ and scripts/. */
#ifndef TUNETAB_DATADIR_H
#define TUNETAB_DATADIR_H

/* TUNETAB_DATA_DIR when set; else the checkout holding the binary (build/tunetab or
 * build/<variant>/tunetab); else <prefix>/share/tunetab next to an installed binary; else the
 * compiled-in prefix. Returns a path holding configs/devices, or NULL. Caller frees. */
char *data_dir(void);

#endif
