#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two builds of certnn side by side on bench_bounds.py's instances: is the new one slower?

    python3 benchmarks/bench_builds.py CERTNN_A CERTNN_B [--repeat 7] [--methods ibp,crown,crown-ibp]
        [--families acasxu,mnist_fc,oval21] [--quick | --all] [--benchmarks DIR] [--threads 1]
        [--env NAME=VALUE ...] [--csv FILE]

CERTNN_A and CERTNN_B are two `certnn` commands (a build before a change and after).  For every
instance of benchmarks/bench_bounds.py (the same selection and options) and every method, both
commands run `certnn bounds NET --vnnlib SPEC --method M --json --threads T` R times, alternating
A and B run by run so that both see the same machine, and each row prints the medians of the
bound time ("seconds" of the JSON: the computation alone), of the whole process (wall, start-up
and loading included) and their ratios B/A; whether the bounds are equal (bit for bit) is noted.
The summary gives per method the median, the smallest and the largest ratio.  A ratio near 1 is
noise on this machine when it lies within the spread of A against itself (run with A twice to see
it).  --env sets a variable for B's runs only (e.g. --env CN_NO_MALLOPT=1 to measure a setting).
A measurement, not a test: nothing here asserts a time.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_bounds  # noqa: E402  (the instance selection)


def one_run(certnn, net, spec, method, threads, timeout, env):
    cmd = [certnn, "bounds", net, "--vnnlib", spec, "--method", method, "--json", "--threads", str(threads)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, None, None, "timeout"
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return None, None, None, "rc=%d %s" % (p.returncode, (p.stderr or "").strip()[-80:])
    try:
        o = json.loads(p.stdout)
    except ValueError:
        return None, None, None, "no JSON"
    return o.get("seconds"), wall, (o.get("lower"), o.get("upper")), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("certnn_a")
    ap.add_argument("certnn_b")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--methods", default="ibp,crown,crown-ibp")
    ap.add_argument("--families", default="acasxu,mnist_fc,oval21")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--benchmarks", default=None)
    ap.add_argument("--threads", type=int, default=1, help="--threads of certnn (default 1)")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for B's runs")
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()
    bdir = a.benchmarks or os.path.join(os.path.dirname(HERE), "..", "shared", "benchmarks")
    if not os.path.isdir(bdir):
        print("bench_builds: no benchmarks at %s" % bdir, file=sys.stderr)
        return 77
    insts = bench_bounds.instances(bdir, a.families.split(","), a.all, a.quick)
    env_a = dict(os.environ)
    env_b = dict(os.environ)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env_b[k] = v
    rows = []
    hdr = "%-9s %-8s %-22s %-9s %10s %10s %7s %9s %9s %7s  %s" % (
        "family", "net", "property", "method", "A s", "B s", "B/A", "A wall", "B wall", "B/A", "bounds")
    print(hdr)
    for fam, net, prop, onnx, spec in insts:
        for m in a.methods.split(","):
            sa, sb, wa, wb = [], [], [], []
            ba = bb = None
            err = None
            for _ in range(a.repeat):
                s, w, b, e = one_run(a.certnn_a, onnx, spec, m, a.threads, a.timeout, env_a)
                if e:
                    err = "A: " + e
                    break
                sa.append(s), wa.append(w)
                ba = b
                s, w, b, e = one_run(a.certnn_b, onnx, spec, m, a.threads, a.timeout, env_b)
                if e:
                    err = "B: " + e
                    break
                sb.append(s), wb.append(w)
                bb = b
            if err:
                print("%-9s %-8s %-22s %-9s  %s" % (fam, net, prop[:22], m, err))
                continue
            r = dict(family=fam, net=net, prop=prop, method=m, a=statistics.median(sa), b=statistics.median(sb),
                     wa=statistics.median(wa), wb=statistics.median(wb), same=ba == bb)
            r["ratio"] = r["b"] / r["a"] if r["a"] > 0 else float("nan")
            r["wratio"] = r["wb"] / r["wa"] if r["wa"] > 0 else float("nan")
            rows.append(r)
            print("%-9s %-8s %-22s %-9s %10.3g %10.3g %7.3f %9.3g %9.3g %7.3f  %s" % (
                fam, net, prop[:22], m, r["a"], r["b"], r["ratio"], r["wa"], r["wb"], r["wratio"],
                "equal" if r["same"] else "DIFFER"))
            sys.stdout.flush()
    print()
    for m in a.methods.split(","):
        rs = [r["ratio"] for r in rows if r["method"] == m]
        ws = [r["wratio"] for r in rows if r["method"] == m]
        if rs:
            print("%-9s B/A bound time: median %.3f (min %.3f, max %.3f); wall: median %.3f (min %.3f, max %.3f); %d rows"
                  % (m, statistics.median(rs), min(rs), max(rs), statistics.median(ws), min(ws), max(ws), len(rs)))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["family"])
            w.writeheader()
            for r in rows:
                w.writerow(r)
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
