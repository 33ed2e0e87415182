#!/usr/bin/env python3
"""check_side_effects.py STRACE_LOG OUTDIR...: reads `strace -f -e trace=network,execve,openat,
creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat` output of one tunetab command and
checks that it made no network call, executed nothing but itself and its own worker
(`tunetab __worker N`), and created, renamed, removed or opened for writing nothing outside the
OUTDIRs it was told to write to (plus /dev/null and /dev/tty). Prints what it found; exit 1 on
any violation."""
import os, re, sys

log, outdirs = sys.argv[1], [os.path.abspath(d) for d in sys.argv[2:]]
bad = []
execs = 0
NET = re.compile(r"^\d+\s+(socket|connect|bind|listen|accept4?|sendto|sendmsg|recvfrom|recvmsg|getsockname|getpeername|socketpair|setsockopt|getsockopt|shutdown)\(")
EXE = re.compile(r'^\d+\s+execve\("([^"]*)", \[([^\]]*)\]')
PATHS = re.compile(r'"([^"]*)"')

def inside(p):
    a = os.path.abspath(p)
    if a in ("/dev/null", "/dev/tty"):
        return True
    return any(a == d or a.startswith(d + "/") for d in outdirs)

first = True
for line in open(log, errors="replace"):
    if "<unfinished" in line or "resumed>" in line and "execve" not in line:
        pass
    if NET.match(line):
        bad.append("network call: " + line.strip())
        continue
    m = EXE.match(line)
    if m:
        if line.rstrip().endswith("= -1 ENOENT (No such file or directory)"):
            continue  # PATH lookups of a launcher before the real one
        execs += 1
        args = m.group(2)
        if first:
            first = False
            continue
        if not (m.group(1).endswith("/tunetab") and '"__worker"' in args):
            bad.append("execve of something other than tunetab's worker: " + line.strip())
        continue
    call = line.split()[1].split("(")[0] if len(line.split()) > 1 else ""
    if " = -1 " in line:
        continue  # a failed call changed nothing
    if call in ("openat", "open", "creat"):
        if call != "creat" and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND", line):
            continue
        ps = PATHS.findall(line)
        if ps and not inside(ps[0]):
            bad.append("write outside the output folder: " + line.strip())
    elif call in ("rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat"):
        for p in PATHS.findall(line):
            if not inside(p):
                bad.append("%s outside the output folder: %s" % (call, line.strip()))
for b in bad:
    print("  " + b)
print("%s: %d execve, %s" % (os.path.basename(log), execs, "clean" if not bad else "%d violations" % len(bad)))
sys.exit(1 if bad else 0)
