"""tunetab: FlashInfer kernel tuning tables for every GPU.

This package holds the static `tunetab` binary (bin/tunetab) and its data (configs/, schemas/,
scripts/, VERSION); `tunetab` on PATH runs the binary. Nothing here imports FlashInfer or
torch: the binary finds them through this environment's own interpreter.
"""
import os
import sys

__version__ = "@VERSION@"


def binary():
    """The path of the packaged tunetab executable."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "tunetab")


def main():
    """The console entry point: replaces this process with the binary (same arguments)."""
    exe = binary()
    try:
        os.execv(exe, ["tunetab"] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("tunetab: error: cannot run %s: %s (reinstall: pip install --force-reinstall "
                         "tunetab)\n" % (exe, e.strerror or e))
        return 5
