#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates the ONNX test data of tests/check_onnx.c under tests/data/onnx/.

    /usr/bin/python3 tools/gen_onnx_tests.py [--benchmarks DIR]

Uses Debian's python3-onnx (1.12), python3-numpy and python3-torch; no network access.

Writes:
  ref/<benchmark>__<net>.txt  inputs and reference outputs of every network in ../shared/benchmarks
  ref/LIST                    "<benchmark> <net>" per line
  ops/<name>.onnx, .txt       small models built with onnx.helper (every supported operator and
                              attribute variant, opsets 8 to 17) and their reference outputs
  ops/LIST                    one model name per line
  bad/*.onnx                  malformed or unsupported models (the C test knows what each must give)

Reference outputs come from three evaluators of the ONNX graph written here: numpy in binary64
(the weights as stored, every operation in float64), PyTorch in binary32 (torch.nn.functional
where it has the operator; its BLAS sums in its own order), and Seq, an exact emulation in numpy
float32 of certnn's own binary32 forward: the graph lowered as the importer lowers it and every
operator evaluated in the order its forward arm in src/ops/*.c documents, each operation rounded
as in C, so that cn_graph_eval in CN_DTYPE_F32 must reproduce it bit for bit.  The three are
cross-checked before anything is written.

Reference file format (text, one token list per line):
  # comment
  inputs <k>
  outputs <m>
  case                                 (then k "in" lines, m "out64", m "out32", m "f32seq" lines)
  in vals <n> v_1 .. v_n               explicit values (shortest round-trip decimal)
  in gen32 <n> <seed> <lo> <hi>        generated: see gen_values (rounded to binary32)
  in gen64 <n> <seed> <lo> <hi>        generated, kept in binary64
  out64 <n> v_1 .. v_n                 numpy float64 reference
  out32 <n> v_1 .. v_n                 PyTorch float32 reference (exact binary32 values)
  f32seq <n> v_1 .. v_n                certnn's binary32 forward emulated (see Seq): cn_graph_eval in
                                       CN_DTYPE_F32 must give exactly these binary32 values
  mag <n> v_1 .. v_n                   (benchmarks only) the magnitude of the computation along its
                                       active paths (see magnitudes); rounding errors of any
                                       summation order are a small multiple of ulp(mag)
  end
"""
import argparse
import ctypes
import ctypes.util
import math
import os
import sys
from fractions import Fraction

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
OUT = os.path.join(TOP, "tests", "data", "onnx")
M64 = (1 << 64) - 1

torch.set_num_threads(1)

# numpy sorts of the ONNX element types certnn reads
NPT = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.BOOL: np.bool_,
       TensorProto.INT8: np.int8, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
       TensorProto.INT64: np.int64, TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16,
       TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64}
ONNXT = {np.dtype(v): k for k, v in NPT.items()}


# ---- deterministic inputs (the C test regenerates them bit for bit) ------------------------------
def gen_values(n, seed, lo, hi, f32):
    """splitmix64; u = (z >> 11) * 2^-53 in [0, 1); x = lo + (hi - lo) * u in binary64, then
    rounded to binary32 if f32.  Every step is exact or correctly rounded, so C gets the same."""
    out = np.empty(n, dtype=np.float64)
    s = seed & M64
    for i in range(n):
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z = z ^ (z >> 31)
        u = float(z >> 11) * 2.0 ** -53
        x = lo + (hi - lo) * u
        out[i] = float(np.float32(x)) if f32 else x
    return out


# ---- certnn's generator (src/ops/random.c), for the references of the random draws --------------
M32 = (1 << 32) - 1


def philox_uniforms(key, n):
    """The uniforms (u_j, v_j), j < n, of src/ops/random.c: Philox4x32-10 on the counter
    (j mod 2^32, j div 2^32, 0, 0) under the key (K mod 2^32, K div 2^32), each 64-bit half of
    the output block cut to 53 bits."""
    out = []
    for j in range(n):
        c = [j & M32, (j >> 32) & M32, 0, 0]
        k0, k1 = key & M32, (key >> 32) & M32
        for r in range(10):
            if r > 0:
                k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
            p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
            c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
        a, b = c[0] | c[1] << 32, c[2] | c[3] << 32
        out.append(((a >> 11) * 2.0 ** -53, (b >> 11) * 2.0 ** -53))
    return out


# ---- C's libm, for the emulation of certnn's transcendental forwards ----------------------------
LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


def libm_fn(name, f32):
    """The C function NAME (its float version NAME + 'f' if F32) of the libm certnn links."""
    fn = getattr(LIBM, name + ("f" if f32 else ""))
    t = ctypes.c_float if f32 else ctypes.c_double
    fn.restype = t
    fn.argtypes = [t]
    return fn


def libm_map(name, x, T):
    """libm's NAME applied entry by entry to the array X of sort T, results of sort T."""
    fn = libm_fn(name, T == np.float32)
    x = np.asarray(x, dtype=T)
    return np.array([fn(float(v)) for v in x.reshape(-1)], dtype=T).reshape(x.shape)


# ---- the reference evaluators ----------------------------------------------------------------
class Eval:
    """Evaluates an ONNX graph; float tensors are numpy float64 arrays (mode 'f64') or torch
    float32 tensors (mode 'f32'); integer tensors are numpy int64 arrays in both."""

    def __init__(self, mode):
        self.t = mode == "f32"

    # conversions
    def flt(self, a):
        a = np.asarray(a)
        return torch.tensor(a.astype(np.float32)) if self.t else a.astype(np.float64)

    def is_f(self, v):
        return isinstance(v, torch.Tensor) or v.dtype.kind == "f"

    def np(self, v):
        return v.detach().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)

    def const(self, tp):
        a = numpy_helper.to_array(tp)
        if a.dtype.kind == "f":
            return self.flt(a)
        return a.copy()              # Booleans and words keep their sort

    def run(self, model, inputs):
        g = model.graph
        env = {}
        for t in g.initializer:
            env[t.name] = self.const(t)
        k = 0
        for vi in g.input:
            if vi.name in env:
                continue
            env[vi.name] = self.flt(inputs[k]) if inputs[k].dtype.kind == "f" else inputs[k]
            k += 1
        opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")][0]
        for node in g.node:
            ins = [env[n] if n else None for n in node.input]
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            outs = getattr(self, "op_" + node.op_type)(ins, attrs, opset, node)
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            for name, v in zip(node.output, outs):
                if name:
                    env[name] = v
        return [self.np(env[o.name]).astype(np.float64) for o in g.output]

    # elementwise
    def op_Identity(self, i, a, o, n):
        return i[0]

    def op_Dropout(self, i, a, o, n):
        return [i[0], np.ones(np.shape(self.np(i[0])), dtype=np.int64)]

    def op_Relu(self, i, a, o, n):
        return torch.relu(i[0]) if self.t else np.maximum(i[0], 0.0)

    def op_Neg(self, i, a, o, n):
        return -i[0]

    # activations and transcendental functions: torch in float32, numpy (torch for erf) in float64
    def _un(self, i, tf, nf):
        x = i[0]
        return tf(x) if self.t else nf(x)

    def op_Sigmoid(self, i, a, o, n):
        return self._un(i, torch.sigmoid, lambda x: 1.0 / (1.0 + np.exp(-x)))

    def op_Tanh(self, i, a, o, n):
        return self._un(i, torch.tanh, np.tanh)

    def op_Softplus(self, i, a, o, n):
        return self._un(i, lambda x: F.softplus(x, threshold=1e30), lambda x: np.logaddexp(0.0, x))

    def op_Elu(self, i, a, o, n):
        al = float(a.get("alpha", 1.0))
        return self._un(i, lambda x: F.elu(x, al), lambda x: np.where(x > 0, x, al * np.expm1(x)))

    def op_Selu(self, i, a, o, n):
        al = float(a.get("alpha", float(np.float32(1.67326319217681884765625))))
        ga = float(a.get("gamma", float(np.float32(1.05070102214813232421875))))
        return self._un(i, lambda x: ga * F.elu(x, al), lambda x: ga * np.where(x > 0, x, al * np.expm1(x)))

    def op_LeakyRelu(self, i, a, o, n):
        al = float(a.get("alpha", float(np.float32(0.01))))
        return self._un(i, lambda x: F.leaky_relu(x, al), lambda x: np.where(x > 0, x, al * x))

    def op_Exp(self, i, a, o, n):
        return self._un(i, torch.exp, np.exp)

    def op_Log(self, i, a, o, n):
        return self._un(i, torch.log, np.log)

    def op_Sin(self, i, a, o, n):
        return self._un(i, torch.sin, np.sin)

    def op_Cos(self, i, a, o, n):
        return self._un(i, torch.cos, np.cos)

    def op_Tan(self, i, a, o, n):
        return self._un(i, torch.tan, np.tan)

    def op_Asin(self, i, a, o, n):
        return self._un(i, torch.asin, np.arcsin)

    def op_Acos(self, i, a, o, n):
        return self._un(i, torch.acos, np.arccos)

    def op_Atan(self, i, a, o, n):
        return self._un(i, torch.atan, np.arctan)

    def op_Sinh(self, i, a, o, n):
        return self._un(i, torch.sinh, np.sinh)

    def op_Cosh(self, i, a, o, n):
        return self._un(i, torch.cosh, np.cosh)

    def op_Asinh(self, i, a, o, n):
        return self._un(i, torch.asinh, np.arcsinh)

    def op_Acosh(self, i, a, o, n):
        return self._un(i, torch.acosh, np.arccosh)

    def op_Atanh(self, i, a, o, n):
        return self._un(i, torch.atanh, np.arctanh)

    def op_Erf(self, i, a, o, n):
        return self._un(i, torch.erf, lambda x: torch.erf(torch.tensor(np.asarray(x, dtype=np.float64))).numpy())

    def _bin(self, i, f):
        x, y = i
        if not self.is_f(x) and not self.is_f(y):
            return f(x, y, True)
        return f(x, y, False)

    def op_Add(self, i, a, o, n):
        return self._bin(i, lambda x, y, _: x + y)

    def op_Sub(self, i, a, o, n):
        return self._bin(i, lambda x, y, _: x - y)

    def op_Mul(self, i, a, o, n):
        return self._bin(i, lambda x, y, _: x * y)

    def op_Div(self, i, a, o, n):
        def d(x, y, ints):
            if ints:
                # toward 0, in 64 bits, then wrapped to the operands' sort (the least word / -1)
                xa, ya = np.asarray(x).astype(np.int64), np.asarray(y).astype(np.int64)
                q = np.abs(xa) // np.abs(ya)
                return np.where((xa < 0) != (ya < 0), -q, q).astype(np.result_type(x, y))
            return x / y
        return self._bin(i, d)

    def op_MatMul(self, i, a, o, n):
        return torch.matmul(i[0], i[1]) if self.t else np.matmul(i[0], i[1])

    def op_Gemm(self, i, a, o, n):
        A, B = i[0], i[1]
        if a.get("transA", 0):
            A = A.T
        if a.get("transB", 0):
            B = B.T
        alpha, beta = float(np.float32(a.get("alpha", 1.0))), float(np.float32(a.get("beta", 1.0)))
        y = (torch.matmul(A, B) if self.t else A @ B)
        if alpha != 1.0:
            y = y * alpha
        if len(i) > 2 and i[2] is not None:
            y = y + (i[2] * beta if beta != 1.0 else i[2])
        return y

    # convolution and pooling
    def _geometry(self, x, a, K):
        nd = len(K)
        strides = list(a.get("strides", [1] * nd))
        dil = list(a.get("dilations", [1] * nd))
        pads = list(a.get("pads", [0] * (2 * nd)))
        mode = a.get("auto_pad", b"NOTSET")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode == "VALID":
            pads = [0] * (2 * nd)
        elif mode in ("SAME_UPPER", "SAME_LOWER"):
            for d in range(nd):
                s = x.shape[2 + d]
                out = -(-s // strides[d])
                total = max(0, (out - 1) * strides[d] + dil[d] * (K[d] - 1) + 1 - s)
                b = total // 2 if mode == "SAME_UPPER" else total - total // 2
                pads[d], pads[nd + d] = b, total - b
        return strides, dil, pads

    def _tpad(self, pads, nd):
        tp = []
        for d in reversed(range(nd)):
            tp += [pads[d], pads[nd + d]]
        return tp

    def op_Conv(self, i, a, o, n):
        x, w = i[0], i[1]
        b = i[2] if len(i) > 2 and i[2] is not None else None
        K = list(w.shape[2:])
        nd = len(K)
        strides, dil, pads = self._geometry(x, a, K)
        group = a.get("group", 1)
        if self.t:
            xp = F.pad(x, self._tpad(pads, nd))
            conv = [None, F.conv1d, F.conv2d, F.conv3d][nd]
            return conv(xp, w, b, stride=strides, padding=0, dilation=dil, groups=group)
        xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[d], pads[nd + d]) for d in range(nd)])
        N, Fo, Cg = x.shape[0], w.shape[0], w.shape[1]
        osp = [(xp.shape[2 + d] - dil[d] * (K[d] - 1) - 1) // strides[d] + 1 for d in range(nd)]
        y = np.zeros([N, Fo] + osp)
        Fg = Fo // group
        for g in range(group):
            xs = xp[:, g * Cg:(g + 1) * Cg]
            ws = w[g * Fg:(g + 1) * Fg]
            for kidx in np.ndindex(*K):
                sl = tuple(slice(kidx[d] * dil[d], kidx[d] * dil[d] + strides[d] * (osp[d] - 1) + 1, strides[d])
                           for d in range(nd))
                patch = xs[(slice(None), slice(None)) + sl]
                wk = ws[(slice(None), slice(None)) + tuple(kidx)]
                y[:, g * Fg:(g + 1) * Fg] += np.einsum("nc...,fc->nf...", patch, wk)
        if b is not None:
            y += b.reshape([1, -1] + [1] * nd)
        return y

    def _pool(self, x, a, kind):
        K = list(a["kernel_shape"])
        nd = len(K)
        strides, dil, pads = self._geometry(x, a, K)
        cip = a.get("count_include_pad", 0)
        if self.t:
            if kind == "max":
                xp = F.pad(x, self._tpad(pads, nd), value=-float("inf"))
                mp = [None, F.max_pool1d, F.max_pool2d, F.max_pool3d][nd]
                return mp(xp, K, strides, 0, dil)
            xp = F.pad(x, self._tpad(pads, nd), value=0.0)
            ones = F.pad(torch.ones_like(x), self._tpad(pads, nd), value=0.0)
            ap = [None, None, F.avg_pool2d, F.avg_pool3d][nd]
            s = ap(xp, K, strides, 0, divisor_override=1)
            if cip:
                return s / float(np.prod(K))
            return s / ap(ones, K, strides, 0, divisor_override=1)
        fill = -np.inf if kind == "max" else 0.0
        pw = [(0, 0), (0, 0)] + [(pads[d], pads[nd + d]) for d in range(nd)]
        xp = np.pad(x, pw, constant_values=fill)
        ones = np.pad(np.ones(x.shape), pw)
        osp = [(xp.shape[2 + d] - dil[d] * (K[d] - 1) - 1) // strides[d] + 1 for d in range(nd)]
        acc, cnt = None, None
        for kidx in np.ndindex(*K):
            sl = (slice(None), slice(None)) + tuple(
                slice(kidx[d] * dil[d], kidx[d] * dil[d] + strides[d] * (osp[d] - 1) + 1, strides[d]) for d in range(nd))
            p = xp[sl]
            if acc is None:
                acc, cnt = p.copy(), ones[sl].copy()
            else:
                acc = np.maximum(acc, p) if kind == "max" else acc + p
                cnt = cnt + ones[sl]
        if kind == "max":
            return acc
        return acc / (float(np.prod(K)) if cip else cnt)

    def op_MaxPool(self, i, a, o, n):
        return self._pool(i[0], a, "max")

    def op_AveragePool(self, i, a, o, n):
        return self._pool(i[0], a, "avg")

    def op_GlobalAveragePool(self, i, a, o, n):
        axes = tuple(range(2, len(i[0].shape)))
        return i[0].mean(dim=axes, keepdim=True) if self.t else i[0].mean(axis=axes, keepdims=True)

    def op_GlobalMaxPool(self, i, a, o, n):
        axes = tuple(range(2, len(i[0].shape)))
        return torch.amax(i[0], dim=axes, keepdim=True) if self.t else i[0].max(axis=axes, keepdims=True)

    def op_BatchNormalization(self, i, a, o, n):
        x, s, b, m, v = i[:5]
        eps = float(np.float32(a.get("epsilon", 1e-5)))
        if a.get("training_mode", 0):
            # ONNX's training mode (opset 14+): Y from the batch statistics (biased variance), the
            # running statistics input * momentum + batch * (1 - momentum); binary64 only (ref F64)
            assert not self.t, "training_mode: a binary64 reference only"
            mom = float(np.float32(a.get("momentum", 0.9)))
            sh = [1, -1] + [1] * (x.ndim - 2)
            axes = tuple(d for d in range(x.ndim) if d != 1)
            mu, var = x.mean(axis=axes), x.var(axis=axes)
            y = (x - mu.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * s.reshape(sh) + b.reshape(sh)
            return [y, m * mom + mu * (1 - mom), v * mom + var * (1 - mom)]
        if self.t:
            return F.batch_norm(x, m, v, s, b, False, 0.0, eps)
        sh = [1, -1] + [1] * (x.ndim - 2)
        return s.reshape(sh) * (x - m.reshape(sh)) / np.sqrt(v.reshape(sh) + eps) + b.reshape(sh)

    def op_Pad(self, i, a, o, n):
        x = i[0]
        if len(i) > 1 and i[1] is not None:
            pads = [int(p) for p in i[1]]
            val = float(self.np(i[2]).reshape(-1)[0]) if len(i) > 2 and i[2] is not None else 0.0
        else:
            pads, val = list(a["pads"]), float(np.float32(a.get("value", 0.0)))
        r = len(x.shape)
        if self.t:
            return F.pad(x, self._tpad(pads, r), value=val)
        return np.pad(x, [(pads[d], pads[r + d]) for d in range(r)], constant_values=val)

    def _axes(self, i, a, r, from_input):
        if from_input and len(i) > 1 and i[1] is not None:
            ax = [int(v) for v in i[1]]
        else:
            ax = list(a.get("axes", []))
        return tuple(sorted(x % r for x in ax))

    def _reduce(self, i, a, o, fn, from_input):
        x = i[0]
        r = len(x.shape)
        ax = self._axes(i, a, r, from_input)
        if not ax:
            if a.get("noop_with_empty_axes", 0):
                return x
            ax = tuple(range(r))
        keep = bool(a.get("keepdims", 1))
        return fn(x, ax, keep)

    def op_ReduceSum(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: torch.sum(x, dim=ax, keepdim=k) if self.t
                            else np.sum(x, axis=ax, keepdims=k), o >= 13)

    def op_ReduceMean(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: torch.mean(x, dim=ax, keepdim=k) if self.t
                            else np.mean(x, axis=ax, keepdims=k), False)

    def op_ReduceMax(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: torch.amax(x, dim=ax, keepdim=k) if self.t
                            else np.max(x, axis=ax, keepdims=k), False)

    def op_ReduceMin(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: torch.amin(x, dim=ax, keepdim=k) if self.t
                            else np.min(x, axis=ax, keepdims=k), False)

    # data movement
    def _reshape(self, x, shape):
        return x.reshape(tuple(int(s) for s in shape))

    def op_Flatten(self, i, a, o, n):
        x = i[0]
        ax = a.get("axis", 1)
        r = len(x.shape)
        ax = ax + r if ax < 0 else ax
        d0 = int(np.prod(x.shape[:ax])) if ax > 0 else 1
        return self._reshape(x, (d0, -1) if d0 else (0, -1))

    def op_Reshape(self, i, a, o, n):
        x, sh = i[0], [int(s) for s in i[1]]
        if not a.get("allowzero", 0):
            sh = [x.shape[k] if s == 0 else s for k, s in enumerate(sh)]
        return self._reshape(x, sh)

    def op_Transpose(self, i, a, o, n):
        x = i[0]
        perm = a.get("perm", list(reversed(range(len(x.shape)))))
        return x.permute(*perm) if self.t and isinstance(x, torch.Tensor) else np.transpose(x, perm)

    def op_Squeeze(self, i, a, o, n):
        x = i[0]
        r = len(x.shape)
        ax = self._axes(i, a, r, True)
        if not ax:
            ax = tuple(k for k in range(r) if x.shape[k] == 1)
        return self._reshape(x, [x.shape[k] for k in range(r) if k not in ax])

    def op_Unsqueeze(self, i, a, o, n):
        x = i[0]
        r = len(x.shape) + (len(i[1]) if len(i) > 1 and i[1] is not None else len(a["axes"]))
        ax = self._axes(i, a, r, True)
        sh, it = [], iter(x.shape)
        for k in range(r):
            sh.append(1 if k in ax else next(it))
        return self._reshape(x, sh)

    def op_Concat(self, i, a, o, n):
        xs = [v for v in i if v is not None]
        if all(not self.is_f(v) for v in xs):
            return np.concatenate(xs, axis=a["axis"])
        xs = [self.flt(v) if not self.is_f(v) else v for v in xs]
        return torch.cat(xs, dim=a["axis"]) if self.t else np.concatenate(xs, axis=a["axis"])

    def op_Slice(self, i, a, o, n):
        x = i[0]
        r = len(x.shape)
        if len(i) > 1:
            st, en = [int(v) for v in i[1]], [int(v) for v in i[2]]
            ax = [int(v) for v in i[3]] if len(i) > 3 and i[3] is not None else list(range(len(st)))
            sp = [int(v) for v in i[4]] if len(i) > 4 and i[4] is not None else [1] * len(st)
        else:
            st, en = list(a["starts"]), list(a["ends"])
            ax = list(a.get("axes", range(len(st))))
            sp = [1] * len(st)
        sl = [slice(None)] * r
        for s, e, x_, p in zip(st, en, ax, sp):
            sl[x_ % r] = slice(s, e, p)
        return x[tuple(sl)]

    def op_Gather(self, i, a, o, n):
        x, idx = i[0], np.asarray(i[1]).astype(np.int64)
        ax = a.get("axis", 0)
        if self.t and isinstance(x, torch.Tensor):
            ax = ax % len(x.shape)
            idx = np.where(idx < 0, idx + x.shape[ax], idx)
            out = torch.index_select(x, ax, torch.tensor(idx.reshape(-1)))
            return out.reshape(tuple(x.shape[:ax]) + idx.shape + tuple(x.shape[ax + 1:]))
        return np.take(x, idx, axis=ax)

    def op_Shape(self, i, a, o, n):
        return np.array(list(i[0].shape), dtype=np.int64)

    def op_Size(self, i, a, o, n):
        return np.array(int(np.prod(i[0].shape)), dtype=np.int64)

    def op_Cast(self, i, a, o, n):
        return self._cast(i[0], a["to"])

    def _cast(self, x, to):
        """numpy's cast, as certnn's: to BOOL x != 0; a float to an integer type truncated (in range,
        asserted); integers wrapped to the target's width."""
        if to in (TensorProto.FLOAT, TensorProto.DOUBLE):
            return self.flt(self.np(x)) if not self.is_f(x) else x
        v = self.np(x)
        if to == TensorProto.BOOL:
            return v != 0
        if v.dtype.kind == "f":
            t = np.trunc(v)
            info = np.iinfo(NPT[to])
            assert np.all((t >= info.min) & (t <= info.max)), "cast out of range"
            return t.astype(NPT[to])
        return v.astype(NPT[to])

    def op_Constant(self, i, a, o, n):
        if "value" in a:
            v = numpy_helper.to_array(a["value"])
        elif "value_float" in a:
            v = np.array(a["value_float"], dtype=np.float32)
        elif "value_floats" in a:
            v = np.array(a["value_floats"], dtype=np.float32)
        elif "value_int" in a:
            v = np.array(a["value_int"], dtype=np.int64)
        else:
            v = np.array(a["value_ints"], dtype=np.int64)
        return self.flt(v) if v.dtype.kind == "f" else v.astype(np.int64)

    def op_ConstantOfShape(self, i, a, o, n):
        v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
        arr = np.full([int(s) for s in i[0]], v.reshape(-1)[0], dtype=v.dtype)
        return self.flt(arr) if arr.dtype.kind == "f" else arr.astype(np.int64)

    # The operators imported since (numpy in binary64 only: their models carry a binary64
    # reference, or, where every operation is exact, the same values as binary32 references;
    # see model(ref=...)).
    def _nf(self, x):
        assert not self.t, "binary64 only"
        return np.asarray(x, dtype=np.float64)

    def _nv(self, x):
        """as _nf for the model's scalar; Booleans and words keep their numpy sort (data movement)"""
        x = np.asarray(x)
        return self._nf(x) if x.dtype.kind == "f" else x

    def op_Abs(self, i, a, o, n):
        return np.abs(self._nf(i[0]))

    def op_Sqrt(self, i, a, o, n):
        return np.sqrt(self._nf(i[0]))

    def op_Reciprocal(self, i, a, o, n):
        return 1.0 / self._nf(i[0])

    def op_Floor(self, i, a, o, n):
        return np.floor(self._nf(i[0]))

    def op_Ceil(self, i, a, o, n):
        return np.ceil(self._nf(i[0]))

    def op_Round(self, i, a, o, n):
        return np.round(self._nf(i[0]))          # halves to even, as ONNX

    def op_Sign(self, i, a, o, n):
        return np.sign(self._nf(i[0]))

    def op_Pow(self, i, a, o, n):
        x, e = self._nv(i[0]), self._nv(i[1])
        if x.dtype.kind != "f" and e.dtype != x.dtype:
            e = e.astype(x.dtype)      # an integer exponent in the base's sort (in range: asserted by the C side)
        return np.power(x, e)

    def op_Mod(self, i, a, o, n):
        x, y = self._nv(i[0]), self._nv(i[1])
        return np.fmod(x, y) if a.get("fmod", 0) else np.mod(x, y)

    def op_Max(self, i, a, o, n):
        r = self._nv(i[0])
        for v in i[1:]:
            r = np.maximum(r, self._nv(v))
        return r

    def op_Min(self, i, a, o, n):
        r = self._nv(i[0])
        for v in i[1:]:
            r = np.minimum(r, self._nv(v))
        return r

    def op_Sum(self, i, a, o, n):
        r = self._nf(i[0])
        for v in i[1:]:
            r = r + self._nf(v)
        return r

    def op_Mean(self, i, a, o, n):
        return self.op_Sum(i, a, o, n) / len(i)

    def op_Clip(self, i, a, o, n):
        x = self._nf(i[0])
        if o < 11:
            lo, hi = a.get("min", -np.inf), a.get("max", np.inf)
        else:
            lo = float(self._nf(i[1]).reshape(-1)[0]) if len(i) > 1 and i[1] is not None else -np.inf
            hi = float(self._nf(i[2]).reshape(-1)[0]) if len(i) > 2 and i[2] is not None else np.inf
        return np.minimum(np.maximum(x, lo), hi)

    def op_HardSigmoid(self, i, a, o, n):
        al, be = a.get("alpha", float(np.float32(0.2))), a.get("beta", 0.5)
        return np.clip(al * self._nf(i[0]) + be, 0.0, 1.0)

    def op_HardSwish(self, i, a, o, n):
        x = self._nf(i[0])
        return x * np.clip(x / 6.0 + 0.5, 0.0, 1.0)

    def op_Softsign(self, i, a, o, n):
        x = self._nf(i[0])
        return x / (1.0 + np.abs(x))

    def op_Celu(self, i, a, o, n):
        x, al = self._nf(i[0]), a.get("alpha", 1.0)
        return np.maximum(x, 0.0) + np.minimum(0.0, al * np.expm1(x / al))

    def op_Shrink(self, i, a, o, n):
        x, l, b = self._nf(i[0]), a.get("lambd", 0.5), a.get("bias", 0.0)
        return np.where(x < -l, x + b, np.where(x > l, x - b, 0.0))

    def op_PRelu(self, i, a, o, n):
        x, s = self._nf(i[0]), self._nf(i[1])
        return np.where(x < 0, s * x, x)

    def _softmax(self, i, a, o, log):
        x = self._nf(i[0])
        if o < 13:
            ax = a.get("axis", 1) % x.ndim
            z = x.reshape(int(np.prod(x.shape[:ax])), -1)
            axis = 1
        else:
            z, axis = x, a.get("axis", -1)
        s = z - z.max(axis=axis, keepdims=True)
        lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
        r = s - lse if log else np.exp(s - lse)
        return r.reshape(x.shape)

    def op_Softmax(self, i, a, o, n):
        return self._softmax(i, a, o, False)

    def op_LogSoftmax(self, i, a, o, n):
        return self._softmax(i, a, o, True)

    def op_LayerNormalization(self, i, a, o, n):
        x = self._nf(i[0])
        ax = a.get("axis", -1) % x.ndim
        axes = tuple(range(ax, x.ndim))
        eps = a.get("epsilon", float(np.float32(1e-5)))
        m = x.mean(axis=axes, keepdims=True)
        v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
        y = (x - m) / np.sqrt(v + eps) * self._nf(i[1])
        if len(i) > 2 and i[2] is not None:
            y = y + self._nf(i[2])
        return y

    def op_InstanceNormalization(self, i, a, o, n):
        x = self._nf(i[0])
        axes = tuple(range(2, x.ndim))
        eps = a.get("epsilon", float(np.float32(1e-5)))
        sh = [1, -1] + [1] * (x.ndim - 2)
        m = x.mean(axis=axes, keepdims=True)
        v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * self._nf(i[1]).reshape(sh) + self._nf(i[2]).reshape(sh)

    def op_GatherElements(self, i, a, o, n):
        x, idx = self._nv(i[0]), np.asarray(i[1], dtype=np.int64)
        ax = a.get("axis", 0) % x.ndim
        return np.take_along_axis(x, np.where(idx < 0, idx + x.shape[ax], idx), axis=ax)

    def op_ScatterElements(self, i, a, o, n):
        x, idx, u = self._nv(i[0]).copy(), np.asarray(i[1], dtype=np.int64), self._nv(i[2])
        ax = a.get("axis", 0) % x.ndim
        red = a.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        for p in np.ndindex(*idx.shape):
            q = list(p)
            q[ax] = int(idx[p]) % x.shape[ax]
            q = tuple(q)
            x[q] = {"none": lambda s, t: t, "add": lambda s, t: s + t, "mul": lambda s, t: s * t,
                    "max": max, "min": min}[red](x[q], u[p])
        return x

    def op_GatherND(self, i, a, o, n):
        x, idx = self._nv(i[0]), np.asarray(i[1], dtype=np.int64)
        q = idx.shape[-1]
        flat = idx.reshape(-1, q)
        out = [x[tuple(int(v) % x.shape[d] for d, v in enumerate(row))] for row in flat]
        return np.array(out).reshape(idx.shape[:-1] + x.shape[q:])

    def op_TopK(self, i, a, o, n):
        """torch.topk's order: a NaN above every number, ties to the lower index (a stable sort)."""
        x, k = self._nf(i[0]), int(np.asarray(i[1]).reshape(-1)[0])
        ax = a.get("axis", -1) % x.ndim
        xm = np.moveaxis(x, ax, -1)
        nan = np.isnan(xm)
        if a.get("largest", 1):
            key = (np.where(nan, 0.0, -xm), np.where(nan, 0, 1))
        else:
            key = (np.where(nan, 0.0, xm), np.where(nan, 1, 0))
        order = np.empty(xm.shape, dtype=np.int64)
        for p in np.ndindex(*xm.shape[:-1]):
            order[p] = np.lexsort((np.arange(xm.shape[-1]), key[0][p], key[1][p]))
        idx = np.moveaxis(order[..., :k], -1, ax)
        return [np.take_along_axis(x, idx, axis=ax), idx]

    def _arg(self, i, a, fn):
        x = self._nf(i[0])
        ax = a.get("axis", 0) % x.ndim
        r = fn(x, axis=ax)
        return np.expand_dims(r, ax) if a.get("keepdims", 1) else r

    def op_ArgMax(self, i, a, o, n):
        return self._arg(i, a, np.argmax)

    def op_ArgMin(self, i, a, o, n):
        return self._arg(i, a, np.argmin)

    def op_CumSum(self, i, a, o, n):
        return np.cumsum(self._nf(i[0]), axis=int(np.asarray(i[1]).reshape(-1)[0]))

    def op_Expand(self, i, a, o, n):
        x = self._nv(i[0])
        return np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(int(s) for s in i[1]))).copy()

    def op_Tile(self, i, a, o, n):
        return np.tile(self._nv(i[0]), [int(r) for r in i[1]])

    def op_Split(self, i, a, o, n):
        x = self._nv(i[0])
        ax = a.get("axis", 0) % x.ndim
        sp = list(a["split"]) if "split" in a else ([int(v) for v in i[1]] if len(i) > 1 and i[1] is not None else
                                                    [x.shape[ax] // len(n.output)] * len(n.output))
        return np.split(x, np.cumsum(sp)[:-1], axis=ax)

    def op_DepthToSpace(self, i, a, o, n):
        x, b = self._nv(i[0]), a["blocksize"]
        N_, C, H, W_ = x.shape
        mode = a.get("mode", b"DCR")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode == "DCR":
            t = x.reshape(N_, b, b, C // (b * b), H, W_).transpose(0, 3, 4, 1, 5, 2)
        else:
            t = x.reshape(N_, C // (b * b), b, b, H, W_).transpose(0, 1, 4, 2, 5, 3)
        return t.reshape(N_, C // (b * b), H * b, W_ * b)

    def op_SpaceToDepth(self, i, a, o, n):
        x, b = self._nv(i[0]), a["blocksize"]
        N_, C, H, W_ = x.shape
        t = x.reshape(N_, C, H // b, b, W_ // b, b).transpose(0, 3, 5, 1, 2, 4)
        return t.reshape(N_, C * b * b, H // b, W_ // b)

    def op_ReduceL1(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: np.sum(np.abs(x), axis=ax, keepdims=k), False)

    def op_ReduceL2(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: np.sqrt(np.sum(x * x, axis=ax, keepdims=k)), False)

    def op_ReduceSumSquare(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: np.sum(x * x, axis=ax, keepdims=k), False)

    def op_ReduceLogSum(self, i, a, o, n):
        return self._reduce(i, a, o, lambda x, ax, k: np.log(np.sum(x, axis=ax, keepdims=k)), False)

    def op_ReduceLogSumExp(self, i, a, o, n):
        def lse(x, ax, k):
            m = np.max(x, axis=ax, keepdims=True)
            r = m + np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True))
            return r if k else np.squeeze(r, axis=ax)
        return self._reduce(i, a, o, lse, False)

    def op_GlobalLpPool(self, i, a, o, n):
        x, p = self._nf(i[0]), a.get("p", 2)
        axes = tuple(range(2, x.ndim))
        return np.sum(np.abs(x) ** p, axis=axes, keepdims=True) ** (1.0 / p)

    def op_EyeLike(self, i, a, o, n):
        x = i[0]
        e = np.eye(x.shape[0], x.shape[1], k=a.get("k", 0))
        return self.flt(e) if self.is_f(x) else e.astype(np.int64)

    def op_Range(self, i, a, o, n):
        st, li, de = [np.asarray(v).reshape(-1)[0] for v in i]
        r = np.arange(st, li, de)
        return self.flt(r) if self.is_f(i[0]) else r.astype(np.int64)

    def op_Trilu(self, i, a, o, n):
        x = self._nf(i[0])
        k = int(np.asarray(i[1]).reshape(-1)[0]) if len(i) > 1 and i[1] is not None else 0
        return np.triu(x, k) if a.get("upper", 1) else np.tril(x, k)

    # The operators on the new element sorts and rules (Booleans, integer words, transposed
    # convolution, random draws, DFT, Einsum): numpy in binary64, Booleans and words in their
    # numpy sorts; every model using them carries "exact" or "f64" references.
    def _cmp(self, i, f):
        x, y = self.np(i[0]), self.np(i[1])
        return f(x, y)

    def op_Equal(self, i, a, o, n):
        return self._cmp(i, np.equal)

    def op_Less(self, i, a, o, n):
        return self._cmp(i, np.less)

    def op_LessOrEqual(self, i, a, o, n):
        return self._cmp(i, np.less_equal)

    def op_Greater(self, i, a, o, n):
        return self._cmp(i, np.greater)

    def op_GreaterOrEqual(self, i, a, o, n):
        return self._cmp(i, np.greater_equal)

    def op_Not(self, i, a, o, n):
        return np.logical_not(self.np(i[0]))

    def op_And(self, i, a, o, n):
        return self._cmp(i, np.logical_and)

    def op_Or(self, i, a, o, n):
        return self._cmp(i, np.logical_or)

    def op_Xor(self, i, a, o, n):
        return self._cmp(i, np.logical_xor)

    def op_IsNaN(self, i, a, o, n):
        return np.isnan(self._nf(i[0]))

    def op_IsInf(self, i, a, o, n):
        x = self._nf(i[0])
        pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
        return np.isinf(x) & (((x > 0) & bool(pos)) | ((x < 0) & bool(neg)))

    def op_Where(self, i, a, o, n):
        x, y = self.np(i[1]), self.np(i[2])
        if x.dtype.kind == "f" or y.dtype.kind == "f":
            x, y = x.astype(np.float64), y.astype(np.float64)
        return np.where(self.np(i[0]), x, y)

    def op_CastLike(self, i, a, o, n):
        return self._cast(i[0], ONNXT[np.dtype(self.np(i[1]).dtype)])

    def op_BitShift(self, i, a, o, n):
        x, y = self.np(i[0]), self.np(i[1])
        d = a["direction"]
        d = d.decode() if isinstance(d, bytes) else d
        assert x.dtype == y.dtype and x.dtype.kind == "u" and np.all(y < 8 * x.dtype.itemsize)
        return np.left_shift(x, y) if d == "LEFT" else np.right_shift(x, y)

    def op_BitwiseAnd(self, i, a, o, n):
        return self._cmp(i, np.bitwise_and)

    def op_BitwiseOr(self, i, a, o, n):
        return self._cmp(i, np.bitwise_or)

    def op_BitwiseXor(self, i, a, o, n):
        return self._cmp(i, np.bitwise_xor)

    def op_BitwiseNot(self, i, a, o, n):
        return np.invert(self.np(i[0]))

    def op_ConvTranspose(self, i, a, o, n):
        """The scatter form: y_full[n, m, s stride + k dil] += x[n, c, s] w[c, m, k] over the
        full extent F = stride (S - 1) + output_padding + dil (K - 1) + 1, then cut to
        [pad_begin, F - pad_end) (pads from output_shape or auto_pad: the total split in halves,
        even totals only); cross-checked with torch's conv_transpose where the pads are equal."""
        x, w = self._nf(i[0]), self._nf(i[1])
        b = self._nf(i[2]) if len(i) > 2 and i[2] is not None else None
        K = list(w.shape[2:])
        nd, group = len(K), a.get("group", 1)
        S = list(x.shape[2:])
        st = list(a.get("strides", [1] * nd))
        dl = list(a.get("dilations", [1] * nd))
        op = list(a.get("output_padding", [0] * nd))
        full = [st[d] * (S[d] - 1) + op[d] + dl[d] * (K[d] - 1) + 1 for d in range(nd)]
        pads = list(a.get("pads", [0] * (2 * nd)))
        mode = a.get("auto_pad", b"NOTSET")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if "output_shape" in a or mode in ("SAME_UPPER", "SAME_LOWER"):
            outs = list(a["output_shape"])[-nd:] if "output_shape" in a else [S[d] * st[d] for d in range(nd)]
            tot = [full[d] - outs[d] for d in range(nd)]
            assert all(t >= 0 and t % 2 == 0 for t in tot)
            pads = [t // 2 for t in tot] * 2
        N_, C = x.shape[:2]
        Mg, Cg = w.shape[1], C // group
        y = np.zeros([N_, Mg * group] + full)
        for g in range(group):
            for kidx in np.ndindex(*K):
                sl = tuple(slice(kidx[d] * dl[d], kidx[d] * dl[d] + st[d] * (S[d] - 1) + 1, st[d]) for d in range(nd))
                contrib = np.einsum("nc...,cm->nm...", x[:, g * Cg:(g + 1) * Cg], w[(slice(g * Cg, (g + 1) * Cg), slice(None)) + kidx])
                y[(slice(None), slice(g * Mg, (g + 1) * Mg)) + sl] += contrib
        y = y[(slice(None), slice(None)) + tuple(slice(pads[d], full[d] - pads[nd + d]) for d in range(nd))]
        if b is not None:
            y = y + b.reshape([1, -1] + [1] * nd)
        if all(pads[d] == pads[nd + d] for d in range(nd)):
            tc = [None, F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][nd]
            t = tc(torch.tensor(x), torch.tensor(w), None if b is None else torch.tensor(b), stride=st,
                   padding=pads[:nd], output_padding=op, groups=group, dilation=dl).numpy()
            assert t.shape == y.shape and np.max(np.abs(t - y), initial=0.0) <= 1e-12 * max(1.0, np.max(np.abs(y))), \
                "ConvTranspose: numpy and torch disagree"
        return y

    def _draw_shape(self, i, a, like):
        return tuple(self.np(i[0]).shape) if like else tuple(a["shape"])

    def op_RandomUniform(self, i, a, o, n, like=False):
        shape = self._draw_shape(i, a, like)
        lo, hi = float(a.get("low", 0.0)), float(a.get("high", 1.0))
        return np.array([lo + (hi - lo) * u for u, _ in philox_uniforms(int(a["seed"]), int(np.prod(shape)))]
                        ).reshape(shape)

    def op_RandomUniformLike(self, i, a, o, n):
        return self.op_RandomUniform(i, a, o, n, like=True)

    def op_RandomNormal(self, i, a, o, n, like=False):
        shape = self._draw_shape(i, a, like)
        mean, std = float(a.get("mean", 0.0)), float(a.get("scale", 1.0))
        return np.array([mean + std * (math.sqrt(-2.0 * math.log(max(u, 2.0 ** -53))) * math.cos(2.0 * math.pi * v))
                         for u, v in philox_uniforms(int(a["seed"]), int(np.prod(shape)))]).reshape(shape)

    def op_RandomNormalLike(self, i, a, o, n):
        return self.op_RandomNormal(i, a, o, n, like=True)

    def op_Bernoulli(self, i, a, o, n):
        p = self.np(i[0])
        u = np.array([u for u, _ in philox_uniforms(int(a["seed"]), p.size)]).reshape(p.shape)
        y = u < p
        # an f32 evaluation compares the draw rounded to binary32 (lt path): the data avoids the
        # difference
        assert np.array_equal(y, u.astype(np.float32) < p.astype(np.float32))
        dt = a.get("dtype", ONNXT[np.dtype(p.dtype)] if p.dtype.kind == "f" else TensorProto.FLOAT)
        return y if dt == TensorProto.BOOL else y.astype(np.float64)

    def op_DFT(self, i, a, o, n):
        x = self._nf(i[0])
        assert x.shape[-1] == 1 and a.get("onesided", 0) == 1 and a.get("inverse", 0) == 0
        ax = a.get("axis", 1) % x.ndim
        L = int(np.asarray(i[1]).reshape(-1)[0]) if len(i) > 1 and i[1] is not None else None
        X = np.fft.rfft(x[..., 0], n=L, axis=ax)
        return np.stack([X.real, X.imag], axis=-1)

    def op_Einsum(self, i, a, o, n):
        eq = a["equation"]
        eq = eq.decode() if isinstance(eq, bytes) else eq
        ops = [self._nf(v) for v in i]
        y = np.einsum(eq, *ops)
        t = torch.einsum(eq, *[torch.tensor(v) for v in ops]).numpy()
        assert np.max(np.abs(t - y), initial=0.0) <= 1e-12 * max(1.0, np.max(np.abs(y), initial=0.0))
        return np.asarray(y)

    # Resizing: ONNX's reference (onnx/reference/ops/op_resize.py: _interpolate_1d_with_x, nested
    # over the axes, inner axes first), its coordinates, ratios and coefficients computed in exact
    # rationals (Fraction), the sums in binary64 (Booleans and words moved as they are).
    @staticmethod
    def _resize_terms(nin, m, s, W, ctm, linear, near, excl, roi):
        """Per output position x of one axis, the terms [(index, weight)] (index None: the
        extrapolation value); s the scale, W = s n the output width, roi (start, end)."""
        half = Fraction(1, 2)
        terms = []
        for x in range(m):
            if ctm == "align_corners":
                xo = Fraction(0) if W == 1 else Fraction(x * (nin - 1)) / (W - 1)
            elif ctm == "asymmetric":
                xo = Fraction(x) / s
            elif ctm == "tf_crop_and_resize":
                b, e = roi
                xo = ((e - b) * (nin - 1) / 2 if W == 1 else x * (e - b) * (nin - 1) / (W - 1)) + b * (nin - 1)
                if xo < 0 or xo > nin - 1:
                    terms.append([(None, Fraction(1))])
                    continue
            elif ctm == "pytorch_half_pixel":
                xo = Fraction(-1, 2) if W == 1 else (x + half) / s - half
            elif ctm == "half_pixel":
                xo = (x + half) / s - half
            elif ctm == "half_pixel_symmetric":
                xo = Fraction(nin, 2) * (1 - Fraction(m) / W) + (x + half) / s - half
            elif ctm == "tf_half_pixel_for_nn":
                xo = (x + half) / s
            else:
                raise ValueError(ctm)
            integral = xo.denominator == 1
            r = Fraction(1) if integral else xo - math.floor(xo)
            # _get_neighbor: the 2 indexes nearest xo + 1 in the edge-padded [0, n + 2), ties low
            pad = sorted(sorted(range(nin + 2), key=lambda p: (abs(xo + 1 - p), p))[:2])
            q = [p - 1 for p in pad]
            if linear:
                c = [1 - r, r]
            elif integral:
                c = [0, 1]
            else:
                c = {"round_prefer_floor": [r <= half, r > half], "round_prefer_ceil": [r < half, r >= half],
                     "floor": [1, 0], "ceil": [0, 1]}[near]
            c = [Fraction(v) for v in c]
            if excl:
                c = [cv if 0 <= qv < nin else Fraction(0) for cv, qv in zip(c, q)]
                tot = sum(c)
                assert tot != 0, "exclude_outside leaves no weight"
                c = [cv / tot for cv in c]
            terms.append([(min(max(qv, 0), nin - 1), cv) for qv, cv in zip(q, c)])
        return terms

    def _resize(self, x, linear, ctm, near, excl, extrap, scales, sizes, roi, axes, policy):
        r = x.ndim
        axes = list(range(r)) if axes is None else [v % r for v in axes]
        s = [Fraction(1)] * r
        m = list(x.shape)
        W = [Fraction(v) for v in x.shape]
        rois = [(Fraction(0), Fraction(1))] * r
        if roi is not None:
            rv = [Fraction(float(v)) for v in np.asarray(roi).reshape(-1)]
            for k, ax in enumerate(axes):
                rois[ax] = (rv[k], rv[len(axes) + k])
        if scales is not None:
            for k, ax in enumerate(axes):
                s[ax] = Fraction(float(np.float32(scales[k])))
                W[ax] = s[ax] * x.shape[ax]
                m[ax] = math.floor(W[ax])
        else:
            for k, ax in enumerate(axes):
                s[ax] = Fraction(int(sizes[k]), x.shape[ax])
                m[ax], W[ax] = int(sizes[k]), Fraction(int(sizes[k]))
            if policy != "stretch":
                best = (min if policy == "not_larger" else max)(s[ax] for ax in axes)
                for ax in axes:
                    s[ax] = best
                    W[ax] = best * x.shape[ax]
                    m[ax] = math.floor(W[ax] + Fraction(1, 2))
        y = x
        for ax in reversed(range(r)):
            terms = self._resize_terms(x.shape[ax], m[ax], s[ax], W[ax], ctm, linear, near, excl, rois[ax])
            ym = np.moveaxis(y, ax, -1)
            out = np.empty(ym.shape[:-1] + (m[ax],), dtype=y.dtype if y.dtype.kind != "f" else np.float64)
            for o, ts in enumerate(terms):
                if ts[0][0] is None:
                    out[..., o] = extrap
                elif not linear:
                    out[..., o] = ym[..., [q for q, w in ts if w == 1][0]]
                else:
                    out[..., o] = sum(float(w) * ym[..., q] for q, w in ts)
            y = np.moveaxis(out, -1, ax)
        return y

    @staticmethod
    def _dec(v, default):
        v = default if v is None else v
        return v.decode() if isinstance(v, bytes) else v

    def _resize_torch(self, x, y, linear, ctm, near, scales, sizes):
        """Cross-checks Y with torch.nn.functional.interpolate where it has the mode: nearest
        (asymmetric, floor), nearest-exact (half_pixel, round_prefer_ceil), bilinear and its kin
        (half_pixel; align_corners), on the spatial axes of [N, C, ...] only."""
        if x.dtype.kind != "f" or not 3 <= x.ndim <= 5 or y.shape[:2] != x.shape[:2]:
            return
        tm = {3: "linear", 4: "bilinear", 5: "trilinear"}[x.ndim]
        if linear and ctm in ("half_pixel", "pytorch_half_pixel", "align_corners"):
            kw = dict(mode=tm, align_corners=ctm == "align_corners")
        elif not linear and ctm == "asymmetric" and near == "floor":
            kw = dict(mode="nearest")
        elif not linear and ctm == "half_pixel" and near == "round_prefer_ceil":
            kw = dict(mode="nearest-exact")
        else:
            return
        if ctm == "pytorch_half_pixel" and min(y.shape[2:]) == 1:
            return
        if scales is not None and not kw.get("align_corners", False):
            sc = [float(np.float32(v)) for v in np.asarray(scales).reshape(-1)[2:]]
            if any(math.floor(v * n) != o for v, n, o in zip(sc, x.shape[2:], y.shape[2:])):
                return
            t = F.interpolate(torch.tensor(x), scale_factor=sc, **kw).numpy()
        else:
            t = F.interpolate(torch.tensor(x), size=list(y.shape[2:]), **kw).numpy()
        assert t.shape == y.shape and np.max(np.abs(t - y), initial=0.0) <= 1e-12 * max(1.0, np.max(np.abs(y))), \
            "Resize: numpy and torch disagree"

    def op_Resize(self, i, a, o, n):
        x = self._nv(i[0])
        linear = self._dec(a.get("mode"), "nearest") == "linear"
        if o < 11:
            ctm, near, scales, sizes, roi = "asymmetric", "floor", np.asarray(i[1]).reshape(-1), None, None
        else:
            ctm = self._dec(a.get("coordinate_transformation_mode"), "half_pixel")
            near = self._dec(a.get("nearest_mode"), "round_prefer_floor")
            have = lambda k: len(i) > k and i[k] is not None and np.size(self.np(i[k])) > 0
            roi = self.np(i[1]) if have(1) and ctm == "tf_crop_and_resize" else None
            scales = self.np(i[2]).reshape(-1) if have(2) else None
            sizes = [int(v) for v in self.np(i[3]).reshape(-1)] if have(3) else None
        # antialias on an upsampling is the plain interpolation (_linear_coeffs_antialias with a
        # scale >= 1 gives [1 - r, r]); certnn refuses it below 1
        assert self._dec(a.get("mode"), "nearest") != "cubic"
        assert not a.get("antialias", 0) or scales is not None and all(float(v) >= 1 for v in scales)
        y = self._resize(x, linear, ctm, near, bool(a.get("exclude_outside", 0)),
                         float(a.get("extrapolation_value", 0.0)), scales, sizes, roi, a.get("axes"),
                         self._dec(a.get("keep_aspect_ratio_policy"), "stretch"))
        if a.get("axes") is None and not a.get("exclude_outside", 0):
            self._resize_torch(x, y, linear, ctm, near, scales, sizes)
        return y

    def op_Upsample(self, i, a, o, n):
        """Upsample 7 (the scales attribute) and 9 (the scales input): asymmetric, nearest as floor;
        integer nearest upsamplings cross-checked with np.repeat (ONNX's reference Upsample)."""
        x = self._nv(i[0])
        sc = list(a["scales"]) if o < 9 else [float(v) for v in np.asarray(i[1]).reshape(-1)]
        linear = self._dec(a.get("mode"), "nearest") == "linear"
        y = self._resize(x, linear, "asymmetric", "floor", False, 0.0, sc, None, None, None, "stretch")
        if not linear and all(float(v).is_integer() for v in sc):
            t = x
            for ax, v in enumerate(sc):
                t = np.repeat(t, int(v), axis=ax)
            assert np.array_equal(t, y), "Upsample: the interpolation and np.repeat disagree"
        self._resize_torch(x, y, linear, "asymmetric", "floor", np.asarray(sc), None)
        return y

    def op_ScatterND(self, i, a, o, n):
        """ONNX's reference: out = data; for each index position p in row-major order
        out[idx[p]] = f(out[idx[p]], updates[p])."""
        x, idx, u = self._nv(i[0]).copy(), np.asarray(i[1], dtype=np.int64), self._nv(i[2])
        red = self._dec(a.get("reduction"), "none")
        for p in np.ndindex(*idx.shape[:-1]):
            q = tuple(int(v) for v in idx[p])
            x[q] = {"none": lambda s, t: t, "add": lambda s, t: s + t, "mul": lambda s, t: s * t,
                    "max": np.maximum, "min": np.minimum}[red](x[q], u[p])
        return x

# ---- certnn's forward, operation by operation -----------------------------------------------
FOLDED = {"Add", "AveragePool", "BatchNormalization", "Conv", "Div", "Gemm", "GlobalAveragePool", "GlobalMaxPool",
          "MatMul", "MaxPool", "Mul", "Neg", "Pad", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
          "Relu", "Sub"}


def scale_exact(src, f):
    """The importer's scale_exact: (f * src in binary64, True) when every product is exact (always
    so for an f32 source), else (None, False).  f == 1 returns SRC itself, in its own sort."""
    if f == 1.0:
        return src, True
    d = src.astype(np.float64) * f
    if src.dtype == np.float32:
        return d, True
    for w, p in zip(src.reshape(-1), d.reshape(-1)):
        w, p = float(w), float(p)
        if (not np.isfinite(p) or Fraction(w) * Fraction(f) != Fraction(p)
                or (p != 0 and abs(p) < sys.float_info.min) or (p == 0 and w != 0 and f != 0)):
            return None, False
    return d, True


class Seq:
    """certnn's forward (cn_graph_eval) emulated exactly in numpy, in the sort T (np.float32 for
    the "f32seq" reference; np.float64 is used for the importer's constant folding).

    The graph is lowered as src/io/onnx/ lowers it: constants (initializers, Constant nodes,
    shape computations and their exact data movement) keep their sort; a node whose inputs are
    all constants is evaluated once in binary64 (the graph pass src/graph/fold.c) and becomes a
    constant where that value is exact, else stays a node; Gemm becomes
    linear(A', alpha B'^T, beta C) when B is constant, with alpha and beta folded into the
    constants only where the binary64 products are exact (else mul nodes), and matmul otherwise;
    Conv without a bias gets a zero bias.  Constants are rounded to T (round to nearest) where a
    node reads them, as cn_graph_eval does.

    Every arithmetic operation is one numpy operation on arrays of sort T: numpy's elementwise
    +, -, *, / and sqrt are correctly rounded IEEE operations and never contract a product and a
    sum, so each value is rounded exactly as the C forward rounds it.  The kernels are
    vectorised over the outputs and sequential over the summation index, in the order that the
    forward arms of src/ops/*.c document:
      linear  y[r,o] = fl(fl(...fl(fl(0 + fl(x[r,0] W[o,0])) + fl(x[r,1] W[o,1])) ...) + b[o])
      matmul  Y[t,i,j] = fl(...fl(fl(0 + fl(A[t,i,0] B[t,0,j])) + fl(A[t,i,1] B[t,1,j])) ...)
      conv    acc = 0, then acc = fl(acc + fl(x W)) for c = 0..C/G-1 (outer), kernel offsets in C
              order (inner), in-bounds terms only; y = fl(acc + b[f])
      pool    average: acc = 0, acc = fl(acc + x) over the in-bounds window in C order, y = fl(acc / D);
              max: the first in-bounds entry, then replaced by each later entry greater than it
      reduce  sum: acc = 0, acc = fl(acc + x) over the group in C order (mean: then fl(acc / N));
              prod from 1; max/min from -inf/+inf, replaced by greater/smaller entries
      batchnorm  y = fl(fl(fl(scale fl(x - mean)) / fl(sqrt(fl(var + eps)))) + bias)
      add, sub, mul, div  fl(x op y); neg, relu, data movement exact."""

    def __init__(self, dtype):
        self.T = np.dtype(dtype)
        self.h = Eval("f64")          # the exact data movement and shape helpers

    # values are (array, is_const); constants keep their host sort, other values are of sort T
    def val(self, v):
        """The value V as the evaluation sees it: a floating constant rounded to T."""
        a, c = v
        if a.dtype.kind == "f":
            return a.astype(self.T) if c else a
        return a

    def t(self, x):
        return self.T.type(x)

    def run(self, model, inputs):
        g = model.graph
        env = {}
        for t in g.initializer:
            a = numpy_helper.to_array(t)
            env[t.name] = (a if a.dtype.kind == "f" else a.astype(np.int64), True)
        k = 0
        for vi in g.input:
            if vi.name in env:
                continue
            a = np.asarray(inputs[k])
            env[vi.name] = (a.astype(self.T) if a.dtype.kind == "f" else a.astype(np.int64), False)
            k += 1
        opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")][0]
        with np.errstate(all="ignore"):
            for node in g.node:
                ins = [env[n] if n else None for n in node.input]
                attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
                present = [v for v in ins if v is not None]
                if (node.op_type in FOLDED and present and all(c for _, c in present)
                        and all(a.dtype.kind == "f" for a, _ in present)):
                    outs = self.fold(node.op_type, ins, attrs, opset)
                else:
                    outs = getattr(self, "op_" + node.op_type)(ins, attrs, opset)
                if not isinstance(outs, list):
                    outs = [outs]
                for name, v in zip(node.output, outs):
                    if name:
                        env[name] = v
        return [self.val(env[o.name]).astype(np.float64) for o in g.output]

    def fold(self, op, ins, attrs, opset):
        """The importer's fold_node: the node alone, evaluated in binary64; the results are f32
        constants when every input was f32 and every entry is exactly an f32 number."""
        outs = getattr(Seq(np.float64), "op_" + op)(ins, attrs, opset)
        if not isinstance(outs, list):
            outs = [outs]
        all32 = all(v[0].dtype == np.float32 for v in ins if v is not None)
        res = []
        for a, c in outs:
            a = np.asarray(a)
            if a.dtype.kind == "f":
                a = a.astype(np.float64)
                if all32 and np.array_equal(a.astype(np.float32).astype(np.float64), a):
                    a = a.astype(np.float32)
            res.append((a, True))
        return res

    def node(self, a):
        return (np.asarray(a, dtype=self.T), False)

    # elementwise
    def op_Identity(self, i, a, o):
        return i[0]

    def op_Dropout(self, i, a, o):
        return [i[0], (np.ones(i[0][0].shape, dtype=np.int64), True)]

    def op_Relu(self, i, a, o):
        x = self.val(i[0])
        return self.node(np.where(x > 0, x, np.where(np.isnan(x), x, self.t(0))))

    def op_Neg(self, i, a, o):
        return self.node(-self.val(i[0]))

    # activations (src/ops/activation.c) and transcendental functions (src/ops/transcendental.c):
    # libm's function of the sort (expf for binary32, exp for binary64) and numpy's correctly
    # rounded operations of sort T, in the order the forward arms document
    def _lib(self, name, x):
        return libm_map(name, x, self.T.type)

    def sigmoid(self, x):
        one = self.t(1)
        pos = one / (one + self._lib("exp", -x))
        e = self._lib("exp", x)
        neg = e / (one + e)
        return np.where(x >= 0, pos, neg)

    def op_Sigmoid(self, i, a, o):
        return self.node(self.sigmoid(self.val(i[0])))

    def op_Tanh(self, i, a, o):
        return self.node(self._lib("tanh", self.val(i[0])))

    def op_Softplus(self, i, a, o):
        x = self.val(i[0])
        pos = x + self._lib("log1p", self._lib("exp", -x))
        neg = self._lib("log1p", self._lib("exp", x))
        return self.node(np.where(x > 0, pos, neg))

    def elu(self, x, alpha):
        return np.where(x > 0, x, self.t(alpha) * self._lib("expm1", x))

    def op_Elu(self, i, a, o):
        return self.node(self.elu(self.val(i[0]), float(a.get("alpha", 1.0))))

    def op_Selu(self, i, a, o):
        al = float(a.get("alpha", float(np.float32(1.67326319217681884765625))))
        ga = float(a.get("gamma", float(np.float32(1.05070102214813232421875))))
        return self.node(self.elu(self.val(i[0]), al) * self.t(ga))

    def op_LeakyRelu(self, i, a, o):
        x = self.val(i[0])
        al = self.t(float(a.get("alpha", float(np.float32(0.01)))))
        return self.node(np.where(x > 0, x, al * x))

    def op_Exp(self, i, a, o):
        return self.node(self._lib("exp", self.val(i[0])))

    def op_Log(self, i, a, o):
        return self.node(self._lib("log", self.val(i[0])))

    def op_Sin(self, i, a, o):
        return self.node(self._lib("sin", self.val(i[0])))

    def op_Cos(self, i, a, o):
        return self.node(self._lib("cos", self.val(i[0])))

    def op_Tan(self, i, a, o):
        return self.node(self._lib("tan", self.val(i[0])))

    def op_Asin(self, i, a, o):
        return self.node(self._lib("asin", self.val(i[0])))

    def op_Acos(self, i, a, o):
        return self.node(self._lib("acos", self.val(i[0])))

    def op_Atan(self, i, a, o):
        return self.node(self._lib("atan", self.val(i[0])))

    def op_Sinh(self, i, a, o):
        return self.node(self._lib("sinh", self.val(i[0])))

    def op_Cosh(self, i, a, o):
        return self.node(self._lib("cosh", self.val(i[0])))

    def op_Asinh(self, i, a, o):
        return self.node(self._lib("asinh", self.val(i[0])))

    def op_Acosh(self, i, a, o):
        return self.node(self._lib("acosh", self.val(i[0])))

    def op_Atanh(self, i, a, o):
        return self.node(self._lib("atanh", self.val(i[0])))

    def op_Erf(self, i, a, o):
        return self.node(self._lib("erf", self.val(i[0])))

    def _bin(self, i, fn, name):
        (x, xc), (y, yc) = i
        if xc and yc and (x.dtype.kind != "f" or y.dtype.kind != "f"):
            return (getattr(self.h, "op_" + name)([x, y], {}, 0, None), True)   # integer shape arithmetic
        sh = np.broadcast_shapes(x.shape, y.shape)
        xv = np.broadcast_to(self.val(i[0]), sh)
        yv = np.broadcast_to(self.val(i[1]), sh)
        return self.node(fn(xv, yv))

    def op_Add(self, i, a, o):
        return self._bin(i, np.add, "Add")

    def op_Sub(self, i, a, o):
        return self._bin(i, np.subtract, "Sub")

    def op_Mul(self, i, a, o):
        return self._bin(i, np.multiply, "Mul")

    def op_Div(self, i, a, o):
        return self._bin(i, np.true_divide, "Div")

    # products
    def linear(self, x, w, b):
        """x [..., n_in], w [n_out, n_in], b [n_out], all of sort T."""
        lead, ni, no = x.shape[:-1], x.shape[-1], w.shape[0]
        xr = x.reshape(-1, ni)
        acc = np.zeros((xr.shape[0], no), dtype=self.T)
        for j in range(ni):
            acc = acc + xr[:, j:j + 1] * w[None, :, j]
        return (acc + b[None, :]).reshape(lead + (no,))

    def matmul(self, A, B):
        a = A[None, :] if A.ndim == 1 else A
        b = B[:, None] if B.ndim == 1 else B
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        acc = np.zeros(batch + (a.shape[-2], b.shape[-1]), dtype=self.T)
        for kk in range(a.shape[-1]):
            acc = acc + a[..., :, kk:kk + 1] * b[..., kk:kk + 1, :]
        if A.ndim == 1:
            acc = acc[..., 0, :]
        if B.ndim == 1:
            acc = acc[..., 0]
        return acc

    def op_MatMul(self, i, a, o):
        return self.node(self.matmul(self.val(i[0]), self.val(i[1])))

    def op_Gemm(self, i, a, o):
        """op_gemm of the importer, branch by branch."""
        (A, Ac), (B, Bc) = i[0], i[1]
        C = i[2] if len(i) > 2 else None
        ta, tb = a.get("transA", 0), a.get("transB", 0)
        alpha, beta = float(np.float32(a.get("alpha", 1.0))), float(np.float32(a.get("beta", 1.0)))
        m, n = (A.shape[1] if ta else A.shape[0]), (B.shape[0] if tb else B.shape[1])
        av = self.val((A.T if ta else A, Ac))
        alpha_done = c_done = False
        if Bc and B.dtype.kind == "f":
            wt = B if tb else B.T
            ws, alpha_done = scale_exact(wt, alpha)
            if not alpha_done:
                ws = wt
            bias = None
            if C is not None and C[1] and C[0].dtype.kind == "f" and alpha_done and (C[0].ndim < 2 or C[0].shape[0] == 1):
                cs, exact = scale_exact(np.broadcast_to(C[0], (1, n)), beta)
                if exact:
                    bias, c_done = cs.reshape(n), True
            if bias is None:
                bias = np.zeros(n, dtype=ws.dtype)
            y = self.linear(av, ws.astype(self.T), bias.astype(self.T))
        else:
            y = self.matmul(av, self.val((B.T if tb else B, Bc)))
        if not alpha_done and alpha != 1.0:
            y = y * self.t(alpha)
        if C is not None and not c_done:
            if C[1] and C[0].dtype.kind == "f":
                cb = np.broadcast_to(C[0], (m, n))
                cs, exact = scale_exact(cb, beta)
                c = (cs if exact else cb).astype(self.T)
                if not exact:
                    c = c * self.t(beta)
            else:
                c = np.broadcast_to(self.val(C), (m, n))
                if beta != 1.0:
                    c = c * self.t(beta)
            y = y + c
        return self.node(y)

    # convolution and pooling
    def _windows(self, x, a, K):
        """Yields, per kernel offset in C order, the slices of the padded input and the in-bounds
        mask of the output positions."""
        nd = len(K)
        strides, dil, pads = self.h._geometry(x, a, K)
        pw = [(0, 0), (0, 0)] + [(pads[d], pads[nd + d]) for d in range(nd)]
        xp = np.pad(x, pw)
        inb = np.pad(np.ones(x.shape[2:], dtype=bool), pw[2:])
        osp = [(xp.shape[2 + d] - dil[d] * (K[d] - 1) - 1) // strides[d] + 1 for d in range(nd)]
        wins = []
        for kidx in np.ndindex(*K):
            sl = tuple(slice(kidx[d] * dil[d], kidx[d] * dil[d] + strides[d] * (osp[d] - 1) + 1, strides[d])
                       for d in range(nd))
            wins.append((kidx, sl, inb[sl]))
        return xp, osp, wins

    def op_Conv(self, i, a, o):
        x, w = self.val(i[0]), self.val(i[1])
        b = self.val(i[2]) if len(i) > 2 and i[2] is not None else np.zeros(w.shape[0], dtype=self.T)
        K = list(w.shape[2:])
        nd = len(K)
        group = a.get("group", 1)
        xp, osp, wins = self._windows(x, a, K)
        N, F, Cg = x.shape[0], w.shape[0], w.shape[1]
        Fg = F // group
        y = np.empty([N, F] + osp, dtype=self.T)
        for g in range(group):
            acc = np.zeros([N, Fg] + osp, dtype=self.T)
            for c in range(Cg):
                for kidx, sl, inb in wins:
                    patch = xp[(slice(None), slice(g * Cg + c, g * Cg + c + 1)) + sl]      # N x 1 x O
                    wk = w[(slice(g * Fg, (g + 1) * Fg), c) + kidx].reshape([1, Fg] + [1] * nd)
                    acc = np.where(inb, acc + patch * wk, acc)
            y[:, g * Fg:(g + 1) * Fg] = acc + b[g * Fg:(g + 1) * Fg].reshape([1, Fg] + [1] * nd)
        return self.node(y)

    def _pool(self, x, a, kind):
        K = list(a["kernel_shape"])
        xp, osp, wins = self._windows(x, a, K)
        acc = np.zeros(list(x.shape[:2]) + osp, dtype=self.T)
        seen = np.zeros(osp, dtype=bool)
        cnt = np.zeros(osp, dtype=np.int64)
        for kidx, sl, inb in wins:
            v = xp[(slice(None), slice(None)) + sl]
            if kind == "max":
                take = (~seen | (v > acc) | np.isnan(v)) & ~np.isnan(acc)
                acc = np.where(inb & take, v, acc)
            else:
                acc = np.where(inb, acc + v, acc)
            seen |= inb
            cnt += inb
        if kind == "max":
            return self.node(acc)
        div = np.full(osp, int(np.prod(K))) if a.get("count_include_pad", 0) else cnt
        return self.node(acc / div.astype(self.T))

    def op_MaxPool(self, i, a, o):
        return self._pool(self.val(i[0]), a, "max")

    def op_AveragePool(self, i, a, o):
        return self._pool(self.val(i[0]), a, "avg")

    # reductions
    def reduce(self, x, axes, keep, kind, mean=False):
        r = x.ndim
        kept = [d for d in range(r) if d not in axes]
        xt = np.transpose(x, kept + list(axes)).reshape(int(np.prod([x.shape[d] for d in kept])), -1)
        init = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
        acc = np.full(xt.shape[0], init, dtype=self.T)
        for j in range(xt.shape[1]):
            b = xt[:, j]
            if kind == "sum":
                acc = acc + b
            elif kind == "prod":
                acc = acc * b
            elif kind == "max":
                acc = np.where((b > acc) | np.isnan(b), b, acc)
            else:
                acc = np.where((b < acc) | np.isnan(b), b, acc)
        if mean:
            acc = acc / self.t(xt.shape[1])
        shape = [1 if d in axes else x.shape[d] for d in range(r)] if keep else [x.shape[d] for d in kept]
        return self.node(acc.reshape(shape))

    def _reduce(self, i, a, o, kind, mean, from_input):
        x = self.val(i[0])
        ax = self.h._axes([v[0] if v is not None else None for v in i], a, x.ndim, from_input)
        if not ax:
            if a.get("noop_with_empty_axes", 0):
                return i[0]
            ax = tuple(range(x.ndim))
        return self.reduce(x, ax, bool(a.get("keepdims", 1)), kind, mean)

    def op_ReduceSum(self, i, a, o):
        return self._reduce(i, a, o, "sum", False, o >= 13)

    def op_ReduceMean(self, i, a, o):
        return self._reduce(i, a, o, "sum", True, False)

    def op_ReduceMax(self, i, a, o):
        return self._reduce(i, a, o, "max", False, False)

    def op_ReduceMin(self, i, a, o):
        return self._reduce(i, a, o, "min", False, False)

    def op_ReduceProd(self, i, a, o):
        return self._reduce(i, a, o, "prod", False, False)

    def op_GlobalAveragePool(self, i, a, o):
        x = self.val(i[0])
        return self.reduce(x, tuple(range(2, x.ndim)), True, "sum", True)

    def op_GlobalMaxPool(self, i, a, o):
        x = self.val(i[0])
        return self.reduce(x, tuple(range(2, x.ndim)), True, "max")

    def op_BatchNormalization(self, i, a, o):
        x, s, b, m, v = [self.val(t) for t in i[:5]]
        e = self.t(float(np.float32(a.get("epsilon", 1e-5))))
        sh = [1, -1] + [1] * (x.ndim - 2)
        q = np.sqrt(v + e)
        assert np.all(v + e > 0)
        return self.node((s.reshape(sh) * (x - m.reshape(sh))) / q.reshape(sh) + b.reshape(sh))

    # data movement: exact; constants stay constants of their sort
    def _move(self, name, i, a, o):
        res = getattr(self.h, "op_" + name)([v[0] if v is not None else None for v in i], a, o, None)
        if i[0][1]:
            return (np.asarray(res), True)
        return (np.asarray(res), False)

    def op_Flatten(self, i, a, o):
        return self._move("Flatten", i, a, o)

    def op_Reshape(self, i, a, o):
        return self._move("Reshape", i, a, o)

    def op_Transpose(self, i, a, o):
        return self._move("Transpose", i, a, o)

    def op_Squeeze(self, i, a, o):
        return self._move("Squeeze", i, a, o)

    def op_Unsqueeze(self, i, a, o):
        return self._move("Unsqueeze", i, a, o)

    def op_Slice(self, i, a, o):
        return self._move("Slice", i, a, o)

    def op_Gather(self, i, a, o):
        return self._move("Gather", i, a, o)

    def op_Shape(self, i, a, o):
        return (np.array(i[0][0].shape, dtype=np.int64), True)

    def op_Pad(self, i, a, o):
        x = i[0]
        if len(i) > 1 and i[1] is not None:
            pads = [int(p) for p in i[1][0]]
            val = float(i[2][0].reshape(-1)[0]) if len(i) > 2 and i[2] is not None else 0.0
        else:
            pads, val = list(a["pads"]), float(np.float32(a.get("value", 0.0)))
        r = x[0].ndim
        if not any(pads):
            return x
        return self.node(np.pad(self.val(x), [(pads[d], pads[r + d]) for d in range(r)],
                                constant_values=self.t(val)))

    def op_Concat(self, i, a, o):
        xs = [v for v in i if v is not None]
        if all(c for _, c in xs):
            if all(x.dtype.kind != "f" for x, _ in xs):
                return (np.concatenate([x for x, _ in xs], axis=a["axis"]), True)
            return (np.concatenate([x.astype(np.float64) for x, _ in xs], axis=a["axis"]), True)
        return self.node(np.concatenate([self.val(v) for v in xs], axis=a["axis"]))

    def op_Cast(self, i, a, o):
        x, c = i[0]
        if not c:
            return i[0]
        if a["to"] == TensorProto.FLOAT:
            return (x.astype(np.float32), True)
        if a["to"] == TensorProto.DOUBLE:
            return (x.astype(np.float64), True)
        return (self.h.op_Cast([x], a, o, None), True)

    def op_Constant(self, i, a, o):
        if "value" in a:
            v = numpy_helper.to_array(a["value"])
        elif "value_float" in a:
            v = np.array(a["value_float"], dtype=np.float32)
        elif "value_floats" in a:
            v = np.array(a["value_floats"], dtype=np.float32)
        elif "value_int" in a:
            v = np.array(a["value_int"], dtype=np.int64)
        else:
            v = np.array(a["value_ints"], dtype=np.int64)
        return (v if v.dtype.kind == "f" else v.astype(np.int64), True)

    def op_ConstantOfShape(self, i, a, o):
        v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
        arr = np.full([int(s) for s in i[0][0]], v.reshape(-1)[0], dtype=v.dtype)
        return (arr if arr.dtype.kind == "f" else arr.astype(np.int64), True)


def magnitudes(model, inputs):
    """The magnitude of the computation along its active paths, for the operators of the
    benchmark networks: every value v carries m >= |v| with m = |x| for inputs and |c| for
    constants, sums of the magnitudes through Add, Sub, MatMul, Gemm and Conv (with |weights|),
    and ReLU keeping m where its input is positive, else 0.  A binary32 evaluation in any
    summation order is within a small multiple of n u m of the exact value (ReLU switching
    aside)."""
    ev = Eval("f64")
    g = model.graph
    val, mag = {}, {}
    for t in g.initializer:
        val[t.name] = numpy_helper.to_array(t).astype(np.float64)
        mag[t.name] = np.abs(val[t.name])
    k = 0
    for vi in g.input:
        if vi.name not in val:
            val[vi.name] = inputs[k].astype(np.float64)
            mag[vi.name] = np.abs(val[vi.name])
            k += 1
    for node in g.node:
        i = [val[x] for x in node.input]
        m = [mag[x] for x in node.input]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        out = getattr(ev, "op_" + node.op_type)(i, attrs, 0, node)
        op = node.op_type
        if op in ("Add", "Sub"):
            mo = m[0] + m[1]
        elif op in ("Flatten", "Reshape"):
            mo = m[0].reshape(out.shape)
        elif op == "Relu":
            mo = np.where(i[0] > 0, m[0], 0.0)
        elif op in ("MatMul", "Gemm", "Conv"):
            aattrs = dict(attrs)
            for key in ("alpha", "beta"):
                if key in aattrs:
                    aattrs[key] = abs(aattrs[key])
            mo = getattr(ev, "op_" + op)(m, aattrs, 0, node)
        else:
            raise ValueError("magnitudes: operator %s" % op)
        val[node.output[0]], mag[node.output[0]] = out, mo
    return [mag[o.name] for o in g.output]


def evaluate(model, inputs):
    """(numpy float64, PyTorch float32, certnn's binary32 order) outputs, cross-checked: both
    binary32 evaluations agree with binary64 to 1e-4 of the output's scale, and the emulation of
    certnn's order run in binary64 (which checks its lowering of the graph) to 1e-9."""
    y64 = Eval("f64").run(model, inputs)
    y32 = Eval("f32").run(model, inputs)
    s32 = Seq(np.float32).run(model, inputs)
    s64 = Seq(np.float64).run(model, inputs)
    for a, b, c, d in zip(y64, y32, s32, s64):
        assert a.shape == b.shape == c.shape == d.shape, "output shapes %s %s %s %s" % (a.shape, b.shape, c.shape,
                                                                                      d.shape)
        scale = max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
        for what, y, tol in (("PyTorch float32", b, 1e-4), ("f32seq", c, 1e-4), ("f64seq", d, 1e-9)):
            err = float(np.max(np.abs(a - y))) if a.size else 0.0
            assert err <= tol * scale, "float64 and %s references disagree by %g" % (what, err)
    return y64, y32, s32


# ---- writing --------------------------------------------------------------------------------
def fmt(v):
    return " ".join(repr(float(x)) for x in np.asarray(v, dtype=np.float64).reshape(-1))


def write_ref(path, title, specs_cases, model, with_mag=False, ref="full"):
    """specs_cases: list of cases, each a list of input specs ('vals', array) or
    ('gen32'|'gen64', n, seed, lo, hi).  REF (see model): "full" writes the three references;
    "exact" the numpy float64 values as all three (every operation of the model is exact in
    binary32 on binary32 data, so binary32 evaluations in any order must give them bit for bit);
    "f64" the numpy float64 values only (no out32 and f32seq lines: check_onnx.c then compares
    the binary32 forward with them within a relative 1e-4)."""
    if ref == "full":
        lines = ["# " + title, "# written by tools/gen_onnx_tests.py: numpy float64 (out64), PyTorch float32 (out32), "
                 "certnn's binary32 order emulated in numpy float32 (f32seq)"]
    elif ref == "exact":
        lines = ["# " + title, "# written by tools/gen_onnx_tests.py: numpy float64 (out64); every operation is exact "
                 "in binary32, so out32 and f32seq are the same values"]
    else:
        lines = ["# " + title, "# written by tools/gen_onnx_tests.py: numpy float64 (out64) only"]
    n_in = len(specs_cases[0])
    lines.append("inputs %d" % n_in)
    lines.append("outputs %d" % len(model.graph.output))
    for specs in specs_cases:
        arrays = []
        lines.append("case")
        for sp in specs:
            if sp[0] == "vals":
                arr = np.asarray(sp[1])
                lines.append("in vals %d %s" % (arr.size, fmt(arr)))
            else:
                kind, cnt, seed, lo, hi = sp
                arr = gen_values(cnt, seed, lo, hi, kind == "gen32")
                arr = arr.astype(np.float32) if kind == "gen32" else arr
                lines.append("in %s %d %d %r %r" % (kind, cnt, seed, float(lo), float(hi)))
            arrays.append(arr)
        ins = []
        real_inputs = [vi for vi in model.graph.input if vi.name not in {t.name for t in model.graph.initializer}]
        for vi, arr in zip(real_inputs, arrays):
            dims = [d.dim_value if d.dim_value > 0 else 1 for d in vi.type.tensor_type.shape.dim]
            dt = NPT[vi.type.tensor_type.elem_type]
            ins.append(np.asarray(arr, dtype=dt).reshape(dims))
        if ref == "full":
            y64, y32, s32 = evaluate(model, ins)
        else:
            y64 = Eval("f64").run(model, ins)
            y32 = s32 = y64 if ref == "exact" else []
            for y in y32:
                assert np.array_equal(y.astype(np.float32).astype(np.float64), y, equal_nan=True), \
                    "%s: an exact model's output is not a binary32 number" % title
        for y in y64:
            lines.append("out64 %d %s" % (y.size, fmt(y)))
        for y in y32:
            lines.append("out32 %d %s" % (y.size, fmt(y)))
        for y in s32:
            lines.append("f32seq %d %s" % (y.size, fmt(y)))
        if with_mag:
            for y in magnitudes(model, ins):
                lines.append("mag %d %s" % (y.size, fmt(y)))
        lines.append("end")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- the benchmark networks -------------------------------------------------------------------
def benchmark_refs(bdir):
    os.makedirs(os.path.join(OUT, "ref"), exist_ok=True)
    nets = []
    for bench, ncase, lo, hi in (("acasxu", 2, -0.5, 0.5), ("mnist_fc", 2, 0.0, 1.0), ("oval21", 2, -2.0, 2.0),
                                 ("test", 3, -1.0, 1.0)):
        d = os.path.join(bdir, bench, "onnx")
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".onnx"):
                nets.append((bench, fn[:-5], ncase, lo, hi))
    for k, (bench, net, ncase, lo, hi) in enumerate(nets):
        model = onnx.load(os.path.join(bdir, bench, "onnx", net + ".onnx"))
        inits = {t.name for t in model.graph.initializer}
        vi = [v for v in model.graph.input if v.name not in inits][0]
        n = int(np.prod([d.dim_value if d.dim_value > 0 else 1 for d in vi.type.tensor_type.shape.dim]))
        # Inputs that leave the output a constant bias (every ReLU of a layer off) say little
        # about the weights: draw until the output differs from the last node's constant operand.
        last = model.graph.node[-1]
        inits_arr = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        bias = [inits_arr[v] for v in last.input if v in inits_arr] if last.op_type == "Add" else []
        cases, seed = [], 1000 * k + 1
        while len(cases) < ncase:
            sp = ("gen32", n, seed, lo, hi)
            seed += 1
            if bias:
                x = gen_values(n, sp[2], lo, hi, True).astype(np.float32)
                dims = [d.dim_value if d.dim_value > 0 else 1 for d in vi.type.tensor_type.shape.dim]
                y = Eval("f64").run(model, [x.reshape(dims)])[0]
                if np.array_equal(y.reshape(-1), np.broadcast_to(bias[0], y.shape).reshape(-1)):
                    continue
            cases.append([sp])
        write_ref(os.path.join(OUT, "ref", "%s__%s.txt" % (bench, net)), "%s/onnx/%s.onnx" % (bench, net), cases, model,
                  with_mag=True)
    with open(os.path.join(OUT, "ref", "LIST"), "w") as f:
        for bench, net, _, _, _ in nets:
            f.write("%s %s\n" % (bench, net))
    print("benchmarks: %d networks" % len(nets))


# ---- small models --------------------------------------------------------------------------------
RNG = np.random.default_rng(20240611)
ACT_RNG = np.random.default_rng(20261129)   # the activation models' own draws: RNG's sequence stays as before


def W(*shape, lo=-1.0, hi=1.0, dtype=np.float32):
    """Weights rounded to a few bits so that products stay well within binary32."""
    return (np.round(RNG.uniform(lo, hi, size=shape) * 64) / 64).astype(dtype)


def init(name, arr, raw=True):
    arr = np.asarray(arr)
    if raw:
        return numpy_helper.from_array(arr, name)
    dt = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
          np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32}[arr.dtype]
    return helper.make_tensor(name, dt, list(arr.shape), arr.reshape(-1).tolist(), raw=False)


def vinfo(name, shape, dt=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dt, shape)


MODELS = []


REFKIND = {}
VALS = {}


def model(name, opset, nodes, inputs, outputs, inits=(), ranges=None, check=True, ref="full", vals=None):
    """inputs: (name, shape[, elem type]); outputs: (name, shape or None[, elem type]);
    ranges: per input (lo, hi), default (-1, 1); ref: the references written (see write_ref).  An
    output shape None is filled in from a binary64 evaluation on inputs of ones.  VALS: per case
    c (0, 1), VALS(c) is a list of explicit input arrays (None entries: generated).  Integer and
    Boolean inputs are drawn as integers in [lo, hi] (write_models)."""
    if any(o[1] is None for o in outputs):
        g = helper.make_graph(nodes, name, [vinfo(i[0], i[1], i[2] if len(i) > 2 else TensorProto.FLOAT) for i in inputs],
                              [vinfo(o[0], []) for o in outputs], list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        ys = Eval("f64").run(m, [np.ones([s if isinstance(s, int) else 1 for s in i[1]],
                                         dtype=NPT[i[2]] if len(i) > 2 else np.float64) for i in inputs])
        outputs = [(o[0], list(y.shape) if o[1] is None else o[1]) + tuple(o[2:]) for o, y in zip(outputs, ys)]
    ins = [vinfo(i[0], i[1], i[2] if len(i) > 2 else TensorProto.FLOAT) for i in inputs]
    outs = [vinfo(o[0], o[1], o[2] if len(o) > 2 else TensorProto.FLOAT) for o in outputs]
    g = helper.make_graph(nodes, name, ins, outs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_onnx_tests")
    m.ir_version = 7 if opset < 15 else 8
    if check:
        onnx.checker.check_model(m)
    MODELS.append((name, m, inputs, ranges or [(-1.0, 1.0)] * len(inputs)))
    REFKIND[name] = ref
    VALS[name] = vals


N = helper.make_node


def define_models():
    # elementwise, broadcasting (constants expanded, inputs through broadcast nodes)
    model("o8_relu_neg", 8, [N("Neg", ["x"], ["n"], name="neg"), N("Relu", ["n"], ["y"], name="relu")],
          [("x", [2, 3])], [("y", [2, 3])])
    model("o8_binary_const", 8,
          [N("Add", ["x", "c3"], ["a"]), N("Sub", ["c21", "a"], ["b"]), N("Mul", ["b", "half"], ["m"]),
           N("Div", ["m", "c13"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])],
          [init("c3", W(3)), init("c21", W(2, 1)), init("half", np.array(0.5, np.float32)),
           init("c13", np.array([[2.0, -4.0, 0.25]], np.float32), raw=False)])
    model("o13_binary_bcast", 13,
          [N("Add", ["x", "y"], ["a"]), N("Mul", ["a", "z"], ["b"]), N("Sub", ["y", "b"], ["c"]),
           N("Div", ["c", "y"], ["out"])],
          [("x", [2, 3]), ("y", [3]), ("z", [2, 1])], [("out", [2, 3])], ranges=[(-1, 1), (1, 2), (-1, 1)])
    # matmul: weight on the right, on the left with a 1-D input, batched, two inputs
    model("o8_matmul_right", 8, [N("MatMul", ["x", "w"], ["m"]), N("Add", ["m", "b"], ["y"])],
          [("x", [1, 4])], [("y", [1, 3])], [init("w", W(4, 3)), init("b", W(3))])
    model("o13_matmul_left1d", 13, [N("MatMul", ["w", "x"], ["m"]), N("Relu", ["m"], ["y"])],
          [("x", [4])], [("y", [3])], [init("w", W(3, 4), raw=False)])
    model("o11_matmul_batched", 11, [N("MatMul", ["x", "w"], ["y"])],
          [("x", [2, 2, 4])], [("y", [2, 2, 3])], [init("w", W(4, 3))])
    model("o11_matmul_inputs", 11, [N("MatMul", ["x", "y"], ["z"])],
          [("x", [2, 3]), ("y", [3, 2])], [("z", [2, 2])])
    # gemm
    model("o9_gemm_transB", 9, [N("Gemm", ["x", "w", "b"], ["y"], transB=1, alpha=1.0, beta=1.0)],
          [("x", [1, 6])], [("y", [1, 4])], [init("w", W(4, 6)), init("b", W(4))])
    model("o11_gemm_alpha_beta", 11, [N("Gemm", ["x", "w", "c"], ["y"], alpha=0.5, beta=2.0)],
          [("x", [2, 5])], [("y", [2, 3])], [init("w", W(5, 3)), init("c", W(1, 3))])
    model("o11_gemm_alpha_odd", 11, [N("Gemm", ["x", "w", "c"], ["y"], alpha=0.3, beta=0.7, transB=1)],
          [("x", [2, 5])], [("y", [2, 3])], [init("w", W(3, 5)), init("c", W(2, 3))])
    model("o13_gemm_transA_const", 13, [N("Gemm", ["a", "x", "c"], ["y"], transA=1)],
          [("x", [4, 3])], [("y", [2, 3])], [init("a", W(4, 2)), init("c", W(3))])
    model("o13_gemm_transA_input", 13, [N("Gemm", ["x", "w"], ["y"], transA=1)],
          [("x", [5, 2])], [("y", [2, 3])], [init("w", W(5, 3))])
    model("o17_gemm_f64", 17, [N("Gemm", ["x", "w", "c"], ["y"], alpha=0.1)],
          [("x", [2, 3], TensorProto.DOUBLE)], [("y", [2, 2], TensorProto.DOUBLE)],
          [init("w", W(3, 2, dtype=np.float64) + 1.0 / 3.0, raw=False), init("c", W(2, dtype=np.float64))])
    model("o11_gemm_c_input", 11, [N("Gemm", ["x", "w", "c"], ["y"], beta=0.5, transB=1)],
          [("x", [2, 3]), ("c", [2, 4])], [("y", [2, 4])], [init("w", W(4, 3))])
    # convolution
    model("o11_conv_basic", 11,
          [N("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 2, 1], strides=[2, 1], dilations=[1, 2], kernel_shape=[3, 3])],
          [("x", [1, 2, 6, 6])], [("y", [1, 4, 4, 3])], [init("w", W(4, 2, 3, 3)), init("b", W(4))])
    model("o11_conv_group_nobias", 11, [N("Conv", ["x", "w"], ["y"], group=2, pads=[1, 1, 1, 1])],
          [("x", [1, 4, 5, 5])], [("y", [1, 4, 5, 5])], [init("w", W(4, 2, 3, 3))])
    model("o11_conv_same_upper", 11, [N("Conv", ["x", "w", "b"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
          [("x", [1, 1, 7, 7])], [("y", [1, 2, 4, 4])], [init("w", W(2, 1, 4, 4)), init("b", W(2))])
    model("o11_conv_same_lower", 11, [N("Conv", ["x", "w"], ["y"], auto_pad="SAME_LOWER")],
          [("x", [1, 1, 5, 5])], [("y", [1, 1, 5, 5])], [init("w", W(1, 1, 2, 2))])
    model("o8_conv_valid", 8, [N("Conv", ["x", "w", "b"], ["y"], auto_pad="VALID", strides=[1, 2])],
          [("x", [1, 3, 5, 6])], [("y", [1, 2, 3, 2])], [init("w", W(2, 3, 3, 3)), init("b", W(2))])
    model("o11_conv1d", 11, [N("Conv", ["x", "w", "b"], ["y"], pads=[1, 1])],
          [("x", [1, 2, 7])], [("y", [1, 3, 7])], [init("w", W(3, 2, 3)), init("b", W(3))])
    # pooling
    model("o11_maxpool", 11, [N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
          [("x", [1, 2, 6, 6])], [("y", [1, 2, 3, 3])])
    model("o11_maxpool_pads_dil", 11,
          [N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], pads=[1, 0, 0, 1], dilations=[2, 1])],
          [("x", [1, 1, 5, 5])], [("y", [1, 1, 4, 5])])
    model("o8_maxpool", 8, [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
          [("x", [1, 2, 5, 5])], [("y", [1, 2, 3, 3])])
    model("o11_maxpool_ceil_same", 11, [N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
          [("x", [1, 1, 6, 6])], [("y", [1, 1, 3, 3])])
    model("o11_avgpool_excl", 11,
          [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
          [("x", [1, 2, 5, 5])], [("y", [1, 2, 3, 3])])
    model("o11_avgpool_incl", 11,
          [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 3], pads=[0, 1, 1, 0], count_include_pad=1)],
          [("x", [1, 2, 4, 4])], [("y", [1, 2, 4, 3])])
    model("o8_avgpool", 8, [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
          [("x", [1, 3, 4, 4])], [("y", [1, 3, 2, 2])])
    model("o11_global_avgpool", 11, [N("GlobalAveragePool", ["x"], ["y"])], [("x", [1, 3, 4, 4])],
          [("y", [1, 3, 1, 1])])
    # padding
    model("o8_pad", 8, [N("Pad", ["x"], ["y"], pads=[0, 0, 1, 2, 0, 0, 2, 1], value=0.5)],
          [("x", [1, 2, 3, 3])], [("y", [1, 2, 6, 6])])
    model("o11_pad", 11, [N("Pad", ["x", "p", "v"], ["y"], mode="constant")], [("x", [2, 3])], [("y", [3, 6])],
          [init("p", np.array([1, 0, 0, 3], np.int64)), init("v", np.array(1.5, np.float32))])
    model("o13_pad_default", 13, [N("Pad", ["x", "p"], ["y"])], [("x", [2, 3])], [("y", [2, 5])],
          [init("p", np.array([0, 1, 0, 1], np.int64), raw=False)])
    # reductions
    model("o11_reduce", 11,
          [N("ReduceSum", ["x"], ["s"], axes=[1], keepdims=0), N("ReduceMean", ["x"], ["m"], axes=[-1])],
          [("x", [2, 3, 4])], [("s", [2, 4]), ("m", [2, 3, 1])])
    model("o13_reduce", 13,
          [N("ReduceSum", ["x", "ax"], ["s"], keepdims=1), N("ReduceMean", ["x"], ["m"], axes=[1, 2], keepdims=0),
           N("ReduceSum", ["x"], ["t"])],
          [("x", [2, 3, 4])], [("s", [1, 3, 1]), ("m", [2]), ("t", [1, 1, 1])],
          [init("ax", np.array([0, 2], np.int64))])
    model("o13_reduce_noop", 13, [N("ReduceSum", ["x"], ["s"], noop_with_empty_axes=1), N("Relu", ["s"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])])
    model("o13_reduce_maxmin", 13,
          [N("ReduceMax", ["x"], ["a"], axes=[0]), N("ReduceMin", ["x"], ["b"], axes=[1], keepdims=0),
           N("GlobalMaxPool", ["z"], ["c"])],
          [("x", [3, 4]), ("z", [1, 2, 3, 3])], [("a", [1, 4]), ("b", [3]), ("c", [1, 2, 1, 1])])
    # reshape, flatten, transpose, squeeze, unsqueeze, concat
    model("o8_reshape", 8, [N("Reshape", ["x", "s1"], ["r"]), N("Reshape", ["r", "s2"], ["y"])],
          [("x", [2, 3, 4])], [("y", [3, 8])],
          [init("s1", np.array([0, -1], np.int64)), init("s2", np.array([3, 8], np.int64))])
    model("o17_reshape_allowzero", 17, [N("Reshape", ["x", "s"], ["y"], allowzero=0)],
          [("x", [2, 3, 4])], [("y", [2, 6, 2])], [init("s", np.array([2, -1, 2], np.int64), raw=False)])
    model("o11_flatten", 11,
          [N("Flatten", ["x"], ["a"], axis=0), N("Flatten", ["x"], ["b"], axis=-1), N("Flatten", ["x"], ["c"], axis=2)],
          [("x", [2, 3, 4])], [("a", [1, 24]), ("b", [6, 4]), ("c", [6, 4])])
    model("o8_transpose", 8, [N("Transpose", ["x"], ["a"], perm=[0, 2, 1]), N("Transpose", ["x"], ["b"])],
          [("x", [2, 3, 4])], [("a", [2, 4, 3]), ("b", [4, 3, 2])])
    model("o11_squeeze_unsqueeze", 11,
          [N("Squeeze", ["x"], ["s"], axes=[0, 2]), N("Unsqueeze", ["s"], ["y"], axes=[0, -1])],
          [("x", [1, 3, 1, 2])], [("y", [1, 3, 2, 1])])
    model("o13_squeeze_unsqueeze", 13,
          [N("Squeeze", ["x", "a1"], ["s"]), N("Squeeze", ["x"], ["t"]), N("Unsqueeze", ["t", "a2"], ["y"])],
          [("x", [1, 3, 1, 2])], [("s", [3, 1, 2]), ("y", [3, 1, 2])],
          [init("a1", np.array([0], np.int64)), init("a2", np.array([1], np.int64))])
    model("o8_concat", 8, [N("Concat", ["x", "c"], ["a"], axis=1), N("Concat", ["x", "x"], ["b"], axis=0)],
          [("x", [2, 3])], [("a", [2, 5]), ("b", [4, 3])], [init("c", W(2, 2))])
    model("o11_concat_neg", 11, [N("Concat", ["x", "y"], ["z"], axis=-1)], [("x", [2, 3]), ("y", [2, 1])],
          [("z", [2, 4])])
    # batch normalization
    bn = [init("s", W(3)), init("bb", W(3)), init("mu", W(3)), init("var", W(3, lo=0.25, hi=2.0))]
    model("o9_batchnorm", 9, [N("BatchNormalization", ["x", "s", "bb", "mu", "var"], ["y"], epsilon=1e-3)],
          [("x", [1, 3, 4, 4])], [("y", [1, 3, 4, 4])], bn)
    model("o8_batchnorm_spatial", 8, [N("BatchNormalization", ["x", "s", "bb", "mu", "var"], ["y"], spatial=1)],
          [("x", [2, 3, 2])], [("y", [2, 3, 2])], bn)
    model("o17_batchnorm", 17, [N("BatchNormalization", ["x", "s", "bb", "mu", "var"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])], bn)
    # dropout and identity
    model("o8_dropout", 8, [N("Dropout", ["x"], ["d"], ratio=0.3), N("Relu", ["d"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])])
    model("o13_dropout", 13, [N("Dropout", ["x", "r"], ["d", "mask"]), N("Relu", ["d"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])], [init("r", np.array(0.5, np.float32))])
    model("o17_identity", 17, [N("Identity", ["x"], ["i"]), N("Relu", ["i"], ["r"]), N("Identity", ["r"], ["y"])],
          [("x", [3])], [("y", [3])])
    # constants and shape computations (folded)
    model("o13_constant", 13,
          [N("Constant", [], ["c"], value=numpy_helper.from_array(W(3), "cv")), N("Add", ["x", "c"], ["a"]),
           N("Constant", [], ["f"], value_float=1.5), N("Mul", ["a", "f"], ["m"]),
           N("Constant", [], ["sh"], value_ints=[3, 2]), N("Reshape", ["m", "sh"], ["y"])],
          [("x", [2, 3])], [("y", [3, 2])])
    model("o9_constant_of_shape", 9,
          [N("Shape", ["x"], ["s"]),
           N("ConstantOfShape", ["s"], ["k"], value=numpy_helper.from_array(np.array([2.0], np.float32), "v")),
           N("Mul", ["x", "k"], ["y"])],
          [("x", [2, 3])], [("y", [2, 3])])
    flat = lambda: [N("Shape", ["x"], ["s"]), N("Gather", ["s", "zero"], ["n"], axis=0)]
    model("o9_shape_chain", 9,
          flat() + [N("Unsqueeze", ["n"], ["nu"], axes=[0]), N("Concat", ["nu", "minus1"], ["shape"], axis=0),
                    N("Reshape", ["x", "shape"], ["y"])],
          [("x", [1, 2, 3, 2])], [("y", [1, 12])],
          [init("zero", np.array(0, np.int64)), init("minus1", np.array([-1], np.int64))])
    model("o13_shape_chain", 13,
          flat() + [N("Unsqueeze", ["n", "ax0"], ["nu"]), N("Concat", ["nu", "minus1"], ["shape"], axis=0),
                    N("Reshape", ["x", "shape"], ["y"])],
          [("x", [1, 2, 3, 2])], [("y", [1, 12])],
          [init("zero", np.array(0, np.int64)), init("minus1", np.array([-1], np.int64)),
           init("ax0", np.array([0], np.int64))])
    model("o11_cast", 11,
          [N("Shape", ["x"], ["s"]), N("Gather", ["s", "one"], ["n"]), N("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
           N("Mul", ["x", "nf"], ["m"]), N("Cast", ["m"], ["y"], to=TensorProto.FLOAT)],
          [("x", [2, 3])], [("y", [2, 3])], [init("one", np.array(1, np.int64))])
    # slicing and gathering
    model("o8_slice", 8, [N("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, -1], axes=[0, 1])],
          [("x", [4, 5])], [("y", [2, 4])])
    model("o11_slice", 11, [N("Slice", ["x", "st", "en", "ax"], ["y"])], [("x", [4, 5])], [("y", [4, 3])],
          [init("st", np.array([-3], np.int64)), init("en", np.array([1000], np.int64)),
           init("ax", np.array([1], np.int64))])
    model("o13_slice_steps", 13,
          [N("Slice", ["x", "st", "en", "ax", "sp"], ["a"]), N("Slice", ["w", "st", "en", "ax", "sp"], ["ws"]),
           N("MatMul", ["a", "ws"], ["y"])],
          [("x", [2, 5])], [("y", [2, 3])],
          [init("st", np.array([0], np.int64)), init("en", np.array([5], np.int64)),
           init("ax", np.array([1], np.int64)), init("sp", np.array([2], np.int64)),
           init("w", W(3, 5))])
    model("o11_gather", 11,
          [N("Gather", ["x", "i0"], ["a"], axis=0), N("Gather", ["x", "i1"], ["b"], axis=1)],
          [("x", [3, 4])], [("a", [4]), ("b", [3, 2])],
          [init("i0", np.array(1, np.int64)), init("i1", np.array([0, 2], np.int32), raw=False)])
    # folding of constant subgraphs (data movement exact, arithmetic evaluated once)
    model("o13_fold", 13,
          [N("Transpose", ["w"], ["wt"]), N("Transpose", ["wt"], ["w2"]), N("Mul", ["c1", "c2"], ["cc"]),
           N("Add", ["cc", "c3"], ["bias"]), N("MatMul", ["x", "w2"], ["m"]), N("Add", ["m", "bias"], ["y"])],
          [("x", [2, 4])], [("y", [2, 3])],
          [init("w", W(4, 3)), init("c1", W(3) + np.float32(1 / 3)), init("c2", W(3) + np.float32(1 / 7)),
           init("c3", W(3))])
    # binary64 models, weights in double_data and raw_data
    model("o11_f64", 11,
          [N("MatMul", ["x", "w"], ["m"]), N("Add", ["m", "b"], ["h"]), N("Relu", ["h"], ["y"])],
          [("x", [1, 3], TensorProto.DOUBLE)], [("y", [1, 2], TensorProto.DOUBLE)],
          [init("w", W(3, 2, dtype=np.float64) / 3.0, raw=False), init("b", W(2, dtype=np.float64) / 7.0)])
    # a symbolic batch extent
    model("o8_symbolic_batch", 8, [N("Gemm", ["x", "w", "b"], ["y"], transB=1)],
          [("x", ["N", 4])], [("y", ["N", 3])], [init("w", W(3, 4)), init("b", W(3))])
    # activations (src/ops/activation.c) and transcendental functions (src/ops/transcendental.c)
    x23 = [("x", [2, 3])]
    y23 = [("y", [2, 3])]
    model("o8_sigmoid", 8, [N("Sigmoid", ["x"], ["y"], name="sig")], x23, y23, ranges=[(-6.0, 6.0)])
    model("o13_tanh", 13, [N("Tanh", ["x"], ["y"], name="tanh")], x23, y23, ranges=[(-3.0, 3.0)])
    model("o8_softplus", 8, [N("Softplus", ["x"], ["y"], name="sp")], x23, y23, ranges=[(-5.0, 5.0)])
    model("o8_elu", 8, [N("Elu", ["x"], ["y"], name="elu", alpha=0.5)], x23, y23, ranges=[(-3.0, 3.0)])
    model("o13_elu_default", 13, [N("Elu", ["x"], ["y"], name="elu")], x23, y23, ranges=[(-3.0, 3.0)])
    model("o8_leaky_relu", 8, [N("LeakyRelu", ["x"], ["y"], name="lrelu", alpha=0.2)], x23, y23)
    model("o16_leaky_relu_default", 16, [N("LeakyRelu", ["x"], ["y"], name="lrelu")], x23, y23)
    model("o8_selu", 8, [N("Selu", ["x"], ["y"], name="selu")], x23, y23, ranges=[(-3.0, 3.0)])
    model("o13_selu_attrs", 13, [N("Selu", ["x"], ["y"], name="selu", alpha=1.5, gamma=2.0)], x23, y23,
          ranges=[(-3.0, 3.0)])
    for op, opset, lo, hi in (("Exp", 13, -3.0, 3.0), ("Log", 13, 0.1, 4.0), ("Sin", 8, -4.0, 4.0),
                              ("Cos", 8, -4.0, 4.0), ("Tan", 8, -1.2, 1.2), ("Asin", 8, -0.99, 0.99),
                              ("Acos", 8, -0.99, 0.99), ("Atan", 8, -5.0, 5.0), ("Sinh", 9, -3.0, 3.0),
                              ("Cosh", 9, -3.0, 3.0), ("Asinh", 9, -5.0, 5.0), ("Acosh", 9, 1.01, 5.0),
                              ("Atanh", 9, -0.95, 0.95), ("Erf", 13, -3.0, 3.0)):
        model("o%d_%s" % (opset, op.lower()), opset, [N(op, ["x"], ["y"], name=op.lower())], x23, y23,
              ranges=[(lo, hi)])
    # activations after a layer, binary64
    model("o13_tanh_gemm_f64", 13,
          [N("Gemm", ["x", "w", "b"], ["h"], transB=1), N("Tanh", ["h"], ["t"]), N("Sigmoid", ["t"], ["y"])],
          [("x", [1, 4], TensorProto.DOUBLE)], [("y", [1, 3], TensorProto.DOUBLE)],
          [init("w", np.round(ACT_RNG.uniform(-1, 1, size=(3, 4)) * 64) / 64),
           init("b", np.round(ACT_RNG.uniform(-1, 1, size=3) * 64) / 64)])
    # the operators imported since: their own draws (RNG's sequence and every earlier file stay
    # as before); ref="exact" where every operation is exact in binary32, else "f64"
    rng = np.random.default_rng(20270301)

    def Wn(*shape):
        return (np.round(rng.uniform(-1, 1, size=shape) * 64) / 64).astype(np.float32)

    x234, E, F64 = [("x", [2, 3, 4])], "exact", "f64"
    yn = [("y", None)]
    f32 = lambda v: np.array(v, np.float32)
    i64 = lambda v: np.array(v, np.int64)
    for op, opset, lo, hi, kind in (("Abs", 13, -1.0, 1.0, E), ("Floor", 13, -3.0, 3.0, E), ("Ceil", 13, -3.0, 3.0, E),
                                    ("Round", 11, -3.0, 3.0, E), ("Sign", 13, -1.0, 1.0, E),
                                    ("Sqrt", 13, 0.1, 4.0, F64), ("Reciprocal", 13, 0.5, 2.0, F64),
                                    ("Softsign", 13, -3.0, 3.0, F64)):
        model("o%d_%s" % (opset, op.lower()), opset, [N(op, ["x"], ["y"], name=op.lower())], x234, yn,
              ranges=[(lo, hi)], ref=kind)
    # floor(x) + 1/2 is a half-integer (exactly): Round takes the even neighbour
    model("o11_round_halves", 11, [N("Floor", ["x"], ["f"]), N("Add", ["f", "h"], ["g"]), N("Round", ["g"], ["y"])],
          [("x", [3, 4])], yn, [init("h", f32(0.5))], ranges=[(-4.0, 4.0)], ref=E)
    model("o13_pow", 13, [N("Pow", ["x", "e"], ["y"], name="pow")], x234, yn, [init("e", f32(2.0))], ref=F64)
    model("o13_mod_fmod1", 13, [N("Mod", ["x", "m"], ["y"], name="mod", fmod=1)], x234, yn,
          [init("m", f32(0.75))], ranges=[(-3.0, 3.0)], ref=E)
    model("o13_mod_fmod0", 13, [N("Mod", ["x", "m"], ["y"], name="mod", fmod=0)], x234, yn,
          [init("m", f32(0.75))], ranges=[(-3.0, 3.0)], ref=F64)
    c4 = Wn(4)
    model("o13_max", 13, [N("Max", ["x", "c", "x"], ["y"], name="max")], x234, yn, [init("c", c4)], ref=E)
    model("o8_max", 8, [N("Max", ["x", "z"], ["y"], name="max")], [("x", [2, 3]), ("z", [2, 3])], yn, ref=E)
    model("o13_min", 13, [N("Min", ["x", "c"], ["y"], name="min")], x234, yn, [init("c", c4)], ref=E)
    model("o13_sum", 13, [N("Sum", ["x", "c", "x"], ["y"], name="sum")], x234, yn, [init("c", c4)], ref=F64)
    model("o13_mean", 13, [N("Mean", ["x", "c", "x"], ["y"], name="mean")], x234, yn, [init("c", c4)], ref=F64)
    model("o8_clip_attrs", 8, [N("Clip", ["x"], ["a"], min=-0.5), N("Clip", ["x"], ["b"], min=-0.25, max=0.5)],
          x234, [("a", None), ("b", None)], ref=E)
    model("o11_clip_inputs", 11,
          [N("Clip", ["x", "lo", "hi"], ["a"]), N("Clip", ["x", "", "hi"], ["b"]), N("Clip", ["x", "lo"], ["c"]),
           N("Clip", ["x"], ["d"])],
          x234, [("a", None), ("b", None), ("c", None), ("d", None)],
          [init("lo", f32(-0.5)), init("hi", f32(0.75))], ref=E)
    model("o8_hard_sigmoid", 8, [N("HardSigmoid", ["x"], ["y"], name="hs")], x234, yn, ranges=[(-4.0, 4.0)], ref=F64)
    model("o13_hard_sigmoid_attrs", 13, [N("HardSigmoid", ["x"], ["y"], name="hs", alpha=0.5, beta=0.25)], x234, yn,
          ranges=[(-4.0, 4.0)], ref=F64)
    model("o14_hard_swish", 14, [N("HardSwish", ["x"], ["y"], name="hsw")], x234, yn, ranges=[(-4.0, 4.0)], ref=F64)
    model("o13_celu", 13, [N("Celu", ["x"], ["y"], name="celu", alpha=2.0)], x234, yn, ranges=[(-3.0, 3.0)],
          ref=F64)
    model("o12_celu_default", 12, [N("Celu", ["x"], ["y"], name="celu")], x234, yn, ranges=[(-3.0, 3.0)], ref=F64)
    model("o9_shrink", 9, [N("Shrink", ["x"], ["y"], name="shrink", lambd=0.5, bias=0.5)], x234, yn, ref=E)
    model("o9_prelu_scalar", 9, [N("PRelu", ["x", "s"], ["y"], name="prelu")], x234, yn,
          [init("s", np.full((1,), 0.25, np.float32))], ref=E)
    model("o9_prelu_vector", 9, [N("PRelu", ["x", "s"], ["y"], name="prelu")], x234, yn,
          [init("s", f32([0.5, -2.0, 0.125, 4.0]))], ref=E)
    model("o16_prelu_channel", 16, [N("PRelu", ["x", "s"], ["y"], name="prelu")], x234, yn,
          [init("s", f32([[0.5], [-0.25], [2.0]]))], ref=E)
    model("o13_softmax", 13, [N("Softmax", ["x"], ["a"], axis=1), N("Softmax", ["x"], ["b"])], x234,
          [("a", None), ("b", None)], ranges=[(-3.0, 3.0)], ref=F64)
    model("o11_softmax", 11, [N("Softmax", ["x"], ["a"], axis=1), N("Softmax", ["x"], ["b"])], x234,
          [("a", None), ("b", None)], ranges=[(-3.0, 3.0)], ref=F64)
    model("o13_logsoftmax", 13, [N("LogSoftmax", ["x"], ["a"], axis=0), N("LogSoftmax", ["x"], ["b"])], x234,
          [("a", None), ("b", None)], ranges=[(-3.0, 3.0)], ref=F64)
    model("o11_logsoftmax", 11, [N("LogSoftmax", ["x"], ["a"], axis=2), N("LogSoftmax", ["x"], ["b"])], x234,
          [("a", None), ("b", None)], ranges=[(-3.0, 3.0)], ref=F64)
    model("o17_layernorm", 17, [N("LayerNormalization", ["x", "w", "b"], ["y"], name="ln", axis=1, epsilon=1e-3)],
          x234, yn, [init("w", Wn(3, 4)), init("b", Wn(3, 4))], ref=F64)
    model("o17_layernorm_noscale_bias", 17, [N("LayerNormalization", ["x", "w"], ["y"], name="ln")],
          x234, yn, [init("w", Wn(4))], ref=F64)
    model("o9_instancenorm", 9, [N("InstanceNormalization", ["x", "s", "b"], ["y"], name="in")],
          [("x", [2, 3, 2, 3])], yn, [init("s", Wn(3)), init("b", Wn(3))], ref=F64)
    gidx = rng.integers(-4, 4, size=(2, 3, 2))
    model("o13_gather_elements", 13, [N("GatherElements", ["x", "i"], ["y"], axis=2)], x234, yn,
          [init("i", gidx)], ref=E)
    model("o11_gather_elements_axis0", 11, [N("GatherElements", ["x", "i"], ["y"])], [("x", [3, 4])], yn,
          [init("i", i64([[2, 0, 1, -1], [0, 0, 2, 1]]))], ref=E)
    sidx = np.array([[[3, 0], [1, 2], [-1, 0]], [[0, 2], [3, 1], [2, -3]]], np.int64)
    model("o13_scatter_elements", 13, [N("ScatterElements", ["x", "i", "u"], ["y"], axis=2)], x234, yn,
          [init("i", sidx), init("u", Wn(2, 3, 2))], ref=E)
    model("o16_scatter_elements_add", 16, [N("ScatterElements", ["x", "i", "u"], ["y"], axis=-1, reduction="add")],
          x234, yn, [init("i", sidx), init("u", Wn(2, 3, 2))], ref=F64)
    model("o13_gather_nd", 13, [N("GatherND", ["x", "i"], ["a"]), N("GatherND", ["x", "j"], ["b"])], x234,
          [("a", None), ("b", None)], [init("i", i64([[0, 1], [1, -1]])), init("j", i64([[[1, 0, 3]], [[0, 2, -4]]]))],
          ref=E)
    # TopK without its Indices output (onnx.checker wants both named; certnn imports only Values)
    model("o11_topk", 11, [N("TopK", ["x", "k"], ["y", ""], name="topk")], x234, yn, [init("k", i64([2]))],
          check=False, ref=E)
    model("o13_topk_axis_smallest", 13, [N("TopK", ["x", "k"], ["y"], name="topk", axis=1, largest=0)], x234, yn,
          [init("k", i64([2]))], check=False, ref=E)
    model("o13_argmax", 13, [N("ArgMax", ["x"], ["a"], axis=1, keepdims=0), N("ArgMax", ["x"], ["b"])], x234,
          [("a", None, TensorProto.INT64), ("b", None, TensorProto.INT64)], ref=E)
    model("o13_argmin", 13, [N("ArgMin", ["x"], ["a"], axis=-1)], x234, [("a", None, TensorProto.INT64)], ref=E)
    model("o11_cumsum", 11, [N("CumSum", ["x", "ax"], ["a"]), N("CumSum", ["x", "nax"], ["b"])], x234,
          [("a", None), ("b", None)], [init("ax", i64(1)), init("nax", np.array(-1, np.int32))], ref=F64)
    model("o13_expand", 13, [N("Expand", ["x", "s"], ["y"])], x234, yn, [init("s", i64([3, 1, 1, 4]))], ref=E)
    model("o8_expand_bcast", 8, [N("Expand", ["x", "s"], ["y"])], [("x", [3, 1])], yn, [init("s", i64([2, 1, 4]))],
          ref=E)
    model("o13_tile", 13, [N("Tile", ["x", "r"], ["y"])], x234, yn, [init("r", i64([2, 1, 3]))], ref=E)
    model("o11_split", 11, [N("Split", ["x"], ["a", "b"], axis=2, split=[1, 3]), N("Split", ["x"], ["c", "d", "e"],
                                                                                 axis=1)],
          x234, [("a", None), ("b", None), ("c", None), ("d", None), ("e", None)], ref=E)
    model("o13_split", 13, [N("Split", ["x", "s"], ["a", "b"], axis=-1), N("Split", ["x"], ["c", "d"])], x234,
          [("a", None), ("b", None), ("c", None), ("d", None)], [init("s", i64([3, 1]))], ref=E)
    model("o11_depth_to_space_dcr", 11, [N("DepthToSpace", ["x"], ["y"], blocksize=2)], [("x", [1, 8, 2, 3])], yn,
          ref=E)
    model("o13_depth_to_space_crd", 13, [N("DepthToSpace", ["x"], ["y"], blocksize=2, mode="CRD")],
          [("x", [1, 8, 2, 3])], yn, ref=E)
    model("o13_space_to_depth", 13, [N("SpaceToDepth", ["x"], ["y"], blocksize=2)], [("x", [1, 2, 4, 6])], yn, ref=E)
    model("o13_reduce_l1_l2", 13,
          [N("ReduceL1", ["x"], ["a"], axes=[1]), N("ReduceL2", ["x"], ["b"], axes=[2], keepdims=0),
           N("ReduceL2", ["x"], ["c"])],
          x234, [("a", None), ("b", None), ("c", None)], ref=F64)
    model("o11_reduce_sum_square", 11,
          [N("ReduceSumSquare", ["x"], ["a"]), N("ReduceSumSquare", ["x"], ["b"], axes=[0, -1], keepdims=0)],
          x234, [("a", None), ("b", None)], ref=F64)
    model("o13_reduce_log_sum", 13,
          [N("ReduceLogSum", ["x"], ["a"], axes=[0]), N("ReduceLogSumExp", ["x"], ["b"], axes=[1]),
           N("ReduceLogSumExp", ["x"], ["c"], keepdims=0)],
          x234, [("a", None), ("b", None), ("c", None)], ranges=[(0.1, 2.0)], ref=F64)
    model("o11_global_lp_pool", 11, [N("GlobalLpPool", ["x"], ["a"]), N("GlobalLpPool", ["x"], ["b"], p=1)],
          [("x", [1, 3, 2, 3])], [("a", None), ("b", None)], ref=F64)
    model("o9_eye_like", 9, [N("EyeLike", ["e"], ["i"], k=1), N("Mul", ["x", "i"], ["y"])], [("x", [3, 4])], yn,
          [init("e", np.zeros((3, 4), np.float32))], ref=E)
    model("o11_range", 11, [N("Range", ["a", "b", "d"], ["r"]), N("Mul", ["x", "r"], ["y"])], x234, yn,
          [init("a", f32(-1.0)), init("b", f32(3.0)), init("d", f32(1.0))], ref=E)
    model("o14_trilu_const", 14, [N("Trilu", ["e"], ["t"], upper=0), N("Mul", ["x", "t"], ["y"])], x234, yn,
          [init("e", np.ones((3, 4), np.float32))], ref=E)
    define_sort_models()
    define_resize_models()


def define_sort_models():
    """The operators on Booleans and integer words, transposed convolution, random draws, DFT,
    Einsum and TopK's indices (their own draws: every earlier file stays as it was)."""
    rng = np.random.default_rng(20271101)
    TP = TensorProto
    B, U8, U16, U32, I32, I64 = TP.BOOL, TP.UINT8, TP.UINT16, TP.UINT32, TP.INT32, TP.INT64
    E, F64 = "exact", "f64"

    def Wn(*shape):
        return (np.round(rng.uniform(-1, 1, size=shape) * 64) / 64).astype(np.float32)

    def few(*shape):
        """floats from a small set, so that comparisons meet equal operands"""
        return rng.choice(np.array([-1.0, -0.5, 0.0, 0.5, 1.0], np.float32), size=shape)

    def per_case(*fns):
        return lambda c: [f(c) if f is not None else None for f in fns]

    # comparisons: broadcasting between inputs, constants expanded, numbers equal often
    model("o13_compare", 13,
          [N("Equal", ["x", "y"], ["eq"]), N("Less", ["x", "y"], ["lt"]), N("LessOrEqual", ["x", "c"], ["le"]),
           N("Greater", ["c", "x"], ["gt"]), N("GreaterOrEqual", ["y", "x"], ["ge"])],
          [("x", [2, 3, 4]), ("y", [3, 4])], [(o, None, B) for o in ("eq", "lt", "le", "gt", "ge")],
          [init("c", np.array([-0.5, 0.0, 0.5, 1.0], np.float32))], ref=E,
          vals=per_case(lambda c: few(2, 3, 4), lambda c: few(3, 4)))
    model("o9_compare_f64", 9, [N("Greater", ["x", "y"], ["gt"]), N("Less", ["x", "y"], ["lt"]),
                                N("Equal", ["x", "x"], ["eq"])],
          [("x", [2, 3], TP.DOUBLE), ("y", [2, 3], TP.DOUBLE)], [(o, None, B) for o in ("gt", "lt", "eq")], ref=E)
    # Equal of Booleans (not xor) and of words (not bool(xor)); logic with broadcasting
    model("o13_equal_bool_int", 13, [N("Equal", ["a", "b"], ["e1"]), N("Equal", ["i", "j"], ["e2"]),
                                     N("Equal", ["i", "k"], ["e3"])],
          [("a", [2, 3], B), ("b", [2, 3], B), ("i", [2, 3], I32), ("j", [2, 3], I32)],
          [("e1", None, B), ("e2", None, B), ("e3", None, B)], [init("k", np.array([0, 1, -1], np.int32))],
          ranges=[(0, 1), (0, 1), (-1, 1), (-1, 1)], ref=E)
    model("o13_logic", 13,
          [N("Not", ["a"], ["na"]), N("And", ["a", "b"], ["ab"]), N("Or", ["a", "c"], ["ac"]),
           N("Xor", ["b", "k"], ["bk"]), N("And", ["na", "bk"], ["y"])],
          [("a", [2, 3], B), ("b", [2, 3], B), ("c", [3], B)],
          [("na", None, B), ("ab", None, B), ("ac", None, B), ("bk", None, B), ("y", None, B)],
          [init("k", np.array([[True], [False]]))], ref=E)
    # constant comparisons and logic fold away (a shape computation as exporters write it)
    model("o13_logic_fold", 13,
          [N("Shape", ["x"], ["s"]), N("Equal", ["s", "m1"], ["isneg"]), N("Not", ["isneg"], ["keep"]),
           N("Where", ["keep", "s", "mm"], ["sh"]), N("Reshape", ["x", "sh"], ["r"]),
           N("Less", ["ca", "cb"], ["cl"]), N("Cast", ["cl"], ["cf"], to=TP.FLOAT), N("Mul", ["r", "cf"], ["y"])],
          [("x", [2, 3])], [("y", None)],
          [init("m1", np.array([-1, 3], np.int64)), init("mm", np.array([-1, -1], np.int64)),
           init("ca", np.array([0.5, 2.0, -1.0], np.float32)), init("cb", np.array([1.0, 1.0, 1.0], np.float32))],
          ref=E)
    # IsNaN, IsInf (both signs, one sign each) on explicit NaNs and infinities
    special = lambda c: [np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0, np.nan, -np.inf][::1 - 2 * c],
                                  np.float32).reshape(2, 4)]
    model("o13_isnan_isinf", 13,
          [N("IsNaN", ["x"], ["n"]), N("IsInf", ["x"], ["i"]), N("IsInf", ["x"], ["p"], detect_negative=0),
           N("IsInf", ["x"], ["m"], detect_positive=0)],
          [("x", [2, 4])], [(o, None, B) for o in ("n", "i", "p", "m")], ref=E, vals=special)
    model("o10_isinf", 10, [N("IsInf", ["x"], ["i"])], [("x", [2, 4])], [("i", None, B)], ref=E, vals=special)
    # Where: condition computed, given as an input (broadcast through the model's scalar) and constant
    model("o16_where", 16,
          [N("Greater", ["x", "zero"], ["pos"]), N("Where", ["pos", "x", "c"], ["a"]),
           N("Where", ["m", "x", "y"], ["b"]), N("Where", ["k", "a", "b"], ["z"])],
          [("x", [2, 3]), ("y", [3]), ("m", [3], B)], [("a", None), ("b", None), ("z", None)],
          [init("zero", np.array(0.0, np.float32)), init("c", Wn(3)), init("k", np.array([[True], [False]]))],
          ref=E)
    # Cast of values: to integers (truncation), Booleans, back to the model's scalar; words wrapped
    model("o13_cast_values", 13,
          [N("Cast", ["x"], ["i"], to=I32), N("Cast", ["x"], ["b"], to=B), N("Cast", ["i"], ["f"], to=TP.FLOAT),
           N("Cast", ["b"], ["g"], to=TP.DOUBLE), N("Cast", ["w"], ["u"], to=U8), N("Cast", ["w"], ["wf"], to=TP.FLOAT),
           N("Cast", ["x"], ["same"], to=TP.DOUBLE)],
          [("x", [2, 3]), ("w", [2, 3], I32)],
          [("i", None, I32), ("b", None, B), ("f", None), ("g", None, TP.DOUBLE), ("u", None, U8), ("wf", None),
           ("same", None, TP.DOUBLE)],
          ranges=[(-9.0, 9.0), (-300, 300)], ref=E,
          vals=per_case(lambda c: np.array([[-2.75, -0.5, 0.0], [0.25, 3.5, -9.0]], np.float32) * (1 - 2 * c), None))
    model("o15_cast_like", 15, [N("CastLike", ["x", "t"], ["i"]), N("CastLike", ["i", "x"], ["y"])],
          [("x", [2, 3])], [("i", None, TP.INT8), ("y", None)], [init("t", np.array([0], np.int8))],
          ranges=[(-100.0, 100.0)], ref=E)
    # BitShift on unsigned words, a constant amount broadcast; the bitwise operators (opset 18,
    # read in an opset 17 model: onnx.checker is skipped)
    model("o11_bitshift", 11,
          [N("BitShift", ["x", "s"], ["l"], direction="LEFT"), N("BitShift", ["x", "s"], ["r"], direction="RIGHT"),
           N("BitShift", ["x", "k"], ["lk"], direction="LEFT")],
          [("x", [2, 3], U8), ("s", [2, 3], U8)], [("l", None, U8), ("r", None, U8), ("lk", None, U8)],
          [init("k", np.array([1, 4, 7], np.uint8))], ranges=[(0, 255), (0, 7)], ref=E)
    model("o11_bitshift_u32", 11, [N("BitShift", ["x", "s"], ["r"], direction="RIGHT"),
                                   N("BitShift", ["r", "s"], ["l"], direction="LEFT")],
          [("x", [4], U32), ("s", [4], U32)], [("r", None, U32), ("l", None, U32)],
          ranges=[(0, 16777215), (0, 23)], ref=E)
    model("o17_bitwise", 17,
          [N("BitwiseAnd", ["x", "y"], ["a"]), N("BitwiseOr", ["x", "y"], ["o"]), N("BitwiseXor", ["x", "k"], ["e"]),
           N("BitwiseNot", ["x"], ["n"])],
          [("x", [2, 3], U16), ("y", [2, 3], U16)], [(o, None, U16) for o in ("a", "o", "e", "n")],
          [init("k", np.array([0x00ff, 0x0f0f, 0xffff], np.uint16))], ranges=[(0, 65535), (0, 65535)],
          check=False, ref=E)
    # ConvTranspose: pads, strides, dilations, output_padding, groups, 1-D, output_shape, auto_pad
    model("o11_convtranspose", 11,
          [N("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 1], pads=[1, 0, 0, 2], dilations=[1, 2],
             output_padding=[1, 0])],
          [("x", [1, 2, 3, 4])], [("y", None)], [init("w", Wn(2, 3, 3, 2)), init("b", Wn(3))], ref=F64)
    model("o11_convtranspose_group", 11, [N("ConvTranspose", ["x", "w"], ["y"], group=2, strides=[2, 2])],
          [("x", [2, 4, 2, 3])], [("y", None)], [init("w", Wn(4, 1, 2, 2))], ref=F64)
    model("o13_convtranspose_1d", 13, [N("ConvTranspose", ["x", "w", "b"], ["y"], strides=[3], pads=[1, 1],
                                         kernel_shape=[4])],
          [("x", [1, 2, 5])], [("y", None)], [init("w", Wn(2, 2, 4)), init("b", Wn(2))], ref=F64)
    model("o13_convtranspose_output_shape", 13,
          [N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[5, 6])],
          [("x", [1, 1, 3, 4])], [("y", None)], [init("w", Wn(1, 2, 3, 2))], ref=F64)
    model("o13_convtranspose_same", 13,
          [N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], auto_pad="SAME_UPPER")],
          [("x", [1, 1, 3, 3])], [("y", None)], [init("w", Wn(1, 1, 4, 4))], ref=F64)
    model("o13_convtranspose_valid", 13, [N("ConvTranspose", ["x", "w"], ["y"], auto_pad="VALID")],
          [("x", [1, 1, 3, 3])], [("y", None)], [init("w", Wn(1, 2, 2, 2))], ref=F64)
    # random draws on a seed: certnn's generator, re-implemented here (philox_uniforms)
    model("o13_random", 13,
          [N("RandomUniform", [], ["u"], shape=[2, 3], low=-2.0, high=3.0, seed=7.0),
           N("RandomNormal", [], ["r"], shape=[3, 2], mean=1.0, scale=0.5, seed=8.0),
           N("RandomUniformLike", ["x"], ["ul"], seed=9.0),
           N("RandomNormalLike", ["x"], ["rl"], seed=10.0, dtype=TP.DOUBLE), N("Add", ["x", "ul"], ["y"])],
          [("x", [2, 3])], [("u", None), ("r", None), ("ul", None), ("rl", None, TP.DOUBLE), ("y", None)], ref=F64)
    model("o15_bernoulli", 15,
          [N("Bernoulli", ["p"], ["a"], seed=3.0), N("Bernoulli", ["q"], ["b"], seed=4.0, dtype=B),
           N("Bernoulli", ["p"], ["c"], seed=5.0, dtype=B), N("Bernoulli", ["q"], ["d"], seed=6.0, dtype=TP.DOUBLE)],
          [("p", [3, 4])], [("a", None), ("b", None, B), ("c", None, B), ("d", None, TP.DOUBLE)],
          [init("q", np.full((2, 5), 0.25, np.float32))], ranges=[(0.0, 1.0)], ref=E)
    # DFT of a real signal onto rfft: the last signal axis, another axis, dft_length cut and padded
    model("o17_dft", 17, [N("DFT", ["x"], ["y"], onesided=1), N("DFT", ["x", "six"], ["c"], onesided=1, axis=-2)],
          [("x", [2, 8, 1])], [("y", None), ("c", None)], [init("six", np.array(6, np.int64))], ref=F64)
    model("o17_dft_axis", 17, [N("DFT", ["x"], ["y"], onesided=1, axis=1), N("DFT", ["x", "ten"], ["z"], onesided=1,
                                                                              axis=2)],
          [("x", [2, 5, 3, 1])], [("y", None), ("z", None)], [init("ten", np.array([10], np.int64))], ref=F64)
    # Einsum: contract, matmul with batch letters, permute, sums, implicit outputs
    model("o12_einsum", 12,
          [N("Einsum", ["x", "w"], ["a"], equation="ij,jk->ik"), N("Einsum", ["x"], ["t"], equation="ij->ji"),
           N("Einsum", ["x"], ["s"], equation="ij->"), N("Einsum", ["x", "v"], ["o"], equation="ij,k"),
           N("Einsum", ["x", "x"], ["g"], equation="ij,kj")],
          [("x", [2, 3])], [("a", None), ("t", None), ("s", None), ("o", None), ("g", None)],
          [init("w", Wn(3, 4)), init("v", Wn(2))], ref=F64)
    model("o12_einsum_batch", 12,
          [N("Einsum", ["p", "q"], ["m"], equation="bij,bjk->bik"), N("Einsum", ["p", "q"], ["n"], equation="bij,bjk->kbi"),
           N("Einsum", ["p", "r"], ["e"], equation="bij , ij -> bi"), N("Einsum", ["p"], ["d"], equation="bij->jb")],
          [("p", [2, 3, 4]), ("q", [2, 4, 2]), ("r", [3, 4])], [("m", None), ("n", None), ("e", None), ("d", None)],
          ref=F64)
    # TopK's Indices output: distinct entries with Values; ties and NaNs (Indices only); k = 1
    model("o11_topk_indices", 11,
          [N("TopK", ["x", "k"], ["v", "i"], axis=1), N("TopK", ["x", "k"], ["w", "j"], largest=0)],
          [("x", [2, 3, 4])], [("v", None), ("i", None, I64), ("w", None), ("j", None, I64)],
          [init("k", np.array([2], np.int64))], check=False, ref=E)
    ties = lambda c: [np.array([[1.0, np.nan, 1.0, 0.5, np.nan], [0.0, 0.0, -1.0, 2.0, 0.0], [3.0, 1.0, 3.0, 1.0, -0.0]]
                               [::1 - 2 * c], np.float32)]
    model("o13_topk_indices_ties", 13,
          [N("TopK", ["x", "k"], ["", "i"]), N("TopK", ["x", "k"], ["", "j"], largest=0),
           N("TopK", ["x", "one"], ["", "m"])],
          [("x", [3, 5])], [("i", None, I64), ("j", None, I64), ("m", None, I64)],
          [init("k", np.array([4], np.int64)), init("one", np.array([1], np.int64))], check=False, ref=E, vals=ties)
    # the same operators on constants, folded at import (ties, NaNs and infinities, wrapping casts)
    fold = [("eq", "Equal", ["ca", "cb"], B), ("lt", "Less", ["ca", "cb"], B), ("le", "LessOrEqual", ["ca", "cb"], B),
            ("gt", "Greater", ["ca", "cb"], B), ("ge", "GreaterOrEqual", ["ca", "cb"], B),
            ("ie", "Equal", ["ia", "ib"], B), ("il", "Less", ["ia", "ib"], B), ("n", "Not", ["ba"], B),
            ("an", "And", ["ba", "bb"], B), ("o", "Or", ["ba", "bb"], B), ("xo", "Xor", ["ba", "bb"], B),
            ("w", "Where", ["ba", "ca", "cb"], TP.FLOAT), ("wi", "Where", ["bb", "ia", "ib"], I32),
            ("isn", "IsNaN", ["cn"], B), ("isi", "IsInf", ["cn"], B), ("bs", "BitShift", ["ua", "us"], U8)]
    nodes = [N(op, ins, [o]) for o, op, ins, _ in fold]
    nodes[-2].attribute.extend([helper.make_attribute("detect_negative", 0)])
    nodes[-1].attribute.extend([helper.make_attribute("direction", "LEFT")])
    nodes += [N("Cast", ["ia"], ["u8"], to=U8), N("Cast", ["ca"], ["bl"], to=B), N("Cast", ["ia"], ["fl"], to=TP.FLOAT),
              N("Identity", ["x"], ["y"])]
    model("o13_fold_sorts", 13, nodes, [("x", [2])],
          [(o, None, t) for o, _, _, t in fold] + [("u8", None, U8), ("bl", None, B), ("fl", None), ("y", None)],
          [init("ca", np.array([0.5, 1.0, -1.0, 2.0, 0.0], np.float32)),
           init("cb", np.array([1.0, 1.0, -1.0, 0.5, -0.0], np.float32)),
           init("ia", np.array([-1, 300, 7, 0, -129], np.int32)), init("ib", np.array([-1, 3, 9, 0, 4], np.int32)),
           init("ba", np.array([True, True, False, False, True])), init("bb", np.array([True, False, True, False, False])),
           init("cn", np.array([np.nan, np.inf, -np.inf, 1.0, -0.0], np.float32)),
           init("ua", np.array([1, 128, 255, 7, 3], np.uint8)), init("us", np.array([1, 1, 4, 0, 7], np.uint8))],
          ref=E)
    # BatchNormalization in training mode: Y and the updated running statistics (batchNorm's
    # outputs 1 and 2, the batch mean and variance)
    bn = [init("s", W(3)), init("bb", W(3)), init("mu", W(3)), init("var", W(3, lo=0.25, hi=2.0))]
    model("o15_batchnorm_training", 15,
          [N("BatchNormalization", ["x", "s", "bb", "mu", "var"], ["y", "rm", "rv"], training_mode=1, momentum=0.8)],
          [("x", [4, 3, 2])], [("y", [4, 3, 2]), ("rm", [3]), ("rv", [3])], bn, ref="f64")
    # Data movement of Booleans and words (the element ports of reshape, permute, broadcast, pad,
    # cat, slice, gather, scatter and select): every movement handler at BOOL, INT8, UINT16 and
    # INT64; constants of those sorts enter the graph in their sort; ScatterElements' add and mul
    # wrap (INT8, UINT16)
    I8 = TP.INT8

    def i64(*v):
        return np.array(v, np.int64)

    def movement(pre, x, xs, d, k, pad_value, red=None):
        """the movement nodes on input X of shape [2, 3], D of shape [1, 4, 1, 2], cond C [3]
        and the constant K [2, 1] (of X's sort); PRE prefixes the outputs"""
        o = [pre + s for s in ("re", "tr", "fl", "us", "sq", "ca", "sl", "ga", "ge", "sc", "ex", "ti", "pa", "wh",
                               "id", "ds", "sd", "sp0", "sp1")]
        nodes = [N("Slice", [x, "st", "en", "axs", "stp"], [pre + "upd"]),
                 N("Reshape", [x, "sh32"], [o[0]]), N("Transpose", [x], [o[1]]), N("Flatten", [x], [o[2]], axis=0),
                 N("Unsqueeze", [x, "ax0"], [o[3]]), N("Squeeze", [o[3], "ax0"], [o[4]]),
                 N("Concat", [x, k, x], [o[5]], axis=1),
                 N("Slice", [x, "st", "en", "axs", "stp"], [o[6]]), N("Gather", [x, "gi"], [o[7]], axis=1),
                 N("GatherElements", [x, "gei"], [o[8]], axis=1),
                 N("ScatterElements", [x, "sci", pre + "upd"], [o[9]], axis=1, **({"reduction": red} if red else {})),
                 N("Expand", [k, "sh223"], [o[10]]), N("Tile", [x, "rep"], [o[11]]),
                 N("Pad", [x, "pads", pad_value], [o[12]]), N("Where", ["c", x, k], [o[13]]),
                 N("Identity", [x], [o[14]]), N("DepthToSpace", [d], [o[15]], blocksize=2, mode="CRD"),
                 N("SpaceToDepth", [o[15]], [o[16]], blocksize=2), N("Split", [x, "spl"], [o[17], o[18]], axis=1)]
        return nodes, [(v, None, xs) for v in o]

    shapes = [init("sh32", i64(3, 2)), init("ax0", i64(0)), init("st", i64(0, 1)), init("en", i64(2, 3)),
              init("axs", i64(0, 1)), init("stp", i64(1, 1)), init("gi", i64(0, 2)), init("gei", i64(2, 0, 1, 1, 1, 0)
                                                                                               .reshape(2, 3)),
              init("sci", i64(1, 2, 0, 2).reshape(2, 2)), init("sh223", i64(2, 2, 3)), init("rep", i64(1, 2)),
              init("pads", i64(1, 0, 0, 2)), init("spl", i64(1, 2))]
    nb, ob = movement("b", "x", B, "d", "k", "pv")
    model("o13_move_bool", 13, nb, [("x", [2, 3], B), ("d", [1, 4, 1, 2], B), ("c", [3], B)], ob,
          shapes + [init("k", np.array([[True], [False]])), init("pv", np.array(True))], ref=E)
    n8, o8 = movement("i", "x", I8, "d", "k", "pv", red="add")
    model("o16_move_int8", 16, n8, [("x", [2, 3], I8), ("d", [1, 4, 1, 2], I8), ("c", [3], B)], o8,
          shapes + [init("k", np.array([[-128], [127]], np.int8)), init("pv", np.array(-7, np.int8))],
          ranges=[(-128, 127), (-128, 127), (0, 1)], ref=E)
    n16, o16 = movement("u", "x", U16, "d", "k", "pv", red="mul")
    model("o16_move_uint16", 16, n16, [("x", [2, 3], U16), ("d", [1, 4, 1, 2], U16), ("c", [3], B)], o16,
          shapes + [init("k", np.array([[65535], [3]], np.uint16)), init("pv", np.array(65535, np.uint16))],
          ranges=[(0, 65535), (0, 65535), (0, 1)], ref=E)
    n64, o64 = movement("l", "x", I64, "d", "k", "pv", red="max")
    model("o16_move_int64", 16, n64, [("x", [2, 3], I64), ("d", [1, 4, 1, 2], I64), ("c", [3], B)], o64,
          shapes + [init("k", i64(-(1 << 24), 1 << 24).reshape(2, 1)), init("pv", np.array(-3, np.int64))],
          ranges=[(-16777216, 16777216), (-5, 5), (0, 1)], ref=E)
    # opset 8: Pad's value and Slice's bounds as attributes, Booleans broadcast into Concat
    model("o8_move_bool_attrs", 8,
          [N("Pad", ["x"], ["p"], pads=[0, 1, 0, 0]), N("Slice", ["x"], ["s"], starts=[1], ends=[3], axes=[1]),
           N("Expand", ["c", "sh23"], ["e"]), N("Concat", ["p", "e"], ["y"], axis=1)],
          [("x", [2, 3], B), ("c", [3], B)], [("p", None, B), ("s", None, B), ("e", None, B), ("y", None, B)],
          [init("sh23", i64(2, 3))], ref=E)
    # Integer arithmetic on words (numpy's fixed-width integers: +, -, *, Neg and Pow wrap; Div
    # truncates toward 0; Mod with the divisor's sign (fmod 0) or the dividend's (fmod 1)), with
    # broadcasting, constants of the operands' sort, Max/Min and the comparisons on words
    def arith(w, wt):
        nodes = [N("Add", ["a", "b"], [w + "add"]), N("Sub", ["a", "b"], [w + "sub"]),
                 N("Mul", ["a", "b"], [w + "mul"]),
                 N("Neg", ["a"], [w + "neg"]), N("Div", ["a", "d"], [w + "div"]),
                 N("Mod", ["a", "d"], [w + "mod"]), N("Mod", ["a", "d"], [w + "fmod"], fmod=1),
                 N("Div", ["a", "k"], [w + "divk"]), N("Mul", ["a", "k"], [w + "mulk"]),
                 N("Max", ["a", "b", "k"], [w + "max"]), N("Min", ["a", "b"], [w + "min"]),
                 N("Pow", ["a", "e"], [w + "pow"]), N("Pow", ["b", "two"], [w + "sq"]),
                 N("Less", ["a", "b"], [w + "lt"]), N("GreaterOrEqual", ["a", "k"], [w + "ge"]),
                 N("Equal", ["a", "a2"], [w + "eq"]), N("Sub", ["k", "a"], [w + "subk"]),
                 N("Mul", ["big", "e"], [w + "cmul"])]
        outs = [(nd.output[0], None, B if nd.op_type in ("Less", "GreaterOrEqual", "Equal") else wt) for nd in nodes]
        return nodes, outs

    def ivals(wt, *rows):
        return np.array(rows, NPT[wt])

    for op_, wt, lo, hi, kk, ee, av, dv in (
            (13, I8, -128, 127, [[-1], [3]], [0, 1, 3],
             lambda c: [[-128, 127, -7, 100, -100, 5], [7, -8, 0, 127, -1, -128]][c],
             lambda c: [[-1, 2, 3, -7, 7, -3], [-2, 5, -128, 3, 1, -1]][c]),
            (13, U8, 0, 255, [[255], [3]], [0, 2, 5],
             lambda c: [[0, 255, 7, 200, 100, 5], [128, 1, 0, 255, 17, 3]][c],
             lambda c: [[1, 2, 3, 7, 255, 16], [3, 5, 128, 2, 1, 255]][c]),
            (13, TP.INT16, -32768, 32767, [[-1], [181]], [0, 1, 2],
             lambda c: [[-32768, 32767, -300, 1000, -999, 5], [300, -301, 0, 255, -1, -32768]][c],
             lambda c: [[-1, 2, 7, -13, 10, -3], [-2, 5, -128, 3, 1, -1]][c]),
            (13, I32, -4096, 4096, [[-1], [7]], [0, 1, 2],
             lambda c: [[-4096, 4095, -7, 100, -100, 5], [7, -8, 0, 127, -1, -4096]][c],
             lambda c: [[-1, 2, 3, -7, 7, -3], [-2, 5, -128, 3, 1, -1]][c])):
        w = {I8: "i8", U8: "u8", TP.INT16: "i16", I32: "i32"}[wt]
        na, oa = arith("", wt)
        model("o%d_arith_%s" % (op_, w), op_, na,
              [("a", [2, 3], wt), ("b", [3], wt), ("d", [2, 3], wt), ("a2", [2, 3], wt)], oa,
              [init("k", np.array(kk, NPT[wt])), init("e", np.array(ee, NPT[wt])), init("two", np.array(2, np.int64)),
               init("big", np.array([hi // 2 + 1], NPT[wt]))],
              ranges=[(lo, hi), (lo, hi), (lo, hi), (lo, hi)], ref=E,
              vals=(lambda av_, dv_, wt_: per_case(lambda c: ivals(wt_, av_(c)).reshape(2, 3), None,
                                                   lambda c: ivals(wt_, dv_(c)).reshape(2, 3),
                                                   lambda c: np.where(np.array([[1, 0, 1], [0, 1, 0]], bool),
                                                                      ivals(wt_, av_(c)).reshape(2, 3),
                                                                      ivals(wt_, av_(1 - c)).reshape(2, 3))))(av, dv, wt))

    # Gather of a non-constant tensor at indices in no arithmetic progression (repeated, reversed,
    # negative): a gather node with a constant index tensor
    model("o13_gather_any", 13,
          [N("Gather", ["x", "i0"], ["a"], axis=1), N("Gather", ["x", "i1"], ["b"], axis=0)],
          [("x", [3, 4])], [("a", [3, 2, 2]), ("b", [4, 4])],
          [init("i0", np.array([[3, 0], [-1, 3]], np.int64)), init("i1", np.array([2, 0, 2, -2], np.int64))], ref=E)
    # GatherND (indexAt) on words and Booleans: the elements move exactly
    model("o13_gathernd_sorts", 13,
          [N("GatherND", ["a", "i2"], ["ya"]), N("GatherND", ["b", "i1"], ["yb"])],
          [("a", [2, 3], TensorProto.INT8), ("b", [3, 2], TensorProto.BOOL)],
          [("ya", [3], TensorProto.INT8), ("yb", [2, 2], TensorProto.BOOL)],
          [init("i2", np.array([[1, 2], [0, 0], [1, -3]], np.int64)), init("i1", np.array([[2], [0]], np.int64))],
          ranges=[(-128, 127), (0, 1)], ref="exact")


def define_resize_models():
    """Upsample, Resize and ScatterND (their own draws: every earlier file stays as it was);
    nearest resizing and ScatterND without reduction move entries ("exact"), linear ones and the
    reductions round ("f64")."""
    rng = np.random.default_rng(20280115)
    TP = TensorProto
    E, F64 = "exact", "f64"
    f32 = lambda v: np.array(v, np.float32)
    i64 = lambda v: np.array(v, np.int64)
    x1234 = [("x", [1, 2, 3, 4])]
    yn = [("y", None)]

    def R(name, opset, inputs, inits=(), xin=None, yout=None, check=True, ref=E, ranges=None, **attrs):
        """a model of one Resize node named 'rs': X (XIN, default x1234) then INPUTS (names, ''
        for absent)"""
        model(name, opset, [N("Resize", ["x"] + inputs, ["y"], name="rs", **attrs)], xin or x1234, yout or yn,
              list(inits), check=check, ref=ref, ranges=ranges)

    def Wr(*shape):
        return (np.round(rng.uniform(-1, 1, size=shape) * 64) / 64).astype(np.float32)

    def noroi():
        return init("roi", np.zeros(0, np.float32))

    # Upsample: opset 9 (scales input; an integer upsampling is reshape, broadcast, reshape),
    # opset 7 in an opset 8 model (the scales attribute; 1.5 floors), linear (asymmetric)
    model("o9_upsample_nearest", 9, [N("Upsample", ["x", "s"], ["y"], name="up", mode="nearest")],
          [("x", [1, 2, 3, 3])], yn, [init("s", f32([1, 1, 2, 2]))], ref=E)
    model("o8_upsample_nearest_attr", 8, [N("Upsample", ["x"], ["y"], name="up", scales=[1.0, 1.0, 3.0, 1.5])],
          [("x", [1, 2, 2, 4])], yn, ref=E)
    model("o9_upsample_linear", 9, [N("Upsample", ["x", "s"], ["y"], name="up", mode="linear")],
          [("x", [1, 2, 3, 4])], yn, [init("s", f32([1, 1, 2, 1.5]))], ref=F64)
    model("o8_upsample_linear_attr", 8, [N("Upsample", ["x"], ["y"], name="up", mode="linear", scales=[1.0, 3.0])],
          [("x", [2, 3])], yn, ref=F64)
    # Resize-10: asymmetric; nearest floors upsamplings; an exact nearest downsampling by 1/2
    model("o10_resize_nearest", 10, [N("Resize", ["x", "s"], ["y"], name="rs")], x1234, yn,
          [init("s", f32([1, 1, 1.5, 0.5]))], ref=E)
    model("o10_resize_linear", 10, [N("Resize", ["x", "s"], ["y"], name="rs", mode="linear")], x1234, yn,
          [init("s", f32([1, 1, 0.6, 2.5]))], ref=F64)
    # nearest: every coordinate_transformation_mode and nearest_mode, scales and sizes, up and down
    R("o13_resize_nearest_scales", 13, ["", "s"], [init("s", f32([1, 1, 2, 1.5]))])
    R("o13_resize_nearest_down", 13, ["", "s"], [init("s", f32([1, 1, 0.6, 0.5]))], xin=[("x", [1, 1, 5, 6])])
    R("o13_resize_nearest_asym_floor", 13, ["", "", "z"], [init("z", i64([1, 2, 7, 5]))],
      coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    R("o13_resize_nearest_half_pixel_ceil", 13, ["", "", "z"], [init("z", i64([1, 2, 2, 7]))],
      nearest_mode="round_prefer_ceil")
    R("o13_resize_nearest_half_pixel_modes", 13, ["", "", "z"], [init("z", i64([1, 2, 5, 9]))], nearest_mode="ceil")
    R("o11_resize_nearest_align_corners", 11, ["roi", "sc", "z"],
      [noroi(), init("sc", np.zeros(0, np.float32)), init("z", i64([1, 2, 5, 7]))],
      coordinate_transformation_mode="align_corners", nearest_mode="floor")
    R("o13_resize_nearest_pytorch", 13, ["", "", "z"], [init("z", i64([1, 2, 1, 6]))],
      coordinate_transformation_mode="pytorch_half_pixel")
    R("o11_resize_nearest_tf_half_pixel", 11, ["roi", "s"], [noroi(), init("s", f32([1, 1, 2, 0.75]))],
      coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="round_prefer_ceil")
    R("o13_resize_nearest_tf_crop", 13, ["roi", "", "z"],
      [init("roi", f32([0, 0, -0.25, 0.2, 1, 1, 1.0, 1.1])), init("z", i64([1, 2, 4, 5]))],
      coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0)
    R("o13_resize_nearest_channels", 13, ["", "s"], [init("s", f32([2, 1.5, 1, 0.5]))])
    R("o13_resize_nearest_int8", 13, ["", "s"], [init("s", f32([1, 1, 2, 1.5]))],
      xin=[("x", [1, 2, 3, 4], TP.INT8)], yout=[("y", None, TP.INT8)], ranges=[(-100, 100)])
    model("o13_resize_identity", 13, [N("Resize", ["x", "", "s"], ["y"], name="rs", mode="linear")], x1234, yn,
          [init("s", f32([1, 1, 1, 1]))], ref=E)
    # the opset-18/19 attributes (axes, keep_aspect_ratio_policy, half_pixel_symmetric, antialias
    # on an upsampling) read in an opset 17 model: onnx.checker is skipped
    R("o17_resize_axes_not_larger", 17, ["", "", "z"], [init("z", i64([5, 9]))], check=False, axes=[2, 3],
      keep_aspect_ratio_policy="not_larger")
    R("o17_resize_axes_not_smaller", 17, ["", "", "z"], [init("z", i64([2, 9]))], check=False, axes=[-1, 2],
      keep_aspect_ratio_policy="not_smaller", nearest_mode="round_prefer_ceil")
    R("o17_resize_linear_symmetric", 17, ["", "s"], [init("s", f32([1.7, 1.25]))], check=False, ref=F64,
      mode="linear", axes=[2, 3], coordinate_transformation_mode="half_pixel_symmetric", antialias=1)
    # linear: half_pixel (bilinear, as PyTorch's align_corners=False), align_corners (weights k/3
    # and k/6: integer weights and a div), asymmetric down, pytorch_half_pixel on an extent of 1,
    # tf_crop_and_resize with extrapolation, three axes, exclude_outside
    R("o13_resize_linear_half_pixel", 13, ["", "s"], [init("s", f32([1, 1, 2, 2]))], ref=F64, mode="linear")
    R("o13_resize_linear_align_corners", 13, ["", "", "z"], [init("z", i64([1, 2, 4, 7]))], ref=F64, mode="linear",
      coordinate_transformation_mode="align_corners")
    R("o11_resize_linear_asymmetric", 11, ["roi", "s"], [noroi(), init("s", f32([1, 1, 0.6, 1.75]))], ref=F64,
      xin=[("x", [1, 2, 5, 4])], mode="linear", coordinate_transformation_mode="asymmetric")
    R("o13_resize_linear_pytorch", 13, ["", "", "z"], [init("z", i64([1, 2, 1, 6]))], ref=F64, mode="linear",
      coordinate_transformation_mode="pytorch_half_pixel")
    R("o13_resize_linear_tf_crop", 13, ["roi", "", "z"],
      [init("roi", f32([0, 0, 0.1, -0.2, 1, 1, 0.9, 1.3])), init("z", i64([1, 2, 4, 6]))], ref=F64, mode="linear",
      coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-2.5)
    R("o13_resize_linear_down_sizes", 13, ["", "", "z"], [init("z", i64([1, 2, 2, 3]))], ref=F64, mode="linear",
      exclude_outside=1)
    model("o13_resize_trilinear", 13, [N("Resize", ["x", "", "", "z"], ["y"], name="rs", mode="linear")],
          [("x", [1, 1, 2, 3, 4])], yn, [init("z", i64([1, 1, 3, 5, 6]))], ref=F64)
    # sizes from a shape computation (Shape, Slice, Mul, Concat fold away), and Size folded
    model("o13_resize_sizes_from_shape", 13,
          [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "b0", "b2"], ["nc"]), N("Slice", ["sh", "b2", "b4"], ["hw"]),
           N("Mul", ["hw", "two"], ["hw2"]), N("Concat", ["nc", "hw2"], ["z"], axis=0),
           N("Resize", ["x", "", "", "z"], ["y"], name="rs", mode="linear")],
          x1234, yn, [init("b0", i64([0])), init("b2", i64([2])), init("b4", i64([4])), init("two", i64([2]))],
          ref=F64)
    model("o13_size_fold", 13, [N("Size", ["x"], ["n"]), N("Cast", ["n"], ["nf"], to=TP.FLOAT),
                                N("Div", ["x", "nf"], ["y"])], x1234, yn, ref=F64)
    # ScatterND: slices (k = 1, a negative index), elements (k = rank), the reductions
    sidx = i64([[1], [-1]])
    model("o13_scatter_nd", 13, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")], [("x", [4, 3, 2])], yn,
          [init("i", sidx), init("u", Wr(2, 3, 2))], ref=E)
    model("o13_scatter_nd_elements", 13, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")], [("x", [4, 3, 2])],
          yn, [init("i", i64([[0, 1, 1], [3, 2, 0], [-2, 0, -1]])), init("u", Wr(3))], ref=E)
    model("o13_scatter_nd_update_input", 13, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")],
          [("x", [3, 4]), ("u", [2, 2])], yn, [init("i", i64([[[0, 3], [2, 1]], [[1, 1], [0, 0]]]))], ref=E)
    model("o16_scatter_nd_add", 16, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd", reduction="add")],
          [("x", [4, 3])], yn, [init("i", i64([[1], [3], [1]])), init("u", Wr(3, 3))], ref=F64)
    model("o16_scatter_nd_mul", 16, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd", reduction="mul")],
          [("x", [4, 3])], yn, [init("i", i64([[2, 0], [2, 0], [0, 1]])), init("u", f32([0.5, -2.0, 0.25]))], ref=E)
    model("o17_scatter_nd_max_min", 17,
          [N("ScatterND", ["x", "i", "u"], ["a"], name="smax", reduction="max"),
           N("ScatterND", ["x", "i", "u"], ["b"], name="smin", reduction="min")],
          [("x", [4, 3])], [("a", None), ("b", None)], [init("i", i64([[0], [2], [0]])), init("u", Wr(3, 3))],
          check=False, ref=E)
    model("o13_scatter_nd_bool", 13, [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")],
          [("x", [3, 2], TP.BOOL), ("u", [2, 2], TP.BOOL)], [("y", [3, 2], TP.BOOL)], [init("i", i64([[2], [0]]))],
          ranges=[(0, 1), (0, 1)], ref=E)


def write_models():
    d = os.path.join(OUT, "ops")
    os.makedirs(d, exist_ok=True)
    define_models()
    for k, (name, m, inputs, ranges) in enumerate(MODELS):
        with open(os.path.join(d, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        cases = []
        for c in range(2):
            specs = []
            explicit = VALS[name](c) if VALS[name] else None
            for j, (inp, (lo, hi)) in enumerate(zip(inputs, ranges)):
                n = int(np.prod([s if isinstance(s, int) else 1 for s in inp[1]]))
                et = inp[2] if len(inp) > 2 else TensorProto.FLOAT
                seed = 100000 + 100 * k + 10 * c + j
                if explicit is not None and explicit[j] is not None:
                    specs.append(("vals", np.asarray(explicit[j], dtype=np.float64).reshape(-1)))
                elif et not in (TensorProto.FLOAT, TensorProto.DOUBLE):
                    # integers in [lo, hi] (0 and 1 for BOOL), written as values
                    ilo, ihi = (0, 1) if et == TensorProto.BOOL else (int(lo), int(hi))
                    specs.append(("vals", np.random.default_rng(seed).integers(ilo, ihi + 1, size=n).astype(np.float64)))
                else:
                    kind = "gen64" if et == TensorProto.DOUBLE else "gen32"
                    specs.append((kind, n, seed, float(lo), float(hi)))
            cases.append(specs)
        write_ref(os.path.join(d, name + ".txt"), "ops/%s.onnx (opset %d)" % (name, m.opset_import[0].version),
                  cases, m, ref=REFKIND[name])
    with open(os.path.join(d, "LIST"), "w") as f:
        for name, _, _, _ in MODELS:
            f.write(name + "\n")
    print("ops: %d models" % len(MODELS))


# ---- malformed and unsupported models --------------------------------------------------------
def write_bad():
    d = os.path.join(OUT, "bad")
    os.makedirs(d, exist_ok=True)

    def save(name, nodes, inputs, outputs, inits=(), opset=13):
        ins = [vinfo(i[0], i[1], i[2] if len(i) > 2 else TensorProto.FLOAT) for i in inputs]
        outs = [vinfo(o[0], o[1]) for o in outputs]
        g = helper.make_graph(nodes, name, ins, outs, list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 7
        data = m.SerializeToString()
        with open(os.path.join(d, name + ".onnx"), "wb") as f:
            f.write(data)
        return data

    good = save("good", [N("Gemm", ["x", "w", "b"], ["y"], transB=1, name="fc")], [("x", [1, 4])], [("y", [1, 3])],
                [init("w", W(3, 4)), init("b", W(3))])
    with open(os.path.join(d, "truncated.onnx"), "wb") as f:
        f.write(good[:len(good) // 2])
    with open(os.path.join(d, "empty.onnx"), "wb") as f:
        pass
    rnd = np.random.default_rng(7).integers(0, 256, size=512, dtype=np.uint8).tobytes()
    with open(os.path.join(d, "random.onnx"), "wb") as f:
        f.write(b"\xff\xff\xff\xff" + rnd)
    save("softmax", [N("Relu", ["x"], ["r"], name="n1"), N("Softmax", ["r"], ["y"], name="n3")],
         [("x", [1, 4])], [("y", [1, 4])])
    save("lstm", [N("LSTM", ["x", "w", "r"], ["y"], name="rnn", hidden_size=2)], [("x", [1, 1, 2])],
         [("y", None)], [init("w", W(1, 8, 2)), init("r", W(1, 8, 2))])
    save("domain", [N("Relu", ["x"], ["y"], name="custom", domain="com.example")], [("x", [2])], [("y", [2])])
    save("pad_reflect", [N("Pad", ["x", "p"], ["y"], name="padder", mode="reflect")], [("x", [2, 3])],
         [("y", [2, 5])], [init("p", np.array([0, 1, 0, 1], np.int64))], opset=11)
    save("maxpool_ceil", [N("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
         [("x", [1, 1, 5, 5])], [("y", [1, 1, 3, 3])], opset=11)
    save("unknown_attr", [N("Relu", ["x"], ["y"], name="r", alpha=0.1)], [("x", [2])], [("y", [2])])
    # external data: the initializer points to a file
    ext = init("w", W(3, 4))
    ext.ClearField("raw_data")
    ext.data_location = TensorProto.EXTERNAL
    e = ext.external_data.add()
    e.key, e.value = "location", "weights.bin"
    save("external", [N("Gemm", ["x", "w"], ["y"], transB=1, name="fc")], [("x", [1, 4])], [("y", [1, 3])], [ext])
    save("missing_init", [N("MatMul", ["x", "w"], ["m"], name="mm"), N("Add", ["m", "bias"], ["y"], name="add")],
         [("x", [1, 4])], [("y", [1, 3])], [init("w", W(4, 3))])
    save("matmul_shape", [N("MatMul", ["x", "w"], ["y"], name="mm")], [("x", [1, 5])], [("y", [1, 3])],
         [init("w", W(4, 3))])
    save("add_shape", [N("Add", ["x", "c"], ["y"], name="add")], [("x", [2, 3])], [("y", [2, 3])],
         [init("c", W(4))])
    nanw = W(3, 4)
    nanw[1, 2] = np.nan
    # Div of two constants whose quotient is not a binary64 number (1/3): folding would round it,
    # so the div stays a node (the model imports; tests/check_onnx.c checks its nodes).
    save("inexact_fold", [N("Div", ["one", "three"], ["third"], name="scale"),
                          N("Mul", ["x", "third"], ["y"], name="mul")],
         [("x", [1, 3])], [("y", [1, 3])],
         [init("one", np.ones([1, 3], np.float32)), init("three", np.full([1, 3], 3, np.float32))])
    save("nan_weight", [N("Gemm", ["x", "w", "b"], ["y"], transB=1, name="fc")], [("x", [1, 4])], [("y", [1, 3])],
         [init("w", nanw), init("b", W(3))])
    short = init("w", W(3, 4))
    short.raw_data = short.raw_data[:-4]
    save("raw_size", [N("Gemm", ["x", "w"], ["y"], transB=1, name="fc")], [("x", [1, 4])], [("y", [1, 3])], [short])
    save("complex_weight", [N("MatMul", ["x", "w"], ["y"], name="mm")], [("x", [1, 4])],
         [("y", [1, 3])], [init("w", W(4, 3).astype(np.complex64))])
    save("unused_raw_size", [N("Relu", ["x"], ["y"], name="r")], [("x", [1, 4])], [("y", [1, 4])], [short])
    save("int_input", [N("Relu", ["x"], ["y"], name="r")], [("x", [2], TensorProto.INT64)], [("y", [2])])
    save("opset18", [N("Relu", ["x"], ["y"], name="r")], [("x", [2])], [("y", [2])], opset=18)
    # attribute values and uses of the operators imported since that are refused
    gi = np.array([[0, 1], [1, -1]], np.int64)
    save("mod_fmod2", [N("Mod", ["x", "m"], ["y"], name="modulo", fmod=2)], [("x", [2, 3])], [("y", [2, 3])],
         [init("m", np.array(0.75, np.float32))])
    save("clip_input_bound", [N("Clip", ["x", "lo"], ["y"], name="clamp")], [("x", [2, 3]), ("lo", [])],
         [("y", [2, 3])], opset=11)
    save("shrink_bias", [N("Shrink", ["x"], ["y"], name="shr", lambd=0.5, bias=0.25)], [("x", [2, 3])],
         [("y", [2, 3])])
    save("topk_indices", [N("TopK", ["x", "k"], ["v", "ix"], name="top")], [("x", [2, 4])],
         [("v", [2, 2]), ("ix", [2, 2], TensorProto.INT64)], [init("k", np.array([2], np.int64))])
    save("cumsum_exclusive", [N("CumSum", ["x", "a"], ["y"], name="cs", exclusive=1)], [("x", [2, 3])],
         [("y", [2, 3])], [init("a", np.array(1, np.int64))])
    save("gathernd_batch_dims", [N("GatherND", ["x", "i"], ["y"], name="gnd", batch_dims=1)], [("x", [2, 3, 4])],
         [("y", None)], [init("i", gi)])
    # Trilu of a graph input: a select with a constant mask (it imports; check_onnx.c checks it)
    save("trilu_input", [N("Trilu", ["x"], ["y"], name="tri")], [("x", [3, 4])], [("y", [3, 4])], opset=14)
    # the operators on the new rules: attributes and uses that are refused
    TP = TensorProto
    x23 = [("x", [2, 3])]
    y23 = [("y", [2, 3])]
    save("isinf_none", [N("IsInf", ["x"], ["y"], name="inf", detect_positive=0, detect_negative=0)], x23, y23)
    save("bitshift_signed", [N("BitShift", ["x", "s"], ["y"], name="shift", direction="LEFT")],
         [("x", [2, 3], TP.INT8), ("s", [2, 3], TP.INT8)], y23)
    save("bitshift_no_direction", [N("BitShift", ["x", "s"], ["y"], name="shift")],
         [("x", [2, 3], TP.UINT8), ("s", [2, 3], TP.UINT8)], y23)
    save("bitshift_broadcast", [N("BitShift", ["x", "s"], ["y"], name="shift", direction="RIGHT")],
         [("x", [2, 3], TP.UINT8), ("s", [3], TP.UINT8)], y23)
    save("where_int", [N("Where", ["c", "a", "b"], ["y"], name="sel")],
         [("c", [2, 3], TP.BOOL), ("a", [2, 3], TP.INT32), ("b", [2, 3], TP.INT32)], y23)
    save("less_int", [N("Less", ["a", "b"], ["y"], name="lt")], [("a", [2, 3], TP.INT32), ("b", [2, 3], TP.INT32)], y23)
    save("and_float", [N("And", ["x", "z"], ["y"], name="conj")], x23 + [("z", [2, 3])], y23)
    save("relu_bool", [N("Relu", ["b"], ["y"], name="r")], [("b", [2, 3], TP.BOOL)], y23)
    save("cast_string", [N("Cast", ["x"], ["y"], name="text", to=TP.STRING)], x23, y23)
    save("convtranspose_odd_output_shape", [N("ConvTranspose", ["x", "w"], ["y"], name="up", strides=[2, 2],
                                               output_shape=[6, 6])],
         [("x", [1, 1, 3, 3])], [("y", [1, 1, 6, 6])], [init("w", W(1, 1, 3, 3))])
    save("convtranspose_same_odd", [N("ConvTranspose", ["x", "w"], ["y"], name="up", strides=[2, 2],
                                       auto_pad="SAME_LOWER")],
         [("x", [1, 1, 3, 3])], [("y", [1, 1, 6, 6])], [init("w", W(1, 1, 3, 3))])
    save("random_noseed", [N("RandomUniform", [], ["u"], name="draw", shape=[2, 3]), N("Add", ["x", "u"], ["y"])],
         x23, y23)
    save("random_seed_frac", [N("RandomNormalLike", ["x"], ["y"], name="draw", seed=1.5)], x23, y23)
    save("random_dtype", [N("RandomUniform", [], ["y"], name="draw", shape=[2, 3], seed=1.0, dtype=TP.FLOAT16)],
         x23, y23)
    save("dft_inverse", [N("DFT", ["x"], ["y"], name="fft", onesided=1, inverse=1)], [("x", [1, 8, 1])],
         [("y", None)], opset=17)
    save("dft_twosided", [N("DFT", ["x"], ["y"], name="fft")], [("x", [1, 8, 1])], [("y", None)], opset=17)
    save("dft_complex", [N("DFT", ["x"], ["y"], name="fft", onesided=1)], [("x", [1, 8, 2])], [("y", None)],
         opset=17)
    save("einsum_ellipsis", [N("Einsum", ["x", "z"], ["y"], name="ein", equation="...ij,...jk->...ik")],
         [("x", [2, 2, 3]), ("z", [2, 3, 2])], [("y", None)], opset=12)
    save("einsum_diagonal", [N("Einsum", ["x"], ["y"], name="ein", equation="ii->i")], [("x", [3, 3])],
         [("y", None)], opset=12)
    save("einsum_three", [N("Einsum", ["x", "x", "x"], ["y"], name="ein", equation="ij,jk,kl->il")],
         [("x", [3, 3])], [("y", None)], opset=12)
    save("topk_unsorted", [N("TopK", ["x", "k"], ["v", "ix"], name="top", sorted=0)], [("x", [2, 4])],
         [("v", [2, 2]), ("ix", [2, 2], TensorProto.INT64)], [init("k", np.array([2], np.int64))])
    # data movement of Booleans and words: mixed sorts, a Boolean scatter that is not a
    # replacement, padding values outside the sort
    save("concat_sorts", [N("Concat", ["b", "i"], ["y"], name="cat", axis=0)],
         [("b", [2, 3], TP.BOOL), ("i", [2, 3], TP.INT32)], [("y", [4, 3])])
    save("where_sorts", [N("Where", ["c", "a", "x"], ["y"], name="sel")],
         [("c", [2, 3], TP.BOOL), ("a", [2, 3], TP.UINT8), ("x", [2, 3])], y23)
    save("scatter_bool_add", [N("ScatterElements", ["b", "k", "u"], ["y"], name="sc", reduction="add")],
         [("b", [2, 3], TP.BOOL), ("u", [1, 3], TP.BOOL)], y23, [init("k", np.array([[1, 0, 1]], np.int64))], opset=16)
    save("pad_bool_value", [N("Pad", ["b"], ["y"], name="padder", pads=[0, 1, 0, 0], value=0.5)],
         [("b", [2, 3], TP.BOOL)], [("y", [2, 4])], opset=8)
    save("pad_value_sort", [N("Pad", ["a", "p", "v"], ["y"], name="padder")], [("a", [2, 3], TP.INT8)], [("y", [2, 4])],
         [init("p", np.array([0, 1, 0, 0], np.int64)), init("v", np.array(3, np.int32))], opset=13)
    # integer arithmetic: Booleans have none, operands of one sort, integer exponents in the base's sort
    save("add_bool", [N("Add", ["b", "c"], ["y"], name="plus")], [("b", [2, 3], TP.BOOL), ("c", [2, 3], TP.BOOL)], y23)
    save("add_sorts", [N("Add", ["a", "i"], ["y"], name="plus")], [("a", [2, 3], TP.INT32), ("i", [3], TP.INT64)], y23)
    save("mul_float_int", [N("Mul", ["x", "k"], ["y"], name="times")], x23, y23, [init("k", np.array([2], np.int64))])
    save("pow_exponent_range", [N("Pow", ["a", "e"], ["y"], name="power")], [("a", [2, 3], TP.INT8)], y23,
         [init("e", np.array([300], np.int64))])
    save("neg_bool", [N("Neg", ["b"], ["y"], name="minus")], [("b", [2, 3], TP.BOOL)], y23)
    # Upsample, Resize and ScatterND: what is refused (cubic, antialias on a downsampling, scales
    # and sizes that are not constants, readings where the specification and its reference
    # differ, an ambiguous output extent, repeated indices without a reduction)
    x4 = [("x", [1, 1, 4, 4])]
    yy = [("y", None)]
    f32c = lambda v: np.array(v, np.float32)
    i64c = lambda v: np.array(v, np.int64)
    save("resize_cubic", [N("Resize", ["x", "", "s"], ["y"], name="rs", mode="cubic")], x4, yy,
         [init("s", f32c([1, 1, 2, 2]))])
    save("resize_antialias", [N("Resize", ["x", "", "s"], ["y"], name="rs", mode="linear", antialias=1)], x4, yy,
         [init("s", f32c([1, 1, 0.5, 0.5]))], opset=17)
    save("resize_scales_input", [N("Resize", ["x", "", "s"], ["y"], name="rs")], x4 + [("s", [4])], yy)
    save("resize_sizes_input", [N("Resize", ["x", "", "", "z"], ["y"], name="rs")], x4 + [("z", [4], TP.INT64)], yy)
    save("resize_both", [N("Resize", ["x", "", "s", "z"], ["y"], name="rs")], x4, yy,
         [init("s", f32c([1, 1, 2, 2])), init("z", i64c([1, 1, 8, 8]))])
    save("resize_align_corners_scale", [N("Resize", ["x", "", "s"], ["y"], name="rs", mode="linear",
                                          coordinate_transformation_mode="align_corners")], x4, yy,
         [init("s", f32c([1, 1, 1.6, 1]))])
    save("resize_pytorch_extent1", [N("Resize", ["x", "", "s"], ["y"], name="rs",
                                      coordinate_transformation_mode="pytorch_half_pixel")], x4, yy,
         [init("s", f32c([1, 1, 0.4, 1]))])
    save("resize_extent_binary32", [N("Resize", ["x", "", "s"], ["y"], name="rs")], [("x", [1, 1, 10, 4])], yy,
         [init("s", f32c([1, 1, 0.7, 1]))])
    save("resize10_nearest_down", [N("Resize", ["x", "s"], ["y"], name="rs")], x4, yy,
         [init("s", f32c([1, 1, 0.6, 1]))], opset=10)
    save("resize10_attr", [N("Resize", ["x", "s"], ["y"], name="rs", coordinate_transformation_mode="asymmetric")],
         x4, yy, [init("s", f32c([1, 1, 2, 2]))], opset=10)
    save("resize_exclude_nearest", [N("Resize", ["x", "", "", "z"], ["y"], name="rs", exclude_outside=1,
                                      coordinate_transformation_mode="pytorch_half_pixel")], x4, yy,
         [init("z", i64c([1, 1, 1, 4]))])
    save("resize_linear_int", [N("Resize", ["x", "", "s"], ["y"], name="rs", mode="linear")],
         [("x", [1, 1, 4, 4], TP.INT32)], yy, [init("s", f32c([1, 1, 2, 2]))])
    save("resize_tf_half_pixel_o13", [N("Resize", ["x", "", "s"], ["y"], name="rs",
                                        coordinate_transformation_mode="tf_half_pixel_for_nn")], x4, yy,
         [init("s", f32c([1, 1, 2, 2]))])
    save("upsample_below_one", [N("Upsample", ["x", "s"], ["y"], name="up")], x4, yy,
         [init("s", f32c([1, 1, 0.5, 1]))], opset=9)
    save("upsample_scales_input", [N("Upsample", ["x", "s"], ["y"], name="up")], x4 + [("s", [4])], yy, opset=9)
    save("scatter_nd_duplicate", [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")], [("x", [4, 3])], yy,
         [init("i", i64c([[1], [2], [1]])), init("u", np.ones((3, 3), np.float32))])
    # ScatterElements along axis 1: positions [0, 0] and [0, 2] both write entry [0, 1]
    save("scatter_elements_duplicate", [N("ScatterElements", ["x", "i", "u"], ["y"], name="sel", axis=1)],
         [("x", [2, 3])], yy, [init("i", i64c([[1, 0, 1], [2, 0, 1]])), init("u", np.ones((2, 3), np.float32))])
    save("scatter_nd_indices_input", [N("ScatterND", ["x", "i", "u"], ["y"], name="snd")],
         [("x", [4, 3]), ("i", [2, 1], TP.INT64), ("u", [2, 3])], yy)
    save("scatter_nd_bool_add", [N("ScatterND", ["b", "i", "u"], ["y"], name="snd", reduction="add")],
         [("b", [4, 3], TP.BOOL), ("u", [1, 3], TP.BOOL)], yy, [init("i", i64c([[1]]))], opset=16)
    print("bad: written")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchmarks", default=os.path.join(TOP, "..", "shared", "benchmarks"))
    args = ap.parse_args()
    write_models()
    write_bad()
    if os.path.isdir(args.benchmarks):
        benchmark_refs(args.benchmarks)
    else:
        print("no benchmarks at %s: ref/ not regenerated" % args.benchmarks, file=sys.stderr)


if __name__ == "__main__":
    main()
