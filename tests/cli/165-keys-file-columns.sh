# 165-keys-file-columns: generate --keys FILE points at the character of a key line that is
# wrong: an indented key's columns count the spaces before it, and an invalid UTF-8 byte's
# column counts characters, not bytes; UTF-8 Python rejects (an encoded surrogate) is invalid.
. "$ROOT/tests/lib.sh"
G="generate --device h200 --dtype bf16 --flashinfer 0.7.4 -q -o out --keys"
printf "   ('a', 1 2)\n" > indented.keys
run tunetab $G indented.keys
printf "# caf\303\251\n  ('\303\251\342\202\254', '\377')\n" > bytes.keys
run tunetab $G bytes.keys
printf "('\355\240\200',)\n" > surrogate.keys
run tunetab $G surrogate.keys
