"""tunetab-fi-env.py: FlashInfer's own view of this environment, for `tunetab install` and
`doctor --for`: the version the server imports, the _metadata it stamps and compares
(flashinfer.autotuner._collect_metadata), its workspace folder (jit/env.py; vLLM's cache root
ends with its last two parts) and its managed-store root (autotune_cache.get_default_cache_root),
and the serving stacks installed beside it ("consumers": their distributions' versions, from
package metadata without importing them). Prints one JSON object, with "error" when FlashInfer
does not import. Reads, never writes."""
import json
import sys


def consumers():
    """The versions of the serving stacks this environment has (None: not installed)."""
    try:
        from importlib import metadata
    except ImportError:
        return {}
    found = {}
    for name in ("sglang", "vllm"):
        try:
            found[name] = metadata.version(name)
        except Exception:  # PackageNotFoundError, a broken dist-info
            found[name] = None
    return found


def modules():
    """Optional packages that change which MoE kernels a server picks (found, not imported):
    OpenAI's triton_kernels (gpt-oss on SM90: vLLM 0.33 oracle/mxfp4.py:402-435, SGLang 0.5.23
    model_overrides/gpt_oss.py:64-120)."""
    import importlib.util
    found = {}
    for name in ("triton_kernels",):
        try:
            found[name] = importlib.util.find_spec(name) is not None
        except Exception:  # a broken package counts as absent
            found[name] = False
    return found


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
    out["consumers"] = consumers()
    out["modules"] = modules()
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
