# 071-merge-order: determinism. Four inputs (two shards of a measured run, a predicted run,
# a FlashInfer-style JSON cache with no provenance) merged in all 24 orders, as folders and as
# files: byte-identical outputs and messages. A merge merged again with more inputs, in any
# grouping, gives the bytes of merging everything at once; so does merging a merge with one
# of its own inputs.
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
$MK a --shard 0/2 1:1=19:m:10.5 1:4=36:m:12.5 2:1=-1:f:8 2:4=100:m:9.25
$MK b --shard 1/2 1:2=36:m:11 1:8=36:m:14 2:2=100:m:8.5 2:8=100:p:9
# c measured 2:4 exactly as a did: the same tactic, source and time from another run, so the
# whole content decides which provenance is kept (c's run sorts first), never the input names
$MK c --run 0000000000000003 --model GLM-5 --meta cuda_version=13.0 \
    1:1=20:p:4 1:2=36:p:30 1:4=21:p:6 1:8=36:p:12 2:1=99:p:7 2:2=101:p 2:4=100:m:9.25 2:8=99:p:8.5
$MK d --no-prov --format json --meta cuda_version=12.9 --meta cublas_version=12.9.1 \
    1:1=18 1:16=40 2:8=98 2:16=101
run tunetab merge all a b c d
ls all
bytes_as() { # $1 label, then the inputs: merge into o and compare with all/
    label=$1
    shift
    rm -rf o
    tunetab merge o "$@" 2>"msg.$label" || echo "$label: exit $?"
    for f in all/*; do cmp "$f" "o/${f#all/}" || echo "$label: ${f#all/} differs"; done
}
merge_as() { # the same, and the same messages (the inputs have the same names)
    bytes_as "$@"
    cmp -s msg.first "msg.$1" || { echo "$1: messages differ"; diff msg.first "msg.$1"; }
}
rm -rf o && tunetab merge o a b c d 2>msg.first
n=0
for p in "a b c d" "a b d c" "a c b d" "a c d b" "a d b c" "a d c b" \
         "b a c d" "b a d c" "b c a d" "b c d a" "b d a c" "b d c a" \
         "c a b d" "c a d b" "c b a d" "c b d a" "c d a b" "c d b a" \
         "d a b c" "d a c b" "d b a c" "d b c a" "d c a b" "d c b a"; do
    # shellcheck disable=SC2086
    merge_as "order-$n" $p
    n=$((n + 1))
done
echo "$n orders merged"
merge_as files-reversed d/* c/* b/* a/*
merge_as files-mixed b/tunetab_provenance_NVIDIA_H200.json d c/v0_1_trtllm_fused_moe_NVIDIA_H200.py \
    a c/flashinfer_autotune_NVIDIA_H200.json
echo "every order: the same bytes and messages"
# merges of merges (their messages name other inputs)
tunetab merge -q ab a b && bytes_as "(a+b)+c+d" ab c d
tunetab merge -q cd c d && bytes_as "a+(c+d)+b" a cd b
tunetab merge -q --partial bc b c && tunetab merge -q --partial ad a d && bytes_as "(b+c)+(a+d)" bc ad
tunetab merge -q abc a b c && bytes_as "(a+b+c)+d" abc d
bytes_as "all+a" all a
tunetab merge -q 0c c && bytes_as "0c+a+b+d" 0c a b d
echo "every merge of merges: the same bytes"
