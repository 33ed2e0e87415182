/* fuzz_table_py.c: libFuzzer target for the bundled-module reader (table_read_mem on a
 * v…_trtllm_fused_moe_<DEVICE>.py), then validate_table and the writers. Input that starts
 * with '{' or '[' goes to the JSON reader, as in the CLI. */
#include "fuzz_table.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_table("v0_1_trtllm_fused_moe_NVIDIA_B200.py", data, size, 0);
	return 0;
}
