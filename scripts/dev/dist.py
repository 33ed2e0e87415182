#!/usr/bin/env python3
"""dist.py: tunetab's packages from the static binary (issue #31). Standard library only.

  dist.py platform BINARY             the manylinux tag the binary honours (stdout), or why none
  dist.py wheel   --binary B --version V --out DIR    DIR/tunetab-V-py3-none-<tag>.whl
  dist.py tarball --binary B --version V --out DIR    DIR/tunetab-V-<tag>.tar.gz

The tag: the binary may need only glibc and GCC's C++ runtime (libstdc++, libgcc_s); the tag
is manylinux_<X>_<Y> for the newest GLIBC_X.Y symbol version it references (PEP 600: a wheel
runs where glibc is at least X.Y), raised when its GLIBCXX/CXXABI/GCC versions need a newer
policy. Anything else is refused, so a tag is never claimed that the binary does not honour.
`auditwheel show` is the independent check (tests/cli/185-wheel.sh).

What goes in (one list, `payload`, laid out per package): configs/, schemas/ and scripts/ (the Lua library and
heuristics, the FlashInfer worker, hooks, CI template) without the source build's own helpers,
a VERSION file (the binary refuses data of another version), the man page and the shell
completions. Output is reproducible: fixed times, sorted names, written to a temporary file
and renamed.
"""
import argparse
import base64
import glob
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPOCH = (2026, 1, 1, 0, 0, 0)           # zip entries' time, for byte-identical builds
EPOCH_S = 1767225600                    # the same, as seconds (tar)

# What the binary may need: glibc's libraries (libpthread, libdl, librt and libutil are part of
# libc since 2.34) and GCC's C++ runtime, which every manylinux policy lists.
ALLOWED_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                "libutil.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
                "libstdc++.so.6", "libgcc_s.so.1"}
# The newest GLIBCXX_, CXXABI_ and GCC_ symbol versions each manylinux policy allows, from
# auditwheel 6.8.2's policy/manylinux-policy.json (x86_64): (glibc, GLIBCXX, CXXABI, GCC).
CXX_POLICY = [((2, 17), (3, 4, 19), (1, 3, 7), (4, 8, 0)),
              ((2, 24), (3, 4, 22), (1, 3, 10), (4, 8, 0)),
              ((2, 27), (3, 4, 24), (1, 3, 11), (7, 0, 0)),
              ((2, 31), (3, 4, 28), (1, 3, 12), (7, 0, 0)),
              ((2, 34), (3, 4, 29), (1, 3, 13), (7, 0, 0)),
              ((2, 35), (3, 4, 30), (1, 3, 13), (12, 0, 0)),
              ((2, 39), (3, 4, 33), (1, 3, 15), (14, 0, 0))]
# Left out of scripts/: what only the source build uses, and the wheel's own Python files.
SKIP_SCRIPTS = {"scripts/dev", "scripts/wheel", "scripts/install-deps.sh", "scripts/run-default.sh"}


