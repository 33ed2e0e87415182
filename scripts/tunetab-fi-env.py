"""tunetab-fi-env.py: FlashInfer's own view of this environment, for `tunetab install` and
`doctor --for`: the version the server imports, the _metadata it stamps and compares
(flashinfer.autotuner._collect_metadata), its workspace folder (jit/env.py; vLLM's cache root
ends with its last two parts) and its managed-store root (autotune_cache.get_default_cache_root).
Prints one JSON object; {"error": "..."} when FlashInfer does not import. Reads, never writes."""
import json
import sys


def main() -> int:
    out = {}
    try:
        import flashinfer

        out["version"] = str(getattr(flashinfer, "__version__", "unknown"))
        try:
            from flashinfer.autotuner import _collect_metadata
        except ImportError:
            _collect_metadata = None
        if _collect_metadata is not None:
            out["metadata"] = {str(k): str(v) for k, v in _collect_metadata().items()}
        try:
            from flashinfer.jit import env as jit_env

            out["workspace_dir"] = str(jit_env.FLASHINFER_WORKSPACE_DIR)
        except Exception:
            pass
        try:
            from flashinfer import autotune_cache

            out["managed_root"] = str(autotune_cache.get_default_cache_root())
        except Exception:
            pass
    except Exception as e:  # the message is all the caller needs
        out = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
