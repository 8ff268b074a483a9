#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/cli/reduced_ref.py: binary16 and bfloat16 artifacts whose reference outputs come from an
# emulation written apart from certnn's C code: numpy's float16 for binary16 (numpy rounds each
# float16 operation once, from binary32, which is the correctly rounded binary16 result for +, -,
# *, / and sqrt), and for bfloat16 Python's exact rationals (fractions) rounded to nearest even in
# integers.  Usage: reduced_ref.py DIR [--off] [--node-off]: writes DIR/f16.json and DIR/bf16.json,
# with the reference values of nodes s and p beside the outputs (reference.nodes); with --off each
# first reference output has one element one word off, with --node-off node p's value, which
# compare must find.
#
# The program, for a sort R and inputs a, b of R[16]:
#   s = a + b;  p = s * a;  q = p / b;  r = sqrt(|q|);  m = max(r, a);  w = cast(m -> f32) * 3
# (16 entries; entry 0 has a subnormal quotient and entry 1 overflows to infinity in R)
# outputs q (R), r (R), w (f32): a cast out of R, then a binary32 product.
import json
import math
import sys
from fractions import Fraction

import numpy as np


def bf16_round(x):
    """The bfloat16 number nearest to the rational or float x, ties to even (a float; +-inf past
    the largest number and its tie)."""
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return x
    x = Fraction(x)
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    a = abs(x)
    # exponent e with 2^e <= a < 2^(e+1), clamped to the least normal exponent -126
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    q = a / Fraction(2) ** (e - 7)          # below 2^8 (2^7 and more for normals)
    n = math.floor(q)
    d = q - n
    if d > Fraction(1, 2) or (d == Fraction(1, 2) and n % 2 == 1):
        n += 1
    v = Fraction(n) * Fraction(2) ** (e - 7)
    if v >= Fraction(2) ** 128:
        return sign * math.inf
    return sign * float(v)


def bf16_word(v):
    """The bfloat16 word of the bfloat16 number v (a float): binary32's upper half."""
    w = np.array([v], dtype=np.float32).view(np.uint32)[0]
    assert w & 0xFFFF == 0, v
    return int(w >> 16)


def bf16_value(w):
    return float(np.array([w << 16], dtype=np.uint32).view(np.float32)[0])


def words(sort, values):
    if sort == "f16":
        return "".join("%04x" % w for w in np.array(values, dtype=np.float16).view(np.uint16))
    if sort == "bf16":
        return "".join("%04x" % bf16_word(v) for v in values)
    return "".join("%08x" % w for w in np.array(values, dtype=np.float32).view(np.uint32))


def reference(sort, a, b):
    if sort == "f16":
        a16, b16 = np.array(a, dtype=np.float16), np.array(b, dtype=np.float16)
        s = a16 + b16
        p = s * a16
        q = p / b16
        r = np.sqrt(np.abs(q))
        m = np.maximum(r, a16)
        w = m.astype(np.float32) * np.float32(3)
        fl = lambda v: [float(e) for e in v]
        return fl(q), fl(r), fl(w), fl(s), fl(p)
    # bfloat16: each operation on exact rationals, rounded once
    q, r, w, ss, pp = [], [], [], [], []
    for x, y in zip(a, b):
        x, y = Fraction(x), Fraction(y)
        s = bf16_round(x + y)
        p = bf16_round(Fraction(s) * x) if math.isfinite(s) else s * float(x)
        qq = bf16_round(Fraction(p) / y) if math.isfinite(p) else p / float(y)
        # sqrt: the nearest bfloat16 to the real root; binary64's correctly rounded sqrt of a
        # bfloat16 number rounded once more cannot land on the other side of a bfloat16
        # midpoint (53 >= 2 * 8 + 2), so this is the correctly rounded bfloat16 root
        rr = bf16_round(math.sqrt(abs(qq)))
        m = max(rr, float(x))
        q.append(qq)
        r.append(rr)
        ss.append(s)
        pp.append(p)
        w.append(float(np.float32(m) * np.float32(3)))
    return q, r, w, ss, pp


def artifact(sort, off, node_off):
    rng = np.random.default_rng(20261207)
    n = 16
    if sort == "f16":
        a = [float(v) for v in rng.uniform(-4, 4, n).astype(np.float16)]
        b = [float(v) for v in rng.uniform(0.25, 3, n).astype(np.float16)]
        # a subnormal quotient and a binary16 overflow
        a[0], b[0] = 2.0 ** -10, 2.0 ** 6
        a[1], b[1] = 200.0, 2.0 ** -6
    else:
        a = [bf16_round(float(v)) for v in rng.uniform(-4, 4, n)]
        b = [bf16_round(float(v)) for v in rng.uniform(0.25, 3, n)]
        a[0], b[0] = 2.0 ** -100, 2.0 ** 30        # a subnormal quotient
        a[1], b[1] = 2.0 ** 60, 2.0 ** -20         # bfloat16 overflow in the quotient
    q, r, w, sv, pv = reference(sort, a, b)
    t = {"sort": sort, "shape": [n]}
    t32 = {"sort": "f32", "shape": [n]}
    node = lambda name, tag, ins, sorts, fields=None: {
        "name": name, "in": ins,
        "op": {"version": 1, "tag": tag, "fields": fields or {}, "inputs": sorts}}
    qw = words(sort, q)
    if off:
        # the element after the first NaN-free one: one word up
        k = 4 * 2
        qw = qw[:k] + "%04x" % ((int(qw[k:k + 4], 16) + 1) & 0xFFFF) + qw[k + 4:]
    pw = words(sort, pv)
    if node_off:
        # node p's value one word off at element 3 (the outputs stay right)
        k = 4 * 3
        pw = pw[:k] + "%04x" % ((int(pw[k:k + 4], 16) + 1) & 0xFFFF) + pw[k + 4:]
    return {
        "format": "certnn-ir", "version": 2,
        "program": {
            "inputs": [{"name": "a", **t}, {"name": "b", **t}],
            "constants": [{"name": "three", **t32, "words": words("f32", [3.0] * n)}],
            # values: 0 a, 1 b, 2 three, 3 s, 4 p, 5 q, 6 |q|, 7 r, 8 m, 9 m32, 10 w
            "nodes": [
                node("s", "add", [0, 1], [t, t]),
                node("p", "mul", [3, 0], [t, t]),
                node("q", "div", [4, 1], [t, t], {"rounding": "none"}),
                node("aq", "abs", [5], [t]),
                node("r", "sqrt", [6], [t], {"mode": "raw"}),
                node("m", "max", [7, 0], [t, t]),
                node("m32", "cast", [8], [t], {"to": "f32"}),
                node("w", "mul", [9, 2], [t32, t32]),
            ],
            "outputs": [5, 7, 10]},
        "arguments": [{**t, "words": words(sort, a)}, {**t, "words": words(sort, b)}],
        "reference": {"outputs": [{**t, "words": qw}, {**t, "words": words(sort, r)},
                                  {**t32, "words": words("f32", w)}],
                      "nodes": [{"node": 0, "outputs": [{**t, "words": words(sort, sv)}]},
                                {"node": 1, "outputs": [{**t, "words": pw}]}],
                      "producer": "tests/cli/reduced_ref.py (numpy float16; exact rationals for bfloat16)"}}


def main():
    out = sys.argv[1]
    off = "--off" in sys.argv[2:]
    node_off = "--node-off" in sys.argv[2:]
    for sort in ("f16", "bf16"):
        with open("%s/%s.json" % (out, sort), "w") as f:
            json.dump(artifact(sort, off, node_off), f)


if __name__ == "__main__":
    main()
