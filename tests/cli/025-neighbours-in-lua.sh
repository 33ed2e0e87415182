# 025-neighbours-in-lua: the measured-neighbour mean in C (tunetab.neighbours, issue #46) and
# the Lua estimate it replaced, point by point over q.device.fit_points
# (tests/data/scripts/neighbours_in_lua.lua, which stops at the first estimate that differs
# in any bit), write the same tables and predicted times.
. "$ROOT/tests/lib.sh"
S="$ROOT/tests/data/scripts/neighbours_in_lua.lua"
F="$ROOT/configs/fits/NVIDIA_H200.yaml"
i=0
while read -r args; do
  i=$((i + 1))
  # (their warnings, such as GLM-5's block-scaled checkpoint, are not this test's)
  tunetab generate $args --flashinfer 0.7.4 -q -o c$i --model-fit "$F" 2>err || cat err
  tunetab generate $args --flashinfer 0.7.4 -q -o lua$i --model-fit "$F" --heuristic "$S" 2>err ||
    cat err
  for f in c$i/*; do
    case $f in
    # the provenance names the heuristic's file
    */tunetab_provenance_*) grep -v '"id": ' "$f" >a; grep -v '"id": ' "lua$i/${f#*/}" >b ;;
    *) cp "$f" a; cp "lua$i/${f#*/}" b ;;
    esac
    cmp -s a b || echo "differs: $args: ${f#*/}"
  done
  echo "$args: $(ls c$i | wc -l) files, the same"
done <<'LIST'
--device h200 --model glm-5 --dtype fp8 --tp 8
--device h200 --model qwen3-30b-a3b --dtype bf16
--device h200 --model deepseek-v3 --dtype fp8 --ep 8
--device h100-sxm --model mixtral-8x7b --dtype bf16 --tp 2
--device rtx-pro-6000-server --model glm-5 --dtype nvfp4 --tp 8
LIST
