# 141-env-documented: every TUNETAB_* environment variable that src/, scripts/ or tests/
# reads is a row of docs/environment.md's table (the man page's ENVIRONMENT), and every row is read somewhere.
# A read: getenv("TUNETAB_X"), env_id("TUNETAB_X"), any C string that starts with TUNETAB_X
# (a name passed on), os.environ.get("TUNETAB_X") / os.environ["TUNETAB_X"], ${TUNETAB_X in
# shell. Header guards and the Makefile's -D definitions are not variables.
. "$ROOT/tests/lib.sh"
python3 - "$ROOT" <<'PY'
import os, re, sys
root = sys.argv[1]
reads = {}
patterns = {
    "c": [r'\bgetenv\("(TUNETAB_\w+)"', r'\benv_id\("(TUNETAB_\w+)"', r'"(TUNETAB_[A-Z0-9_]+)\b'],
    "py": [r'os\.environ\.get\(\s*"(TUNETAB_\w+)"', r'os\.environ\[\s*"(TUNETAB_\w+)"\]',
           r'\benv_id\("(TUNETAB_\w+)"'],
    "sh": [r'\$\{(TUNETAB_\w+?)(?:[:}=-])'],
}
kinds = {".c": "c", ".h": "c", ".cu": "c", ".py": "py", ".sh": "sh"}
for top in ["src", "scripts", "tests"]:
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            kind = kinds.get(os.path.splitext(f)[1])
            if not kind:
                continue
            path = os.path.join(d, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for p in patterns[kind]:
                for name in re.findall(p, text):
                    reads.setdefault(name, set()).add(os.path.relpath(path, root))
if "src/tune/worker.c" not in reads.get("TUNETAB_FAKE_GPU", ()):
    print("the scan found no getenv in src/: the patterns are broken")
page = open(os.path.join(root, "docs", "environment.md"), encoding="utf-8").read()
rows = set()
for line in page.splitlines():
    if line.startswith("| `TUNETAB_"):
        rows.update(re.findall(r"`(TUNETAB_\w+)`", line.split(" | ")[0]))
missing = sorted(set(reads) - rows)
stale = sorted(rows - set(reads))
for name in missing:
    print("read but not in docs/environment.md: %s (%s)" % (name, ", ".join(sorted(reads[name]))))
for name in stale:
    print("in docs/environment.md but read nowhere: %s" % name)
if not missing:
    print("every TUNETAB_ variable read by src/, scripts/ and tests/ is in docs/environment.md")
if not stale:
    print("every variable in docs/environment.md is read somewhere")
PY
