#!/usr/bin/env bash
# run.sh [CASES_FILE]: runs fi_oracle.py, in the venvs setup.sh made, on every case of
# tests/flashinfer/cases.txt and checks FlashInfer's answer against the expectation.
#
# Case lines: VERSION|DEVICE|TABLE_PATH|EXPECT[|ORACLE_ARGS]
#   TABLE_PATH  relative to the repository root; $SHARED is the shared folder ($SHARED from the
#               environment, else ../shared beside the repository, else /work/shared)
#   EXPECT      hit-all     loaded, no error, at least one key and every key hits
#               hit-none    loaded, no error, no key hits
#               not-loaded  FlashInfer did not load the table (wrong name, environment mismatch,
#                           no JSON support), no error
#               error       FlashInfer raised on the table
#   ORACLE_ARGS extra fi_oracle.py arguments, e.g. --place-as expected or
#               --deployment '{"x_dtype": "torch.uint8", ...}'. Split like shell words (Python's
#               shlex: quotes group, nothing is expanded), so a JSON object fits in '...'.
# '#' starts a comment line. A case whose venv or shared folder is missing is skipped.
# Prints one line per case and "N passed, N failed, N skipped"; exits 1 when one failed.
# VERBOSE=1 prints the oracle's stderr for failures; FI_VENV_DIR as in setup.sh.
# With TUNETAB=path/to/tunetab each case also runs `tunetab validate` for that version and
# device and fails when tunetab and FlashInfer disagree (accepted <=> every key hits).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
VENVS=${FI_VENV_DIR:-$root/.venv-flashinfer}
CASES=${1:-$here/cases.txt}
if [ -z "${SHARED:-}" ]; then
    if [ -d "$root/../shared" ]; then SHARED=$(cd "$root/../shared" && pwd)
    else SHARED=/work/shared; fi
fi
export LC_ALL=C

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0 n=0

while IFS= read -r line || [ -n "$line" ]; do
    case $line in ''|'#'*) continue ;; esac
    IFS='|' read -r version device table expect extra <<EOF
