#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Side-by-side output bounds: `certnn bounds` against auto_LiRPA on the VNN-COMP networks.

    /usr/bin/python3 benchmarks/bench_bounds.py [--certnn PATH] [--lirpa PATH] [--repeat 5]
        [--methods ibp,crown,crown-ibp,alpha-crown] [--quick | --all] [--families acasxu,mnist_fc,oval21]
        [--benchmarks DIR] [--csv FILE] [--timeout S] [--threads 1] [--iterations 20] [--lr 0.5]

Both sides run on one thread by default (certnn --threads 1, the peer torch.set_num_threads(1),
which is what OMP_NUM_THREADS=1 gives it); --threads 2 runs both on two.  alpha-crown is
auto_LiRPA's CROWN-Optimized with the same --iterations and --lr on both sides.

For every selected (network, property) and method it runs
    certnn bounds NET --vnnlib SPEC --method M --json        R times (a fresh process each)
    lirpa_bounds.py NET SPEC --method M1,M2,.. --repeat R    once (R timed calls inside)
and prints one aligned row per (network, property, method), then a summary line per method.
README.md beside this file explains the columns.  A failure of either side is written into the
row's note; the driver itself does not stop on one.

Instances (from DIR = --benchmarks, default ../shared/benchmarks next to the repository):
  acasxu    nets 1_1 2_1 3_3 4_5 5_9 with prop_1..prop_4 (--all: all 45 nets)
  mnist_fc  each of the 3 nets with prop_0 at eps 0.03 and at eps 0.05 (the 2021 set)
  oval21    each of the 3 nets with its first 2 properties of instances.csv (the 2021 set)
  --quick   only the first instance of each family, and R = 1 unless --repeat is given.
