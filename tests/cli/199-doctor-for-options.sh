# 199-doctor-for-options: `doctor --for` is doctor's own command line (issue #46): its usage
# errors show doctor's usage, it takes the options that describe a deployment and none that
# write (--replace, --force, --dry-run, --profile), and plain doctor's options are refused with
# --for, as --for's are without it; an unknown option is named first wherever it stands.
. "$ROOT/tests/lib.sh"
L="-- python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8"
usage_of() { sed -n 's/^usage: tunetab \([a-z-]*\) .*/usage of \1/p;/^tunetab: error/p' out; }
for args in "--bogus" "--replace" "--force" "--dry-run" "--profile" "--check" "-o out" \
            "--cache x.json" "--model glm-5" "--tp-rank 1" "--backend flashinfer"; do
    tunetab doctor --for sglang $args $L >out 2>&1 && rc=0 || rc=$?
    echo "doctor --for sglang $args: exit $rc"
    usage_of
done
for args in "--model-path Qwen/Qwen3-30B-A3B" "--from t.json" "--cache-dir d" "--pp 2 --bogus"; do
    tunetab doctor $args >out 2>&1 && rc=0 || rc=$?
    echo "doctor $args: exit $rc"
    usage_of
done
# install keeps its own usage and its writing options
tunetab install --for sglang --bogus $L >out 2>&1 && rc=0 || rc=$?
echo "install --for sglang --bogus: exit $rc"
usage_of
