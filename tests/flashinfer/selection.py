#!/usr/bin/env python3
"""selection.py: a JSON cache `tunetab generate --profile` wrote for FlashInfer 0.7.4 against
the bytes FlashInfer's own save_configs writes for the same decisions. CPU only; run with the
0.7.4 venv's python (selection.sh):

    python selection.py --table flashinfer_autotune_<DEVICE>.json --journal <module>.journal

From tunetab's profiling journal (src/tune/journal.h), per GEMM stage and token bucket: every
candidate timed ("M STAGE TOKENS ID STATUS MEDIAN ...", the last line of an id wins; STATUS 0
timed, a screened-out one with its one sample included, else failed or not runnable) and the decision ("D STAGE TOKENS CHOSEN KIND ...", KIND 1 measured, 2 the
fallback kept after measuring, 0 predicted). Each table entry's runner and tactic go into
FlashInfer's AutoTuner as loaded entries (_file_configs); a measured one (KIND 1 or 2) also gets
FlashInfer's policy for the CUTLASS MoE, AutoTuner._profiling_policy(MoERunner.tuning_config)
(the class from fi_oracle.cutlass_moe_runner_class), and its selection record,
AutoTuner._selection_record(times, winner), the times in milliseconds (median_us / 1000; a
failed candidate inf), winner the index of CHOSEN. save_configs then writes the file, with
_collect_metadata giving the table's own _metadata; its bytes must equal the table's. The
chosen tactic must be the table's. Exit 0 equal, 1 a difference, 2 usage, 3 harness error.
"""
import argparse
import difflib
import json
import os
import re
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
KEY = re.compile(r"^\('trtllm::fused_moe::gemm([12])', 'MoERunner', \(\((\d+),")


def read_journal(path):
    meas, dec = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[0] == "M":
                meas.setdefault((int(w[1]), int(w[2])), {})[int(w[3])] = (int(w[4]), float(w[5]))
            elif len(w) >= 6 and w[0] == "D":
                dec[(int(w[1]), int(w[2]))] = (int(w[3]), int(w[4]))
    return meas, dec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--journal", required=True)
    a = ap.parse_args()
    import flashinfer.autotuner as at
    import flashinfer.fused_moe.core as core
    from flashinfer.autotuner import AutoTuner
    sys.path.insert(0, here)
    import fi_oracle
    if not hasattr(AutoTuner, "_selection_record"):
        print("harness: this FlashInfer has no AutoTuner._selection_record", file=sys.stderr)
        return 3
    cls = fi_oracle.cutlass_moe_runner_class(core, at)[0]
    policy = AutoTuner._profiling_policy(cls.tuning_config)
    with open(a.table, "rb") as f:
        want = f.read()
    table = json.loads(want)
    meas, dec = read_journal(a.journal)
    tuner = AutoTuner.get()
    n = {"measured": 0, "predicted": 0}
    bad = []
    for key, value in table.items():
        if key.startswith("_"):
            continue
        m = KEY.match(key)
        if not m:
            bad.append(f"not a CUTLASS MoE key: {key[:80]}")
            continue
        stage, tokens = int(m.group(1)), int(m.group(2))
        tuner._file_configs[key] = (value[0], value[1])
        chosen, kind = dec.get((stage, tokens), (None, 0))
        if kind not in (1, 2):
            n["predicted"] += 1
            continue
        n["measured"] += 1
        if chosen != value[1]:
            bad.append(f"{key[:80]}: the journal chose {chosen}, the table holds {value[1]}")
        ids = list(meas.get((stage, tokens), {}))
        times = [us / 1000 if status == 0 else float("inf")
                 for status, us in meas.get((stage, tokens), {}).values()]
        tuner._file_config_policies[key] = policy
        tuner._file_config_selections[key] = AutoTuner._selection_record(times, ids.index(chosen))
    at_mod = sys.modules[AutoTuner.__module__]
    at_mod._collect_metadata = lambda: dict(table["_metadata"])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "saved.json")
        tuner.save_configs(path)
        with open(path, "rb") as f:
            got = f.read()
    print(f"{n['measured']} measured entries (policy {list(policy)} and selection record), "
          f"{n['predicted']} others")
    for b in bad:
        print("differs:", b)
    if got != want:
        print("differs: FlashInfer's save_configs writes other bytes than the table's:")
        sys.stdout.writelines(list(difflib.unified_diff(
            got.decode().splitlines(True), want.decode().splitlines(True), "flashinfer", "tunetab",
            n=2))[:40])
        return 1
    if bad:
        return 1
    import flashinfer
    print(f"the same bytes as FlashInfer {flashinfer.__version__}'s save_configs ({len(got)} bytes)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a harness error, not a difference
        import traceback
        traceback.print_exc()
        print(f"harness: {e}", file=sys.stderr)
        sys.exit(3)
