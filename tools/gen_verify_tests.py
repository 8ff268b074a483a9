#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates the small verification instances of tests/cli/vnncomp.sh under tests/data/verify/.

    /usr/bin/python3 tools/gen_verify_tests.py

Uses Debian's python3-onnx (1.12) and python3-numpy; no network access.  The output is
deterministic (no random numbers), so running it again rewrites the same bytes.

Writes:
  tiny.onnx          a 2-3-2 fully-connected ReLU network, input [1,2], output [1,2]:
                       h = relu(W1 x + b1)   (Gemm, transB=1)
                       y = h W2 + b2         (MatMul with the weight on the right, then Add)
                     every weight and bias a multiple of 1/4, so exact in binary32
  tiny_sat.vnnlib    x in [-1,1]^2 and (Y_0 >= MAX - 1/2) and (Y_1 <= Y_0): sat near the corner
                     (1, 1) where y_0 = MAX, and not at the box centre (a verifier has to search)
  tiny_unsat.vnnlib  x in [-1,1]^2 and Y_0 >= MAX + 1/4: unsat
  tinyconv.onnx      a convolutional ReLU network, input [1,1,2,3], output [1,2]:
                       h = relu(conv(x, K) + c)  (Conv, 2 filters of 2x2, stride 1: h is [1,2,1,2])
                       y = flatten(h) V^T + d    (Flatten, Gemm with transB=1)
                     every weight and bias a multiple of 1/4
  tinyconv_unsat.vnnlib  x in [-1,1]^6 and Y_0 >= CMAX + 1/64: unsat, CMAX the exact maximum of
                     y_0, found the same way in six dimensions (the box faces and the four relu
                     hyperplanes); CROWN's bound is about 5.97 against CMAX = 5, so
                     a proof splits relus

