#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""benchmarks/bench_semantics.py: certnn's binary32 semantics beside its real one on VNN-COMP categories.

    /usr/bin/python3 benchmarks/bench_semantics.py [--certnn PATH] [--benchmarks DIR] [--sample N]
        [--verify-sample K] [--timeout S] [--jobs J] [CATEGORY ...]

For a sample of each category's instances (evenly spread over its instances.csv, N per category,
default 10): the CROWN output box of `certnn bounds --method crown` over the property's first input box
under --semantics real and binary32, and the extra width of the binary32 box in ulps of the output
scale (the binary32 ulp of the largest bound magnitude of the real box), summed over both ends and
taken at the worst output entry.  For the first K of them (default 6), `certnn verify` under both
semantics with the same limit (one thread each, J processes side by side, so times are not compared
and not printed): the verdicts side by side.  A network the binary32 semantics refuses (an operator
without a binary32 declaration, a weight that is no binary32 word) is counted as refused with the
message.  Prints one table; a benchmark to read, not a test.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import math
import os
import subprocess
import sys
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))


def ulp32(x):
    x = abs(x)
    if x == 0 or not math.isfinite(x):
        return 2.0 ** -149
    e = math.floor(math.log2(x))
    return 2.0 ** max(e - 23, -149)


def bounds(certnn, net, spec, sem):
    p = subprocess.run([certnn, "bounds", net, "--vnnlib", spec, "--method", "crown", "--semantics", sem, "--json",
                        "--threads", "1"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    r = json.loads(p.stdout)
    lo = [-math.inf if v is None else v for v in r["lower"]]
    hi = [math.inf if v is None else v for v in r["upper"]]
    return (lo, hi), None


def verify(certnn, net, spec, sem, timeout):
    p = subprocess.run([certnn, "verify", net, spec, "--semantics", sem, "--timeout", str(timeout), "--threads", "1",
                        "--quiet"], capture_output=True, text=True, timeout=timeout * 3 + 60)
    if p.returncode != 0:
        return "error: " + (p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}")
    return p.stdout.split("\n", 1)[0].strip()


def instances(bench, cat):
    with open(os.path.join(bench, cat, "instances.csv")) as f:
        rows = [r for r in csv.reader(f) if r]
    return [(os.path.join(bench, cat, r[0].strip()), os.path.join(bench, cat, r[1].strip())) for r in rows]


def spread(items, n):
    if len(items) <= n:
        return items
    return [items[(i * len(items)) // n] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--certnn", default=os.environ.get("BENCH_CERTNN", "certnn"))
    ap.add_argument("--benchmarks", default=os.path.join(HERE, "..", "..", "shared", "benchmarks"))
    ap.add_argument("--sample", type=int, default=10)
    ap.add_argument("--verify-sample", type=int, default=6)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("categories", nargs="*",
                    default=["acasxu", "mnist_fc", "oval21", "safenlp", "collins_rul_cnn_2023", "linearizenn",
                             "dist_shift_2023"])
    a = ap.parse_args()
    print(f"certnn: {a.certnn}; CROWN boxes, 1 thread; verify limit {a.timeout:g} s")
    print(f"{'category':22s} {'inst':>4s} {'refused':>7s} {'extra ulps med':>14s} {'max':>10s} "
          f"{'rel. width med':>14s}   verdicts real -> binary32 (agree/of)")
    notes = []
    for cat in a.categories:
        inst = spread(instances(a.benchmarks, cat), a.sample)
        extra, rel, refused = [], [], 0
        for net, spec in inst:
            r, e1 = bounds(a.certnn, net, spec, "real")
            b, e2 = bounds(a.certnn, net, spec, "binary32")
            if r is None:
                notes.append(f"{cat}: {os.path.basename(net)}: real: {e1}")
                continue
            if b is None:
                refused += 1
                notes.append(f"{cat}: {os.path.basename(net)}: binary32 refused: {e2}")
                continue
            (rl, rh), (bl, bh) = r, b
            scale = max(max(abs(v) for v in rl + rh if math.isfinite(v)), 1e-30)
            u = ulp32(scale)
            worst = max((rl[j] - bl[j]) + (bh[j] - rh[j]) for j in range(len(rl)))
            extra.append(worst / u)
            width = max(rh[j] - rl[j] for j in range(len(rl)))
            rel.append(worst / width if width > 0 else math.inf)
        vs = spread(inst, a.verify_sample)
        jobs = []
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            for net, spec in vs:
                jobs.append((ex.submit(verify, a.certnn, net, spec, "real", a.timeout),
                             ex.submit(verify, a.certnn, net, spec, "binary32", a.timeout)))
        pairs = [(j1.result(), j2.result()) for j1, j2 in jobs]
        agree = sum(1 for p, q in pairs if p == q)
        changes = {}
        for p, q in pairs:
            changes[f"{p}->{q}"] = changes.get(f"{p}->{q}", 0) + 1
        ch = ", ".join(f"{k} {v}" for k, v in sorted(changes.items()))
        med = f"{median(extra):.0f}" if extra else "-"
        mx = f"{max(extra):.0f}" if extra else "-"
        mr = f"{median(rel):.1e}" if rel else "-"
        print(f"{cat:22s} {len(inst):4d} {refused:7d} {med:>14s} {mx:>10s} {mr:>14s}   {agree}/{len(pairs)}: {ch}")
        sys.stdout.flush()
    for n in dict.fromkeys(notes):
        print("note:", n)


if __name__ == "__main__":
    sys.exit(main())
