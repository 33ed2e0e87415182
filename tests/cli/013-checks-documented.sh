# 013-checks-documented: every validate check id is in validate's reference page
# (docs/commands/validate.md, in `tunetab help validate` and the man page) and is produced by at
# least one broken table in tests/data/tables (its golden output).
. "$ROOT/tests/lib.sh"
tunetab validate --list-checks | while read -r id rest; do
    grep -q "| \`$id\` |" "$ROOT/docs/commands/validate.md" || echo "not in docs/commands/validate.md: $id"
    cat "$ROOT"/tests/data/tables/*/expected | grep -q "\[$id\]" || echo "no test table produces: $id"
done
echo "checks: $(tunetab validate --list-checks | wc -l)"
