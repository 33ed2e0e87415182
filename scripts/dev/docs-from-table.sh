#!/bin/sh
# docs-from-table.sh TUNETAB [--check]: remakes what the command table (src/cmd.c) documents:
# docs/tunetab.1 (`tunetab help --man`) and README.md's option tables, each the lines between
#   <!-- options: tunetab help --markdown CMD ... -->  and  <!-- end options -->
# (`tunetab help --markdown CMD`). Every command that has options must have such a table.
# With --check it writes nothing: it prints what differs and exits 1 (tests/cli/130).
# `make docs` runs it without --check.
set -eu
TUNETAB=$1
CHECK=${2:-}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$TUNETAB" help --man >"$tmp/tunetab.1"
awk -v tt="$TUNETAB" '
    /^<!-- options: tunetab help --markdown [a-z-]+ / {
        print
        cmd = tt " help --markdown " $6
        while ((cmd | getline line) > 0) print line
        close(cmd)
        skip = 1
        next
    }
    /^<!-- end options -->$/ { skip = 0 }
    !skip { print }
' README.md >"$tmp/README.md"

status=0
# every visible command with options has its table
for c in $("$TUNETAB" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
    if [ "$("$TUNETAB" help --markdown "$c" | wc -l)" -gt 2 ] &&
       ! grep -q "^<!-- options: tunetab help --markdown $c " README.md; then
        echo "README.md: no option table of '$c' (<!-- options: tunetab help --markdown $c ... -->)"
        status=1
    fi
done
for f in docs/tunetab.1 README.md; do
    new=$tmp/$(basename "$f")
    if cmp -s "$f" "$new"; then
        continue
    fi
    if [ "$CHECK" = --check ]; then
        echo "$f differs from what the command table makes (make docs remakes it):"
        diff -u "$f" "$new" | sed -n '3,40p'
        status=1
    else
        cp "$new" "$f"
        echo "wrote $f"
    fi
done
exit $status
