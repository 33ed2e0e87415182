#!/usr/bin/env python3
"""fi_oracle.py: ask the installed FlashInfer whether it loads a tuning table and which keys hit.

Run with the python of a venv made by setup.sh:

    .venv-flashinfer/0.6.12/bin/python tests/flashinfer/fi_oracle.py \
        --table v0_1_trtllm_fused_moe_NVIDIA_B200.py --device "NVIDIA B200" [--keys FILE]

Bundled .py table (flashinfer-formats.md §1): the file is copied into the installed package's
flashinfer/tuning_configs/ under its own name (or, with --place-as expected, under the name
FlashInfer's get_config_path() asks for), FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=1 is set,
torch.cuda.get_device_name is patched to return --device, and FlashInfer's load_from_file() is
called with the key FlashInfer's own AutoTuner._get_cache_key() builds for each key. A shipped
file that has the expected name and is not the table is moved aside for the run, so that only
the table can be found. Everything is put back afterwards, also after a crash (next run).

JSON cache (§2, FlashInfer >= 0.6.7): AutoTuner.get().load_configs(table), with
_collect_metadata() patched only for "gpu" = --device, then AutoTuner.search_cache() for each
key with the bundled-file level switched off (the environment variable is unset).

A key string is parsed back into the tuple it was printed from (torch.<dtype> names become the
real torch dtypes; anything else that is not a literal is kept verbatim), and a stand-in runner
whose class is named like key[1] and whose get_cache_key_extras() returns key[3] (or the
TunableRunner default for a 3-tuple key) is handed to FlashInfer with an empty TuningConfig, so
the profile passes through unchanged: FlashInfer itself then builds the string it looks up.

With --deployment JSON the stand-in runner is replaced by FlashInfer's real cutlass fused-MoE
MoERunner class of the installed version (its class statement, taken from the source of
flashinfer/fused_moe/core.py and executed alone, without the JIT build around it). An instance is
made without __init__, only the attributes its get_cache_key_extras() reads are set from the
JSON, and FlashInfer builds every lookup key from (op, that runner, the key's profile, the real
extras). A key whose own extras differ from the real ones then misses.

Prints one JSON object on stdout. Exit 0 unless the harness itself breaks (exit 2: usage,
exit 3: harness failure); a table that makes FlashInfer raise is reported in "error".
"""

from __future__ import annotations

import __future__
import argparse
import ast
import contextlib
import dataclasses
import fcntl
import importlib
import importlib.util
import inspect
import json
import logging
import os
import shutil
import signal
import sys
import traceback

BACKUP_SUFFIX = ".fi_oracle_bak"
# A key no table holds; looked up when there is no key, so that FlashInfer imports the file.
PROBE_KEY = "('fi_oracle::probe', 'FiOracleProbeRunner', ((1,),))"


class Verbatim:
    """A key element that is not a Python literal; str()/repr() give back its source text."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other) -> bool:
        return isinstance(other, Verbatim) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("Verbatim", self.text))


def parse_key(text: str, torch):
    """The tuple str() printed as `text`, or raise ValueError."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"not a Python expression: {e.msg}") from None

    def conv(n):
        if isinstance(n, ast.Tuple):
            return tuple(conv(e) for e in n.elts)
        if isinstance(n, ast.Constant):
            return n.value
        if (
            isinstance(n, ast.UnaryOp)
            and isinstance(n.op, ast.USub)
            and isinstance(n.operand, ast.Constant)
            and type(n.operand.value) in (int, float)
        ):
            return -n.operand.value
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "torch":
            obj = getattr(torch, n.attr, None)
            if isinstance(obj, torch.dtype):
                return obj
        return Verbatim(ast.get_source_segment(text, n))

    return conv(node)


