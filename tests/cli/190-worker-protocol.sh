# 190-worker-protocol: the worker protocol (docs/development.md "The worker protocol"; issues
# #39, #46): every message, both directions, is "VERB v=3 NAME=VALUE ..." from one table per
# language, and the two tables are the same. Both workers read a request's words in any order,
# ignore names and list columns they do not know, and refuse a line of another version naming
# both versions, or one without a field it needs naming the field: tunetab's own (`tunetab
# __worker`, the fake backend) its WHO and JOB, the Python worker (scripts/tunetab-fi-worker.py
# with the FlashInfer stub, on the CPU) LOAD, PREP, ROUND and GATE. tunetab reads the worker's
# replies the same way: replies with names it does not know make the same table, and a worker
# of another version, either way (filters that rewrite the requests' or the replies' v=), stops
# the run with both versions named.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX

echo "== the two tables"
tunetab __worker --table >c.table
python3 "$ROOT/scripts/tunetab-fi-worker.py" --table >py.table
cmp c.table py.table && echo "tunetab's (src/tune/wire.c) and the Python worker's (MESSAGES): the same $(wc -l <c.table) messages"

# GEMM1 of Qwen3-30B-A3B bf16 at 1 token (the stub's tactics 0 to 44) in another order than
# tunetab writes it, with two names no worker knows
JOB="fused_finalize=1 biases=0 act=3 ep_rank=0 ep=1 tp_rank=0 tp=1 top_k=8 local_experts=128 inter=768 hidden=2048 bucket=1 stage=1 method=0 rounds=5 k=2048 features=1536 tokens=1 batch=8 dtype=bf16 future=1 graphs=on"
COLS="cols=id,tile_m,tile_n,cluster_m,cluster_n,stages,swap,sm80"
# short words for what varies (timings) and what is long (hex)
answers() { sed -e 's/^OK v=3 .*/OK v=3 S/' -e 's/^\(RES v=3 id=[0-9]* status=0\) .*/\1 .../' -e 's/^\(T v=3 id=[0-9]*\) .*/\1 US/' -e 's/^\(G v=3 id=[0-9]* verdict=[a-z]*\) .*/\1 .../'; }

echo "== tunetab __worker (fake backend): WHO, JOB"
printf '%s\n' \
    "WHO later=yes v=3" \
    "JOB cands=2 $JOB reps=4 v=3 cols=id,tile_m,tile_n,later,cluster_m,cluster_n,stages,swap,sm80 -- 3,128,128,x,1,1,0,0,0 4,64,128,y,1,1,0,0,0" \
    "JOB v=4 $JOB reps=4 cands=1 $COLS -- 3,128,128,1,1,0,0,0" \
    "JOB v=3 ${JOB#fused_finalize=1 } reps=4 cands=1 $COLS -- 3,128,128,1,1,0,0,0" \
    "JOB v=3 $JOB reps=4 cands=2 $COLS -- 3,128,128,1,1,0,0,0" \
    "JOB v=2 finalize=1 biases=0 act=3 ep_rank=0 ep=1 tp_rank=0 tp=1 top_k=8 experts=128 inter=768 hidden=2048 bucket=1 stage=1 method=0 rounds=5 k=2048 features=1536 tokens=1 batch=8 dtype=bf16 reps=4 n=1 -- 3,128,128,1,1,0,0,0" \
    "JOB bf16 8 1 1536 2048 5 4 0 1 1 2048 768 128 8 1 0 1 0 3 0 1 1 3,128,128,1,1,0,0,0" \
    "WHO" \
    "ROUND v=3 method=0 min_reps=1 cands=0 cols=id,reps --" |
    TUNETAB_FAKE_GPU=1 tunetab __worker 0 | answers

