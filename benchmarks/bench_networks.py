#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every network of the VNN-COMP benchmarks: evaluation against onnxruntime and MPFI, and bounds.

    /usr/bin/python3 benchmarks/bench_networks.py [--certnn PATH] [--benchmarks DIR]
        [--ort DIR] [--sets a,b,...] [--methods ibp,crown,alpha-crown] [--timeout S]
        [--iterations N] [--csv FILE] [--max-nets K]

For every set of DIR (default ../shared/benchmarks next to the repository) that has an
instances.csv, and every network under its onnx/ folder, with the first property instances.csv
lists for that network (a network no line names is reported as such):

  load, eval   the point p = the centre of the property's first input box, rounded to binary32
               (so that every engine reads the same input), evaluated by
                 f32  `certnn run NET --input p --dtype f32` against onnxruntime (the
                      competition's replay engine, from --ort DIR/node_modules, see ort_eval.js);
                      column f32 err: max_i |a_i - b_i| / max(|b_i|, 1e-3 max_j |b_j|, 1e-30)
                 f64  `certnn run NET --input p --dtype f64` against the exact value: certnn's
                      MPFI evaluation at 256 bits (`bounds --center p --eps 0 --method ibp
                      --reference mpfi`, an enclosure of the exact real output of the stored
                      weights, output 0); column f64 err: the distance of the binary64 value to
                      the enclosure, relative as above (0 when it lies inside)
  bounds       for each method, `certnn bounds NET --vnnlib SPEC --method M --threads 1 --json`
               (alpha-crown with --iterations N, default 20): seconds (the bound computation),
               discharged (CROWN steps that found no relaxation and took the node's IBP box), and
               w/IBP, the mean over the outputs of the width ratio against IBP's box.

A run that fails or passes --timeout (default 600 s per command) says so in its column; the
driver goes on.  The tolerance columns are measurements, not tests: the note flags an f32 error
above 1e-4 or an f64 error above 1e-12.
"""
import argparse
import csv
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import lirpa_bounds  # noqa: E402  (its VNN-LIB box reader only; it imports torch lazily)


def f32(x):
    """X rounded to the nearest binary32, as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def first_instance(setdir):
    """{network path: first vnnlib path} from SETDIR/instances.csv, in file order."""
    out = {}
    with open(os.path.join(setdir, "instances.csv")) as f:
        for row in csv.reader(f):
            if len(row) >= 2 and row[0].strip():
                net = os.path.normpath(os.path.join(setdir, row[0].strip()))
                spec = os.path.normpath(os.path.join(setdir, row[1].strip()))
                out.setdefault(net, spec)
    return out


def ungz(path, tmp):
    """PATH, or its decompressed copy in TMP when it ends in .gz."""
    if not path.endswith(".gz"):
        return path
    import gzip
    dst = os.path.join(tmp, os.path.basename(path)[:-3])
    if not os.path.exists(dst):
        with gzip.open(path, "rb") as src, open(dst, "wb") as d:
            shutil.copyfileobj(src, d)
    return dst


def run(cmd, timeout, stdin=None, env=None):
    """(rc, stdout, stderr, seconds); rc None on a timeout."""
    t = time.time()
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.time() - t
    except subprocess.TimeoutExpired:
        return None, "", "timeout", time.time() - t


def rel_err(a, b):
    """max_i |a_i - b_i| / max(|b_i|, 1e-3 max |b|, 1e-30), or inf on a size mismatch."""
    if len(a) != len(b):
        return math.inf
    scale = max([abs(v) for v in b] + [0.0])
    e = 0.0
    for x, y in zip(a, b):
        d = abs(x - y)
        if d:
            e = max(e, d / max(abs(y), 1e-3 * scale, 1e-30))
    return e


def dist_err(a, lo, hi):
    """max_i dist(a_i, [lo_i, hi_i]) / max(|a_i|, 1e-3 max |a|, 1e-30)."""
    if len(a) != len(lo):
        return math.inf
    scale = max([abs(v) for v in a] + [0.0])
    e = 0.0
    for x, l, h in zip(a, lo, hi):
        l = -math.inf if l is None else l
        h = math.inf if h is None else h
        d = l - x if x < l else x - h if x > h else 0.0
        if d:
            e = max(e, d / max(abs(x), 1e-3 * scale, 1e-30))
    return e


def graph_input(net):
    """(name, dims with symbolic ones as 1, 'float32'|'float64') of the network's one real
    input, or raises ValueError."""
    import onnx
    m = onnx.load(net)
    inits = {i.name for i in m.graph.initializer}
    ins = [vi for vi in m.graph.input if vi.name not in inits]
    if len(ins) != 1:
        raise ValueError("%d graph inputs" % len(ins))
    tt = ins[0].type.tensor_type
    dims = [d.dim_value if d.dim_value > 0 else 1 for d in tt.shape.dim]
    kind = {onnx.TensorProto.FLOAT: "float32", onnx.TensorProto.DOUBLE: "float64"}.get(tt.elem_type)
    if kind is None:
        raise ValueError("input element type %d" % tt.elem_type)
    return ins[0].name, dims, kind


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return "%.3g" % v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--certnn", default=os.environ.get("BENCH_CERTNN"))
    ap.add_argument("--benchmarks", default=os.path.join(os.path.dirname(REPO), "shared", "benchmarks"))
    ap.add_argument("--ort", default=os.environ.get("ORT_PATH"),
                    help="folder whose node_modules holds onnxruntime-node (default $ORT_PATH)")
    ap.add_argument("--sets", default=None, help="comma-separated subset of the sets")
    ap.add_argument("--methods", default="ibp,crown,alpha-crown")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--max-nets", type=int, default=0, help="at most K networks per set (0: all)")
    ap.add_argument("--csv", default=None)
    a = ap.parse_args(argv)

    certnn = a.certnn or (os.path.join(REPO, "build", "certnn")
                          if os.path.exists(os.path.join(REPO, "build", "certnn")) else shutil.which("certnn"))
    if not certnn:
        sys.exit("bench_networks: no certnn (build it, or give --certnn)")
    if not os.path.isdir(a.benchmarks):
        sys.exit("bench_networks: no benchmarks at %s" % a.benchmarks)
    node = shutil.which("node")
    ort_env = None
    if a.ort and node and os.path.isdir(os.path.join(a.ort, "node_modules", "onnxruntime-node")):
        ort_env = dict(os.environ, NODE_PATH=os.path.join(a.ort, "node_modules"))
    else:
        print("note: no onnxruntime-node (give --ort DIR); the f32 column is '-'", file=sys.stderr)
    methods = [m for m in a.methods.split(",") if m]
    sets = sorted(d for d in os.listdir(a.benchmarks)
                  if os.path.exists(os.path.join(a.benchmarks, d, "instances.csv")))
    if a.sets:
        keep = a.sets.split(",")
        sets = [s for s in sets if s in keep]

    head = ["set", "network", "f32 err", "f64 err"]
    for m in methods:
        head += ["%s s" % m, "%s disch" % m, "%s w/IBP" % m]
    head.append("note")
    rows = []
    tmp = tempfile.mkdtemp(prefix="bench_networks.")
    try:
        for s in sets:
            sdir = os.path.join(a.benchmarks, s)
            first = first_instance(sdir)
            nets = sorted(os.path.normpath(os.path.join(d, f))
                          for d, _, fs in os.walk(os.path.join(sdir, "onnx")) for f in fs
                          if f.endswith(".onnx") or f.endswith(".onnx.gz"))
            if a.max_nets:
                nets = nets[:a.max_nets]
            for net_gz in nets:
                label = os.path.relpath(net_gz, os.path.join(sdir, "onnx"))
                row = {"set": s, "network": label}
                notes = []
                spec_gz = first.get(net_gz)
                print("[%s] %s" % (s, label), file=sys.stderr, flush=True)
                if spec_gz is None:
                    row["note"] = "no instance names this network"
                    rows.append(row)
                    continue
                net, spec = ungz(net_gz, tmp), ungz(spec_gz, tmp)
                lo, hi = lirpa_bounds.read_first_box(spec)
                point = [f32(l / 2 + h / 2) if math.isfinite(l) and math.isfinite(h)
                         else f32(l if math.isfinite(l) else h if math.isfinite(h) else 0.0)
                         for l, h in zip(lo, hi)]
                pfile = os.path.join(tmp, "point.txt")
                with open(pfile, "w") as f:
                    f.write("\n".join(repr(v) for v in point) + "\n")
                outs = {}
                for dt in ("f32", "f64"):
                    rc, out, err, _ = run([certnn, "run", net, "--input", pfile, "--dtype", dt, "--json"], a.timeout)
                    if rc == 0:
                        outs[dt] = json.loads(out)["outputs"][0]
                    else:
                        notes.append("run %s: %s" % (dt, (err.strip().splitlines() or ["rc %s" % rc])[-1]))
                # f32 against onnxruntime
                if ort_env is not None and "f32" in outs:
                    try:
                        name, dims, kind = graph_input(net)
                        req = json.dumps({"model": net, "inputs": {name: {"type": kind, "dims": dims,
                                                                         "data": point}}})
                        rc, out, err, _ = run([node, os.path.join(HERE, "ort_eval.js")], a.timeout,
                                              stdin=req, env=ort_env)
                        res = json.loads(out) if rc == 0 and out else {"error": err.strip() or "rc %s" % rc}
                        if "error" in res:
                            notes.append("onnxruntime: %s" % res["error"][:120])
                        else:
                            ref = res["outputs"][res["names"][0]]
                            row["f32 err"] = rel_err(outs["f32"], ref)
                            if row["f32 err"] > 1e-4:
                                notes.append("f32 err above 1e-4")
                    except Exception as e:  # noqa: BLE001 (a network the reader cannot take)
                        notes.append("onnxruntime: %s" % e)
                # f64 against the exact value (MPFI enclosure)
                if "f64" in outs:
                    rc, out, err, _ = run([certnn, "bounds", net, "--center", pfile, "--eps", "0", "--method",
                                           "ibp", "--reference", "mpfi", "--json"], a.timeout)
                    if rc == 0:
                        ex = json.loads(out)
                        row["f64 err"] = dist_err(outs["f64"], ex["lower"], ex["upper"])
                        if row["f64 err"] > 1e-12:
                            notes.append("f64 err above 1e-12")
                    else:
                        notes.append("mpfi: %s" % ("timeout" if rc is None else err.strip()[-100:]))
                ibp_w = None
                for m in methods:
                    cmd = [certnn, "bounds", net, "--vnnlib", spec, "--method", m, "--threads", "1", "--json"]
                    if m == "alpha-crown":
                        cmd += ["--iterations", str(a.iterations)]
                    rc, out, err, wall = run(cmd, a.timeout)
                    if rc is None:
                        row["%s s" % m] = "timeout"
                        continue
                    if rc != 0:
                        row["%s s" % m] = "error"
                        notes.append("%s: %s" % (m, (err.strip().splitlines() or ["rc %s" % rc])[-1][:120]))
                        continue
                    b = json.loads(out)
                    row["%s s" % m] = b.get("seconds")
                    row["%s disch" % m] = b.get("discharged", 0)
                    w = [(u - l) if l is not None and u is not None else math.inf
                         for l, u in zip(b["lower"], b["upper"])]
                    if m == "ibp":
                        ibp_w = w
                    if ibp_w is not None:
                        r = [x / y for x, y in zip(w, ibp_w) if math.isfinite(x) and math.isfinite(y) and y > 0]
                        row["%s w/IBP" % m] = sum(r) / len(r) if r else None
                row["note"] = "; ".join(notes)
                rows.append(row)
                print("  " + "  ".join("%s=%s" % (k, fmt(row.get(k))) for k in head[2:]), file=sys.stderr,
                      flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    table = [[fmt(r.get(h)) for h in head] for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for t in table:
        print("  ".join(c.ljust(w) for c, w in zip(t, widths)))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(head)
            wr.writerows(table)


if __name__ == "__main__":
    main()
