#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/cli/xla_ref.py: Jaxpr-style artifacts whose reference outputs come from an emulation of
# XLA's CPU behaviours written apart from certnn's C code (numpy with explicit rounding to binary32
# and explicit flushing), for tests/cli/check.sh.  Usage: xla_ref.py DIR; writes into DIR:
#   recip_prim.json    q = x / broadcast(s), one primitive: XLA multiplies by the reciprocal
#   recip_jit.json     q = x / c, c a constant, under jax.jit: the same
#   recip_nojit.json   the same program and reference, primitive by primitive: a constant divisor
#                      is divided there, so the difference is not reproduced
#   recip_other.json   recip_prim with one reference element moved one more word: not reproduced
#   subnormal.json     p = (x * y) * z in binary32, operands and products flushed
#   recip_bf16.json    recip_prim in bfloat16 (the reciprocal and the product in binary32), the
#                      reference one word off at one element: not reproduced
#   subnormal64.json   a binary64 product below 2^-1022, flushed
#   div_div.json       (x / y) / z under jax.jit: x / (y * z); div_div_prim.json primitive by
#                      primitive, where it is not rewritten (not reproduced)
#   div_div_primref.json, div_div_primref_odd.json   div_div with a primitive-by-primitive
#                      reference beside it: the IR's words (advice kept), words one off (withheld)
#   recip_primref.json recip_prim under jax.jit, its primitive reference reproduced without jit
#   div_by_div.json    x / (y / z) under jax.jit: (x * z) / y
#   div_sqrt.json      x / sqrt y under jax.jit: x * rsqrt y
#   pow3.json          x ** 3 (a constant) under jax.jit: (x * x) * x
#   pow3_half.json     float32(h) ** 3 of a binary16 h: (h * h) * h in binary16, widened
#   rsqrt_in.json, rsqrt_in_below.json, rsqrt_out.json   one rsqrt word 2, -2 and 3 steps from
#                      the IR's: inside, inside and outside XLA's rsqrt window (2 ulps)
#   pow_in.json, pow_out.json   one exact power 1 and 2 steps off: inside and outside (1 ulp)
#   pow_computed.json  the same 1 step with a computed base: no window
#   agree.json         a program where XLA and the IR agree: compare passes
import json
import sys

import numpy as np

F32 = np.float32


def words32(v):
    return "".join("%08x" % w for w in np.asarray(v, dtype=F32).reshape(-1).view(np.uint32))


def flush32(v):
    """XLA's flushing: subnormal binary32 numbers replaced by zero of the same sign."""
    v = np.asarray(v, dtype=F32).copy()
    tiny = np.abs(v) < np.finfo(F32).tiny
    v[tiny] = np.copysign(F32(0), v[tiny])
    return v


def t32(shape):
    return {"sort": "f32", "shape": list(shape)}


def node(name, tag, ins, sorts, fields=None):
    return {"name": name, "in": ins, "op": {"version": 1, "tag": tag, "fields": fields or {}, "inputs": sorts}}


