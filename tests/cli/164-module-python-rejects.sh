# 164-module-python-rejects: modules Python 3 does not compile, which tunetab validate once
# passed (FlashInfer could not import them): each case, python3's verdict (ast.parse, the
# check FlashInfer's import makes first) and validate's located error. Also the floats
# message for 1e3 and 1j, and a BOM that is no column of line 1.
. "$ROOT/tests/lib.sh"
n=0
while IFS= read -r case; do
    n=$((n + 1))
    mkdir "m$n"
    f="m$n/v0_1_trtllm_fused_moe_NVIDIA_H200.py"
    python3 -c 'import sys; open(sys.argv[2], "wb").write(eval(sys.argv[1]))' "$case" "$f"
    printf '== %s\n' "$case"
    python3 - "$f" <<'PY'
import ast, sys
try:
    ast.parse(open(sys.argv[1], "rb").read())
    print("python3: compiles")
except (SyntaxError, ValueError) as e:
    print("python3: %s" % type(e).__name__)
PY
    rc=0; tunetab validate --flashinfer 0.7.4 "$f" >v.txt 2>&1 || rc=$?
    grep -e error: v.txt | sed "s|^m$n/||"
    echo "[exit $rc]"
done <<'CASES'
b"best_configs =\n{}\n"
b"best_configs\n= {}\n"
b"best_configs = {}\n  x = 1\n"
b"best_configs = {} \\\nx = 1\n"
b"best_configs = {}\nx = 1 \\\n"
b"best_configs = {}\nTrue = 1\n"
b"best_configs = {}\nx = lambda\n"
b"best_configs = {}\nx = ur'a'\n"
b"best_configs = {}\nx = 1_\n"
b"best_configs = {}\nx = 1__0\n"
b"best_configs = {}\nx = '\xed\xa0\x80'\n"
b"best_configs = {}\nx = '\xe0\x80\xaf'\n"
b"best_configs = {}\nx = '\xf4\x90\x80\x80'\n"
b"\xef\xbb\xbfx = '\xff'\nbest_configs = {}\n"
b"best_configs = {}\nx = 1e3\n"
b"best_configs = {}\nx = 1j\n"
CASES
