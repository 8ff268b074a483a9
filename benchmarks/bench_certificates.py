#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Bound certificates on a VNN-COMP category: verify time against check time.

    /usr/bin/python3 benchmarks/bench_certificates.py CATEGORY [--certnn PATH] [--root DIR]
        [--threads N] [--limit K] [--match TEXT] [--timeout S] [--check-timeout S] [--baseline]

For every instance of CATEGORY's instances.csv (`onnx,vnnlib,timeout` per line; --match keeps the
rows whose text contains TEXT, --limit the first K of them; --timeout S caps each instance's
timeout at S seconds) it runs

    certnn verify NET SPEC --timeout T --quiet --threads N --certificate FILE

and, when the verdict is unsat, `certnn check-certificate NET SPEC FILE --threads N`, killed after
--check-timeout seconds (default 900).  With --baseline it also runs the verify without
--certificate (the search with clipping, escalation and relu splitting on), to show what the
certificate's restrictions cost (the summary then counts its unsat verdicts too).  One row per
instance:

    instance  verdict  verify_s  [plain verdict  plain_s]  check  check_s  nodes  leaves  ratio

(ratio = check_s / verify_s), then a summary: unsat verdicts, certificates accepted, rejected and
not checked (timeout or error), the sums and medians of verify and check time, and the median ratio.
A rejected certificate of an unsat verdict is a defect: the exit status is then 1 (0 otherwise,
2 on bad usage).  Timings are wall-clock seconds of one run each on this machine.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def find_certnn(arg):
    for cand in (arg, os.environ.get("BENCH_CERTNN"), os.path.join(os.getcwd(), "certnn"),
                 os.path.join(REPO, "build", "certnn")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("category")
    ap.add_argument("--certnn")
    ap.add_argument("--root")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--match", default="")
    ap.add_argument("--timeout", type=float, default=0)
    ap.add_argument("--check-timeout", type=float, default=900)
    ap.add_argument("--baseline", action="store_true")
    args = ap.parse_args()
    certnn = find_certnn(args.certnn)
    if certnn is None:
        print("bench_certificates: no certnn (give --certnn PATH or set BENCH_CERTNN)", file=sys.stderr)
        return 2
    root = args.root or os.environ.get("CERTNN_BENCHMARKS") or os.path.join(os.path.dirname(REPO), "shared",
                                                                              "benchmarks")
    inst = os.path.join(root, args.category, "instances.csv")
    if not os.path.isfile(inst):
        print("bench_certificates: no %s" % inst, file=sys.stderr)
        return 2
    rows = [r for r in csv.reader(open(inst)) if len(r) >= 3 and args.match in ",".join(r)]
    if args.limit > 0:
        rows = rows[:args.limit]
    th = ["--threads", str(args.threads)]
    tmp = tempfile.mkdtemp(prefix="bench_cert_")
    head = "%-44s %-8s %9s" % ("instance", "verdict", "verify_s")
    if args.baseline:
        head += " %-8s %8s" % ("plain", "plain_s")
    head += " %-9s %8s %7s %7s %7s" % ("check", "check_s", "nodes", "leaves", "ratio")
    print(head, flush=True)
    verify_s, check_s, ratios = [], [], []
    n_unsat = n_acc = n_rej = n_unchecked = n_plain_unsat = 0
    for net, spec, timeout in (r[:3] for r in rows):
        if args.timeout > 0 and float(timeout) > args.timeout:
            timeout = "%g" % args.timeout
        netp, specp = os.path.join(root, args.category, net), os.path.join(root, args.category, spec)
        name = "%s %s" % (os.path.basename(net).replace(".onnx", "").replace("ACASXU_run2a_", ""),
                          os.path.basename(spec).replace(".vnnlib", ""))
        cert = os.path.join(tmp, "c.cert")
        if os.path.exists(cert):
            os.remove(cert)
        rc, out, err, vs = run([certnn, "verify", netp, specp, "--timeout", timeout, "--quiet", "--certificate",
                                cert] + th, float(timeout) + 30)
        verdict = out.split("\n")[0].strip() if rc == 0 else ("killed" if rc is None else "error")
        line = "%-44s %-8s %9.2f" % (name, verdict, vs)
        if args.baseline:
            prc, pout, _, ps = run([certnn, "verify", netp, specp, "--timeout", timeout, "--quiet"] + th,
                                   float(timeout) + 30)
            pv = pout.split("\n")[0].strip() if prc == 0 else "error"
            n_plain_unsat += pv == "unsat"
            line += " %-8s %8.2f" % (pv, ps)
        if verdict == "unsat":
            n_unsat += 1
            crc, cout, cerr, cs = run([certnn, "check-certificate", netp, specp, cert] + th, args.check_timeout)
            nodes = leaves = "-"
            for tok in cerr.replace(",", "").split("\n")[-2:]:
                w = tok.split()
                if "nodes" in w:
                    nodes, leaves = w[w.index("nodes") - 1], w[w.index("leaves") - 1]
            if crc == 0:
                n_acc += 1
                state = "accepted"
            elif crc == 1 and cout.startswith("rejected"):
                n_rej += 1
                state = "REJECTED"
                print("  %s: %s" % (name, cout.strip()), file=sys.stderr)
            else:
                n_unchecked += 1
                state = "timeout" if crc is None else "error"
            verify_s.append(vs)
            if crc == 0:
                check_s.append(cs)
                ratios.append(cs / vs if vs > 0 else float("inf"))
            line += " %-9s %8.2f %7s %7s %7s" % (state, cs, nodes, leaves,
                                                  "%.1f" % (cs / vs) if crc == 0 and vs > 0 else "-")
        print(line, flush=True)
    med = lambda v: statistics.median(v) if v else 0.0
    print("unsat %d: certificates accepted %d, REJECTED %d, not checked %d; verify %.1f s (median %.2f), "
          "check %.1f s (median %.2f), median check/verify %.1f" % (n_unsat, n_acc, n_rej, n_unchecked,
                                                                   sum(verify_s), med(verify_s), sum(check_s),
                                                                   med(check_s), med(ratios)))
    if args.baseline:
        print("without --certificate: unsat %d" % n_plain_unsat)
    return 1 if n_rej else 0


if __name__ == "__main__":
    sys.exit(main())