$line
EOF
    n=$((n + 1))
    label="$version|$device|$table|$expect${extra:+|$extra}"
    [ ${#label} -gt 160 ] && label="${label:0:157}..."
    case $expect in hit-all|hit-none|not-loaded|error) ;;
        *) echo "FAIL $label: unknown expectation '$expect'"; fail=$((fail + 1)); continue ;;
    esac
    path=${table//\$SHARED/$SHARED}
    case $path in /*) ;; *) path=$root/$path ;; esac
    py=$VENVS/$version/bin/python
    if [ ! -x "$py" ]; then
        echo "skip $label: no venv (tests/flashinfer/setup.sh $version)"; skip=$((skip + 1)); continue
    fi
    if [ ! -f "$path" ]; then
        case $table in *'$SHARED'*)
            echo "skip $label: no shared folder ($path)"; skip=$((skip + 1)); continue ;;
        esac
        echo "FAIL $label: no such table '$path'"; fail=$((fail + 1)); continue
    fi
    args=()
    if [ -n "$extra" ]; then
        if ! "$py" -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))' \
            "$extra" >"$tmp/args" 2>"$tmp/err.txt"; then
            echo "FAIL $label: ORACLE_ARGS: $(tail -1 "$tmp/err.txt")"; fail=$((fail + 1)); continue
        fi
        mapfile -d '' -t args <"$tmp/args"
    fi
    "$py" "$here/fi_oracle.py" --table "$path" --device "$device" ${args[@]+"${args[@]}"} \
        <"/dev/null" >"$tmp/out.json" 2>"$tmp/err.txt"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $label: oracle exit $rc: $(grep -m1 'fi_oracle: error' "$tmp/err.txt" || tail -1 "$tmp/err.txt")"
        fail=$((fail + 1)); continue
    fi
    verdict=$("$py" - "$tmp/out.json" "$expect" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
expect = sys.argv[2]
n = d["hits"] + d["misses"]
if d["error"] is not None:
    got = "error"
    text = "error: " + d["error"].splitlines()[0][:100]
elif not d["loaded"]:
    got = "not-loaded"
    why = d.get("note") or ""
    m = re.search(r"different environment \((.*)\)\. Ignoring", why)
    if m:  # FlashInfer's metadata mismatch warning: keep just the fields
        why = "metadata " + re.sub(r"(current=[^,]{24})[^,]*", r"\1...", m.group(1))
    if d["kind"] == "py" and not d.get("name_matches", True):
        why = f"looks for {d['file_name_expected']}"
    if len(why) > 140:
        why = why[:137] + "..."
    text = "not loaded" + (f" ({why})" if why else "")
elif n and d["misses"] == 0:
    got, text = "hit-all", f"loaded, {d['hits']}/{n} hit"
elif d["hits"] == 0:
    got, text = "hit-none", f"loaded, 0/{n} hit"
else:
    got, text = "some", f"loaded, {d['hits']}/{n} hit"
rr = d.get("real_runner")
if rr and got in ("hit-all", "hit-none", "some"):
    text += (f"; real MoERunner: 3-tuple lookup key (no extras)" if rr["lookup_key_form"] == "3-tuple"
             else f"; real MoERunner extras: {rr['extras_len']} fields")
print(("ok" if got == expect else "BAD") + f" FlashInfer {d['flashinfer_version']} {d['kind']}: {text}")
PY
)
    # tunetab validate must agree with FlashInfer: a table it accepts is loaded and every
    # key hits; a table it rejects for a load-breaking reason is not loaded, hits nothing
    # or makes FlashInfer raise. (--place-as cases rename the file: validate checks names.)
    if [ -n "${TUNETAB:-}" ] && [ "${extra#--place-as}" = "$extra" ]; then
        "$TUNETAB" validate --flashinfer "$version" --device "$device" --format json "$path" \
            >"$tmp/tt.json" 2>"$tmp/tt.err"
        ttrc=$?
        agree=$(python3 - "$tmp/tt.json" "$ttrc" "$expect" "${extra:-}" <<'PY'
import json, sys
finds = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
finds = [f for f in finds if "summary" not in f]  # the closing line sums the findings up
rc, expect = int(sys.argv[2]), sys.argv[3]
breaking = {"never-loaded", "syntax", "best-configs", "json-top-level", "key-form", "extras",
            "key-canonical", "json-metadata", "device-mismatch", "file-name", "json-value"}
errs = sorted({f["check"] for f in finds if f["severity"] == "error"})
# Without --deployment the oracle takes a key's extras from the key itself, so it cannot see
# a key whose extras the real runner would not build: those findings are not comparable.
extras_only = [f for f in finds if f["severity"] == "error" and (f["check"] == "extras" or
               (f["check"] == "never-loaded" and "no key here has them" in f["message"]))]
if extras_only and "--deployment" not in sys.argv[4]:
    errs = sorted({f["check"] for f in finds if f["severity"] == "error" and f not in extras_only})
    if not set(errs) & {"never-loaded", "syntax", "best-configs", "json-top-level", "key-form",
                        "key-canonical", "json-metadata", "device-mismatch", "file-name", "json-value"}:
        print("agree (tunetab's extras findings are not comparable: the oracle takes extras from the key)")
        sys.exit(0)
if rc == 0 and not errs:
    print("agree" if expect == "hit-all" else "DISAGREE: tunetab accepts, FlashInfer " + expect)
elif set(errs) & breaking:
    print("agree" if expect != "hit-all" else
          "DISAGREE: tunetab rejects (" + ",".join(errs) + "), FlashInfer hits every key")
else:
    print("agree (tunetab: " + ",".join(errs) + ")")
PY
)
        case $agree in
            agree*) verdict="$verdict; tunetab validate: $agree" ;;
            *) verdict="BAD ${verdict#* }; tunetab validate: $agree" ;;
        esac
    fi
    case $verdict in
        "ok "*) echo "ok   $label: ${verdict#ok }"; pass=$((pass + 1)) ;;
        *) echo "FAIL $label: ${verdict#BAD }"; fail=$((fail + 1))
           [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$tmp/err.txt" | tail -20 ;;
    esac
done <"$CASES"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
