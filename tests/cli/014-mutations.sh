# 014-mutations: 400 seeded random mutations of tables (module and JSON) through the
# sanitizer build when present: every run must end with exit 0 or 1 and no sanitizer report.
. "$ROOT/tests/lib.sh"
BIN=$ROOT/build/san/tunetab
[ -x "$BIN" ] || BIN=$TUNETAB
python3 - "$BIN" "$ROOT" <<'PY'
import glob, os, random, subprocess, sys
binary, root = sys.argv[1], sys.argv[2]
seeds = sorted(glob.glob(os.path.join(root, "tests/data/tables/ok-*/*")))
seeds = [s for s in seeds if not s.endswith(("/args", "/expected"))]
rng = random.Random(20261129)
tokens = [b"(", b")", b",", b"'", b'"', b"\\", b"\n", b"{", b"}", b"[", b"]", b":", b"-", b"0",
          b"99999999999999999999", b"\xff", b"\x00", b"True", b"torch.", b"\\u", b"\"\"\"", b"#"]
crashes = runs = 0
os.makedirs("m", exist_ok=True)
for i in range(400):
    src = open(seeds[i % len(seeds)], "rb").read()
    data = bytearray(src)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(4)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:
            del data[pos:pos + rng.randint(1, 40)]
        elif op == 1:
            data[pos:pos] = rng.choice(tokens)
        elif op == 2 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            cut = rng.randrange(len(data) + 1)
            data = data[:cut]
    name = os.path.join("m", os.path.basename(seeds[i % len(seeds)]))
    open(name, "wb").write(bytes(data))
    r = subprocess.run([binary, "validate", "--flashinfer", "0.6.18", "--device", "h200", name],
                       capture_output=True)
    runs += 1
    if r.returncode not in (0, 1) or b"Sanitizer" in r.stderr or b"runtime error" in r.stderr:
        crashes += 1
        print("CRASH", i, r.returncode, r.stderr[-300:])
        open("crash-%d" % i, "wb").write(bytes(data))
print("%d mutated tables, %d crashes" % (runs, crashes))
PY
