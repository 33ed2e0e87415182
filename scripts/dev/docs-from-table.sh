#!/bin/sh
# docs-from-table.sh TUNETAB [--check]: remakes what the command table (src/cmd.c) documents:
# docs/tunetab.1 (`tunetab help --man`: the table and the reference pages built into the
# binary) and each reference page's option table, docs/commands/<command>.md, the lines between
#   <!-- options: tunetab help --markdown CMD ... -->  and  <!-- end options -->
# (`tunetab help --markdown CMD`), and README.md's table of commands, between
#   <!-- commands: tunetab help ... -->  and  <!-- end commands -->
# (each command's summary line). Every visible command has its page, and every command that
# has options has that table in it.
# With --check it writes nothing: it prints what differs and exits 1 (tests/cli/130).
# `make docs` runs it without --check (and rebuilds the binary first, which embeds the pages).
set -eu
TUNETAB=$1
CHECK=${2:-}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
commands=$("$TUNETAB" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
mkdir -p "$tmp/commands"
"$TUNETAB" help --man >"$tmp/tunetab.1"
set -- docs/tunetab.1:"$tmp/tunetab.1"
for c in $commands; do
    page=docs/commands/$c.md
    if [ ! -f "$page" ]; then
        echo "$page: missing (every command has a reference page)"
        status=1
        continue
    fi
    if [ "$("$TUNETAB" help --markdown "$c" | wc -l)" -gt 2 ] &&
       ! grep -q "^<!-- options: tunetab help --markdown $c " "$page"; then
        echo "$page: no option table (<!-- options: tunetab help --markdown $c ... -->)"
        status=1
    fi
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
    ' "$page" >"$tmp/commands/$c.md"
    set -- "$@" "$page:$tmp/commands/$c.md"
done
awk -v tt="$TUNETAB" '
    /^<!-- commands: tunetab help / {
        print
        print "| command | what it does |"
        print "|---|---|"
        cmd = tt " help"
        while ((cmd | getline line) > 0) {
            if (line ~ /^commands:/) { on = 1; continue }
            if (on && line ~ /^  [a-z]/) {
                name = line; sub(/^  /, "", name); sub(/ .*/, "", name)
                text = line; sub(/^  [a-z-]+ +/, "", text)
                print "| `" name "` | " text " |"
            } else if (on) on = 0
        }
        close(cmd)
        skip = 1
        next
    }
    /^<!-- end commands -->$/ { skip = 0 }
    !skip { print }
' README.md >"$tmp/README.md"
set -- "$@" "README.md:$tmp/README.md"
for pair in "$@"; do
    f=${pair%%:*}
    new=${pair#*:}
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
