# 201-no-untuned-fallbacks: install writes no table that makes a server slower (issue #47,
# item 4). GLM-5 NVFP4 at TP 8 with SGLang 0.5.23 on the B200 (fp4_gemm with the CuTe-DSL runner
# and the TensorRT-LLM-gen MoE, neither of which tunetab predicts) and on the RTX PRO 6000 (the
# CUTLASS MoE, which the cost model predicts, and fp4_gemm), from the launch command with a
# stand-in Hugging Face cache and server Python. By default install writes no entry nobody
# measured (FlashInfer's fallback tactic, -1) for an op the server tunes at start: it says what
# it left out, the rank files hold no -1 entry, an op all of whose entries would be such is not
# in them (on the B200 nothing is written), and doctor says which ops the server still tunes at
# start, how many entries of each op are measured / predicted / fallback, and fixes with
# --profile. --write-fallbacks writes them: doctor counts them as fallback and says hits. On the
# B200 with the FlashInfer stub (tests/data/fi-stub) the fix doctor prints, --profile, measures
# them: every entry measured, no fallback, hits. A table given with --from is judged by the
# provenance beside it.
. "$ROOT/tests/lib.sh"
hf_cache hub nvidia/GLM-5-NVFP4
export HF_HUB_CACHE=$PWD/hub
PY=$PWD/py
L="python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8"
L="$L --quantization modelopt_fp4"
tidy() { sed -e "s|$PWD/|<tmp>/|g" -e "s|$ROOT|<root>|g"; }
entries() { # per op in the rank files: entries, and how many hold tactic -1; files alike
    python3 - "$1" <<'PY'
import collections, glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/flashinfer/autotune/0.7.4/sm1*/*/rank_*.json"))
docs = [json.load(open(f)) for f in files]
n, fb = collections.Counter(), collections.Counter()
for k, v in (docs[0] if docs else {}).items():
    if not k.startswith("_"):
        op = k.split("'")[1]
        n[op] += 1
        fb[op] += v[1] == -1
alike = ", all alike" if docs and all(d == docs[0] for d in docs) else ""
print(f"  {len(files)} rank files{alike}:",
      ", ".join(f"{op} {n[op]} entries, {fb[op]} with tactic -1" for op in sorted(n)) or "no entry")
PY
}
inst() { # install for the launch command: what it says of the entries nobody measured
    rc=0; tunetab install --for sglang --device "$dev" --python "$PY" "$@" -- $L >out.txt 2>&1 ||
        rc=$?
    grep -e "nobody measured" -e "nothing written" -e "^tunetab: wrote" -e error -e "removed" \
        -e "provenance" out.txt | tidy || true
    echo "install exit $rc"
}
doc() { # doctor's op lines, findings, verdict and fix
    rc=0
    tunetab doctor --for sglang --device "$dev" --python "$PY" "$@" -- $L >out.txt 2>/dev/null || rc=$?
    grep -e '^  op ' -e '^  no ' -e '^verdict' -e '^fix' out.txt | tidy
    echo "doctor exit $rc"
    sed -n 's/^fix: //p' out.txt >fix
}
for dev in b200 rtx-pro-6000-server; do
    gpu="NVIDIA B200"
    [ $dev = b200 ] || gpu="NVIDIA RTX PRO 6000 Blackwell Server Edition"
    fi_python py "$gpu"
    export SGLANG_CACHE_DIR=$PWD/cache-$dev
    echo "== $dev: install (defaults)"
    inst
    entries "$SGLANG_CACHE_DIR"
    doc
    echo "== $dev: install --write-fallbacks"
    inst --write-fallbacks
    entries "$SGLANG_CACHE_DIR"
    doc
    tunetab doctor --json --for sglang --device "$dev" --python "$PY" -- $L >doc.json 2>/dev/null ||
        true
    python3 - doc.json <<'PY'
import json, sys
for o in json.load(open(sys.argv[1]))["ops"]:
    if o["tuned_at_start"]:
        print(f"  json {o['op']}: covered {o['covered']} of {o['keys']}, measured {o['measured']},",
              f"predicted or measured {o['predicted_or_measured']}, fallback {o['fallback']},",
              f"profiled at start {o['profiled_at_start']}")
PY
done
echo "== rtx-pro-6000-server: after --write-fallbacks, a plain install removes the -1 entries"
inst
entries "$SGLANG_CACHE_DIR"
doc | grep -e 'fp4_gemm' -e verdict
echo "== b200: the fix doctor prints (--profile) runs where FlashInfer measures: the stub"
# the server's Python: the stand-in answers the environment probe, python3 runs the worker on
# the FlashInfer stub
dev=b200
export SGLANG_CACHE_DIR=$PWD/cache-measured TUNETAB_STUB_GPU=b200
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
fi_python probe "NVIDIA B200"
printf '#!/bin/sh\ncase "$1" in *tunetab-fi-env.py) exec "%s/probe" "$@" ;; esac\n' "$PWD" >py
echo 'exec python3 "$@"' >>py
inst
doc
rc=0; eval "$(cat fix)" >out.txt 2>&1 || rc=$?
grep -e 'keys measured' -e 'nobody measured' out.txt || true
echo "fix exit $rc"
entries "$SGLANG_CACHE_DIR"
doc
echo "== install --from a table generate wrote: its provenance says which entries nobody measured"
unset TUNETAB_FI_KERNELS TUNETAB_STUB_GPU
export SGLANG_CACHE_DIR=$PWD/cache-from
dev=rtx-pro-6000-server
fi_python py "NVIDIA RTX PRO 6000 Blackwell Server Edition"
tunetab generate -q --for sglang --device $dev --python "$PY" -o t -- $L
T=t/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json
inst --from $T
entries "$SGLANG_CACHE_DIR"
echo "-- the same table without its provenance: installed as it is"
mkdir bare && cp $T bare/
rm -r "$SGLANG_CACHE_DIR"
inst --from bare/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json
entries "$SGLANG_CACHE_DIR"
