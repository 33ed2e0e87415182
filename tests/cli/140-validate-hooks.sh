# 140-validate-hooks: `tunetab validate` before a commit and in CI (docs/commands/validate.md, "Checking tables
# before they are committed"). The plain git hook scripts/hooks/pre-commit in a temporary
# repository: a good table is committed, a broken one is refused with validate's message, and
# what counts is the staged text; the pre-commit framework's hook (.pre-commit-hooks.yaml and
# its entry); the GitHub Actions example scripts/ci/github-actions-validate.yml parses as
# YAML, names make targets that exist, and its validate command works.
. "$ROOT/tests/lib.sh"
OK=$ROOT/tests/data/tables/ok-py-h200-bf16/v0_1_trtllm_fused_moe_NVIDIA_H200.py
T=v0_1_trtllm_fused_moe_NVIDIA_H200.py
# the hooks find tunetab on PATH; git reads no configuration but the repository's
mkdir bin && ln -s "$TUNETAB" bin/tunetab
PATH=$PWD/bin:$PATH
GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export PATH GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
broken() { sed '3s/: (0, 18),/: (0, 999),/' "$OK"; } # a tactic id no H200 catalog has

# commit MESSAGE: commits what is staged; prints the hook's output, the status, the count
commit() {
    set +e
    git commit -q -m "$1" >"$TT_TMP/out" 2>&1
    rc=$?
    set -e
    sed "s|$ROOT|<root>|g" "$TT_TMP/out"
    echo "[commit '$1': exit $rc, $(git rev-list --count HEAD 2>/dev/null || echo 0) commits]"
}

echo "--- the plain git hook"
git init -q repo
cd repo
cp "$ROOT/scripts/hooks/pre-commit" .git/hooks/pre-commit
git config tunetab.validateOptions "--flashinfer 0.6.18 --dtype bf16"
echo "print('not a table')" >tool.py
git add tool.py
commit "no table in it"
mkdir -p tables/h200
broken >tables/h200/$T
git add tables
commit "a broken table"
cp "$OK" tables/h200/          # fixed in the working tree, not staged: still refused
commit "the fix, unstaged"
git add tables
commit "the fix, staged"
git config --unset tunetab.validateOptions  # then validate targets the newest known version
mkdir -p tables/h200-copy
cp "$OK" tables/h200-copy/
git add tables
commit "a 0.6.18 table, no options"
git reset -q --hard
cd ..

echo "--- the pre-commit framework's hook"
python3 - "$ROOT" <<'PY'
import os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, ".pre-commit-hooks.yaml")).read()
try:
    import yaml
    hooks = yaml.safe_load(text)
except ImportError:  # the fields this test reads, from "key: value" lines
    hooks = [dict(re.findall(r"^[- ] (\w+): (.*)$", text, re.M))]
    hooks[0]["pass_filenames"] = hooks[0]["pass_filenames"] == "true"
h = hooks[0]
print("hooks:", len(hooks), "id:", h["id"], "language:", h["language"], "pass_filenames:", h["pass_filenames"])
entry = os.path.join(root, h["entry"])
print("entry:", h["entry"], "executable:", os.access(entry, os.X_OK))
git_hook = open(os.path.join(root, "scripts/hooks/pre-commit")).read()
print("the git hook's pattern is the same:", "pattern='%s'" % h["files"] in git_hook)
for name in ["tables/h200/v0_1_trtllm_fused_moe_NVIDIA_H200.py", "v0_2_9_trtllm_fused_moe_NVIDIA_B200.py",
             "c/flashinfer_autotune_NVIDIA_H200.json", "c/tunetab_provenance_NVIDIA_H200.json",
             "tool.py", "package.json", "trtllm_fused_moe_NVIDIA_H200.py", "v0_1_trtllm_fused_moe_X.py.orig"]:
    print("  %-52s %s" % (name, "checked" if re.search(h["files"], name) else "not checked"))
PY
# the entry as pre-commit calls it: the hook's args, then the matching staged files
mkdir -p fw/a fw/b
cp "$OK" fw/a/
broken >fw/b/$T
run "$ROOT/scripts/hooks/tunetab-validate" --flashinfer 0.6.18 --dtype bf16 fw/a/$T
run "$ROOT/scripts/hooks/tunetab-validate" --flashinfer 0.6.18 --dtype bf16 fw/a/$T fw/b/$T

echo "--- the GitHub Actions example"
mkdir -p ws/.tunetab/build ws/tables/h200
ln -s "$TUNETAB" ws/.tunetab/build/tunetab
cp "$OK" ws/tables/h200/
python3 - "$ROOT" ws <<'PY'
import os, re, subprocess, sys
root, ws = sys.argv[1], sys.argv[2]
text = open(os.path.join(root, "scripts/ci/github-actions-validate.yml")).read()
assert "\t" not in text
try:
    import yaml
    doc = yaml.safe_load(text)
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    job = doc["jobs"]["validate"]
    env, steps = job["env"], job["steps"]
except ImportError:  # a minimal reading: the top-level keys, env and the steps' run lines
    doc = dict.fromkeys(re.findall(r"^(\w+):", text, re.M))
    on = dict.fromkeys(re.findall(r"^  (\w+):", text.split("\njobs:")[0].split("\non:")[1], re.M))
    env = dict(re.findall(r"^      (\w+): (\S+)", text, re.M))
    env = {k: v.strip('"') for k, v in env.items()}
    steps = [{"name": n, **({"run": r} if r else {})} for n, r in
             re.findall(r"^      - name: (.*)\n(?:(?:        (?!run:).*)?\n)*?(?:        run: (.*))?(?=\n\n|\n?$)", text, re.M)]
print("top level:", sorted("on" if k is True else k for k in doc), "triggers:", sorted(on))
print("env:", env)
for s in steps:
    print("step:", s["name"], "| run:", s.get("run", "-"))
# the make targets it runs exist (make -q: 2 means no such target)
for s in steps:
    m = re.match(r"make -C \.tunetab(.*)$", s.get("run", ""))
    if m:
        args = [a for a in m.group(1).split() if not a.startswith("-j")]
        rc = subprocess.run(["make", "-C", root, "-q"] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        print("make", " ".join(args) or "(default)", "in the checkout:", "target exists" if rc != 2 else "NO SUCH TARGET")
# the validate step, as the runner would run it (bash -e), with the options its comment
# suggests; then again with a broken table beside the good one
cmd = [s["run"] for s in steps if "validate" in s.get("run", "")][0]
env = dict(os.environ, **env)
env["VALIDATE_OPTIONS"] = "--flashinfer 0.6.18 --dtype bf16"
for label in ["good table", "and a broken one"]:
    if label != "good table":
        good = open(os.path.join(ws, "tables/h200/v0_1_trtllm_fused_moe_NVIDIA_H200.py")).read()
        open(os.path.join(ws, "tables/v0_1_trtllm_fused_moe_NVIDIA_H200.py"), "w").write(
            good.replace(": (0, 18),", ": (0, 999),", 1))
    p = subprocess.run(["bash", "-e", "-c", cmd], cwd=ws, env=env, capture_output=True, text=True)
    print("%s: exit %d" % (label, p.returncode))
    sys.stdout.write(p.stdout + p.stderr)
PY
