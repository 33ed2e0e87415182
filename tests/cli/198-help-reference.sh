# 198-help-reference: the reference a command has (docs/commands/<command>.md, what README's
# command sections held) is carried by `tunetab help COMMAND` and by the man page: every line
# of the page's text is in help's output; every option of the command table (src/cmd.c) is in
# both; every word of the page is in the man page's section of that command (rendered by
# groff, the way man shows it). A page's option table must name exactly the table's options
# (test 130 checks it is what `make docs` makes).
. "$ROOT/tests/lib.sh"
groff -man -Tutf8 -P-cbou -rLL=3000n -rHY=0 "$ROOT/docs/tunetab.1" >man.txt 2>/dev/null
for c in $(tunetab help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
    tunetab help "$c" >"help-$c.txt"
    tunetab help --markdown "$c" >"opts-$c.txt"
done
python3 - "$ROOT" <<'PYEOF'
import os, re, sys
root = sys.argv[1]
man = open("man.txt", encoding="utf-8").read().splitlines()
cmds = [f[5:-4] for f in sorted(os.listdir(".")) if f.startswith("help-")]
# the man page's section of each command: from its ".SS" heading line to the next command's
heads = {i: l.strip() for i, l in enumerate(man) if re.fullmatch(r"   [a-z-]+", l) and l.strip() in cmds}
order = sorted(heads)
section = {}
for k, i in enumerate(order):
    end = order[k + 1] if k + 1 < len(order) else len(man)
    section[heads[i]] = "\n".join(man[i:end])
words = re.compile(r"[A-Za-z0-9_]{3,}")
totals = [0, 0, 0, 0]
for c in cmds:
    page = open(os.path.join(root, "docs", "commands", c + ".md"), encoding="utf-8").read()
    body = re.sub(r"^<!-- options: .*?^<!-- end options -->\n", "", page, flags=re.S | re.M)
    body = body.split("\n", 1)[1]  # the title
    text = [l.lstrip("#").strip() for l in body.splitlines()
            if l.strip() and not l.lstrip().startswith("```")]
    helptxt = open("help-%s.txt" % c, encoding="utf-8").read()
    opts = re.findall(r"^\| (?:`-\w[^`]*`, )?`(--[a-z-]+)", open("opts-%s.txt" % c).read(), re.M)
    tabled = re.findall(r"^\| (?:`-\w[^`]*`, )?`(--[a-z-]+)", page, re.M)
    if sorted(opts) != sorted(tabled):
        print("%s: the page's option table names %s, the command table %s" % (c, tabled, opts))
    for l in text:
        if l not in helptxt:
            print("%s: not in 'tunetab help %s': %s" % (c, c, l))
    sec = section.get(c, "")
    if not sec:
        print("%s: no section in the man page" % c)
    for o in opts:
        if o not in helptxt:
            print("%s: option %s not in 'tunetab help %s'" % (c, o, c))
        if o not in sec:
            print("%s: option %s not in the man page" % (c, o))
    manwords = set(words.findall(sec))
    # a relative link shows as its text: the address is not the reference's content
    prose = re.sub(r"\]\((?!https?:)[^)]*\)", "]", "\n".join(text))
    lost = sorted(set(w for w in words.findall(prose) if w not in manwords))
    if lost:
        print("%s: words of the page not in the man page: %s" % (c, " ".join(lost[:20])))
    totals[0] += 1; totals[1] += len(text); totals[2] += len(opts); totals[3] += len(set(words.findall(prose)))
print("%d commands: %d lines of their pages in 'tunetab help', %d options in help and the man page, "
      "%d distinct words of the pages in the man page" % tuple(totals))
PYEOF
