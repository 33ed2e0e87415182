/* fuzz_table_json.c: libFuzzer target for the JSON autotune-cache reader (table_json_read),
 * then validate_table and the writers. */
#include "fuzz_table.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_table("flashinfer_autotune_cache.json", data, size, 1);
	return 0;
}