def split_key(key):
    """(op, runner, profile, extras-or-None) of a parsed key, or raise ValueError."""
    if not isinstance(key, tuple) or len(key) not in (3, 4):
        raise ValueError("not a 3- or 4-tuple")
    op, runner, profile = key[0], key[1], key[2]
    if not isinstance(op, str) or not isinstance(runner, str):
        raise ValueError("op and runner are not strings")
    if not isinstance(profile, tuple) or not all(isinstance(s, tuple) for s in profile):
        raise ValueError("profile is not a tuple of shape tuples")
    extras = key[3] if len(key) == 4 else None
    if extras is not None and not isinstance(extras, tuple):
        raise ValueError("extras is not a tuple")
    return op, runner, profile, extras


def jsonable(x):
    if isinstance(x, (list, tuple)):
        return [jsonable(e) for e in x]
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def table_keys_py(path: str) -> list[str]:
    """Keys of the module-level `best_configs` dict literal, read without running the file."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return []
    keys: list[str] = []
    for stmt in tree.body:
        targets = []
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        if any(isinstance(t, ast.Name) and t.id == "best_configs" for t in targets):
            if isinstance(value, ast.Dict):
                keys = [
                    k.value
                    for k in value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                ]
    return keys


def cutlass_moe_runner_class(core, at):
    """(class, factory def, class def, ops tuned, namespace) of FlashInfer's cutlass fused-MoE
    MoERunner in flashinfer.fused_moe.core module `core` (at: its autotuner module), without
    calling the factory that builds the CUDA module (see Oracle.make_real_runner). Each call
    executes the class statement afresh, in a fresh copy of the module globals: a new class,
    with its own class attributes (runner_dict, tuning_config, the refine_tuning_config cache).
    The factory's locals the class body closes over (`module`, used by __init__) are not in
    the namespace; a caller that constructs the runner puts a stand-in there."""
    path = core.__file__
    with open(path, encoding="utf-8") as f:
        src = f.read()
    tree = ast.parse(src, filename=path)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        classes = [c for c in fn.body if isinstance(c, ast.ClassDef) and c.name == "MoERunner"]
        ops = []
        for n in ast.walk(fn):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "choose_one" and n.args
                    and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)):
                ops.append(n.args[0].value)
        if classes and "trtllm::fused_moe::gemm1" in ops:
            found.append((fn, classes, ops))
    if len(found) != 1 or len(found[0][1]) != 1:
        raise HarnessError(
            f"expected one factory with one nested cutlass MoERunner in {path}, found "
            f"{[(fn.name, len(c)) for fn, c, _ in found]}")
    fn, (cdef,), ops = found[0]
    flags = 0
    for name in __future__.all_feature_names:  # the file's own `from __future__` imports
        if getattr(core, name, None) is getattr(__future__, name):
            flags |= getattr(__future__, name).compiler_flag
    code = compile(ast.Module(body=[cdef], type_ignores=[]), path, "exec", flags=flags,
                   dont_inherit=True)
    ns = dict(vars(core))
    try:
        exec(code, ns)
    except NameError as e:
        raise HarnessError(f"the MoERunner class statement of {fn.name} needs a name the "
                           f"module does not define: {e}") from None
    cls = ns["MoERunner"]
    cls.__qualname__ = f"{fn.name}.<locals>.MoERunner"
    if not issubclass(cls, at.TunableRunner):
        raise HarnessError(f"{fn.name}.<locals>.MoERunner is not a TunableRunner")
    return cls, fn, cdef, ops, ns


class Oracle:
    def __init__(self, args):
        self.args = args
        self.device = args.device
        import torch  # the real one, from the base venv

        self.torch = torch
        # The only CUDA query on these paths (§1.1, get_config_path uses device 0).
        torch.cuda.get_device_name = lambda device=None: self.device
        if args.kind == "py":
            os.environ["FLASHINFER_AUTOTUNER_LOAD_FROM_FILE"] = "1"
        else:
            os.environ.pop("FLASHINFER_AUTOTUNER_LOAD_FROM_FILE", None)
        sys.dont_write_bytecode = True  # no __pycache__ entry for the placed table

        import flashinfer

        self.flashinfer = flashinfer
        pkg = importlib.import_module("flashinfer.autotuner")
        # flashinfer/autotuner.py up to 0.6.14, flashinfer/autotuner/autotuner.py from 0.6.15
        self.at = (
            importlib.import_module("flashinfer.autotuner.autotuner") if hasattr(pkg, "__path__") else pkg
        )
        self.version = getattr(flashinfer, "__version__", None)
        self.tuner = self.at.AutoTuner.get()
        self.key_params = inspect.signature(self.at.AutoTuner._get_cache_key).parameters
        self.search_params = inspect.signature(self.at.AutoTuner.search_cache).parameters
        self.runner_classes: dict = {}
        self.looked_up: set[str] = set()
        self.hit_log: list[str] = []
        handler = logging.Handler()
        handler.emit = lambda rec: self.hit_log.append(rec.getMessage())
        # the logger FlashInfer's autotuner writes through (not always registered by name)
        (getattr(self.at, "logger", None) or logging.getLogger("flashinfer.jit")).addHandler(handler)
        self.real_runner = None
        self.real_runner_info: dict | None = None
        if args.deployment is not None:
            self.real_runner, self.real_runner_info = self.make_real_runner(args.deployment)

    # ---------------------------------------------------------------- keys
    def runner_for(self, name: str, extras):
        """A stand-in TunableRunner whose class name is `name`; extras None = the default."""
        ck = (name, extras)
        if ck not in self.runner_classes:
            base = self.at.TunableRunner

            def get_valid_tactics(self_, *a, **k):
                return [-1]

            def forward(self_, *a, **k):
                raise RuntimeError("fi_oracle stand-in runner cannot run")

            ns = {"get_valid_tactics": get_valid_tactics, "forward": forward}
            if extras is not None:
                ns["get_cache_key_extras"] = lambda self_, inputs, _e=extras: _e
            cls = type(name, (base,), ns)
            self.runner_classes[ck] = cls()
        return self.runner_classes[ck]

    def cache_key(self, op, runner, profile):
        """FlashInfer's own in-memory key, built the way search_cache() builds it."""
        tc = self.at.TuningConfig()
        if "extras" in self.key_params:
            # search_cache: r.get_cache_key_extras(inputs) if inputs is not None else ()
            extras = runner.get_cache_key_extras([]) if hasattr(runner, "get_cache_key_extras") else ()
            return self.at.AutoTuner._get_cache_key(op, runner, profile, tc, extras)
        return self.at.AutoTuner._get_cache_key(op, runner, profile, tc)

    def file_key(self, ck) -> str:
        """The string this version looks up for in-memory key `ck` (for the report)."""
        if hasattr(ck, "file_key"):
            return ck.file_key
        # Up to 0.6.14 the key is a plain tuple (op, runner, hash, profile[, extras]); the file
        # key drops the hash and, before 0.6.13, the extras too.
        src = inspect.getsource(self.at.load_from_file)
        if len(ck) == 5 and "key[4]" in src:
            return str((ck[0], ck[1], ck[3], ck[4]))
        return str((ck[0], ck[1], ck[3]))

    def prepare(self, key_text: str):
        """(runner, op, profile, report fields) for a key line, or raise ValueError.

        Without --deployment the runner is the stand-in for key[1] with the key's own extras.
        With it, the runner is the real MoERunner instance for every key; the key's own runner
        name and extras are only reported."""
        op, rname, profile, extras = split_key(parse_key(key_text, self.torch))
        stand_in = self.runner_for(rname, extras)
        if self.real_runner is None:
            return stand_in, op, profile, {}
        info = self.real_runner_info
        # what the key itself would look up (the default mode): only for "canonical"
        own = self.file_key(self.cache_key(op, stand_in, profile))
        fields = {"canonical": own == key_text,
                  "key_extras": None if extras is None else str(extras)}
        notes = []
        if rname != type(self.real_runner).__name__:
            notes.append(f"key names runner {rname!r}; the real runner class is "
                         f"{type(self.real_runner).__name__!r}")
        if info["ops"] and op not in info["ops"]:
            notes.append(f"op {op!r} is not one the cutlass MoERunner is tuned under in this "
                         f"version ({', '.join(info['ops'])})")
        if notes:
            fields["note"] = "; ".join(notes)
        return self.real_runner, op, profile, fields

    # ---------------------------------------------------------------- real runner (--deployment)
    def make_real_runner(self, deployment: dict):
        """(instance, report) of FlashInfer's real cutlass fused-MoE MoERunner.

        In every installed version (0.2.9 to 0.7.4) the class is defined inside a cached factory
        in flashinfer/fused_moe/core.py (get_cutlass_fused_moe_sm100_module up to 0.2.x,
        get_cutlass_fused_moe_module later) that first JIT-builds and loads the CUDA module.
        Calling the factory would compile. So the factory is found in the module's source (the
        top-level function that holds a `class MoERunner` statement and tunes
        "trtllm::fused_moe::gemm1"), and only that class statement is compiled, under the file's
        own name and line numbers, and executed in a copy of the module's globals. The class body
        only needs module globals (TunableRunner, TuningConfig, bucket helpers, typing names);
        the methods that use the factory's locals (`module`) are never called."""
        core = importlib.import_module("flashinfer.fused_moe.core")
        path = core.__file__
        cls, fn, cdef, ops, _ = cutlass_moe_runner_class(core, self.at)

        # The attributes get_cache_key_extras() reads: `self.<name>` in its body, in order.
        mdef = next((m for m in cdef.body if isinstance(m, ast.FunctionDef)
                     and m.name == "get_cache_key_extras"), None)
        attrs: list[str] = []
        if mdef is not None:
            me = mdef.args.args[0].arg
            reads = sorted((n.lineno, n.col_offset, n.attr) for n in ast.walk(mdef)
                           if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                           and n.value.id == me)
            for _, _, a in reads:
                if a not in attrs:
                    attrs.append(a)
        missing = [a for a in attrs if a not in deployment]
        if missing:
            raise UsageError(f"--deployment lacks {', '.join(missing)} (read by "
                             f"MoERunner.get_cache_key_extras of FlashInfer {self.version})")
        inst = object.__new__(cls)
        set_attrs = {}
        for a in attrs:
            v = self.deployment_value(core, a, deployment[a])
            setattr(inst, a, v)
            set_attrs[a] = v
        if mdef is not None:
            extras_from = "MoERunner.get_cache_key_extras"
        elif hasattr(cls, "get_cache_key_extras"):
            extras_from = "TunableRunner.get_cache_key_extras (default; MoERunner has none)"
        else:
            extras_from = None  # no extras in this version: 3-tuple keys
        extras = inst.get_cache_key_extras([]) if extras_from else None
        # whether this version's lookup string carries the extras (4-tuple from 0.6.13)
        probe = self.file_key(self.cache_key("fi_oracle::probe", inst, ((1,),)))
        form = f"{len(parse_key(probe, self.torch))}-tuple"
        info = {
            "class": f"flashinfer.fused_moe.core.{cls.__qualname__}",
            "file": path,
            "line": cdef.lineno,
            "how": f"class statement of {fn.name} (lines {cdef.lineno}-{cdef.end_lineno}) compiled "
                   "from the installed source and executed alone in a copy of the module globals; "
                   "instance made with object.__new__",
            "ops": sorted(set(ops)),
            "extras_from": extras_from,
            "attributes_set": {a: jsonable(v) for a, v in set_attrs.items()},
            "deployment_unused": sorted(k for k in deployment if k not in attrs),
            "extras": None if extras is None else str(extras),
            "extras_len": None if extras is None else len(extras),
            "lookup_key_form": form,
        }
        return inst, info

    def deployment_value(self, core, attr: str, value):
        """A deployment JSON value as the runner holds it: dtypes, ActivationType."""
        torch = self.torch
        if isinstance(value, str) and value.startswith("torch."):
            obj = getattr(torch, value[len("torch."):], None)
            if not isinstance(obj, torch.dtype):
                raise UsageError(f"--deployment {attr}: {value!r} is not a torch dtype")
            return obj
        if attr == "activation_type" and hasattr(core, "ActivationType"):
            try:
                return core.ActivationType(value)
            except ValueError:
                raise UsageError(f"--deployment activation_type: {value!r} is not an "
                                 f"ActivationType of FlashInfer {self.version}") from None
        return value

    # ---------------------------------------------------------------- bundled .py
    def tuning_dir(self) -> str:
        """flashinfer/tuning_configs/ of the installed package, where FlashInfer imports from."""
        tdir = os.path.join(os.path.dirname(self.flashinfer.__file__), "tuning_configs")
        spec = importlib.util.find_spec("flashinfer.tuning_configs")
        if spec is None or os.path.realpath(tdir) not in [
            os.path.realpath(p) for p in (spec.submodule_search_locations or [])
        ]:
            raise HarnessError(f"flashinfer.tuning_configs is not the folder {tdir}")
        return tdir

    def run_py(self, out: dict) -> None:
        at = self.at
        module_name = at.get_config_path(is_module=True)
        expected = module_name.rsplit(".", 1)[-1] + ".py"
        given = os.path.basename(self.args.table)
        placed_name = expected if self.args.place_as == "expected" else given
        out.update(file_name_expected=expected, file_name_given=given, file_name_placed=placed_name,
                   name_matches=(given == expected), module=module_name)
        tdir = self.tuning_dir()
        keys = self.keys if self.keys is not None else table_keys_py(self.args.table)

        with TuningDir(tdir) as td:
            placed = td.place(self.args.table, placed_name)
            if placed_name != expected:
                out["displaced_shipped"] = td.displace(expected)
            else:
                out["replaced_shipped"] = td.replaced
            importlib.invalidate_caches()
            self.lookup_py(keys, out)
            mod = sys.modules.get(module_name)
            mod_file = getattr(mod, "__file__", None) if mod is not None else None
            out["module_file"] = mod_file
            out["loaded"] = bool(
                out["error"] is None
                and mod_file is not None
                and os.path.realpath(mod_file) == os.path.realpath(placed)
                and isinstance(getattr(mod, "best_configs", None), dict)
            )
            sys.modules.pop(module_name, None)

    def lookup_py(self, keys: list[str], out: dict) -> None:
        at = self.at
        todo = keys if keys else [PROBE_KEY]
        for text in todo:
            res: dict = {"key": text}
            try:
                runner, op, profile, fields = self.prepare(text)
            except ValueError as e:
                res.update(hit=False, value=None, lookup_key=None, note=f"not a FlashInfer key: {e}")
                out["results"].append(res)
                continue
            ck = self.cache_key(op, runner, profile)
            fk = self.file_key(ck)
            arg = fk if hasattr(ck, "file_key") else ck
            n_log = len(self.hit_log)
            try:
                hit, slot0, tactic, _ = at.load_from_file(arg)
                sc = self.tuner.search_cache(op, [runner], profile, at.TuningConfig(),
                                             **({"inputs": []} if "inputs" in self.search_params else {}))
            except Exception as e:  # FlashInfer raised: the table is broken
                out["error"] = f"{type(e).__name__}: {e}"
                out["traceback"] = traceback.format_exc(limit=-4)
                break
            if text == PROBE_KEY and not keys:
                continue
            first = fk not in self.looked_up  # load_from_file is memoised: logs once per key
            self.looked_up.add(fk)
            if hit and first:
                want = f"[Autotuner]: Loading configs for {fk} from file."
                if not any(m.endswith(want) for m in self.hit_log[n_log:]):
                    raise HarnessError(f"lookup string differs from FlashInfer's log for {fk!r}")
            if bool(sc[0]) != bool(hit):
                raise HarnessError(f"load_from_file and search_cache disagree for {fk!r}")
            res.update(hit=bool(hit), value=jsonable([slot0, tactic]) if hit else None, lookup_key=fk,
                       canonical=(fk == text), search_cache=jsonable(list(sc[:3])))
            if self.real_runner is not None:
                res.update(same_as_key=(fk == text), **fields)
            out["results"].append(res)

    # ---------------------------------------------------------------- JSON cache
    def run_json(self, out: dict) -> None:
        at = self.at
        out["file_name_expected"] = None
        with TuningDir(self.tuning_dir()):
            pass  # only undo what a killed .py run may have left in tuning_configs/
        if not hasattr(self.tuner, "load_configs"):
            out["loaded"] = False
            out["note"] = f"FlashInfer {self.version} has no JSON cache (load_configs); first in 0.6.7"
            return
        orig = at._collect_metadata

        def collect_metadata():
            meta = orig()
            meta["gpu"] = self.device
            meta.update(getattr(self, "metadata", None) or {})  # the server's environment
            return meta

        if not getattr(self, "patched", False):  # once: a batch reuses the patched function
            at._collect_metadata = collect_metadata
            self.patched = True
        out["metadata_current"] = at._collect_metadata()
        try:
            ok = self.tuner.load_configs(self.args.table)
        except Exception as e:
            out["loaded"] = False
            out["error"] = f"{type(e).__name__}: {e}"
            out["traceback"] = traceback.format_exc(limit=-4)
            return
        out["loaded"] = bool(ok)
        if not ok:
            why = [m for m in self.hit_log if "different environment" in m]
            if why:
                out["note"] = why[-1].split("[Autotuner]: ", 1)[-1]
        if self.keys is not None:
            keys = self.keys
        elif ok:
            keys = list(self.tuner._file_configs)
        else:
            keys = json_keys(self.args.table)
        kw = {"inputs": []} if "inputs" in self.search_params else {}
        # tune mode (a job's "tune_mode": how SGLang looks entries up at start, inside
        # autotune(True)): FlashInfer compares each entry's profiling policy with the one the
        # runner's TuningConfig requests, so the lookup passes the real runner's config with its
        # bucket and constraint specs dropped (the profile stays as given) and its
        # policy-relevant fields kept; the stand-in runner has an empty TuningConfig's
        tune = bool(getattr(self, "tune_mode", False))
        tc = at.TuningConfig()
        if tune and self.real_runner is not None:
            rtc = getattr(type(self.real_runner), "tuning_config", None)
            if rtc is not None:
                tc = dataclasses.replace(rtc, dynamic_tensor_specs=(), constraint_specs=())
        for text in keys:
            res: dict = {"key": text}
            try:
                runner, op, profile, fields = self.prepare(text)
            except ValueError as e:
                res.update(hit=False, value=None, lookup_key=None, note=f"not a FlashInfer key: {e}")
                out["results"].append(res)
                continue
            ck = self.cache_key(op, runner, profile)
            fk = self.file_key(ck)
            # a job's "tuning_configs": {op: the policy fields of the op's own TuningConfig
            # (ops_keys.py --emit)}: the stand-in runner's lookup in tune mode asks with the
            # policy FlashInfer's op requests
            pol_fields = getattr(self, "tuning_configs", {}).get(op)
            op_tc = tc
            if tune and self.real_runner is None and pol_fields is not None:
                op_tc = at.TuningConfig(**{f: tuple(v) if isinstance(v, list) else v
                                           for f, v in pol_fields.items()})
            try:
                with at.autotune(True) if tune else contextlib.nullcontext():
                    hit, r_id, tactic, _ = self.tuner.search_cache(op, [runner], profile, op_tc, **kw)
            except Exception as e:
                out["error"] = f"{type(e).__name__}: {e}"
                out["traceback"] = traceback.format_exc(limit=-4)
                break
            value = jsonable([[runner][r_id].__class__.__name__, tactic]) if hit else None
            res.update(hit=bool(hit), value=value, lookup_key=fk, canonical=(fk == text))
            if self.real_runner is not None:
                res.update(same_as_key=(fk == text), **fields)
            out["results"].append(res)


