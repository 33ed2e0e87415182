# 012-validate-formats: the same findings as JSON lines, GitHub annotations and JUnit XML;
# the JSON summary line, with findings and without; JUnit XML that XML 1.0 parsers accept
# when keys hold control characters; exit codes with --strict; usage errors.
. "$ROOT/tests/lib.sh"
D=$ROOT/tests/data/tables
cp "$D/py-runner-id/v0_1_trtllm_fused_moe_NVIDIA_B200.py" b200.py
mkdir -p t && cp "$D/py-tactic-relative/v0_1_trtllm_fused_moe_NVIDIA_H200.py" t/
run tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format json
run tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format github
run tunetab validate b200.py t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --device b200 --format junit
tunetab validate b200.py --flashinfer 0.4.0 --device b200 --format junit | python3 -c 'import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.read()); print("junit parses:", d.documentElement.getAttribute("tests"), "tests,", d.documentElement.getAttribute("failures"), "failures")'
# a clean file: no findings, the summary line alone
mkdir -p ok && cp "$D/ok-py-h200-bf16/v0_1_trtllm_fused_moe_NVIDIA_H200.py" ok/
run tunetab validate ok/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.18 --dtype bf16 --format json
run tunetab validate ok/v0_1_trtllm_fused_moe_NVIDIA_H200.py t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --dtype bf16 --strict --format json
# control characters in keys (a \x01 escape in the literal; raw \x02 \x1f bytes): XML 1.0
# has no reference for them, so they appear as visible \x escapes
mkdir -p ctl
python3 - "$D/ok-py-h200-bf16/v0_1_trtllm_fused_moe_NVIDIA_H200.py" <<'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("'MoERunner'", "'MoE\\x01Runner'", 1)
s = s.replace("'trtllm::fused_moe::gemm2'", "'trtllm::fused_moe::gemm2\x02\x1f'", 1)
open("ctl/v0_1_trtllm_fused_moe_NVIDIA_H200.py", "w").write(s)
PY
set +e
tunetab validate ctl/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.18 --dtype bf16 --format junit >ctl.xml
echo "junit with control characters: exit $?"
set -e
python3 - ctl.xml <<'PY'
import re, sys, xml.dom.minidom, xml.etree.ElementTree as ET
raw = open(sys.argv[1], "rb").read()
xml.dom.minidom.parseString(raw)
root = ET.fromstring(raw)
text = "".join(root.itertext())
print("junit parses (minidom, ElementTree):", root.get("tests"), "test,", root.get("failures"), "failure")
print("character references:", len(re.findall(rb"&#x?[0-9a-fA-F]+;", raw)))
print("raw control bytes:", len(re.findall(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]", raw)))
for m in sorted(set(re.findall(r"'[^' ]*\\x[^' ]*'", text))):
    print("shown as", m)
PY
run tunetab validate t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --dtype bf16 -q
run tunetab validate t/v0_1_trtllm_fused_moe_NVIDIA_H200.py --flashinfer 0.6.13 --dtype bf16 -q --strict
run tunetab validate
run tunetab validate b200.py --format xml
run tunetab validate b200.py --flashinfer 0.1.0
run tunetab validate b200.py --flashinfer nope
run tunetab validate missing.py
