"""tunetab-fi-judge.py REQUEST.json: FlashInfer's own loader as the judge of a lookup plan, for
`tunetab doctor --for` and `install --check` (issue #47). Run in the server's Python, it loads
each rank file with FlashInfer's AutoTuner.load_configs and looks up each of that rank's keys
with its search_cache, in tune mode as the server's start-up autotune does, and prints what
FlashInfer answered. Reads, never writes.

The request (a JSON object; docs/development.md "The loader's judgement"):
  protocol  "tunetab-fi-judge";  v  1 (another version is refused)
  flashinfer  the version the plan is for (this Python must import it)
  gpu       the server's GPU as _metadata.gpu names it (FlashInfer's _collect_metadata is asked
            with only this field replaced: this Python may run where that GPU is not)
  ops       {op name: {"policy": [...]}}: the profiling policy an op requests, where tunetab's
            op data knows one (FlashInfer computes it again from a TuningConfig with those
            settings; the lookup then compares the stored policy as tune mode does)
  keysets   lists of key strings; files  [{"path", "keyset"}], in the plan's rank order
Each key is parsed back into its tuple and looked up through a stand-in runner named like
key[1] whose get_cache_key_extras() gives key[3]: FlashInfer itself builds the string it looks
up. The keys' values (shapes, extras) are the plan's; what is judged is FlashInfer's answer to
them: whether the file loads (its _metadata against this environment), whether each lookup
finds its entry (the string FlashInfer builds, the runner the entry names, the stored policy).

The answer (one JSON object on stdout): protocol, v, flashinfer (the version imported),
package (its folder), cannot (why it cannot judge, else null) and per file: load ("loaded",
"ignored": _metadata rejected, "raises", "missing"), detail (FlashInfer's message), keys:
per key {"hit": true|false|null (not judged), "why", "looked_up" (FlashInfer's string where it
is not the key's)}. Exit 0 whenever it could answer, 2 on a request it cannot read."""
import ast
import inspect
import json
import logging
import os
import sys

PROTOCOL, VERSION = "tunetab-fi-judge", 1


class Verbatim:
    """A key element that is not a Python literal; repr() gives back its source text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, Verbatim) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


def parse_key(text, torch):
    """(op, runner, profile, extras or None) of a key string, or raise ValueError."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"not a Python expression: {e.msg}") from None

    def conv(n):
        if isinstance(n, ast.Tuple):
            return tuple(conv(e) for e in n.elts)
        if isinstance(n, ast.Constant):
            return n.value
        if (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)
                and isinstance(n.operand, ast.Constant) and type(n.operand.value) in (int, float)):
            return -n.operand.value
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "torch":
            obj = getattr(torch, n.attr, None)
            if isinstance(obj, torch.dtype):
                return obj
        return Verbatim(ast.get_source_segment(text, n))

    key = conv(node)
    if not isinstance(key, tuple) or len(key) not in (3, 4):
        raise ValueError("not a 3- or 4-tuple")
    op, runner, profile = key[:3]
    if not isinstance(op, str) or not isinstance(runner, str) or not isinstance(profile, tuple):
        raise ValueError("not (op, runner, profile[, extras])")
    extras = key[3] if len(key) == 4 else None
    if extras is not None and not isinstance(extras, tuple):
        raise ValueError("extras is not a tuple")
    return op, runner, profile, extras


def tuples(x):
    return tuple(tuples(e) for e in x) if isinstance(x, list) else x


