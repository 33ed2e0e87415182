# 132-completion-zsh: `tunetab completion zsh` as zsh's completion system uses it: an
# interactive zsh in a pseudo-terminal (zsh/zpty) with the script on its fpath, each line
# typed with a TAB; what zsh then lists or inserts must hold the expected words.
# requires: zsh
. "$ROOT/tests/lib.sh"
mkdir comp bin somedir
tunetab completion zsh >comp/_tunetab
zsh -n comp/_tunetab && echo "syntax ok"
ln -s "$TUNETAB" bin/tunetab
cat >cases <<'C'
tunetab gen|generate
tunetab |detect devices catalog generate validate explain diff completion help
tunetab generate --for|--format=
tunetab generate --format |py json both
tunetab generate --method |tunetab full flashinfer
tunetab generate -o |somedir/
tunetab validate --format |text json github junit
tunetab doctor --for |sglang vllm flashinfer
tunetab help ex|explain
tunetab completion |bash zsh
tunetab merge --|--format --flashinfer --device --partial --fail-on-conflict --quiet --json
C
cat >drive.zsh <<'Z'
zmodload zsh/zpty
# each line is typed at a prompt (P> ), when zsh's line editor reads the terminal
zpty z 'PS1="P> " TERM=dumb zsh -f -i'
zpty -w z "fpath=($PWD/comp \$fpath); path=($PWD/bin \$path); autoload -U compinit; compinit -u -D; LISTMAX=0; print READY\$((40+2))"
zpty -r z out '*READY42*P> *'
n=0
while IFS='|' read -r line want; do
    n=$((n + 1))
    zpty -w -n z "$line"$'\t'
    zpty -w -n z $'\C-e\C-u'
    zpty -w z "print DONE\$(($n+1000))"
    zpty -r z out "*DONE$((n + 1000))*P> *"
    got=${(S)out//$'\e'\[[0-9;?]#[a-zA-Z]/}
    missing=()
    for w in ${=want}; do [[ $got == *$w* ]] || missing+=$w; done
    if (( $#missing )); then
        print -r -- "$line<TAB>: MISSING $missing in:"
        print -r -- ${got//$'\r'/}
    else
        print -r -- "$line<TAB>: $want"
    fi
done <cases
zpty -d z
Z
timeout 120 zsh -f drive.zsh
