# 190-worker-protocol: the worker protocol's named fields and version (issue #39). Both workers
# read a job's name=value words in any order and ignore names they do not know, and answer ERR
# naming the version of a line they do not speak, or a field it lacks: tunetab's own
# (`tunetab __worker`, the fake backend) its JOB, the Python worker
# (scripts/tunetab-fi-worker.py with the FlashInfer stub, on the CPU) PREP, ROUND and GATE. A
# parent whose lines the worker refuses (here a filter that turns their v=2 into v=1) stops
# with the worker's words.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
# GEMM1 of Qwen3-30B-A3B bf16 at 1 token (the stub's tactics 0 to 44) in another order than
# tunetab writes it, with two names no worker knows
JOB="finalize=1 biases=0 act=3 ep_rank=0 ep=1 tp_rank=0 tp=1 top_k=8 experts=128 inter=768 hidden=2048 bucket=1 stage=1 method=0 rounds=5 k=2048 features=1536 tokens=1 batch=8 dtype=bf16 future=1 graphs=on"
# short words for what varies (timings) and what is long (hex)
answers() { sed -e 's/^OK .*/OK S/' -e 's/^\(RES [0-9]* 0\) .*/\1 .../' -e 's/^T \([0-9]*\) .*/T \1 US/' -e 's/^\(G [0-9]* [a-z]*\) .*/\1 .../'; }

echo "== tunetab __worker (fake backend): JOB"
printf '%s\n' \
    "JOB n=2 $JOB reps=4 v=2 -- 3,128,128,1,1,0,0,0 4,64,128,1,1,0,0,0" \
    "JOB v=3 $JOB reps=4 n=1 -- 3,128,128,1,1,0,0,0" \
    "JOB v=2 ${JOB#finalize=1 } reps=4 n=1 -- 3,128,128,1,1,0,0,0" \
    "JOB bf16 8 1 1536 2048 5 4 0 1 1 2048 768 128 8 1 0 1 0 3 0 1 1 3,128,128,1,1,0,0,0" |
    TUNETAB_FAKE_GPU=1 tunetab __worker 0 | answers

# the entry's key (FlashInfer 0.7.2's extras), its extras' names, as tunetab sends them
KEY=$(python3 -c 'print("(\x27trtllm::fused_moe::gemm1\x27, \x27MoERunner\x27, ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))".encode().hex())')
FIELDS=$(printf %s "x_dtype,weight_dtype,output_dtype,top_k,tp_size,ep_size,cluster_size,enable_alltoall,use_deepseek_fp8_block_scale,use_w4_group_scaling,use_mxfp8_act_scaling,use_wfp4afp8_humming,min_latency_mode,enable_pdl,activation_type,use_packed_weights,use_fused_finalize" | od -An -tx1 -v | tr -d ' \n')
echo "== scripts/tunetab-fi-worker.py (FlashInfer stub): PREP, ROUND, GATE"
printf '%s\n' \
    "LOAD bf16" \
    "PREP v=3 $JOB reps=32 key=$KEY fields=$FIELDS runner=- n=2 -- 3 5" \
    "PREP v=2 $JOB reps=32 fields=$FIELDS runner=- n=2 -- 3 5" \
    "PREP bf16 8 1 1536 2048 5 32 0 1 1 2048 768 128 8 1 0 1 0 3 0 1 2 $KEY $FIELDS - 3 5" \
    "PREP runner=- key=$KEY v=2 $JOB reps=32 n=2 fields=$FIELDS -- 3 5" \
    "ROUND v=3 method=0 min_reps=1 n=2 -- 3 5" \
    "ROUND v=2 method=0 n=2 -- 3 5" \
    "ROUND n=2 min_reps=16 later=yes v=2 method=0 -- 3 5:16" \
    "GATE v=3 bound=0.02 ref_bound=0.05 $JOB reps=32 key=$KEY fields=$FIELDS runner=- n=1 -- 3" \
    "GATE v=2 bound=0.02 $JOB reps=32 key=$KEY fields=$FIELDS runner=- n=1 -- 3" \
    "GATE ref_bound=0.05 v=2 $JOB reps=32 key=$KEY fields=$FIELDS runner=- bound=0.02 n=1 -- 3" |
    python3 "$ROOT/scripts/tunetab-fi-worker.py" 0 | answers

echo "== a parent of another version"
cat >py-v1 <<'EOF'
#!/bin/sh
sed -u 's/ v=2 / v=1 /' | exec python3 "$@"
EOF
chmod +x py-v1
run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 1 --profile --backend flashinfer --python ./py-v1 -o v1 -q