class Refused(Exception):
    pass


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def platform_tag(binary):
    """manylinux_X_Y_<arch> for binary, or Refused with every reason."""
    machine = re.search(r"Machine:\s+(.*)", run("readelf", "-h", "-W", binary)).group(1)
    arch = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}.get(machine.strip())
    problems = []
    if not arch:
        problems.append("machine %r is not x86-64 or AArch64" % machine)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", "-W", binary))
    for lib in needed:
        if lib not in ALLOWED_LIBS:
            problems.append("it needs %s (the packaged binary may need only glibc and libstdc++: "
                            "link it statically)" % lib)
    glibc = (2, 17)
    cxx = {"GLIBCXX": (0,), "CXXABI": (0,), "GCC": (0,)}
    lib = None
    for line in run("readelf", "--version-info", "-W", binary).splitlines():
        m = re.search(r"File: (\S+)", line)
        if m:
            lib = m.group(1)
            continue
        m = re.search(r"Name: (\S+)", line)
        if not m or lib is None:
            continue
        v = re.fullmatch(r"(GLIBC|GLIBCXX|CXXABI|GCC)_(\d+(?:\.\d+)*)", m.group(1))
        if not v:
            problems.append("it references %s of %s" % (m.group(1), lib))
        elif v.group(1) == "GLIBC":
            glibc = max(glibc, tuple(int(x) for x in v.group(2).split("."))[:2])
        else:
            cxx[v.group(1)] = max(cxx[v.group(1)], tuple(int(x) for x in v.group(2).split(".")))
    fits = [row[0] for row in CXX_POLICY
            if cxx["GLIBCXX"] <= row[1] and cxx["CXXABI"] <= row[2] and cxx["GCC"] <= row[3]]
    if not fits:
        problems.append("its C++ runtime versions %s are newer than any manylinux policy" % cxx)
    else:
        glibc = max(glibc, fits[0])
    if problems:
        raise Refused("; ".join(problems))
    return "manylinux_%d_%d_%s" % (glibc[0], glibc[1], arch)