class Judge:
    def __init__(self, req):
        import importlib

        import torch

        import flashinfer

        self.torch = torch
        self.version = str(getattr(flashinfer, "__version__", "unknown"))
        self.package = os.path.dirname(os.path.abspath(flashinfer.__file__))
        pkg = importlib.import_module("flashinfer.autotuner")
        # flashinfer/autotuner.py up to 0.6.14, flashinfer/autotuner/autotuner.py from 0.6.15
        self.at = (importlib.import_module("flashinfer.autotuner.autotuner")
                   if hasattr(pkg, "__path__") else pkg)
        self.tuner = self.at.AutoTuner.get()
        self.cannot = None
        if self.version != req.get("flashinfer"):
            self.cannot = (f"this Python imports FlashInfer {self.version}, the plan is for "
                           f"{req.get('flashinfer')}")
            return
        if not hasattr(self.tuner, "load_configs") or not hasattr(self.at, "_collect_metadata"):
            self.cannot = (f"FlashInfer {self.version} has no JSON cache loader "
                           "(AutoTuner.load_configs, from 0.6.7)")
            return
        self.search_params = inspect.signature(self.at.AutoTuner.search_cache).parameters
        self.log = []
        handler = logging.Handler()
        handler.emit = lambda rec: self.log.append(rec.getMessage())
        logger = getattr(self.at, "logger", None) or logging.getLogger("flashinfer.jit")
        logger.addHandler(handler)
        # only JSON cache files are judged: the bundled .py level stays off (as in tune mode)
        os.environ.pop("FLASHINFER_AUTOTUNER_LOAD_FROM_FILE", None)
        orig, gpu = self.at._collect_metadata, req.get("gpu")

        def collect_metadata():
            meta = orig()
            if gpu:
                meta["gpu"] = gpu
            return meta

        self.at._collect_metadata = collect_metadata
        self.runners = {}
        self.configs = {}
        for name, op in (req.get("ops") or {}).items():
            self.configs[name] = self.tuning_config(op.get("policy"))

    def tuning_config(self, policy):
        """(TuningConfig, why not judged) for an op requesting `policy` (None: the default)."""
        tc_cls = self.at.TuningConfig
        if policy is None or not hasattr(self.at.AutoTuner, "_profiling_policy"):
            return tc_cls(), None  # no policy, or a version that stores none
        want = tuples(policy)
        kw = {}
        fields = dict(zip(want[0::2], want[1::2])) if isinstance(want, tuple) else {}
        if fields.get("cuda_graph_profile_replays") is not None:
            kw["use_cuda_graph"] = True
            kw["cuda_graph_profile_replays"] = fields["cuda_graph_profile_replays"]
        if fields.get("l2_cache_policy") == "cold":
            kw["use_cold_l2_cache"] = True
        if fields.get("cuda_graph_timing_mode") == "individual":
            kw["use_cuda_graph_individual_timing"] = True
        try:
            tc = tc_cls(**kw)
            got = self.at.AutoTuner._profiling_policy(tc)
        except Exception as e:  # noqa: BLE001  (a TuningConfig without these fields)
            return tc_cls(), f"FlashInfer {self.version} cannot make policy {policy}: {e}"
        if got != want:
            return tc, f"FlashInfer {self.version} computes policy {list(got)} for {policy}"
        return tc, None

    def runner(self, name, extras):
        """A stand-in TunableRunner whose class is named `name` (extras None: the default)."""
        if (name, extras) not in self.runners:
            ns = {"get_valid_tactics": lambda self_, *a, **k: [-1],
                  "forward": lambda self_, *a, **k: None}
            if extras is not None:
                ns["get_cache_key_extras"] = lambda self_, inputs, _e=extras: _e
            self.runners[(name, extras)] = type(name, (self.at.TunableRunner,), ns)()
        return self.runners[(name, extras)]

    def file_key(self, op, runner, profile, tc):
        """The string this version looks up (the entry's key in the file)."""
        kw = {}
        if "extras" in inspect.signature(self.at.AutoTuner._get_cache_key).parameters:
            kw["extras"] = runner.get_cache_key_extras([])
        ck = self.at.AutoTuner._get_cache_key(op, runner, profile, tc, **kw)
        if hasattr(ck, "file_key"):
            return ck.file_key
        return str((ck[0], ck[1], ck[3]) + ((ck[4],) if len(ck) == 5 else ()))

    def lookup(self, text):
        try:
            op, name, profile, extras = parse_key(text, self.torch)
        except ValueError as e:
            return {"hit": False, "why": f"FlashInfer cannot read the key: {e}"}
        tc, not_judged = self.configs.get(op, (self.at.TuningConfig(), None))
        if not_judged:
            return {"hit": None, "why": not_judged}
        runner = self.runner(name, extras)
        kw = {"inputs": []} if "inputs" in self.search_params else {}
        try:
            fk = self.file_key(op, runner, profile, tc)
            hit = self.tuner.search_cache(op, [runner], profile, tc, **kw)[0]
        except Exception as e:  # noqa: BLE001
            return {"hit": None, "why": f"search_cache raised {type(e).__name__}: {e}"}
        out = {"hit": bool(hit)}
        if fk != text:
            out["looked_up"] = fk
        if hit:
            return out
        stored = self.tuner._file_configs.get(fk)
        policies = getattr(self.tuner, "_file_config_policies", None)
        if stored is None:
            out["why"] = "no entry for the string FlashInfer looks up"
        elif stored[0] != name:
            out["why"] = f"the entry names runner {stored[0]}"
        elif policies is not None and hasattr(self.at.AutoTuner, "_profiling_policy"):
            have = policies.get(fk, self.at.AutoTuner._default_profiling_policy(tc))
            want = self.at.AutoTuner._profiling_policy(tc)
            out["why"] = (f"stored policy {list(have)}, the op requests {list(want)}: profiled "
                          "again" if have != want else "rejected by search_cache")
        else:
            out["why"] = "rejected by search_cache"
        return out

    def judge(self, path, keys):
        out = {"path": path, "load": "missing", "detail": None, "keys": []}
        if not os.path.isfile(path):
            return out
        if hasattr(self.tuner, "clear_cache"):
            self.tuner.clear_cache()
        getattr(self.tuner, "_warned_cache_mismatch", set()).clear()  # it warns once
        del self.log[:]
        self.tuner.is_tuning_mode = True  # the server's start-up autotune
        try:
            ok = self.tuner.load_configs(path)
        except Exception as e:  # noqa: BLE001
            out.update(load="raises", detail=f"{type(e).__name__}: {e}")
            return out
        if not ok:
            why = [m for m in self.log if "different environment (" in m]
            # "... created in a different environment (FIELD: saved=A vs current=B, ...). ..."
            why = why[-1].split("different environment (", 1)[1].rsplit("). ", 1)[0] if why else ""
            out.update(load="ignored", detail=why or "load_configs returned False")
            return out
        out["load"] = "loaded"
        out["keys"] = [self.lookup(k) for k in keys]
        return out


def main():
    if len(sys.argv) != 2:
        print("usage: tunetab-fi-judge.py REQUEST.json", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            req = json.load(f)
        if req.get("protocol") != PROTOCOL or req.get("v") != VERSION:
            raise ValueError(f"not a {PROTOCOL} request of version {VERSION}")
    except (OSError, ValueError, AttributeError) as e:
        print(f"tunetab-fi-judge: {e}", file=sys.stderr)
        return 2
    out = {"protocol": PROTOCOL, "v": VERSION, "flashinfer": None, "package": None,
           "cannot": None, "files": []}
    stdout, sys.stdout = sys.stdout, sys.stderr  # what FlashInfer prints is not the answer
    try:
        judge = Judge(req)
        out.update(flashinfer=judge.version, package=judge.package, cannot=judge.cannot)
        keysets = req.get("keysets") or []
        for f in [] if judge.cannot else req.get("files") or []:
            out["files"].append(judge.judge(f["path"], keysets[f["keyset"]]))
    except Exception as e:  # noqa: BLE001  (FlashInfer does not import, or broke)
        out["cannot"] = f"FlashInfer's loader failed here: {type(e).__name__}: {e}"
    sys.stdout = stdout
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