def json_keys(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    return [k for k in data if k not in ("_metadata", "_records", "_generation")]


class HarnessError(Exception):
    pass


class UsageError(Exception):
    pass


class TuningDir:
    """Places one table in flashinfer/tuning_configs/ and puts everything back on exit.

    A lock serialises runs on one venv; a manifest in the venv lets the next run undo what a
    killed run left behind."""

    def __init__(self, tdir: str):
        self.tdir = tdir
        self.lock_path = os.path.join(sys.prefix, ".fi_oracle.lock")
        self.manifest = os.path.join(sys.prefix, ".fi_oracle.manifest")
        self.placed: str | None = None
        self.backups: list[tuple[str, str]] = []  # (backup, original)
        self.replaced = False

    def __enter__(self):
        self.lock = open(self.lock_path, "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.recover()
        return self

    def __exit__(self, *exc):
        try:
            self.undo(self.placed, self.backups)
            if os.path.exists(self.manifest):
                os.unlink(self.manifest)
        finally:
            fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()
        return False

    def write_manifest(self):
        with open(self.manifest, "w") as f:
            json.dump({"placed": self.placed, "backups": self.backups}, f)

    def recover(self):
        if not os.path.exists(self.manifest):
            return
        with open(self.manifest) as f:
            m = json.load(f)
        self.undo(m.get("placed"), [tuple(b) for b in m.get("backups", [])])
        os.unlink(self.manifest)

    @staticmethod
    def undo(placed, backups):
        if placed and os.path.lexists(placed):
            os.unlink(placed)
        for bak, orig in backups:
            if os.path.lexists(bak):
                if os.path.lexists(orig):
                    os.unlink(orig)
                os.rename(bak, orig)

    def _aside(self, path: str):
        bak = path + BACKUP_SUFFIX
        self.backups.append((bak, path))
        self.write_manifest()
        os.rename(path, bak)

    def place(self, src: str, name: str) -> str:
        dst = os.path.join(self.tdir, name)
        if os.path.lexists(dst):
            self.replaced = True
            self._aside(dst)
        self.placed = dst
        self.write_manifest()
        shutil.copyfile(src, dst)
        return dst

    def displace(self, name: str) -> str | None:
        """Move a shipped file called `name` aside; its name, or None when there is none."""
        path = os.path.join(self.tdir, name)
        if os.path.lexists(path):
            self._aside(path)
            return name
        return None


def run_batch(args) -> int:
    """--batch: every job in one process (one import of torch and FlashInfer), the tuner's
    loaded configs cleared between jobs; a missing table is reported, not an error."""
    with open(args.batch, encoding="utf-8") as f:
        jobs = [json.loads(line) for line in f if line.strip()]
    args.kind, args.deployment = "json", None
    args.device = jobs[0]["device"] if jobs else "NVIDIA H200"
    try:
        oracle = Oracle(args)
    except Exception:
        traceback.print_exc()
        print("fi_oracle: error: harness failure (see above)", file=sys.stderr)
        return 3
    runners: dict = {}
    for job in jobs:
        out = {"flashinfer_version": oracle.version, "kind": "json", "table": job["table"],
               "loaded": False, "error": None, "hits": 0, "misses": 0, "results": []}
        oracle.device = job["device"]
        oracle.args.table = job["table"]
        oracle.keys = job.get("keys")
        oracle.metadata = job.get("metadata")
        oracle.tune_mode = job.get("tune_mode", False)
        oracle.tuning_configs = job.get("tuning_configs") or {}
        dep = job.get("deployment")
        ck = json.dumps(dep, sort_keys=True)
        if dep is None:
            oracle.real_runner = None
        else:
            if ck not in runners:
                runners[ck] = oracle.make_real_runner(dep)
            oracle.real_runner, oracle.real_runner_info = runners[ck]
        if hasattr(oracle.tuner, "clear_cache"):
            oracle.tuner.clear_cache()
        oracle.hit_log.clear()
        getattr(oracle.tuner, "_warned_cache_mismatch", set()).clear()  # FlashInfer warns once
        if not os.path.isfile(job["table"]):
            out["note"] = "no such file"
        else:
            try:
                oracle.run_json(out)
            except Exception as e:
                out["error"] = f"{type(e).__name__}: {e}"
        out["hits"] = sum(1 for r in out["results"] if r.get("hit"))
        out["misses"] = len(out["results"]) - out["hits"]
        print(json.dumps(out), flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", help="bundled .py module or JSON cache")
    ap.add_argument("--device", help='CUDA device name to pretend, e.g. "NVIDIA B200"')
    ap.add_argument("--keys", help="file with one key string per line (default: every key in the table)")
    ap.add_argument("--kind", choices=("py", "json"), help="default: from the file name (.json = json)")
    ap.add_argument("--place-as", choices=("given", "expected"), default="given",
                    help="name the .py table gets in tuning_configs/ (default: its own name)")
    ap.add_argument("--batch", metavar="FILE",
                    help="JSON lines, each {table, device, keys: [...], deployment, metadata, "
                         "tune_mode, tuning_configs}: one JSON cache each in this one process (metadata: the server "
                         "environment's _collect_metadata fields; tune_mode: look up inside "
                         "autotune(True), where FlashInfer compares each entry's profiling policy); "
                         "one JSON line out per job; --table and --device are then not read")
    ap.add_argument("--metadata", metavar="JSON",
                    help="JSON object of _metadata fields this environment reports (the server's)")
    ap.add_argument("--deployment", metavar="JSON",
                    help="JSON object of the MoERunner constructor values (dtypes as \"torch.NAME\"); "
                         "look up the key FlashInfer's real cutlass MoERunner builds for each key")
    args = ap.parse_args()
    if args.batch:
        return run_batch(args)
    if not args.table or not args.device:
        print("fi_oracle: error: --table and --device are required (or --batch)", file=sys.stderr)
        return 2
    if args.metadata is not None:
        args.metadata = json.loads(args.metadata)
    if args.deployment is not None:
        try:
            args.deployment = json.loads(args.deployment)
        except ValueError as e:
            print(f"fi_oracle: error: --deployment is not JSON: {e}", file=sys.stderr)
            return 2
        if not isinstance(args.deployment, dict):
            print("fi_oracle: error: --deployment is not a JSON object", file=sys.stderr)
            return 2
    if not os.path.isfile(args.table):
        print(f"fi_oracle: error: no such file '{args.table}'", file=sys.stderr)
        return 2
    if args.kind is None:
        args.kind = "json" if args.table.endswith(".json") else "py"
    keys = None
    if args.keys:
        with open(args.keys, encoding="utf-8") as f:
            keys = [line.rstrip("\n") for line in f if line.strip()]

    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    out = {"flashinfer_version": None, "kind": args.kind, "file_name_expected": None, "loaded": False,
           "error": None, "hits": 0, "misses": 0, "results": []}
    try:
        oracle = Oracle(args)
        oracle.keys = keys
        oracle.metadata = args.metadata
        out["flashinfer_version"] = oracle.version
        out["device"] = args.device
        out["table"] = args.table
        out["extras_source"] = "real-runner" if oracle.real_runner is not None else "key"
        if oracle.real_runner is not None:
            out["deployment"] = args.deployment
            out["real_runner"] = oracle.real_runner_info
        if args.kind == "py":
            oracle.run_py(out)
        else:
            oracle.run_json(out)
    except UsageError as e:
        print(f"fi_oracle: error: {e}", file=sys.stderr)
        return 2
    except HarnessError as e:
        print(f"fi_oracle: error: {e}", file=sys.stderr)
        return 3
    except Exception:
        traceback.print_exc()
        print("fi_oracle: error: harness failure (see above)", file=sys.stderr)
        return 3
    out["hits"] = sum(1 for r in out["results"] if r.get("hit"))
    out["misses"] = len(out["results"]) - out["hits"]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
