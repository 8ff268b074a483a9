#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tools/binary32_orders.py: certnn's two semantics against exact arithmetic and against the binary32
evaluations of real runtimes, on generated networks whose dot products cancel terms many orders of
magnitude apart.

    /usr/bin/python3 tools/binary32_orders.py --certnn BUILD/certnn [--nets N] [--points P] [--seed S]
                                              [--ort NODE_MODULES] [--keep DIR]

Each network is x -> Gemm -> Relu -> Gemm -> Relu -> Gemm (float32 ONNX).  The first layer copies
every input twice with one power-of-two scale, the second gives the copies of a pair weights of
opposite sign up to 2^20 apart from a small difference, so the exact value is small while its terms
are huge; the property's box is small.  For every network `certnn bounds --json` gives the output
box by IBP and CROWN under --semantics real and binary32, and at P binary32 points of the box:

  exact        rational arithmetic (fractions.Fraction) on the binary32 weights: must lie in every
               real box;
  numpy-seq    numpy float32 scalars, left to right with the bias last;
  numpy-pair   np.sum of the float32 products with the bias (numpy's pairwise summation);
  numpy-dot    np.dot of float32 arrays (BLAS sdot/sgemv) plus the bias;
  torch        torch.nn.functional.linear in float32 on the CPU (when /usr/bin/python3 has torch);
  onnxruntime  the ONNX file in onnxruntime-node (when --ort names a node_modules with it and node
               runs), as the VNN-COMP replay evaluates it;

each binary32 result must lie in every binary32 box.  Prints one line per evaluation with its count
of points inside, and how many binary32 results leave the real boxes (the semantics differ there).
Exit status 0 when every check holds, 1 otherwise, 77 when onnx or numpy is missing.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # pragma: no cover
    print(f"SKIP: {e}")
    sys.exit(77)

try:
    import torch
except ImportError:
    torch = None

F32 = np.float32


def f32(x):
    return float(F32(x))


def rand_weight(rng, lo, hi):
    return f32(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randrange(lo, hi))


def cancelling_net(rng, n, h):
    """The three layers as (W [out][in], b [out]) lists of binary32 numbers."""
    w1 = [[0.0] * n for _ in range(2 * n)]
    b1 = [0.0] * (2 * n)
    for i in range(n):
        s = 2.0 ** rng.randrange(-3, 4)
        w1[2 * i][i] = w1[2 * i + 1][i] = s
        b1[2 * i] = b1[2 * i + 1] = rand_weight(rng, -2, 2)
    w2 = [[0.0] * (2 * n) for _ in range(h)]
    b2 = [rand_weight(rng, -3, 2) for _ in range(h)]
    for o in range(h):
        for i in range(n):
            big = rand_weight(rng, 8, 21)
            w2[o][2 * i] = big
            w2[o][2 * i + 1] = f32(-big + rand_weight(rng, -6, 0))
    w3 = [[rand_weight(rng, -3, 1) for _ in range(h)] for _ in range(2)]
    b3 = [rand_weight(rng, -3, 1) for _ in range(2)]
    return [(w1, b1), (w2, b2), (w3, b3)]


def save_onnx(layers, n, path):
    nodes, inits = [], []
    cur = "x"
    for l, (w, b) in enumerate(layers):
        inits.append(numpy_helper.from_array(np.array(w, dtype=F32), f"W{l}"))
        inits.append(numpy_helper.from_array(np.array(b, dtype=F32), f"B{l}"))
        out = f"h{l}" if l + 1 < len(layers) else "y"
        nodes.append(helper.make_node("Gemm", [cur, f"W{l}", f"B{l}"], [out], transB=1))
        cur = out
        if l + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [cur], [f"r{l}"]))
            cur = f"r{l}"
    g = helper.make_graph(nodes, "cancel", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)


def save_vnnlib(lo, hi, path):
    with open(path, "w") as f:
        for i in range(len(lo)):
            f.write(f"(declare-const X_{i} Real)\n")
        f.write("(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n")
        for i in range(len(lo)):
            f.write(f"(assert (>= X_{i} {lo[i]!r}))\n(assert (<= X_{i} {hi[i]!r}))\n")
        f.write("(assert (>= Y_0 Y_1))\n")


def exact(layers, x):
    a = [Fraction(v) for v in x]
    for l, (w, b) in enumerate(layers):
        z = [Fraction(bo) + sum(Fraction(wo[j]) * a[j] for j in range(len(a))) for wo, bo in zip(w, b)]
        a = [max(v, Fraction(0)) for v in z] if l + 1 < len(layers) else z
    return a


def numpy_eval(layers, x, how):
    a = np.array(x, dtype=F32)
    for l, (w, b) in enumerate(layers):
        W, B = np.array(w, dtype=F32), np.array(b, dtype=F32)
        if how == "seq":
            z = []
            for o in range(W.shape[0]):
                s = F32(0)
                for j in range(W.shape[1]):
                    s = F32(s + F32(W[o, j] * a[j]))
                z.append(F32(s + B[o]))
            z = np.array(z, dtype=F32)
        elif how == "pair":
            z = np.array([np.sum(np.append(W[o] * a, B[o]), dtype=F32) for o in range(W.shape[0])], dtype=F32)
        else:
            z = (W @ a).astype(F32) + B
        a = np.maximum(z, F32(0)) if l + 1 < len(layers) else z
    return [float(v) for v in a]


def torch_eval(layers, x):
    with torch.no_grad():
        a = torch.tensor([x], dtype=torch.float32)
        for l, (w, b) in enumerate(layers):
            a = torch.nn.functional.linear(a, torch.tensor(w, dtype=torch.float32), torch.tensor(b, dtype=torch.float32))
            if l + 1 < len(layers):
                a = torch.relu(a)
        return [float(v) for v in a[0]]


