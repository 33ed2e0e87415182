# 175-flashinfer-devices: --devices with the flashinfer backend starts every GPU's worker at
# once, so that their start-ups (a Python worker's imports: seconds) overlap. The stub's
# rendezvous (tests/data/fi-stub/kernels.py) makes each worker's start wait until all have
# started: workers started one after another would never get past it, and the run would fail.
# --devices all takes its early count from CUDA_VISIBLE_DEVICES; a guess above what the first
# worker sees (3 against 2 here) starts a worker that is stopped quietly.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py" TUNETAB_FAKE_GPUS=2
unset VIRTUAL_ENV CONDA_PREFIX
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile --backend flashinfer --max-tokens 64"
mkdir meet1 meet2 meet3
TUNETAB_STUB_RENDEZVOUS=$PWD/meet1 $G --devices 0,1 -o list 2>&1 | grep -e 'from one queue' -e 'error'
tunetab validate -q list/*.py list/*.json && echo "--devices 0,1: tables valid"
ls meet1
CUDA_VISIBLE_DEVICES=0,1,2 TUNETAB_STUB_RENDEZVOUS=$PWD/meet2 $G --devices all -o all 2>&1 | grep -e 'from one queue' -e 'error' -e 'GPU 2'
ls meet2
# the test fails where the workers start one after another: here the early count (1) is
# below what the first worker sees (2), so GPU 1's worker starts only after GPU 0's answered
rc=0; CUDA_VISIBLE_DEVICES=0 TUNETAB_STUB_RENDEZVOUS=$PWD/meet3:1 $G --devices all -o late -q 2>&1 | sed 's/(python [^)]*)/(python P)/' || rc=$?
CUDA_VISIBLE_DEVICES=0 TUNETAB_STUB_RENDEZVOUS=$PWD/meet3:1 $G --devices all -o late -q >/dev/null 2>&1 || echo "exit $?"
