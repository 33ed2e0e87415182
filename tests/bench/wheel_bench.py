#!/usr/bin/env python3
"""wheel_bench.py [WHEEL]: the wheel's size and the binary's start-up time (issue #31), for
docs/benchmarks.md. Installs WHEEL (default: the one in build/dist/) with pip into a fresh venv
(--without-pip, pip run from this interpreter) and times, 30 runs each, median (min, max):
  the console script `tunetab --version` (Python starts, then execs the binary),
  the binary itself `--version`, and `python3 -m tunetab --version`;
  `tunetab devices` (loads every device profile) and `tunetab detect` (CUDA initialisation;
  on a machine without a driver, the no-driver path) through the console script."""
import glob, os, platform, statistics, subprocess, sys, tempfile, time, zipfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
wheel = sys.argv[1] if len(sys.argv) > 1 else glob.glob(os.path.join(root, "build/dist/tunetab-*.whl"))[0]
tmp = tempfile.mkdtemp(prefix="tunetab-wheel-bench-")
venv = os.path.join(tmp, "venv")
subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
py = os.path.join(venv, "bin", "python3")
subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-index", "--no-deps",
                "--disable-pip-version-check", wheel], check=True)
pure = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                      check=True, capture_output=True, text=True).stdout.strip()
binary = os.path.join(pure, "tunetab", "bin", "tunetab")
script = os.path.join(venv, "bin", "tunetab")
env = {"PATH": "/usr/bin:/bin", "HOME": tmp}


def timed(cmd, runs=30):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - t0)
    return "median %.1f ms (min %.1f, max %.1f)" % (statistics.median(times) * 1e3, min(times) * 1e3,
                                                    max(times) * 1e3)


def tree_size(d):
    return sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)


print("machine:", platform.node(), platform.machine(), os.cpu_count(), "cpus;",
      platform.python_implementation(), platform.python_version())
with zipfile.ZipFile(wheel) as z:
    unpacked = sum(i.file_size for i in z.infolist())
print("wheel %s: %.2f MB (%.2f MB unpacked, %d files); the binary %.2f MB; installed package %.2f MB"
      % (os.path.basename(wheel), os.path.getsize(wheel) / 1e6, unpacked / 1e6, len(z.infolist()),
         os.path.getsize(binary) / 1e6, tree_size(os.path.join(pure, "tunetab")) / 1e6))
print("tunetab --version (console script):", timed([script, "--version"]))
print("tunetab --version (the binary):    ", timed([binary, "--version"]))
print("python3 -m tunetab --version:      ", timed([py, "-m", "tunetab", "--version"]))
print("tunetab devices (console script):  ", timed([script, "devices"]))
print("tunetab detect (console script):   ", timed([script, "detect"], runs=10))
print("tunetab detect (the binary):       ", timed([binary, "detect"], runs=10))
