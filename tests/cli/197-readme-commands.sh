# 197-readme-commands: every command block of README.md (```sh) runs as printed, in README's
# order, in a fresh clone of this checkout without a GPU; each command line's exit status is
# shown, and the last three lines of each that exits non-zero. README's output blocks
# (```text) must be lines those commands printed, its Lua block the text of the example
# script it names (scripts/examples/conservative.lua, which tests/cli/024 runs too) and its
# YAML block the text of the workflow it quotes.
# The environment stands in for the user's machines, never for tunetab: an activated venv for
# pip; the server's Python, answering as FlashInfer 0.7.4 with SGLang 0.5.23 and vLLM 0.34.0
# installed would (the shape scripts/tunetab-fi-env.py prints), on an RTX PRO 6000 Blackwell
# machine for SGLang's block and an H200 machine for vLLM's; the models' config.json in a
# Hugging Face cache; the folder vLLM's first start makes; git's identity. README's `make
# test` is the command CI runs (.ci/run); it is not run again inside itself. What README says
# SGLang's walkthrough needs on the machine (the model's config.json, the server's Python) is
# taken away in turn: its first doctor then exits 2 and names the option README gives. Clones
# HEAD: in a working tree, commit first.
. "$ROOT/tests/lib.sh"
git clone -q "$ROOT" clone
H=$PWD
hf_cache hub nvidia/GLM-5.1-NVFP4 deepseek-ai/DeepSeek-V3 # the README's models
# the server's environment: its Python reports FlashInfer, the consumers and the GPU
# ($SERVER_GPU: the machine of the block that runs)
mkdir -p server/bin
fi_python server/bin/python '$SERVER_GPU' 0.5.23 0.34.0
cp server/bin/python server/bin/python3
printf '#!/bin/sh\nexit 0\n' >server/bin/vllm
chmod +x server/bin/*
# on PATH: the launch commands' interpreters (python3 stays the system's: make runs it)
mkdir onpath && ln -s "$PWD/server/bin/python" "$PWD/server/bin/vllm" onpath/
# the folder vLLM's first start made for its deployment (its name: a hash only vLLM computes)
mkdir -p home/.cache/vllm/flashinfer_autotune_cache/0.7.4/90a/3f9a0c2d7e1b4a6c8d5e2f0a1b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e
python3 -m venv venv
python3 - "$ROOT/README.md" >blocks.sh <<'PYEOF'
import re, shlex, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
print("set +e")
for n, b in enumerate(blocks, 1):
    lines = [l for l in b.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    if lines == ["make test"]:
        print("echo 'block %d: make test: the command CI runs (.ci/run), not run inside itself'" % n)
        continue
    gpu = "NVIDIA H200" if any("vllm serve" in l for l in lines) else \
        "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    print("echo 'block %d'; SERVER_GPU='%s'" % (n, gpu))
    for l in lines:
        shown = re.sub(r"\s+#.*$", "", l)
        print("printf '%%s\\n' %s" % shlex.quote("$ " + shown))
        print("eval %s >\"$OUT\" 2>&1 </dev/null; show $?" % shlex.quote(l))
PYEOF
# each command's status; a failing one's last lines, as the user sees them
show() {
    echo "[exit $1]"
    cat "$OUT" >>"$LOG"
    [ "$1" = 0 ] || tail -n 3 "$OUT" | sed -e "s|$H/|<tmp>/|g" -e 's/^/  | /'
}
export HOME=$H/home HF_HUB_CACHE=$H/hub VIRTUAL_ENV=$H/server LOG=$H/log OUT=$H/out PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_INDEX=1 GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@example.com GIT_COMMITTER_NAME=u \
    GIT_COMMITTER_EMAIL=u@example.com SERVER_GPU=
export PATH="$H/onpath:$H/venv/bin:$PATH"
unset TUNETAB_DATA_DIR TUNETAB_TEST_IGNORE_INSTALLED
unset -f tunetab # lib.sh's: README's commands run the tunetab pip installed
(cd clone && . "$H/blocks.sh") >statuses
cat statuses
echo "tunetab on PATH: $(command -v tunetab | sed "s|$H/||")"
# what README says SGLang's walkthrough needs on the machine: its first doctor, without the
# model's config.json in the Hugging Face cache, and without the server's Python on PATH,
# exits 2 naming the option README gives for it
python3 - "$ROOT/README.md" >needs.sh <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = next(b for b in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M) if "doctor --for sglang" in b)
lines = [re.sub(r"\s+#.*$", "", l) for l in block.splitlines() if l.strip() and not l.startswith("#")]
print("\n".join(l for l in lines if re.match(r"^[A-Z]+=", l)))
print(next(l for l in lines if "doctor --for sglang" in l))
PYEOF
need() {
    rc=0
    (cd clone && env "$@" sh "$H/needs.sh") >out 2>&1 </dev/null || rc=$?
    echo "exit $rc; $(grep -o -e '--model-config FILE' -e '--python' out | sort -u | tr '\n' ' ')"
}
echo "README's needs: without the model's config.json: $(need HF_HUB_CACHE="$H/empty-hub")"
echo "README's needs: without the server's Python: $(need PATH="$H/venv/bin:$(echo "$PATH" | sed "s|$H/onpath:||")")"
# README's output blocks (```text) are lines those commands printed
python3 - "$ROOT/README.md" log <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
log = set(open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines())
shown = [l for b in re.findall(r"^```text\n(.*?)^```", text, re.S | re.M) for l in b.splitlines()]
missing = [l for l in shown if l not in log]
print("README's output lines printed by its commands: %d of %d" % (len(shown) - len(missing), len(shown)))
for l in missing:
    print("  not printed:", l)
lua = re.findall(r"^```lua\n(.*?)^```", text, re.S | re.M)
script = open("clone/scripts/examples/conservative.lua", encoding="utf-8").read()
print("README's Lua blocks in scripts/examples/conservative.lua: %d of %d" % (sum(b in script for b in lua), len(lua)))
yml = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
wf = open("clone/scripts/ci/github-actions-validate.yml", encoding="utf-8").read()
print("README's YAML blocks in scripts/ci/github-actions-validate.yml: %d of %d" % (sum(b in wf for b in yml), len(yml)))
PYEOF
