#!/usr/bin/env python3
"""fi_startup.py [REPEATS]: where a flashinfer worker's start-up goes (issue #18), each step in
fresh processes of this Python (FlashInfer on PYTHONPATH, a CUDA GPU 0), REPEATS times (3):

  pass                 the interpreter alone
  torch                import torch
  torch+cuda           import torch, then CUDA's context on GPU 0 (a first tensor there)
  torch+flashinfer     import torch, flashinfer
  torch+fi, lean       import torch, then the worker's import_flashinfer() (the fused-MoE
                       runner's modules only)
  all, in order        import torch, flashinfer, then the context
  all, overlapped      import torch, the context in a thread while flashinfer imports
  worker               scripts/tunetab-fi-worker.py 0 with WHO, INFO, LOAD bf16 queued at once:
                       when each answer arrives (s after the spawn)
  2 workers at once    two such workers (both on GPU 0) spawned together, as `--devices`
                       starts them: when each one's LOAD answered

Then `python -X importtime` of `import torch, flashinfer`: the 15 slowest imports by their
cumulative time. Prints one line per measurement; nothing is written."""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
CTX = "torch.cuda.set_device(0); torch.zeros(1, device='cuda'); torch.cuda.synchronize()"
STEPS = [
    ("pass", "pass"),
    ("torch", "import torch"),
    ("torch+cuda", "import torch; " + CTX),
    ("torch+flashinfer", "import torch, flashinfer"),
    ("torch+fi, lean", "import importlib.util, torch\n"
     f"s = importlib.util.spec_from_file_location('w', {os.path.join(ROOT, 'scripts', 'tunetab-fi-worker.py')!r})\n"
     "w = importlib.util.module_from_spec(s); s.loader.exec_module(w); w.import_flashinfer()"),
    ("all, in order", "import torch, flashinfer; " + CTX),
    ("all, overlapped", "import threading, torch\n"
     "def ctx():\n    " + CTX + "\n"
     "t = threading.Thread(target=ctx); t.start()\nimport flashinfer\nt.join()"),
]


def wall(code):
    t0 = time.perf_counter()
    subprocess.run([PY, "-c", code], check=True)
    return time.perf_counter() - t0


def spawn():
    p = subprocess.Popen([PY, os.path.join(ROOT, "scripts", "tunetab-fi-worker.py"), "0"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("WHO v=3\nINFO v=3\nLOAD v=3 dtype=bf16\n")  # the worker protocol's (PROTO)
    p.stdin.flush()
    return p


def answers(p, t0):
    """Seconds from t0 to each answer of WHO, INFO and LOAD."""
    got = []
    for line in p.stdout:
        word = line.split()[0]
        if word in ("WHO", "DEV", "OK", "ERR"):
            got.append((word, time.perf_counter() - t0))
        if word in ("OK", "ERR"):
            break
    p.stdin.close()
    p.wait()
    return got


def worker():
    """Seconds from the spawn to each answer of WHO, INFO and LOAD bf16, asked at once."""
    t0 = time.perf_counter()
    return answers(spawn(), t0)


def workers(n):
    """n workers spawned together: seconds to each one's last answer (read in turn)."""
    t0 = time.perf_counter()
    ps = [spawn() for _ in range(n)]
    return [answers(p, t0)[-1][1] for p in ps]


def main():
    for name, code in STEPS:
        ts = [wall(code) for _ in range(REPEATS)]
        print(f"{name:18s} " + " ".join(f"{t:.2f}" for t in ts) + " s", flush=True)
    for r in range(REPEATS):
        print("worker             " + ", ".join(f"{w} at {t:.2f} s" for w, t in worker()), flush=True)
    for r in range(REPEATS):
        print("2 workers at once  " + ", ".join(f"loaded at {t:.2f} s" for t in workers(2)), flush=True)
    r = subprocess.run([PY, "-X", "importtime", "-c", "import torch, flashinfer"],
                       capture_output=True, text=True)
    rows = []
    for line in r.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0].split(":")[1]), parts[2].rstrip()))
    print("slowest imports (cumulative us, self us, module):")
    for cum, own, mod in sorted(rows, reverse=True)[:15]:
        print(f"  {cum:9d} {own:9d} {mod}")


if __name__ == "__main__":
    main()
