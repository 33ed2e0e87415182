# 221-consumer-inputs: the closed world's data (issue #47). scripts/lib/{sglang,vllm}_options.lua
# are what scripts/dev/consumer-inputs.py makes of the releases' own parsers and sources
# (tests/consumers/options/, dumped from the wheels; `make test-consumers` dumps them again and
# compares) and configs/consumers/inputs/*.yaml; each release's options, counted by class; a
# class naming an option no release has is refused.
. "$ROOT/tests/lib.sh"
cd "$ROOT"
for c in sglang vllm; do
    python3 scripts/dev/consumer-inputs.py $c >"$TT_TMP/$c.lua"
    if cmp -s "$TT_TMP/$c.lua" scripts/lib/${c}_options.lua; then echo "$c: scripts/lib/${c}_options.lua is up to date"
    else echo "$c: scripts/lib/${c}_options.lua differs from what consumer-inputs.py makes"; fi
    python3 scripts/dev/consumer-inputs.py $c --counts
done
mkdir -p "$TT_TMP/stale/configs/consumers/inputs"
mkdir -p "$TT_TMP/stale/tests/consumers" && cp -r tests/consumers/options "$TT_TMP/stale/tests/consumers/"
sed 's/^    host:/    no_such_option:/' configs/consumers/inputs/sglang.yaml >"$TT_TMP/stale/configs/consumers/inputs/sglang.yaml"
cd "$TT_TMP/stale"
rc=0; python3 "$ROOT/scripts/dev/consumer-inputs.py" sglang >/dev/null 2>err.txt || rc=$?
cat err.txt; echo "exit $rc"
