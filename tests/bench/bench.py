#!/usr/bin/env python3
"""bench.py BUILD_DIR: benchmarks recorded in docs/benchmarks.md. Each measurement is the
median wall time of several runs, process start included, measured side by side in one run.
  validate: `tunetab validate` of a generated 100,000-entry module vs Python's
            ast.literal_eval of the same file (issue #3 targets: < 1 s, >= 10x faster).
  generate: heuristic tables (issue #4: < 50 ms), and with the learned fit against the
            datasheet model, paired (issue #46: within 1.5x)."""
import os, platform, statistics, subprocess, sys, tempfile, time

build = sys.argv[1] if len(sys.argv) > 1 else "build/release"
here = os.path.dirname(os.path.abspath(__file__))
tunetab = os.path.join(build, "tunetab")
tmp = tempfile.mkdtemp(prefix="tunetab-bench-")

def timed(cmd, runs=5):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times), r.returncode

print("machine:", platform.node(), platform.machine(), os.cpu_count(), "cpus;",
      platform.python_implementation(), platform.python_version())
mod = os.path.join(tmp, "v0_1_trtllm_fused_moe_NVIDIA_H200.py")
subprocess.run([sys.executable, os.path.join(here, "gen_module.py"), "100000", mod], check=True)
size = os.path.getsize(mod)
tt = timed([tunetab, "validate", "--flashinfer", "0.6.18", "-q", mod])
py = timed([sys.executable, "-c",
            'import ast,sys; ast.literal_eval(open(sys.argv[1]).read().split("=",1)[1])', mod])
print("validate 100,000 entries (%.1f MB): tunetab median %.3f s (min %.3f, max %.3f, exit %d)"
      % (size / 1e6, tt[0], tt[1], tt[2], tt[3]))
print("python3 ast.literal_eval same file: median %.3f s (min %.3f, max %.3f)" % py[:3])
print("speed-up: %.1fx; target < 1 s: %s; target >= 10x: %s"
      % (py[0] / tt[0], "met" if tt[0] < 1 else "MISSED", "met" if py[0] / tt[0] >= 10 else "MISSED"))

# generate: heuristic only, a full table (2 stages x 21 buckets, all candidates scored)
# (issue #4 target: under 50 ms wall, process start included)
cases = [
    ("RTX PRO 6000 Server, GLM-5, nvfp4, TP 8 (20/40 candidates)",
     ["--device", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "--model", "glm-5", "--dtype", "nvfp4", "--tp", "8"]),
    ("H200, Qwen3-30B-A3B, bf16 (45/81 candidates)",
     ["--device", "h200", "--model", "qwen3-30b-a3b", "--dtype", "bf16"]),
    ("B200, GLM-5, bf16, TP 8 (209/309 candidates, the largest list)",
     ["--device", "b200", "--model", "glm-5", "--dtype", "bf16", "--tp", "8"]),
]
for label, args in cases:
    r = timed([tunetab, "generate", "-q", "-o", os.path.join(tmp, "gen")] + args, runs=9)
    print("generate %s: median %.1f ms (min %.1f, max %.1f, exit %d); target < 50 ms: %s"
          % (label, r[0] * 1e3, r[1] * 1e3, r[2] * 1e3, r[3], "met" if r[0] < 0.05 else "MISSED"))
# generate with the learned fit (the default, --model-fit auto: configs/fits/NVIDIA_H200.yaml and
# its 16,907 measured points) against the datasheet model, paired: the two alternate, run by
# run (issue #46 item 8 target: the fit's median wall time within 1.5x of the datasheet's).
# CPU time (user + system of the process) is shown too: on a shared machine it moves less.
# (a fit in the user's folder would be found first: none is, here)
def paired(a, b, runs=21):
    wall, cpu = ([], []), ([], [])
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "xdg-config"))
    for _ in range(runs):
        for i, cmd in enumerate((a, b)):
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            _, status, ru = os.wait4(p.pid, 0)
            wall[i].append(time.perf_counter() - t0)
            cpu[i].append(ru.ru_utime + ru.ru_stime)
            if os.waitstatus_to_exitcode(status):
                sys.exit("bench: %s failed" % " ".join(cmd))
    return [statistics.median(w) for w in wall], [statistics.median(c) for c in cpu]

fit_cases = [
    ("H200, GLM-5, fp8, TP 8", ["--device", "h200", "--model", "glm-5", "--dtype", "fp8", "--tp", "8"]),
    ("H200, Qwen3-30B-A3B, bf16", ["--device", "h200", "--model", "qwen3-30b-a3b", "--dtype", "bf16"]),
]
for label, args in fit_cases:
    base = [tunetab, "generate", "-q", "--flashinfer", "0.7.4", "-o", os.path.join(tmp, "fit")] + args
    (wf, wd), (cf, cd) = paired(base + ["--model-fit", "auto"], base + ["--model-fit", "datasheet"])
    print("generate %s, learned fit vs datasheet model (21 paired runs, medians): wall %.1f vs "
          "%.1f ms (%.2fx), CPU %.1f vs %.1f ms (%.2fx); target <= 1.5x: %s"
          % (label, wf * 1e3, wd * 1e3, wf / wd, cf * 1e3, cd * 1e3, cf / cd,
             "met" if wf / wd <= 1.5 else "MISSED"))
import shutil
shutil.rmtree(tmp, ignore_errors=True)