def artifact(program, args, refs, jaxpr):
    return {"format": "certnn-ir", "version": 2, "program": program,
            "arguments": [{**t32(np.shape(a)), "words": words32(a)} for a in args],
            "reference": {"outputs": [{**t32(np.shape(r)), "words": words32(r)} for r in refs],
                          "producer": "tests/cli/xla_ref.py (numpy emulation of XLA's CPU code)"},
            "jaxpr": jaxpr}


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    n = 16
    x = rng.uniform(-10, 10, n).astype(F32)
    s = F32(3)
    # XLA: x * rn32(1 / s), each step rounded to binary32
    recip = (x * (F32(1) / s)).astype(F32)
    ir = (x / s).astype(F32)
    assert (recip != ir).any(), "the draw has no element where the reciprocal differs"

    # q = x / broadcast(s): values 0 x, 1 s, 2 b, 3 q
    prog_b = {"inputs": [{"name": "x", **t32([n])}, {"name": "s", **t32([])}], "constants": [],
              "nodes": [node("b", "broadcast", [1], [t32([])], {"shape": [n]}),
                        node("q", "div", [0, 2], [t32([n]), t32([n])], {"rounding": "none"})],
              "outputs": [3]}
    prim = {"reference_execution": "primitive", "backend": "xla-cpu", "computation": [0, 0]}
    dump(out, "recip_prim", artifact(prog_b, [x, np.asarray(s)], [recip], prim))
    other = recip.copy()
    k = int(np.nonzero(recip != ir)[0][0])
    other[k] = np.nextafter(other[k], F32(np.inf))
    dump(out, "recip_other", artifact(prog_b, [x, np.asarray(s)], [other], prim))

    # q = x / c, c a constant: values 0 x, 1 c, 2 q
    prog_c = {"inputs": [{"name": "x", **t32([n])}],
              "constants": [{"name": "c", **t32([n]), "words": words32(np.full(n, s))}],
              "nodes": [node("q", "div", [0, 1], [t32([n]), t32([n])], {"rounding": "none"})],
              "outputs": [2]}
    dump(out, "recip_jit", artifact(prog_c, [x], [recip], {"reference_execution": "jit", "backend": "xla-cpu"}))
    dump(out, "recip_nojit", artifact(prog_c, [x], [recip], {"reference_execution": "primitive", "backend": "xla-cpu",
                                                                 "computation": [0]}))

    # p = (x * y) * z: subnormal operands (x[0]) and products (x[1] y[1]) flushed
    a = rng.uniform(1, 2, n).astype(F32)
    b = rng.uniform(1, 2, n).astype(F32)
    c = rng.uniform(1, 2, n).astype(F32)
    a[0], c[0] = F32(1e-40), F32(1e10)       # a subnormal argument
    a[1], b[1] = F32(1e-20), F32(1e-20)      # a subnormal product, then times 1.x
    a[2], b[2] = F32(-1e-20), F32(3e-20)     # a negative one: -0
    m = flush32(flush32(a) * flush32(b))
    p = flush32(m * flush32(c))
    ir_p = (a * b).astype(F32) * c
    assert (p.view(np.uint32) != ir_p.astype(F32).view(np.uint32)).any()
    prog_s = {"inputs": [{"name": "x", **t32([n])}, {"name": "y", **t32([n])}, {"name": "z", **t32([n])}],
              "constants": [],
              "nodes": [node("m", "mul", [0, 1], [t32([n]), t32([n])]), node("p", "mul", [3, 2], [t32([n]), t32([n])])],
              "outputs": [4]}
    dump(out, "subnormal", artifact(prog_s, [a, b, c], [p], {"reference_execution": "jit", "backend": "xla-cpu"}))

    # bfloat16: q = x / broadcast(s) with the reciprocal and the product in binary32, rounded once.
    # Both are quotients of 8-bit numbers, at least 2^-17 (relative) from a bfloat16 midpoint, and
    # binary32's reciprocal is within 2^-24: the two round alike, so the emulation gives the IR's
    # words; the reference is one word off at element 3, which it must not reproduce
    sys.path.insert(0, sys.path[0])
    from reduced_ref import bf16_round, bf16_word
    xb = [bf16_round(float(v)) for v in rng.uniform(-10, 10, n)]
    sb = bf16_round(3.0)
    r32 = F32(1) / F32(sb)
    qb = [bf16_round(float(F32(v) * r32)) for v in xb]
    irb = [bf16_round(v / sb) for v in xb]
    assert qb == irb
    qb[3] = float(np.array([(bf16_word(qb[3]) + 1) << 16], dtype=np.uint32).view(F32)[0])
    tb = {"sort": "bf16", "shape": [n]}
    wb = lambda vs: "".join("%04x" % bf16_word(v) for v in vs)
    prog_bb = {"inputs": [{"name": "x", **tb}, {"name": "s", "sort": "bf16", "shape": []}], "constants": [],
               "nodes": [node("b", "broadcast", [1], [{"sort": "bf16", "shape": []}], {"shape": [n]}),
                         node("q", "div", [0, 2], [tb, tb], {"rounding": "none"})],
               "outputs": [3]}
    dump(out, "recip_bf16", {"format": "certnn-ir", "version": 2, "program": prog_bb,
                             "arguments": [{**tb, "words": wb(xb)}, {"sort": "bf16", "shape": [], "words": wb([sb])}],
                             "reference": {"outputs": [{**tb, "words": wb(qb)}], "producer": "tests/cli/xla_ref.py"},
                             "jaxpr": prim})

    # binary64: a subnormal product flushed
    t64 = {"sort": "f64", "shape": [2]}
    w64 = lambda vs: "".join("%016x" % w for w in np.asarray(vs, dtype=np.float64).view(np.uint64))
    u, v = np.array([1e-160, 2.0]), np.array([1e-160, 3.0])   # 1e-320: subnormal
    prog64 = {"inputs": [{"name": "u", **t64}, {"name": "v", **t64}], "constants": [],
              "nodes": [node("m", "mul", [0, 1], [t64, t64])], "outputs": [2]}
    dump(out, "subnormal64", {"format": "certnn-ir", "version": 2, "program": prog64,
                              "arguments": [{**t64, "words": w64(u)}, {**t64, "words": w64(v)}],
                              "reference": {"outputs": [{**t64, "words": w64([0.0, 6.0])}],
                                            "producer": "tests/cli/xla_ref.py"},
                              "jaxpr": {"reference_execution": "jit", "backend": "xla-cpu"}})

    # jax.jit's division rewrites and power products, each step rounded to binary32
    jit = {"reference_execution": "jit", "backend": "xla-cpu"}
    x3 = [rng.uniform(1, 9, n).astype(F32) for _ in range(3)]
    ins3 = [{"name": nm, **t32([n])} for nm in ("x", "y", "z")]
    tt = [t32([n]), t32([n])]
    div = lambda name, a, b: node(name, "div", [a, b], tt, {"rounding": "none"})
    # (x / y) / z = x / (y * z): values 0 x, 1 y, 2 z, 3 x/y, 4 q
    prog = {"inputs": ins3, "constants": [], "nodes": [div("xy", 0, 1), div("q", 3, 2)], "outputs": [4]}
    ref = x3[0] / (x3[1] * x3[2])
    assert (ref != (x3[0] / x3[1]) / x3[2]).any()
    dump(out, "div_div", artifact(prog, x3, [ref], jit))
    dump(out, "div_div_prim", artifact(prog, x3, [ref], {"reference_execution": "primitive", "backend": "xla-cpu",
                                                          "computation": [0, 1]}))
    # beside the jax.jit reference, a primitive-by-primitive one: the IR's words (the advice
    # stands), or words nothing reproduces (it is withheld)
    ir_dd = (x3[0] / x3[1]) / x3[2]
    jit_p = dict(jit, primitive_index=[0, 1])
    dump(out, "div_div_primref", artifact(prog, x3, [ref], dict(jit_p, primitive_reference=[
        {**t32([n]), "words": words32(ir_dd)}])))
    odd = ir_dd.copy()
    odd[0] = np.nextafter(odd[0], F32(np.inf))
    dump(out, "div_div_primref_odd", artifact(prog, x3, [ref], dict(jit_p, primitive_reference=[
        {**t32([n]), "words": words32(odd)}])))
    # x / broadcast(s) under jax.jit with its primitive reference: the reciprocal there too (one
    # primitive computes the broadcast and the division), reproduced without jax.jit
    dump(out, "recip_primref", artifact(prog_b, [x, np.asarray(s)], [recip], {
        "reference_execution": "jit", "backend": "xla-cpu", "primitive_index": [0, 0],
        "primitive_reference": [{**t32([n]), "words": words32(recip)}]}))
    # x / (y / z) = (x * z) / y
    prog = {"inputs": ins3, "constants": [], "nodes": [div("yz", 1, 2), div("q", 0, 3)], "outputs": [4]}
    ref = (x3[0] * x3[2]) / x3[1]
    assert (ref != x3[0] / (x3[1] / x3[2])).any()
    dump(out, "div_by_div", artifact(prog, x3, [ref], jit))
    # x / sqrt y = x * rsqrt y, with the IR's rsqrt (1 / sqrt y, two roundings)
    prog = {"inputs": ins3[:2], "constants": [],
            "nodes": [node("r", "sqrt", [1], [t32([n])], {"mode": "raw"}), div("q", 0, 2)], "outputs": [3]}
    ref = x3[0] * (F32(1) / np.sqrt(x3[1]))
    assert (ref != x3[0] / np.sqrt(x3[1])).any()
    dump(out, "div_sqrt", artifact(prog, x3[:2], [ref], jit))
    # x ** 3 with a constant exponent: (x * x) * x
    prog = {"inputs": ins3[:1], "constants": [{"name": "three", **t32([n]), "words": words32(np.full(n, 3.0))}],
            "nodes": [node("c", "pow", [0, 1], tt)], "outputs": [2]}
    xp = rng.uniform(1, 9, n).astype(F32)
    ref = (xp * xp) * xp
    assert (ref != np.power(xp.astype(np.float64), 3).astype(F32)).any()
    dump(out, "pow3", artifact(prog, [xp], [ref], jit))

    # the JAX importer's binary32 power of a binary16 base: XLA computes (h * h) * h in binary16
    hv = rng.uniform(1, 9, n).astype(np.float16)
    t16 = {"sort": "f16", "shape": [n]}
    prog = {"inputs": [{"name": "h", **t16}],
            "constants": [{"name": "three", **t32([n]), "words": words32(np.full(n, 3.0))}],
            "nodes": [node("c", "cast", [0], [t16], {"to": "f32"}), node("p", "pow", [2, 1], tt)], "outputs": [3]}
    ref = ((hv * hv) * hv).astype(F32)
    assert (ref != np.power(hv.astype(np.float64), 3).astype(F32)).any()
    dump(out, "pow3_half", {"format": "certnn-ir", "version": 2, "program": prog,
                            "arguments": [{**t16, "words": "".join("%04x" % w for w in hv.view(np.uint16))}],
                            "reference": {"outputs": [{**t32([n]), "words": words32(ref)}],
                                          "producer": "tests/cli/xla_ref.py"}, "jaxpr": jit})

    # XLA's own rsqrt and pow: a word within 2 ulps (rsqrt) or 1 ulp (pow, both operands arguments)
    # of the IR's counts as reproduced; the windows' ends one word inside and one outside
    prim1 = {"reference_execution": "primitive", "backend": "xla-cpu", "computation": [0]}
    step = lambda v, k: np.array([int(np.asarray(v, F32).view(np.uint32)) + k], np.uint32).view(F32)[0]
    yr = rng.uniform(1, 9, n).astype(F32)
    ir_r = F32(1) / np.sqrt(yr)                       # the IR's rsqrt: 1 / sqrt y, two roundings
    prog = {"inputs": [{"name": "y", **t32([n])}], "constants": [],
            "nodes": [node("r", "rsqrt", [0], [t32([n])])], "outputs": [1]}
    for k, name in ((2, "rsqrt_in"), (3, "rsqrt_out"), (-2, "rsqrt_in_below")):
        ref = ir_r.copy()
        ref[5] = step(ref[5], k)
        dump(out, name, artifact(prog, [yr], [ref], prim1))
    # powers that are exact: 2^3, 4^0.5, 0.5^-1, ...
    px = np.array([2, 4, 0.5, 3] * (n // 4), F32)
    py = np.array([3, 0.5, -1, 2] * (n // 4), F32)
    ir_p = np.array([8, 2, 2, 9] * (n // 4), F32)
    prog = {"inputs": [{"name": "x", **t32([n])}, {"name": "y", **t32([n])}], "constants": [],
            "nodes": [node("p", "pow", [0, 1], tt)], "outputs": [2]}
    for k, name in ((1, "pow_in"), (2, "pow_out")):
        ref = ir_p.copy()
        ref[4] = step(ref[4], k)
        dump(out, name, artifact(prog, [px, py], [ref], prim1))
    # a base that is computed (x + 0), not an argument: no window
    prog = {"inputs": [{"name": "x", **t32([n])}, {"name": "y", **t32([n])}],
            "constants": [{"name": "zero", **t32([n]), "words": words32(np.zeros(n))}],
            "nodes": [node("s", "add", [0, 2], tt), node("p", "pow", [3, 1], tt)], "outputs": [4]}
    ref = ir_p.copy()
    ref[4] = step(ref[4], 1)
    dump(out, "pow_computed", artifact(prog, [px, py], [ref], {"reference_execution": "primitive",
                                                                "backend": "xla-cpu", "computation": [0, 1]}))

    # where the two agree: normal numbers, no division
    dump(out, "agree", artifact(prog_s, [b, c, b], [(b * c).astype(F32) * b],
                                {"reference_execution": "jit", "backend": "xla-cpu"}))


def dump(out, name, a):
    with open("%s/%s.json" % (out, name), "w") as f:
        json.dump(a, f)


if __name__ == "__main__":
    main()