"""

import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PEER_NAME = {"ibp": "IBP", "crown": "CROWN", "crown-ibp": "CROWN-IBP", "alpha-crown": "CROWN-Optimized"}
ACAS_DEFAULT = ["1_1", "2_1", "3_3", "4_5", "5_9"]


# ---------------------------------------------------------------------------------------------
# Instances

def _read_csv(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.strip().split(",")]
            if len(parts) >= 2 and parts[0]:
                rows.append((parts[0], parts[1]))
    return rows


def instances(bdir, families, all_acas, quick):
    """List of (family, net label, prop label, onnx path, vnnlib path)."""
    out = []
    if "acasxu" in families:
        d = os.path.join(bdir, "acasxu")
        nets = ["%d_%d" % (a, b) for a in range(1, 6) for b in range(1, 10)] if all_acas else ACAS_DEFAULT
        props = [1, 2, 3, 4]
        if quick:
            nets, props = nets[:1], props[:1]
        for n in nets:
            for p in props:
                out.append(("acasxu", n, "prop_%d" % p,
                            os.path.join(d, "onnx", "ACASXU_run2a_%s_batch_2000.onnx" % n),
                            os.path.join(d, "vnnlib", "prop_%d.vnnlib" % p)))
    if "mnist_fc" in families:
        d = os.path.join(bdir, "mnist_fc")
        try:
            rows = _read_csv(os.path.join(d, "instances.csv"))
        except OSError as e:
            print("bench_bounds: mnist_fc skipped: %s" % e, file=sys.stderr)
            rows = []
        picked = []
        for net in ("mnist-net_256x2", "mnist-net_256x4", "mnist-net_256x6"):
            for eps in ("0.03", "0.05"):
                for onnx_rel, spec_rel in rows:
                    if net in onnx_rel and spec_rel.endswith("_%s.vnnlib" % eps):
                        picked.append((net, onnx_rel, spec_rel))
                        break
        if quick:
            picked = picked[:1]
        for net, onnx_rel, spec_rel in picked:
            out.append(("mnist_fc", net.replace("mnist-net_", ""),
                        os.path.basename(spec_rel)[:-len(".vnnlib")],
                        os.path.join(d, onnx_rel), os.path.join(d, spec_rel)))
    if "oval21" in families:
        d = os.path.join(bdir, "oval21")
        try:
            rows = _read_csv(os.path.join(d, "instances.csv"))
        except OSError as e:
            print("bench_bounds: oval21 skipped: %s" % e, file=sys.stderr)
            rows = []
        picked = []
        for net in ("cifar_base_kw", "cifar_wide_kw", "cifar_deep_kw"):
            mine = [r for r in rows if os.path.basename(r[0]) == net + ".onnx"][:2]
            picked += [(net,) + r for r in mine]
        if quick:
            picked = picked[:1]
        for net, onnx_rel, spec_rel in picked:
            prop = os.path.basename(spec_rel)[:-len(".vnnlib")]
            if prop.startswith(net + "-"):
                prop = prop[len(net) + 1:]
            if "-eps" in prop:  # img4549-eps0.00392156862745098 -> img4549-eps0.003922
                img, eps = prop.split("-eps", 1)
                try:
                    prop = "%s-eps%.4g" % (img, float(eps))
                except ValueError:
                    pass
            out.append(("oval21", net, prop, os.path.join(d, onnx_rel), os.path.join(d, spec_rel)))
    return out


# ---------------------------------------------------------------------------------------------
# Running the two sides

def _floats(v, none):
    """Floats of list V.  float() takes numbers and "Infinity"/"-Infinity"/"NaN"; certnn writes an
    infinite bound as null, which becomes NONE (-inf for a lower bound, +inf for an upper one)."""
    return [none if x is None else float(x) for x in v]


def _last_line(text, limit=70):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    s = lines[-1] if lines else ""
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _json_objects(text):
    objs = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                objs.append(json.loads(line))
            except ValueError:
                pass
    if not objs:
        try:
            objs.append(json.loads(text))
        except (ValueError, TypeError):
            pass
    return objs


def run_certnn(certnn, net, spec, method, repeat, timeout, threads=None, alpha=None):
    """Returns dict(lower, upper, seconds (median reported), wall (median), error)."""
    res = {"lower": None, "upper": None, "seconds": None, "cold": None, "wall": None, "error": None}
    if certnn is None:
        res["error"] = "certnn not run"
        return res
    secs, walls = [], []
    for _ in range(repeat):
        cmd = [certnn, "bounds", net, "--vnnlib", spec, "--method", method, "--json"]
        if threads is not None:
            cmd += ["--threads", str(threads)]
        if method == "alpha-crown" and alpha is not None:
            cmd += ["--iterations", str(alpha[0]), "--lr", repr(alpha[1])]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            res["error"] = "certnn: timeout after %g s" % timeout
            return res
        except OSError as e:
            res["error"] = "certnn: %s" % e
            return res
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            res["error"] = "certnn rc=%d: %s" % (p.returncode, _last_line(p.stderr or p.stdout))
            return res
        objs = _json_objects(p.stdout)
        if not objs or not isinstance(objs[-1], dict):
            res["error"] = "certnn: no JSON in output: %s" % _last_line(p.stdout or p.stderr)
            return res
        o = objs[-1]
        try:
            res["lower"] = _floats(o["lower"], -math.inf)
            res["upper"] = _floats(o["upper"], math.inf)
            if o.get("seconds") is not None:
                secs.append(float(o["seconds"]))
        except (KeyError, TypeError, ValueError) as e:
            res["error"] = "certnn: bad JSON (%s: %s)" % (type(e).__name__, e)
            return res
        walls.append(wall)
    res["cold"] = statistics.median(secs) if secs else None
    res["seconds"] = res["cold"]
    res["wall"] = statistics.median(walls) if walls else None
    # The peer is timed warm (after an untimed call, in one process): so is certnn, by one more
    # process that computes the bounds 1 + R times (certnn bounds --repeat R); its "seconds" is the
    # median of the last R.  The cold median (fresh processes) stays in the "cold" column.
    cmd = [certnn, "bounds", net, "--vnnlib", spec, "--method", method, "--json", "--repeat", str(repeat)]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    if method == "alpha-crown" and alpha is not None:
        cmd += ["--iterations", str(alpha[0]), "--lr", repr(alpha[1])]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        objs = _json_objects(p.stdout) if p.returncode == 0 else []
        if objs and isinstance(objs[-1], dict) and objs[-1].get("seconds") is not None:
            res["seconds"] = float(objs[-1]["seconds"])
        else:
            res["error"] = "certnn --repeat rc=%d: %s" % (p.returncode, _last_line(p.stderr or p.stdout))
    except (subprocess.TimeoutExpired, OSError) as e:
        res["error"] = "certnn --repeat: %s" % e
    return res


class Peer:
    """auto_LiRPA through lirpa_bounds.py in a child process; disabled (with a reason) when
    it is missing."""

    def __init__(self, path, python, repeat, timeout, threads, alpha=(20, 0.5)):
        self.path, self.python, self.repeat, self.timeout = path, python, repeat, timeout
        self.threads, self.alpha = threads, alpha
        self.reason = None
        if path is None:
            self.reason = "no --lirpa PATH and LIRPA_PATH is unset"
        elif not os.path.isdir(os.path.join(path, "auto_LiRPA")):
            self.reason = "no auto_LiRPA package under %s" % path

    def run(self, net, spec, methods):
        """Returns {certnn method: dict(lower, upper, seconds, error)}."""
        empty = lambda err: {m: {"lower": None, "upper": None, "seconds": None, "error": err}
                             for m in methods}
        if self.reason:
            return empty("peer skipped")
        cmd = [self.python, os.path.join(HERE, "lirpa_bounds.py"), net, spec,
               "--method", ",".join(PEER_NAME[m] for m in methods), "--repeat", str(self.repeat),
               "--lirpa", self.path, "--threads", str(self.threads),
               "--iterations", str(self.alpha[0]), "--lr", repr(self.alpha[1])]
        env = dict(os.environ, OMP_NUM_THREADS=str(self.threads), MKL_NUM_THREADS=str(self.threads))
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout, env=env)
        except subprocess.TimeoutExpired:
            return empty("auto_LiRPA: timeout after %g s" % self.timeout)
        except OSError as e:
            return empty("auto_LiRPA: %s" % e)
        if p.returncode == 3:
            self.reason = _last_line(p.stderr, 200)
            print("bench_bounds: auto_LiRPA disabled: %s" % self.reason, file=sys.stderr)
            return empty("peer skipped")
        got = {}
        for o in _json_objects(p.stdout):
            if isinstance(o, dict) and "method" in o:
                got[str(o["method"]).upper()] = o
        out = {}
        for m in methods:
            o = got.get(PEER_NAME[m].upper())
            if o is None:
                err = "auto_LiRPA rc=%d: %s" % (p.returncode, _last_line(p.stderr or p.stdout))
                out[m] = {"lower": None, "upper": None, "seconds": None, "error": err}
                continue
            try:
                out[m] = {"lower": _floats(o["lower"], -math.inf), "upper": _floats(o["upper"], math.inf),
                          "seconds": float(o["seconds"]), "error": None}
            except (KeyError, TypeError, ValueError) as e:
                out[m] = {"lower": None, "upper": None, "seconds": None,
                          "error": "auto_LiRPA: bad JSON (%s)" % e}
        return out


# ---------------------------------------------------------------------------------------------
# Rows and the table

def _div(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return math.inf if a > 0 else (1.0 if a == 0 else None)
    return a / b


def compare(fam, net, prop, method, c, p):
    row = {"benchmark": fam, "net": net, "prop": prop, "method": method,
           "certnn_s": c["seconds"], "certnn_cold_s": c.get("cold"), "certnn_wall_s": c["wall"],
           "lirpa_s": p["seconds"],
           "speed_ratio": None, "width_certnn": None, "width_lirpa": None,
           "width_ratio": None, "width_ratio_max": None, "note": ""}
    notes = [e for e in (c["error"], p["error"]) if e and e not in ("peer skipped", "certnn not run")]
    row["speed_ratio"] = _div(p["seconds"], c["seconds"])
    wc = wp = None
    if c["lower"] is not None:
        if len(c["lower"]) != len(c["upper"]):
            notes.append("certnn: %d lower, %d upper" % (len(c["lower"]), len(c["upper"])))
        else:
            wc = [u - l for l, u in zip(c["lower"], c["upper"])]
            row["width_certnn"] = sum(wc) / len(wc) if wc else None
            bad = [j for j, (l, u) in enumerate(zip(c["lower"], c["upper"]))
                   if not (l <= u)]  # also catches NaN
            if bad:
                notes.append("certnn lower>upper or NaN at outputs %s" % bad[:5])
    if p["lower"] is not None:
        wp = [u - l for l, u in zip(p["lower"], p["upper"])]
        row["width_lirpa"] = sum(wp) / len(wp) if wp else None
    if wc is not None and wp is not None:
        if len(wc) != len(wp):
            notes.append("output counts differ: certnn %d, auto_LiRPA %d" % (len(wc), len(wp)))
        else:
            row["width_ratio"] = _div(row["width_certnn"], row["width_lirpa"])
            ratios = [_div(a, b) for a, b in zip(wc, wp)]
            ratios = [r for r in ratios if r is not None]
            row["width_ratio_max"] = max(ratios) if ratios else None
            # Both sides claim to enclose the same output range: disjoint intervals mean one of
            # them is wrong.  (The peer box is up to 1 ulp narrower, which cannot separate them.)
            disj = [j for j in range(len(wc))
                    if c["lower"][j] > p["upper"][j] or p["lower"][j] > c["upper"][j]]
            if disj:
                notes.append("DISJOINT intervals at outputs %s" % disj[:5])
    row["note"] = "; ".join(notes)
    return row


def _fmt(v, kind):
    if v is None:
        return "-"
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if kind == "s":
        return "%.4f" % v if v < 10 else "%.2f" % v
    if kind == "wratio" and v != 1.0 and abs(v - 1.0) < 5e-4:
        return "1%+.1e" % (v - 1.0)  # 1+4.6e-14: the cost of sound rounding shows
    if kind in ("ratio", "wratio"):
        return "%.3f" % v if v < 100 else "%.4g" % v
    return "%.4g" % v


COLUMNS = [("benchmark", "benchmark", None), ("net", "net", None), ("prop", "prop", None),
           ("method", "method", None), ("certnn_s", "certnn s", "s"), ("certnn_cold_s", "certnn cold s", "s"),
           ("certnn_wall_s", "certnn wall s", "s"), ("lirpa_s", "auto_LiRPA s", "s"),
           ("speed_ratio", "speed peer/certnn", "ratio"), ("width_certnn", "width certnn", "w"),
           ("width_lirpa", "width peer", "w"), ("width_ratio", "width ratio", "wratio"),
           ("width_ratio_max", "max width ratio", "wratio"), ("note", "note", None)]


def print_table(rows, out=sys.stdout):
    cells = [[h for _, h, _ in COLUMNS]]
    for r in rows:
        cells.append([r[k] if kind is None else _fmt(r[k], kind) for k, _, kind in COLUMNS])
    widths = [max(len(str(c[i])) for c in cells) for i in range(len(COLUMNS))]
    numeric = [kind is not None for _, _, kind in COLUMNS]
    for n, c in enumerate(cells):
        parts = []
        for i, v in enumerate(c):
            if i == len(COLUMNS) - 1:
                parts.append(str(v))
            elif numeric[i]:
                parts.append(str(v).rjust(widths[i]))
            else:
                parts.append(str(v).ljust(widths[i]))
        print("  ".join(parts).rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths[:-1]) + "  ----", file=out)


def summaries(rows, methods):
    lines = []
    for m in methods:
        rs = [r for r in rows if r["method"] == m]
        sp = [r["speed_ratio"] for r in rs if r["speed_ratio"] is not None]
        wr = [r["width_ratio"] for r in rs if r["width_ratio"] is not None]
        wm = [r["width_ratio_max"] for r in rs if r["width_ratio_max"] is not None]
        both = sum(1 for r in rs if r["width_ratio"] is not None)
        errs = sum(1 for r in rs if r["note"])
        lines.append(
            "summary %-9s rows %d, compared %d, with notes %d: median speed ratio %s, "
            "median width ratio %s, max width ratio %s"
            % (m, len(rs), both, errs, _fmt(statistics.median(sp), "ratio") if sp else "-",
               _fmt(statistics.median(wr), "wratio") if wr else "-",
               _fmt(max(wm), "wratio") if wm else "-"))
    return lines


# ---------------------------------------------------------------------------------------------

def find_certnn(arg):
    """--certnn, else $BENCH_CERTNN, else ./certnn (a build folder), else certnn on PATH."""
    for cand in (arg, os.environ.get("BENCH_CERTNN"), os.path.join(os.getcwd(), "certnn")):
        if cand:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return os.path.abspath(cand), None
            if cand in (arg, os.environ.get("BENCH_CERTNN")):
                return None, "%s is not an executable file" % cand
    found = shutil.which("certnn")
    if found:
        return found, None
    return None, "not found (give --certnn PATH or set BENCH_CERTNN)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--certnn", help="the certnn command (default: $BENCH_CERTNN, ./certnn, PATH)")
    ap.add_argument("--lirpa", help="auto_LiRPA checkout (default: $LIRPA_PATH)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per measurement (default 5)")
    ap.add_argument("--methods", default="ibp,crown,crown-ibp")
    ap.add_argument("--quick", action="store_true", help="one instance per family, R = 1")
    ap.add_argument("--all", action="store_true", help="all 45 acasxu networks")
    ap.add_argument("--families", default="acasxu,mnist_fc,oval21")
    ap.add_argument("--benchmarks", default=None, help="VNN-COMP data (default ../shared/benchmarks)")
    ap.add_argument("--csv", default=None, help="also write every row to this CSV file")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per child process")
    ap.add_argument("--python", default=None, help="Python with torch (default /usr/bin/python3)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of both sides: certnn --threads N, the peer's torch threads (default 1)")
    ap.add_argument("--iterations", type=int, default=20, help="alpha-crown iterations, both sides (20)")
    ap.add_argument("--lr", type=float, default=0.5, help="alpha-crown learning rate, both sides (0.5)")
    args = ap.parse_args(argv)

    methods = [m.strip().lower() for m in args.methods.split(",") if m.strip()]
    bad = [m for m in methods if m not in PEER_NAME]
    if bad or not methods:
        print("bench_bounds: unknown method(s) %s (ibp, crown, crown-ibp, alpha-crown)" % bad, file=sys.stderr)
        return 2
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    repeat = max(1, repeat)
    bdir = args.benchmarks or os.path.join(REPO, "..", "shared", "benchmarks")
    bdir = os.path.normpath(bdir)
    if not os.path.isdir(bdir):
        print("bench_bounds: no benchmark folder %s (use --benchmarks DIR)" % bdir, file=sys.stderr)
        return 2

    certnn, why = find_certnn(args.certnn)
    python = args.python or ("/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable)
    peer = Peer(args.lirpa or os.environ.get("LIRPA_PATH"), python, repeat, args.timeout, args.threads,
                (args.iterations, args.lr))
    print("certnn:     %s" % (certnn if certnn else "skipped: " + why))
    print("auto_LiRPA: %s" % ("skipped: " + peer.reason if peer.reason else peer.path))
    print("benchmarks: %s   repeat %d   methods %s" % (bdir, repeat, ",".join(methods)))
    print()
    sys.stdout.flush()

    insts = instances(bdir, families, args.all, args.quick)
    rows = []
    for k, (fam, net, prop, onnx_path, spec) in enumerate(insts):
        print("[%d/%d] %s %s %s" % (k + 1, len(insts), fam, net, prop), file=sys.stderr, flush=True)
        try:
            if not os.path.isfile(onnx_path) or not os.path.isfile(spec):
                missing = onnx_path if not os.path.isfile(onnx_path) else spec
                for m in methods:
                    rows.append(compare(fam, net, prop, m,
                                        {"lower": None, "upper": None, "seconds": None, "cold": None,
                                         "wall": None,
                                         "error": "missing %s" % missing},
                                        {"lower": None, "upper": None, "seconds": None, "error": None}))
                continue
            pres = peer.run(onnx_path, spec, methods)
            for m in methods:
                cres = run_certnn(certnn, onnx_path, spec, m, repeat, args.timeout, args.threads,
                                  (args.iterations, args.lr))
                rows.append(compare(fam, net, prop, m, cres, pres[m]))
        except Exception as e:  # never stop the whole table for one instance
            for m in methods:
                rows.append({"benchmark": fam, "net": net, "prop": prop, "method": m,
                             "certnn_s": None, "certnn_cold_s": None, "certnn_wall_s": None, "lirpa_s": None,
                             "speed_ratio": None, "width_certnn": None, "width_lirpa": None,
                             "width_ratio": None, "width_ratio_max": None,
                             "note": "driver error %s: %s" % (type(e).__name__, e)})

    print_table(rows)
    print()
    for line in summaries(rows, methods):
        print(line)
    if args.csv:
        try:
            with open(args.csv, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow([k for k, _, _ in COLUMNS])
                for r in rows:
                    w.writerow(["" if r[k] is None else (repr(r[k]) if isinstance(r[k], float) else r[k])
                                for k, _, _ in COLUMNS])
        except OSError as e:
            print("bench_bounds: cannot write %s: %s" % (args.csv, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