ORT_JS = r"""
const ort = require("onnxruntime-node");
(async () => {
  const req = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const sess = await ort.InferenceSession.create(req.model, { intraOpNumThreads: 1 });
  const out = [];
  for (const x of req.points) {
    const r = await sess.run({ x: new ort.Tensor("float32", Float32Array.from(x), [1, x.length]) });
    out.push(Array.from(r.y.data, Number));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stdout.write(JSON.stringify({ error: String(e) })); });
"""


def ort_eval(node_modules, model, points):
    env = dict(os.environ, NODE_PATH=node_modules)
    p = subprocess.run(["node", "-e", ORT_JS], input=json.dumps({"model": model, "points": points}),
                       capture_output=True, text=True, env=env, timeout=120)
    r = json.loads(p.stdout or "{}")
    if isinstance(r, dict):
        raise RuntimeError(r.get("error", p.stderr))
    return r


def bounds(certnn, net, spec, method, sem):
    p = subprocess.run([certnn, "bounds", net, "--vnnlib", spec, "--method", method, "--semantics", sem, "--json",
                        "--threads", "1"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"certnn bounds {method} {sem}: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    assert r["semantics"] == sem, r
    lo = [-float("inf") if v is None else v for v in r["lower"]]
    hi = [float("inf") if v is None else v for v in r["upper"]]
    return lo, hi


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--certnn", required=True)
    ap.add_argument("--nets", type=int, default=8)
    ap.add_argument("--points", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ort", default=None, help="a node_modules folder holding onnxruntime-node")
    ap.add_argument("--keep", default=None, help="keep the generated networks and properties here")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="b32orders")
    os.makedirs(work, exist_ok=True)
    evals = ["numpy-seq", "numpy-pair", "numpy-dot"] + (["torch"] if torch is not None else [])
    if a.ort:
        try:
            ort_eval(a.ort, "", [])
        except RuntimeError as e:
            if "onnxruntime-node" in str(e) or "Cannot find module" in str(e):
                print(f"note: onnxruntime-node not usable from {a.ort}: {str(e)[:120]}")
                a.ort = None
        except Exception as e:
            print(f"note: node cannot run onnxruntime-node: {e}")
            a.ort = None
    if a.ort:
        evals.append("onnxruntime")
    inside = {e: 0 for e in evals + ["exact"]}
    total = {e: 0 for e in evals + ["exact"]}
    outside_real = 0
    differ = 0
    failures = []
    for t in range(a.nets):
        n, h = rng.randrange(2, 6), rng.randrange(3, 8)
        layers = cancelling_net(rng, n, h)
        lo, hi = [], []
        for _ in range(n):
            c, r = f32(rng.uniform(-1, 1)), f32(rng.uniform(1, 2) * 2.0 ** -rng.randrange(0, 12))
            lo.append(f32(c - r))
            hi.append(f32(c + r))
        net, spec = os.path.join(work, f"net{t}.onnx"), os.path.join(work, f"net{t}.vnnlib")
        save_onnx(layers, n, net)
        save_vnnlib(lo, hi, spec)
        boxes = {(m, s): bounds(a.certnn, net, spec, m, s) for m in ("ibp", "crown") for s in ("real", "binary32")}
        pts = []
        for q in range(a.points):
            x = [lo[i] if q % 5 == 0 else hi[i] if q % 5 == 1 else f32(rng.uniform(lo[i], hi[i])) for i in range(n)]
            pts.append([min(max(v, lo[i]), hi[i]) for i, v in enumerate(x)])
        results = {e: [] for e in evals}
        for x in pts:
            for e in evals:
                if e.startswith("numpy"):
                    results[e].append(numpy_eval(layers, x, e.split("-")[1]))
                elif e == "torch":
                    results[e].append(torch_eval(layers, x))
        if "onnxruntime" in evals:
            results["onnxruntime"] = ort_eval(a.ort, net, pts)
        for q, x in enumerate(pts):
            ex = exact(layers, x)
            for o in range(2):
                vals = [results[e][q][o] for e in evals]
                differ += len(set(vals)) > 1
                for m in ("ibp", "crown"):
                    rl, rh = boxes[(m, "real")]
                    total["exact"] += 1
                    if Fraction(rl[o]) <= ex[o] <= Fraction(rh[o]):
                        inside["exact"] += 1
                    else:
                        failures.append(f"net {t} point {q}: exact output {o} = {float(ex[o])!r} outside the real {m} "
                                        f"box [{rl[o]!r}, {rh[o]!r}]")
                    bl, bh = boxes[(m, "binary32")]
                    for e in evals:
                        v = results[e][q][o]
                        total[e] += 1
                        if bl[o] <= v <= bh[o]:
                            inside[e] += 1
                        else:
                            failures.append(f"net {t} point {q}: {e} output {o} = {v!r} outside the binary32 {m} box "
                                            f"[{bl[o]!r}, {bh[o]!r}]")
                        outside_real += not (rl[o] <= v <= rh[o])
    for e in ["exact"] + evals:
        box = "real" if e == "exact" else "binary32"
        print(f"{e:12s} {inside[e]:6d} of {total[e]:6d} results inside the {box} boxes (ibp, crown)")
    print(f"{differ} (point, output) pairs where the binary32 evaluations differ; {outside_real} binary32 results "
          f"outside the real boxes")
    for f in failures[:20]:
        print("FAIL:", f)
    if a.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    if outside_real == 0:
        print("FAIL: no binary32 result left a real box: the networks do not tell the semantics apart")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
