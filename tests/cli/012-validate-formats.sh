# 012-validate-formats: the same findings as JSON lines, GitHub annotations and JUnit XML;
# exit codes with --strict; usage errors.
. "$ROOT/tests/lib.sh"
D=$ROOT/tests/data/tables
cp "$D/py-runner-id/v0_1_trtllm_fused_moe_NVIDIA_B200.py" b200.py
mkdir -p t && cp "$D/py-tactic-relative/v0_1_trtllm_fused_moe_NVIDIA_H200.py" t/
run tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format json
run tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format github
run tunetab validate b200.py t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --device b200 --format junit
tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format junit | python3 -c 'import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.read()); print("junit parses:", d.documentElement.getAttribute("tests"), "tests,", d.documentElement.getAttribute("failures"), "failures")'
run tunetab validate t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --dtype bf16 -q
run tunetab validate t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --dtype bf16 -q --strict
run tunetab validate
run tunetab validate b200.py --format xml
run tunetab validate b200.py --flashinfer 0.1.0
run tunetab validate b200.py --flashinfer nope
run tunetab validate missing.py