MAX (CMAX) is the exact maximum of y_0 over the box.  The network is piecewise linear in its two inputs,
so the maximum over the box is attained at a vertex of the arrangement of the box edges and the
three ReLU lines (w.x + b = 0); the script evaluates y exactly (Fractions) at every such vertex that
lies in the box.  It also checks that the sat property holds at some vertex (so `sat` is right)
and fails at the box centre.
"""
import itertools
import os
from fractions import Fraction as Fr

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "verify")

W1 = [[Fr(1), Fr(1)], [Fr(1), Fr(-1)], [Fr(-1), Fr(1, 2)]]   # [hidden, input]
B1 = [Fr(0), Fr(0), Fr(1, 4)]
W2 = [[Fr(1), Fr(-1)], [Fr(-1, 2), Fr(1)], [Fr(3, 4), Fr(1, 2)]]   # [hidden, output]
B2 = [Fr(0), Fr(1, 2)]
LO, HI = Fr(-1), Fr(1)


def forward(x):
    """The network in exact rational arithmetic."""
    h = [max(Fr(0), sum(w * xi for w, xi in zip(row, x)) + b) for row, b in zip(W1, B1)]
    return [sum(h[i] * W2[i][j] for i in range(len(h))) + B2[j] for j in range(len(B2))]


def vertices():
    """Every intersection point of two lines among the box edges and the ReLU lines, in the box."""
    lines = [((Fr(1), Fr(0)), v) for v in (LO, HI)] + [((Fr(0), Fr(1)), v) for v in (LO, HI)]
    lines += [((row[0], row[1]), -b) for row, b in zip(W1, B1)]       # a.x = c
    pts = set()
    for (a, c), (d, e) in itertools.combinations(lines, 2):
        det = a[0] * d[1] - a[1] * d[0]
        if det == 0:
            continue
        x0 = (c * d[1] - a[1] * e) / det
        x1 = (a[0] * e - c * d[0]) / det
        if LO <= x0 <= HI and LO <= x1 <= HI:
            pts.add((x0, x1))
    return sorted(pts)


# tinyconv: K[f][r][c] is filter f's 2x2 kernel, C its bias; V[o][k] the Gemm weight over the
# flattened h (k = 2 f + j, j the output column); D the Gemm bias.
K = [[[Fr(-1, 4), Fr(1)], [Fr(-1, 2), Fr(1, 4)]], [[Fr(3, 4), Fr(-3, 4)], [Fr(-1), Fr(3, 4)]]]
C = [Fr(0), Fr(1)]
V = [[Fr(-1, 4), Fr(-1, 4), Fr(3, 4), Fr(1)], [Fr(1), Fr(3, 4), Fr(1, 2), Fr(-1, 2)]]
D = [Fr(0), Fr(1, 2)]


def conv_pre(x):
    """The four pre-activations of tinyconv at x (6 values, row-major 2x3), k = 2 f + j."""
    return [sum(K[f][r][c] * x[r * 3 + j + c] for r in range(2) for c in range(2)) + C[f]
            for f in range(2) for j in range(2)]


def conv_forward(x):
    h = [max(Fr(0), v) for v in conv_pre(x)]
    return [sum(V[o][k] * h[k] for k in range(4)) + D[o] for o in range(2)]


def conv_hyperplanes():
    """(a, c) with a.x = c: the twelve box faces and the four relu hyperplanes."""
    hs = []
    for i in range(6):
        e = [Fr(0)] * 6
        e[i] = Fr(1)
        hs += [(e, LO), (e, HI)]
    for f in range(2):
        for j in range(2):
            a = [Fr(0)] * 6
            for r in range(2):
                for c in range(2):
                    a[r * 3 + j + c] += K[f][r][c]
            hs.append((a, -C[f]))
    return hs


def solve(rows):
    """The unique solution of the square system rows = [(a, c)], or None (exact elimination)."""
    n = len(rows)
    m = [list(a) + [c] for a, c in rows]
    for col in range(n):
        piv = next((r for r in range(col, n) if m[r][col] != 0), None)
        if piv is None:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0:
                q = m[r][col] / m[col][col]
                m[r] = [u - q * v for u, v in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def conv_max():
    """The exact maximum of y_0 over [-1,1]^6: y is linear on every cell of the arrangement of the
    hyperplanes, the cells are bounded by the box, so the maximum is at a vertex: an intersection
    of six of them that lies in the box."""
    best, n = None, 0
    for rows in itertools.combinations(conv_hyperplanes(), 6):
        x = solve(rows)
        if x is None or not all(LO <= v <= HI for v in x):
            continue
        n += 1
        y0 = conv_forward(x)[0]
        if best is None or y0 > best:
            best = y0
    return best, n


def box_lines():
    return ["(declare-const X_0 Real)", "(declare-const X_1 Real)",
            "(declare-const Y_0 Real)", "(declare-const Y_1 Real)", "",
            "(assert (>= X_0 -1))", "(assert (<= X_0 1))",
            "(assert (>= X_1 -1))", "(assert (<= X_1 1))", ""]


def dec(q):
    """A Fraction with a power-of-two denominator as an exact decimal."""
    s = "%.10f" % float(q)
    assert Fr(s) == q, q
    return s.rstrip("0").rstrip(".") if "." in s else s


def save_model(name, nodes, inits, in_shape):
    """NAME.onnx: the graph of NODES from input x (IN_SHAPE) to output y ([1, 2]), opset 13."""
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="tools/gen_verify_tests.py")
    m.ir_version = 7
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)
    pts = vertices()
    ys = [forward(p) for p in pts]
    ymax, argmax = max((y[0], p) for y, p in zip(ys, pts))
    sat_c = ymax - Fr(1, 2)
    unsat_c = ymax + Fr(1, 4)
    # The sat property must hold somewhere (at a vertex) and not at the centre of the box.
    assert any(y[0] >= sat_c and y[1] <= y[0] for y in ys)
    yc = forward([Fr(0), Fr(0)])
    assert not (yc[0] >= sat_c and yc[1] <= yc[0])

    f32 = lambda rows: np.array([[float(v) for v in r] for r in rows], dtype=np.float32)
    inits = [numpy_helper.from_array(f32(W1), "w1"),
             numpy_helper.from_array(np.array([float(v) for v in B1], np.float32), "b1"),
             numpy_helper.from_array(f32(W2), "w2"),
             numpy_helper.from_array(np.array([float(v) for v in B2], np.float32), "b2")]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"], transB=1, name="fc1"),
             helper.make_node("Relu", ["g1"], ["h1"], name="relu1"),
             helper.make_node("MatMul", ["h1", "w2"], ["m2"], name="fc2"),
             helper.make_node("Add", ["m2", "b2"], ["y"], name="bias2")]
    save_model("tiny", nodes, inits, [1, 2])

    head = "; tests/data/verify: made by tools/gen_verify_tests.py for tiny.onnx; max Y_0 over the box = %s\n" % dec(ymax)
    with open(os.path.join(OUT, "tiny_sat.vnnlib"), "w") as f:
        f.write(head + "; sat: Y_0 >= %s and Y_1 <= Y_0, true near X = (%s, %s) but not at the centre\n"
                % (dec(sat_c), dec(argmax[0]), dec(argmax[1])))
        f.write("\n".join(box_lines()))
        f.write("(assert (>= Y_0 %s))\n(assert (<= Y_1 Y_0))\n" % dec(sat_c))
    with open(os.path.join(OUT, "tiny_unsat.vnnlib"), "w") as f:
        f.write(head + "; unsat: Y_0 >= %s is above the maximum\n" % dec(unsat_c))
        f.write("\n".join(box_lines()))
        f.write("(assert (>= Y_0 %s))\n" % dec(unsat_c))
    cmax, nv = conv_max()
    cinits = [numpy_helper.from_array(np.array([[[[float(v) for v in r] for r in k]] for k in K], np.float32), "k"),
              numpy_helper.from_array(np.array([float(v) for v in C], np.float32), "c"),
              numpy_helper.from_array(f32(V), "v"),
              numpy_helper.from_array(np.array([float(v) for v in D], np.float32), "d")]
    cnodes = [helper.make_node("Conv", ["x", "k", "c"], ["p"], kernel_shape=[2, 2], name="conv1"),
              helper.make_node("Relu", ["p"], ["h"], name="relu1"),
              helper.make_node("Flatten", ["h"], ["f"], axis=1, name="flatten"),
              helper.make_node("Gemm", ["f", "v", "d"], ["y"], transB=1, name="fc2")]
    save_model("tinyconv", cnodes, cinits, [1, 1, 2, 3])
    cthr = cmax + Fr(1, 64)
    with open(os.path.join(OUT, "tinyconv_unsat.vnnlib"), "w") as f:
        f.write("; tests/data/verify: made by tools/gen_verify_tests.py for tinyconv.onnx; max Y_0 over the box = %s"
                " (%d vertices)\n; unsat: Y_0 >= %s is above the maximum\n" % (dec(cmax), nv, dec(cthr)))
        f.write("\n".join(["(declare-const X_%d Real)" % i for i in range(6)]
                          + ["(declare-const Y_0 Real)", "(declare-const Y_1 Real)", ""]
                          + sum([["(assert (>= X_%d -1))" % i, "(assert (<= X_%d 1))" % i] for i in range(6)], [])))
        f.write("\n\n(assert (>= Y_0 %s))\n" % dec(cthr))
    print("tests/data/verify: tinyconv.onnx, max y0 = %s at %d vertices; unsat c = %s" % (dec(cmax), nv, dec(cthr)))
    print("tests/data/verify: tiny.onnx, max y0 = %s at %d vertices checked; sat c = %s, unsat c = %s"
          % (dec(ymax), len(pts), dec(sat_c), dec(unsat_c)))


if __name__ == "__main__":
    main()
