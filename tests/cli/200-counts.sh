# 200-counts: issue #46's counts of the source (tests/counts.py; the finalize flag's struct
# members, command file sizes, the JSON fence, layer breaches, the cli.c/help.c circle), each
# with its limit and whether it is over; the duplicates tool's pairs are counted by
# `python3 tests/counts.py` itself, not here (its rows vary with the tool and its time limit).
python3 "$ROOT/tests/counts.py" --brief --no-duplicates "$ROOT" && echo "exit 0" || echo "exit $?"
