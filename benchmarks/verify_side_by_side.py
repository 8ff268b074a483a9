#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""certnn verify and alpha-beta-CROWN side by side on a sample of a VNN-COMP category.

    /usr/bin/python3 benchmarks/verify_side_by_side.py CATEGORY [--instances FILE] [--every N]
        [--limit N] [--filter REGEX] [--timeout S] [--abcrown DIR] [--config YAML] [--threads N]
        [--csv FILE] [-- EXTRA ALPHA-BETA-CROWN ARGS]

Both tools get the same instances (every N-th line of the category's instances file, after
--filter, at most --limit), the same wall-clock limit (the instance's own, or --timeout), the
same number of threads (--threads, default 1: certnn's --threads, torch's OMP_NUM_THREADS), and
are timed as whole processes: start-up counts, as in VNN-COMP 2026.  Each verdict is judged
against the category's expected verdicts as benchmarks/run_category.py judges certnn's (a sat
from certnn has its witness checked by PyTorch there; alpha-beta-CROWN's sat is taken as it
says, its counterexample not re-checked here), and a row is printed per instance:

    instance  certnn verdict, seconds, status  |  alpha-beta-CROWN verdict, seconds, status

then the solved counts, the WRONG counts and the total and median times of both.

alpha-beta-CROWN runs from a checkout (--abcrown DIR, default $ABCROWN_DIR, else
/work/peers/abcrown), as ../shared/design/PEERS.md sets it up: commit 3dac704 with its bundled
auto_LiRPA bfb7997, onnx2pytorch fe7281b and empty stand-ins for onnxruntime, onnxoptimizer and
skl2onnx on $ABCROWN_PYTHONPATH.  The config is the tool's own VNN-COMP one for the category
(--config overrides; see CONFIGS below) with `--device cpu`; on a machine without Gurobi and
CPLEX the MIP refinement of its mnist_fc config and the cutting planes (GCP-CROWN) of its oval21
config are unavailable, so the driver runs mnist_fc with `--complete_verifier bab` and oval21
with the cuts off (say so when you report).  Its verdict is the `Result:` line it prints.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_category as rc  # noqa: E402  (the instance and verdict handling of run_category.py)

# The peer's own VNN-COMP 2022 config per category, extra arguments, and changes to the config
# for a machine without Gurobi or CPLEX (written to a temporary copy).
CONFIGS = {
    "acasxu": ("exp_configs/vnncomp22/acasxu.yaml", [], {}),
    "mnist_fc": ("exp_configs/vnncomp22/mnistfc.yaml", ["--complete_verifier", "bab"], {}),
    "oval21": ("exp_configs/vnncomp22/oval22.yaml", [],
               {"bab": {"cut": {"enabled": False, "cplex_cuts": False, "bab_cut": False}}}),
    "collins_rul_cnn_2023": ("exp_configs/vnncomp22/collins-rul-cnn.yaml", [], {}),
    "dist_shift_2023": ("exp_configs/vnncomp23/dist-shift.yaml", [], {}),
    # 3dac704 has no safenlp config: its VNN-COMP 2024 one (a later commit) asks for the MIP
    # verifier (Gurobi) and 100 PGD restarts; here branch and bound with the same attack
    "safenlp": ("", ["--complete_verifier", "bab"],
                {"attack": {"pgd_order": "after", "pgd_restarts": 100}}),
}


def merged_config(abdir, config, changes, tmp):
    """CONFIG (relative to complete_verifier/) with CHANGES merged in, as a file in TMP."""
    if not changes:
        return config
    import yaml
    data = {}
    if config:
        with open(os.path.join(abdir, "complete_verifier", config)) as f:
            data = yaml.safe_load(f) or {}

    def merge(d, c):
        for k, v in c.items():
            if isinstance(v, dict):
                merge(d.setdefault(k, {}), v)
            else:
                d[k] = v
    merge(data, changes)
    path = os.path.join(tmp, "abcrown_config.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(data, f)
    return path


def run_abcrown(abdir, config, extra, net, spec, timeout, threads):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["MKL_NUM_THREADS"] = str(threads)
    pp = env.get("ABCROWN_PYTHONPATH", "/work/peers/onnx2pytorch:/work/peers/stubs:/work/peers/auto_LiRPA")
    env["PYTHONPATH"] = pp + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = ["/usr/bin/python3", "abcrown.py", "--config", config, "--device", "cpu", "--onnx_path", net,
           "--vnnlib_path", spec, "--timeout", str(timeout)] + extra
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=os.path.join(abdir, "complete_verifier"), env=env, capture_output=True, text=True,
                           timeout=timeout + 60)
        out = p.stdout
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - t0, ""
    dt = time.monotonic() - t0
    m = re.findall(r"^Result: *(\w+)", out, re.M)
    if not m:
        return "error", dt, (p.stderr or "")[-300:]
    v = m[-1].lower()
    return ("sat" if v.startswith("sat") else "unsat" if v.startswith("unsat") else v), dt, ""


def judge_peer(verdict, expected):
    if verdict in ("sat", "unsat") and expected in ("sat", "unsat") and verdict != expected:
        return "WRONG"
    return "OK" if verdict in ("sat", "unsat") else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("category")
    ap.add_argument("--root", help="benchmark root (default ../shared/benchmarks beside the repository)")
    ap.add_argument("--instances", default="instances.csv")
    ap.add_argument("--every", type=int, default=1, help="keep every N-th instance")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--filter")
    ap.add_argument("--timeout", type=float)
    ap.add_argument("--abcrown", default=os.environ.get("ABCROWN_DIR", "/work/peers/abcrown"))
    ap.add_argument("--config")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--certnn")
    ap.add_argument("--csv")
    ap.add_argument("extra", nargs="*", help="after --: extra alpha-beta-CROWN arguments")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    root = a.root or os.environ.get("CERTNN_BENCHMARKS") or os.path.join(os.path.dirname(repo), "shared", "benchmarks")
    catdir = os.path.join(root, a.category)
    certnn = a.certnn or os.environ.get("BENCH_CERTNN") or os.path.join(repo, "build", "certnn")
    if not os.path.isdir(catdir):
        print(f"verify_side_by_side: no category folder {catdir}", file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(a.abcrown, "complete_verifier")):
        print(f"verify_side_by_side: no alpha-beta-CROWN checkout at {a.abcrown} (see PEERS.md)", file=sys.stderr)
        return 2
    config, cfg_extra, changes = CONFIGS.get(a.category, (None, [], {}))
    if a.config:
        config, cfg_extra, changes = a.config, [], {}
    if config is None:
        print(f"verify_side_by_side: no alpha-beta-CROWN config known for {a.category}: pass --config", file=sys.stderr)
        return 2
    rows = rc.read_instances(os.path.join(catdir, a.instances))
    expected = rc.read_expected(catdir, a.instances, a.category)
    if a.filter:
        rows = [r for r in rows if re.search(a.filter, f"{r[0]},{r[1]}")]
    rows = rows[::max(1, a.every)]
    if a.limit:
        rows = rows[:a.limit]
    print(f"{'instance':44s} {'certnn':>8s} {'s':>7s} {'status':8s} | {'ab-CROWN':>8s} {'s':>7s} {'status':8s}")
    res = []
    with tempfile.TemporaryDirectory(prefix="side_by_side.") as tmp:
        config = merged_config(a.abcrown, config, changes, tmp)
        for i, (onnx, vnnlib, tmo) in enumerate(rows):
            net, spec = os.path.join(catdir, onnx), os.path.join(catdir, vnnlib)
            t = a.timeout if a.timeout else float(tmo)
            exp = expected.get(onnx, vnnlib, "")
            rc.log(f"[{i + 1}/{len(rows)}] {a.category} {os.path.basename(onnx)} {os.path.basename(vnnlib)} (timeout {t:g} s)")
            v1, s1, _, text, _ = rc.run_one(certnn, net, spec, t, a.threads, [], tmp)
            st1, _ = rc.judge(v1, exp, text, net, spec)
            v2, s2, why = run_abcrown(a.abcrown, config, cfg_extra + a.extra, net, spec, t, a.threads)
            st2 = judge_peer(v2, exp)
            name = f"{os.path.splitext(os.path.basename(onnx))[0]} {os.path.splitext(os.path.basename(vnnlib))[0]}"
            print(f"{name[:44]:44s} {v1:>8s} {s1:7.2f} {st1:8s} | {v2:>8s} {s2:7.2f} {st2:8s} {why[:60]}", flush=True)
            res.append((name, exp, v1, s1, st1, v2, s2, st2))
    for label, vi, si, sti in (("certnn", 2, 3, 4), ("alpha-beta-CROWN", 5, 6, 7)):
        solved = sum(r[sti] == "OK" for r in res)
        wrong = sum(r[sti] == "WRONG" for r in res)
        times = [r[si] for r in res]
        print(f"{label}: solved {solved} of {len(res)}, WRONG {wrong}; total {sum(times):.1f} s, median "
              f"{statistics.median(times) if times else 0:.2f} s")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("instance,expected,certnn,certnn_s,certnn_status,abcrown,abcrown_s,abcrown_status\n")
            for r in res:
                f.write(",".join(str(x) for x in r) + "\n")
    return 1 if any(r[4] == "WRONG" for r in res) else 0


if __name__ == "__main__":
    sys.exit(main())
