# 041-scan-log-synthetic: logs written from the reference's line formats (formats §1.5, §2, §4)
# for what no real fixture shows: bundled hits and misses (new form, and the old miss form with
# the runner hash, 4- and 5-element), JSON cache mismatches hard/soft/legacy, blocklist lines,
# OOM, unsupported tactics, TensorRT-LLM fallbacks, ANSI colours, CRLF, gzip (file, stdin,
# concatenated members, cut, corrupt), lines over 1 MB, a final line with no newline, binary
# junk; the --keys-out -> generate --keys loop; exit codes.
. "$ROOT/tests/lib.sh"
L=$ROOT/tests/data/logs
cp "$L"/*.log .
for f in bundled-v0.6.6.log bundled-v0.6.13.log json-cache-head.log trtllm-fallback.log noise-only.log; do
    run tunetab scan-log "$f"
done

echo "== the keys-out loop"
run tunetab scan-log bundled-v0.6.6.log bundled-v0.6.13.log --keys-out mixed.keys
cat mixed.keys
run tunetab scan-log bundled-v0.6.6.log --keys-out k66
run tunetab generate --device h200 --keys k66 --dtype bf16 --flashinfer 0.6.6 -o out66
run tunetab validate out66/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.6 -q
run tunetab scan-log bundled-v0.6.13.log --keys-out k13
run tunetab generate --device h200 --keys k13 --dtype bf16 --flashinfer 0.6.13 -o out13
ls out13

echo "== ANSI colours and CRLF"
esc=$(printf '\033')
{
    printf '%s[32mINFO%s[0m 2026-07-01 10:00:00,001 - flashinfer.jit: %s[1m[Autotuner]%s[0m: Autotuning process starts ...\r\n' "$esc" "$esc" "$esc" "$esc"
    printf '%s[33m2026-07-01 10:00:00,002 - WARNING - flashinfer.jit: [AutoTuner]: No tuned config covers fp8_gemm input_shapes=(torch.Size([1, 8192, 2048]),); falling back to runner=CutlassFp8GemmRunner tactic=-1.  This shape is outside the tuning bucket range%s[0m\r\n' "$esc" "$esc"
    printf 'tqdm cursor moves %s[A%s[A are not tags\r\n' "$esc" "$esc"
    printf '%s[36m[AutoTuner]: Tuning fp8_gemm: 100%%|##########| 21/21 [00:07<00:00,  2.86profile/s]%s[0m\r\n' "$esc" "$esc"
    printf '2026-07-01 10:00:09,000 - INFO - flashinfer.jit: [Autotuner]: Autotuning process ends\r\n'
} >ansi-crlf.log
run tunetab scan-log ansi-crlf.log

echo "== gzip"
gzip -c -n bundled-v0.6.6.log >b66.log.gz
gzip -c -n trtllm-fallback.log >trt.log.gz
cat b66.log.gz trt.log.gz >two-members.gz
run tunetab scan-log b66.log.gz
run tunetab scan-log - <trt.log.gz
run tunetab scan-log two-members.gz
# committed, so the cut point does not depend on the local gzip: made with
#   gzip -c -n bundled-v0.6.6.log | head -c 400 >cut.log.gz
#   { gzip -c -n bundled-v0.6.6.log | head -c 60; printf 'this is not deflate data at all, just junk bytes'; } >corrupt.log.gz
cp "$L"/cut.log.gz "$L"/corrupt.log.gz .
run tunetab scan-log cut.log.gz
run tunetab scan-log corrupt.log.gz

echo "== lines over 1 MB, a final line with no newline, binary junk"
python3 - <<'PY'
big = b"x" * (3 << 20)
with open("long-lines.log", "wb") as f:
    f.write(b"short line\n")
    f.write(big + b" 2026-07-01 10:00:00,001 - INFO - flashinfer.jit: [Autotuner]: Autotuning process starts ...\n")
    f.write(b"[Autotuner]: Loaded 7 configs from /tmp/cache.json" + b" " * (2 << 20) + b"\n")
    f.write(big + b"[AutoTuner]: Tuning fp4_gemm:  50%|#####     | 7/14 [00:02<00:02,  3.10profile/s]" + big + b"\n")
    f.write(b"2026-07-01 10:00:09,000 - INFO - flashinfer.jit: [Autotuner]: Autotuning process ends")
junk = bytes(range(256)) * 64
with open("binary-junk.log", "wb") as f:
    f.write(junk + b"\n")
    f.write(b"\x00\x00[Autotuner]: Autotuning process starts ...\x00\xff\xfe\n")
    f.write(junk.replace(b"\n", b"") + b"[Autotuner]: Loaded 3 configs from /tmp/\xff\xc3\x28bad-utf8.json\n")
    f.write(b"[AutoT\x00uner]: not a tag\n[Autotu")
PY
run tunetab scan-log long-lines.log
tunetab scan-log - <long-lines.log | sed 's/<stdin>/long-lines.log/' >stdin.out || true
tunetab scan-log long-lines.log >file.out || true
cmp file.out stdin.out && echo "mapped file and stdin stream: identical output"
run tunetab scan-log binary-junk.log
python3 -c 'import sys; sys.stdout.buffer.write(b"[Autotuner]: Skipping tactic MoERunner 3, due to failure while profiling: " + b"E" * (2 << 20) + b"\n")' >long-error.log
tunetab scan-log long-error.log | awk '{ print (length($0) > 262144 + 200 ? "too long" : substr($0, 1, 100)) }' || true

echo "== JSON"
tunetab scan-log --json json-cache-head.log trtllm-fallback.log >j.json || true
python3 - j.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["files"]:
    print(f["file"], f["totals"], sorted(f["counts"].items()))
    for e in f["events"]:
        if e["kind"] in ("cache-mismatch", "progress", "fallback-tactic"):
            print("  ", e["line"], e["kind"], e.get("severity"), e.get("op"), e.get("done"), e.get("total"),
                  e.get("profiles_per_s"), e.get("elapsed_s"), e.get("shapes"))
PY

echo "== exit codes"
run tunetab scan-log noise-only.log
run tunetab scan-log no-such.log noise-only.log
run tunetab scan-log --bogus noise-only.log
run tunetab scan-log - -
run tunetab scan-log noise-only.log --keys-out no-such-dir/k
run tunetab scan-log --keys-out
