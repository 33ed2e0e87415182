/* names.h: the file names of a FlashInfer table set, in one place (flashinfer-formats.md §1.1,
 * §2.1): the bundled module, the JSON autotune cache, tunetab's provenance sidecar, and the
 * device part all three share.
 *
 * Where each rule lives, and why there:
 * - the device part (every space of the CUDA device name made '_'): firules_device_part() in
 *   data/firules.c, the one implementation. The data layer needs it (the module's name, fleet
 *   plans' folders, calibration files) and a layer calls only down, so it cannot live here.
 * - the bundled module, "<prefix><stem><DEVICE>.py": firules_bundled_name() and its inverse
 *   firules_split_bundled() in data/firules.c, since the prefix and stem are schemas/ data.
 * - the JSON cache and the provenance sidecar: here, built on the device part.
 * Code above the data layer calls these; none spells a rule again. */
#ifndef TUNETAB_NAMES_H
#define TUNETAB_NAMES_H

#include <stdbool.h>

#include "data/firules.h"

/* The prefix of a provenance sidecar's name. */
#define NAMES_PROVENANCE_PREFIX "tunetab_provenance_"

/* "flashinfer_autotune_<DEVICE>.json". FlashInfer gives JSON caches no name (§2.1); tunetab
 * names them with the module's device part. Caller frees. */
char *names_json_cache(const char *device);
/* "tunetab_provenance_<DEVICE>.json", the sidecar beside a table (docs/fleet.md). Caller frees. */
char *names_provenance(const char *device);
/* Whether a basename is a provenance sidecar's: "tunetab_provenance_*.json". */
bool names_is_provenance(const char *base);
/* Whether a and b give the same device part; either may be a device name or a part already
 * ("NVIDIA H200" and "NVIDIA_H200" do). */
bool names_same_device(const char *a, const char *b);
/* The device part of a bundled module's basename under the stem of any schema of set:
 * "v0_1_trtllm_fused_moe_NVIDIA_H200.py" -> "NVIDIA_H200". NULL when base is not a module's
 * name (no 'v' prefix, no stem, no device part). Caller frees. */
char *names_module_device(const struct firules_set *set, const char *base);

#endif