def data_files():
    """(source path, path inside the data folder) of every data file, sorted."""
    out = []
    for top in ("configs", "schemas", "scripts"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            rel_d = os.path.relpath(d, ROOT)
            dirs[:] = sorted(x for x in dirs if x != "__pycache__" and
                             os.path.join(rel_d, x) not in SKIP_SCRIPTS)
            for f in sorted(files):
                rel = os.path.join(rel_d, f)
                if rel not in SKIP_SCRIPTS and not f.endswith(".pyc"):
                    out.append((os.path.join(ROOT, rel), rel))
    return sorted(out, key=lambda t: t[1])


def extras():
    """(source, path under a prefix) of the man page and the completions."""
    return [(os.path.join(ROOT, "docs/tunetab.1"), "share/man/man1/tunetab.1"),
            (os.path.join(ROOT, "build/completion/tunetab"), "share/bash-completion/completions/tunetab"),
            (os.path.join(ROOT, "build/completion/_tunetab"), "share/zsh/site-functions/_tunetab")]


def stripped(binary, tmp):
    """A copy of binary without its debug sections (the symbols stay, for backtraces)."""
    out = os.path.join(tmp, "tunetab")
    run("objcopy", "--strip-debug", binary, out)
    os.chmod(out, 0o755)
    return out


def mode_of(path):
    return 0o755 if os.access(path, os.X_OK) else 0o644


def read(path):
    with open(path, "rb") as f:
        return f.read()


def publish(data, out, name, suffix):
    """Writes data to out/name through a temporary file in the same folder, then removes the
    older tunetab-*<suffix> packages there. Returns the path."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    for f in os.listdir(out):
        if f.startswith("tunetab-") and f.endswith(suffix) and f != name:
            os.unlink(os.path.join(out, f))
    return path


def payload(binary, version):
    """What both packages hold, as (where, path, bytes, mode): where is "package" (the binary
    at bin/tunetab beside the data folder's contents) or "prefix" (the man page and the
    completions, under an installation prefix)."""
    with tempfile.TemporaryDirectory() as tmp:
        items = [("package", "bin/tunetab", read(stripped(binary, tmp)), 0o755)]
    items.append(("package", "VERSION", (version + "\n").encode(), 0o644))
    items += [("package", rel, read(src), mode_of(src)) for src, rel in data_files()]
    items += [("prefix", rel, read(src), 0o644) for src, rel in extras()]
    return items


def wheel(binary, version, out):
    tag = platform_tag(binary)
    name = "tunetab-%s-py3-none-%s.whl" % (version, tag)
    dist_info = "tunetab-%s.dist-info" % version
    # the package in site-packages/tunetab/, the rest through the wheel's data scheme
    where = {"package": "tunetab/", "prefix": "tunetab-%s.data/data/" % version}
    entries = [(where[w] + rel, blob, mode) for w, rel, blob, mode in payload(binary, version)]
    init = read(os.path.join(ROOT, "scripts/wheel/tunetab/__init__.py")).replace(b"@VERSION@",
                                                                                  version.encode())
    entries.append(("tunetab/__init__.py", init, 0o644))
    entries.append(("tunetab/__main__.py", read(os.path.join(ROOT, "scripts/wheel/tunetab/__main__.py")), 0o644))
    summary = "FlashInfer kernel tuning tables for every GPU (a static binary)"
    meta = ("Metadata-Version: 2.1\nName: tunetab\nVersion: %s\nSummary: %s\n"
            "Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n"
            "%s\n\n`pip install` puts the static `tunetab` binary on PATH; it needs only glibc, and "
            "finds FlashInfer and torch through this environment's own interpreter. "
            "See `tunetab --help` and `man tunetab`.\n" % (version, summary, summary))
    entries.append((dist_info + "/METADATA", meta.encode(), 0o644))
    entries.append((dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: tunetab dist.py\n"
                                           "Root-Is-Purelib: false\nTag: py3-none-%s\n" % tag).encode(), 0o644))
    entries.append((dist_info + "/entry_points.txt", b"[console_scripts]\ntunetab = tunetab:main\n", 0o644))
    record = io.StringIO()
    for arc, blob, _ in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(blob).digest()).rstrip(b"=").decode()
        record.write("%s,sha256=%s,%d\n" % (arc, digest, len(blob)))
    record.write("%s/RECORD,,\n" % dist_info)
    entries.append((dist_info + "/RECORD", record.getvalue().encode(), 0o644))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, blob, mode in entries:     # dist-info last, as the wheel spec recommends
            info = zipfile.ZipInfo(arc, EPOCH)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, blob, compresslevel=9)
    return publish(buf.getvalue(), out, name, ".whl")


def tarball(binary, version, out):
    tag = platform_tag(binary)
    top = "tunetab-%s-%s" % (version, tag)
    # bin/tunetab beside share/tunetab/ (the layout make install makes), the rest under the prefix
    where = {"package": "share/tunetab/", "prefix": ""}
    entries = [("bin/tunetab" if rel == "bin/tunetab" else where[w] + rel, blob, mode)
               for w, rel, blob, mode in payload(binary, version)]
    # README and the pages it links to, at the same relative paths
    for rel in ["README.md"] + sorted(
            os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
            + glob.glob(os.path.join(ROOT, "docs", "commands", "*.md"))):
        entries.append((rel, read(os.path.join(ROOT, rel)), 0o644))
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=EPOCH_S) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as t:
            for arc, blob, mode in entries:
                info = tarfile.TarInfo(top + "/" + arc)
                info.size, info.mode, info.mtime = len(blob), mode, EPOCH_S
                info.uname = info.gname = "root"
                t.addfile(info, io.BytesIO(blob))
    return publish(buf.getvalue(), out, top + ".tar.gz", ".tar.gz")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("platform")
    p.add_argument("binary")
    for c in ("wheel", "tarball"):
        p = sub.add_parser(c)
        p.add_argument("--binary", required=True)
        p.add_argument("--version", required=True)
        p.add_argument("--out", required=True)
    a = ap.parse_args()
    if not os.path.isfile(a.binary):
        sys.stderr.write("dist.py: error: %s: no such file (make builds build/release/tunetab)\n" % a.binary)
        return 5
    try:
        if a.cmd == "platform":
            print(platform_tag(a.binary))
        else:
            print((wheel if a.cmd == "wheel" else tarball)(a.binary, a.version, a.out))
    except Refused as e:
        sys.stderr.write("dist.py: error: %s: no manylinux tag: %s\n" % (a.binary, e))
        return 1
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("dist.py: error: %s\n" % e)
        return 5
    return 0


if __name__ == "__main__":
    sys.exit(main())
