# 202-corrupt-rank-file: a rank file the server cannot load is a repair, not a dead end (issue
# #47, item 5). GLM-5.1 NVFP4 on four RTX PRO 6000s with SGLang 0.5.23 (the CUTLASS MoE alone:
# the checkpoint leaves no linear layer in NVFP4), installed from the launch command with a
# stand-in Hugging Face cache and server Python; doctor says hits. Then one rank file at a time
# is made something the server cannot load: truncated JSON, a UTF-8 byte order mark before it,
# junk, JSON that is not an object, an empty folder, a folder with a file in it. Each time
# doctor exits 1 with a `no` naming the file and the fix; the fix as printed runs (the install
# for the launch command, which replaces it under its journal) and doctor exits 0 again. With
# install's flags and --from, the file stops install unless --replace (also with --force).
. "$ROOT/tests/lib.sh"
hf_cache hub nvidia/GLM-5.1-NVFP4
export HF_HUB_CACHE=$PWD/hub SGLANG_CACHE_DIR=$PWD/cache
fi_python py "NVIDIA RTX PRO 6000 Blackwell Server Edition"
RUN_SED="s|$PWD/|<tmp>/|g"
A="--for sglang --device rtx-pro-6000-server --python $PWD/py"
L="python -m sglang.launch_server --model-path nvidia/GLM-5.1-NVFP4 --tp 4"
L="$L --quantization modelopt_fp4"
tidy() { sed -e "s|$PWD/|<tmp>/|g" -e "s|$ROOT|<root>|g"; }
doc() { # doctor's findings, verdict and fix, and its exit status; the fix kept in ./fix
    rc=0; tunetab doctor -q $A -- $L >out.txt 2>&1 || rc=$?
    tidy <out.txt
    echo "doctor exit $rc"
    sed -n 's/^fix: //p' out.txt >fix
}
fix() { # the fix as doctor printed it
    rc=0; eval "$(cat fix)" >out.txt 2>&1 || rc=$?
    grep -e 'written anew' -e 'folder' -e error -e '^tunetab: wrote' out.txt | tidy || true
    echo "fix exit $rc"
}
tunetab install -q $A -- $L
dir=$(ls -d cache/flashinfer/autotune/0.7.4/sm120/*)
f=$dir/rank_tp1_pp0_dp0.json
good=$(cat "$dir/rank_tp0_pp0_dp0.json")
echo "== installed"
doc
echo "== truncated"
head -c 200 "$dir/rank_tp0_pp0_dp0.json" >"$f"
doc
fix
doc
echo "== a UTF-8 byte order mark before the JSON"
{ printf '\357\273\277'; printf '%s\n' "$good"; } >"$f"
doc
fix
doc
echo "== junk"
echo 'rank file' >"$f"
doc
fix
doc
echo "== JSON, not an object"
echo '[["MoERunner", 3]]' >"$f"
doc
fix
doc
echo "== an empty folder where the file should be"
rm "$f" && mkdir "$f"
doc
fix
doc
echo "== a folder with a file in it: moved aside, nothing in it lost"
rm "$f" && mkdir "$f" && echo keep >"$f/notes.txt"
doc
fix
doc
ls "$dir" | tidy
cat "$f.moved-by-tunetab/notes.txt"
echo "== install's flags with --from: stops at the file unless --replace"
tunetab generate -q --for sglang --device rtx-pro-6000-server --python "$PWD/py" -o t -- $L
F="$A --from t/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json"
F="$F --model-path nvidia/GLM-5.1-NVFP4 --hf-config-class GlmMoeDsaConfig --tp 4"
F="$F --quantization modelopt_fp4 --consumer-version 0.5.23"
head -c 100 "$dir/rank_tp0_pp0_dp0.json" >"$dir/rank_tp3_pp0_dp0.json"
run tunetab install -q $F
run tunetab install -q $F --replace --force
doc
