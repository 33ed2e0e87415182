# 062-no-side-effects: every command runs under `strace -f`: no network call, no execve but
# tunetab itself and its own GPU worker, and nothing created, renamed, removed or opened for
# writing outside the folder it was told to write to (-o, the journal next to the output).
. "$ROOT/tests/lib.sh"
F=$ROOT/../shared/fixtures
command -v strace >/dev/null || { echo "strace missing: run 'make deps'"; exit 1; }
# LeakSanitizer cannot run under ptrace; the other tests check leaks (the san variant)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
TRACE=network,execve,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat
n=0
traced() { # traced OUTDIR CMD...: strace one command, then check its trace
    out=$1; shift; n=$((n + 1))
    mkdir -p "$out"
    rc=0; strace -f -qq -e trace=$TRACE -o "trace$n.txt" "$@" >/dev/null 2>"err$n.txt" || rc=$?
    echo "$n: ${*#$TUNETAB} -> exit $rc" | sed "s|$TUNETAB|tunetab|; s|$ROOT|<root>|g"
    python3 "$ROOT/tests/check_side_effects.py" "trace$n.txt" "$out" | sed "s|$PWD/||g"
}
traced gen  "$TUNETAB" generate --device h200 --model qwen3-30b-a3b --dtype bf16 -o gen -q
traced gen  "$TUNETAB" generate --device h200 --model qwen3-30b-a3b --dtype bf16 -o gen -q
export TUNETAB_FAKE_GPU=1 # the worker fakes a GPU; it is still a separate process
traced prof "$TUNETAB" generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -o prof -q
traced cal  "$TUNETAB" calibrate -o cal/cal.yaml
unset TUNETAB_FAKE_GPU
traced conv "$TUNETAB" convert gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py --to json -o conv/c.json
traced none "$TUNETAB" validate gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py gen/flashinfer_autotune_NVIDIA_H200.json -q
traced none "$TUNETAB" explain gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py
traced none "$TUNETAB" diff gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py conv/c.json
traced keys "$TUNETAB" scan-log "$ROOT/tests/data/logs/bundled-v0.6.6.log" --keys-out keys/k
traced none "$TUNETAB" doctor --flashinfer 0.7.2 --device h200 --model qwen3-30b-a3b --dtype bf16 --cache gen/flashinfer_autotune_NVIDIA_H200.json
traced none "$TUNETAB" check-data
traced none "$TUNETAB" catalog --device h200 --dtype bf16
traced none "$TUNETAB" detect
# the checker itself must catch what it forbids
echo "self-check:"
printf '1 execve("/bin/tunetab", ["tunetab"], 0x0 /* 1 vars */) = 0\n1 execve("/bin/sh", ["sh", "-c", "x"], 0x0 /* 1 vars */) = 0\n1 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n1 openat(AT_FDCWD, "/etc/evil", O_WRONLY|O_CREAT, 0644) = 4\n' > fake.txt
python3 "$ROOT/tests/check_side_effects.py" fake.txt out | sed 's/0x0.*//' || true