# the entry's key (FlashInfer 0.7.2's extras), its extras' names, as tunetab sends them
KEY=$(python3 -c 'print("(\x27trtllm::fused_moe::gemm1\x27, \x27MoERunner\x27, ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))".encode().hex())')
FIELDS=$(printf %s "x_dtype,weight_dtype,output_dtype,top_k,tp_size,ep_size,cluster_size,enable_alltoall,use_deepseek_fp8_block_scale,use_w4_group_scaling,use_mxfp8_act_scaling,use_wfp4afp8_humming,min_latency_mode,enable_pdl,activation_type,use_packed_weights,use_fused_finalize" | od -An -tx1 -v | tr -d ' \n')
echo "== scripts/tunetab-fi-worker.py (FlashInfer stub): LOAD, PREP, ROUND, GATE"
printf '%s\n' \
    "LOAD dtype=bf16 later=yes v=3" \
    "PREP v=4 $JOB reps=32 key=$KEY key_fields=$FIELDS runner_args=- cands=2 cols=id -- 3 5" \
    "PREP v=3 $JOB reps=32 key_fields=$FIELDS runner_args=- cands=2 cols=id -- 3 5" \
    "PREP v=2 finalize=1 biases=0 act=3 ep_rank=0 ep=1 tp_rank=0 tp=1 top_k=8 experts=128 inter=768 hidden=2048 bucket=1 stage=1 method=0 rounds=5 k=2048 features=1536 tokens=1 batch=8 dtype=bf16 reps=32 key=$KEY fields=$FIELDS runner=- n=2 -- 3 5" \
    "PREP runner_args=- key=$KEY v=3 $JOB reps=32 cands=2 cols=later,id key_fields=$FIELDS -- x,3 y,5" \
    "ROUND v=4 method=0 min_reps=1 cands=2 cols=id,reps -- 3,0 5,0" \
    "ROUND v=3 method=0 cands=2 cols=id,reps -- 3,0 5,0" \
    "ROUND v=3 method=0 min_reps=1 cands=3 cols=id,reps -- 3,0 5,0" \
    "ROUND cands=2 min_reps=16 later=yes v=3 method=0 cols=id,reps -- 3,0 5,16" \
    "GATE v=4 bound=0.02 ref_bound=0.05 $JOB reps=32 key=$KEY key_fields=$FIELDS runner_args=- cands=1 cols=id -- 3" \
    "GATE v=3 bound=0.02 $JOB reps=32 key=$KEY key_fields=$FIELDS runner_args=- cands=1 cols=id -- 3" \
    "GATE ref_bound=0.05 v=3 $JOB reps=32 key=$KEY key_fields=$FIELDS runner_args=- bound=0.02 cands=1 cols=id -- 3" \
    "WHO" \
    "JOB v=3 $JOB reps=4 cands=0 $COLS --" |
    python3 "$ROOT/scripts/tunetab-fi-worker.py" 0 | answers

G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 1 --profile --backend flashinfer"
echo "== replies with names tunetab does not know: the same table"
cat >py-later <<'EOF'
#!/bin/sh
python3 "$@" | sed -u 's/ v=3\b/ v=3 later=yes/'
EOF
chmod +x py-later
$G --python python3 -o plain -q
$G --python ./py-later -o later -q
cmp plain/flashinfer_autotune_NVIDIA_H200.json later/flashinfer_autotune_NVIDIA_H200.json && echo "the same table"

echo "== a worker of another version, either way"
# a parent of version 2, as the worker sees it
cat >py-v2-parent <<'EOF'
#!/bin/sh
sed -u 's/ v=3\b/ v=2/' | exec python3 "$@"
EOF
# a worker of version 4
cat >py-v4-worker <<'EOF'
#!/bin/sh
python3 "$@" | sed -u 's/ v=3\b/ v=4/'
EOF
chmod +x py-v2-parent py-v4-worker
run $G --python ./py-v2-parent -o v2 -q
run $G --python ./py-v4-worker -o v4 -q
ls -d v2 v4 2>/dev/null || echo "nothing written"
