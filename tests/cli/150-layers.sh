# 150-layers: the layer rules of src/ (tests/layers.py): only src/cmd/ and src/main.c print,
# one folder per foreign API (Lua, libcyaml, CUDA), and includes only from the layers below.
# First a small tree that breaks each rule once (so each rule is seen to fire, with its
# file:line), then the real tree, which must have no breach.
. "$ROOT/tests/lib.sh"
t=tree
mkdir -p "$t/src/base" "$t/src/gpu" "$t/src/data" "$t/src/flashinfer" "$t/src/tune" "$t/src/cmd"
cat >"$t/src/base/util.c" <<'C'
/* util.c: the one oom() (allowed) and a stray printf (not). */
static void oom(void)
{
	fputs("tunetab: error: out of memory\n", stderr);
}
void f(void) { printf("x"); /* printf( in a comment is fine */ }
C
cat >"$t/src/data/x.c" <<'C'
#include "data/yamlload.h"
#include <cyaml/cyaml.h>
#include "tune/choose.h"
static const char *s = "fprintf(stderr, no: a string)";
void g(void) { write(2, "e", 1); }
C
cat >"$t/src/flashinfer/y.c" <<'C'
#include <lua.h>
#include <lauxlib.h>
#include <cuda_runtime.h>
#include "data/yamlload.h"
void h(FILE *f) { fputs("a", f); fwrite("b", 1, 1,
	stdout); }
C
cat >"$t/src/gpu/k.cu" <<'C'
#include <cublasLt.h>
#include "base/util.h"
#include "data/device.h"
C
cat >"$t/src/tune/worker.c" <<'C'
#include "gpu/gpu.h"
void w(void) { printf("END\n"); }
C
cat >"$t/src/cmd/z.c" <<'C'
#include "deploy/install.h"
void z(void) { printf("ok\n"); }
C
run python3 "$ROOT/tests/layers.py" tree
run python3 "$ROOT/tests/layers.py" "$ROOT"
# The command table at src/'s top level is the cmd layer (it may print and include from every
# layer; "cmd.h" is src/cmd.h, above base), the deployment folder sits between ops and inspect,
# and a file in a folder LAYERS does not name is a breach.
t=tree2
mkdir -p "$t/src/base" "$t/src/deployment" "$t/src/inspect" "$t/src/newer"
cat >"$t/src/cmd.c" <<'C'
#include "cmd.h"
#include "deploy/install.h"
void t(void) { printf("table\n"); }
C
cat >"$t/src/base/x.c" <<'C'
#include "cmd.h"
C
cat >"$t/src/deployment/d.c" <<'C'
#include "ops/ops.h"
#include "tune/generate.h"
C
cat >"$t/src/inspect/i.c" <<'C'
#include "deployment/d.h"
C
cat >"$t/src/newer/n.c" <<'C'
int n;
C
run python3 "$ROOT/tests/layers.py" tree2
