# 130-command-table: the command table (src/cmd.c) is the one source of the command line.
# Its own check (every option a usage line names is an option, every option is in its usage
# line or marked brief, ids unique); each option it lists is taken by the command's parsing
# (given a value, then an unknown option: the error must name the unknown one); and
# docs/tunetab.1, the reference pages' option tables (docs/commands/*.md) and README's
# table of commands are what it makes (`make docs`).
. "$ROOT/tests/lib.sh"
run tunetab help --check
docs_drift() { sh "$ROOT/scripts/dev/docs-from-table.sh" "$TUNETAB" --check; }
run docs_drift

bogus=--zzz-not-an-option
n=0
for c in $(tunetab help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
    # rows "| `--name ARG` | ..." or "| `-x ARG`, `--name ARG` | ..."
    tunetab help --markdown "$c" | sed -n 's/^| \(`-[a-zA-Z][^`]*`, \)\{0,1\}`--\([a-z-]*\)\( [^`]*\)\{0,1\}` |.*/\2\3/p' >opts
    while read -r name arg; do
        set -- "--$name"
        if [ -n "$arg" ]; then
            # a value the parsing takes: a fixed choice, KEY=VALUE, or a number
            v=$(echo "$arg" | tr '|' '\n' | grep -E '^[a-z0-9._-]+$' | head -n 1 || true)
            case $arg in *=*) v=k=v ;; D) v=bf16 ;; esac
            set -- "$@" "${v:-1000}"
        fi
        set +e
        "$TUNETAB" "$c" "$@" $bogus >out 2>&1
        rc=$?
        set -e
        if grep -q -e "$bogus" out || [ $rc = 0 ]; then
            n=$((n + 1))
        else
            echo "$c $*: not taken:"
            cat out
        fi
    done <opts
done
echo "$n options taken by their commands"
