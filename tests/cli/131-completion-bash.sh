# 131-completion-bash: `tunetab completion bash`, sourced in bash, completes commands, option
# names and the fixed choices of option values from the command table; hidden commands are
# not offered; an empty answer leaves bash to complete file names (complete -o default).
. "$ROOT/tests/lib.sh"
mkdir w
cd w
tunetab completion bash >tunetab.bash
bash -n tunetab.bash && echo "syntax ok"
mkdir somedir
: >somefile
comp() { # WORD...: what _tunetab offers for the last word
    bash -c '. ./tunetab.bash
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tunetab
        printf "%s" "$*"; printf " -> %s\n" "${COMPREPLY[*]}"' comp "$@"
}
comp tunetab gen
comp tunetab ''
comp tunetab __w
comp tunetab generate --for
comp tunetab generate --format ''
comp tunetab generate --format = j
comp tunetab generate --method f
comp tunetab generate -o ''
comp tunetab generate --tp ''
comp tunetab validate --format g
comp tunetab validate --q
comp tunetab doctor --for ''
comp tunetab install --stamp ''
comp tunetab help ex
comp tunetab completion ''
comp tunetab check-data ''
bash -c '. ./tunetab.bash; complete -p tunetab'
