# 176-fi-lean-import: the flashinfer worker imports only FlashInfer's fused-MoE runner
# (scripts/tunetab-fi-worker.py import_flashinfer): the package's __init__, which imports every
# op family, does not run; a FlashInfer whose runner needs that __init__ gets the usual
# `import flashinfer` instead. Two small stand-in packages, no torch.
. "$ROOT/tests/lib.sh"
mk() { # DIR INIT CORE: a package flashinfer in DIR with that __init__ and fused_moe/core
    mkdir -p "$1/flashinfer/fused_moe"
    printf '%s\n' "$2" >"$1/flashinfer/__init__.py"
    printf '__version__ = "9.9.9"\n' >"$1/flashinfer/version.py"
    : >"$1/flashinfer/fused_moe/__init__.py"
    printf '%s\n' "$3" >"$1/flashinfer/fused_moe/core.py"
}
# a: the runner's modules need nothing of __init__ (which would fail if it ran)
mk a 'raise RuntimeError("the package __init__ ran")' 'RUNNER = "fused-moe"'
# b: the runner imports a name only __init__ defines
mk b 'import os
os.environ["FI_INIT_RAN"] = "yes"
from .version import __version__
EXTRA = 1' 'from flashinfer import EXTRA'
for pkg in a b; do
    PYTHONPATH=$PWD/$pkg python3 - "$ROOT/scripts/tunetab-fi-worker.py" "$pkg" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("worker", sys.argv[1])
w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)
fi = w.import_flashinfer()
print(f"{sys.argv[2]}: version {fi.__version__}, runner imported: "
      f"{'flashinfer.fused_moe.core' in sys.modules}, package __init__ ran: "
      f"{os.environ.get('FI_INIT_RAN', 'no')}, same module as sys.modules: {sys.modules['flashinfer'] is fi}")
PY
done
