#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small ONNX -> torch.nn.Module converter for the benchmark networks.

It covers the operators that the VNN-COMP networks under ../shared/benchmarks use:
Sub, Add, Flatten, MatMul (constant weight on either side, 1-D input allowed), Gemm
(alpha, beta, transA, transB), Conv (1-D/2-D, pads, strides, dilations, group), Relu,
Tanh, Sigmoid, Softplus, Elu, LeakyRelu (alpha), Reshape (constant shape) and Constant.  Any other operator is refused with an error that
names the operator and the node.

The module computes in float64: every constant (the float32 initializers of the benchmark
networks convert to float64 exactly) becomes a float64 parameter or buffer, and the returned
module has been through model.double().

A MatMul (or Gemm) with a constant weight becomes an nn.Linear, and when its only consumer
is an Add of a constant vector of the output width that Add is folded into the Linear's bias.
Folding changes nothing in exact arithmetic; it gives auto_LiRPA the same one-node-per-layer
graph that it gets from a PyTorch-built network.

Command line (checks the conversion against an independent numpy float64 forward):
    /usr/bin/python3 benchmarks/onnx_to_torch.py [--selftest] [NET.onnx ...] [--samples N] [--tol T]
"""

import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

SUPPORTED = ("Sub", "Add", "Flatten", "MatMul", "Gemm", "Conv", "Relu", "Reshape", "Constant",
             "Tanh", "Sigmoid", "Softplus", "Elu", "LeakyRelu", "Dropout")


class ConvertError(Exception):
    """An ONNX construct that this converter does not handle."""


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _err(node, msg):
    return ConvertError("%s (node %r): %s" % (node.op_type, node.name or node.output[0], msg))


def load_constants(model):
    """Returns {name: float64/int64 numpy array} for every initializer and Constant output."""
    consts = {}
    for init in model.graph.initializer:
        consts[init.name] = numpy_helper.to_array(init)
    for node in model.graph.node:
        if node.op_type == "Constant":
            a = _attrs(node)
            if "value" not in a:
                raise _err(node, "only the 'value' attribute is supported")
            consts[node.output[0]] = numpy_helper.to_array(a["value"])
    out = {}
    for k, v in consts.items():
        if v.dtype.kind == "f":
            out[k] = v.astype(np.float64)
        else:
            out[k] = v.astype(np.int64)
    return out


def graph_inputs(model):
    """The real inputs (graph inputs that are not initializers): list of (name, shape)."""
    inits = {i.name for i in model.graph.initializer}
    res = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        dims = []
        for d in vi.type.tensor_type.shape.dim:
            dims.append(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1)
        res.append((vi.name, tuple(dims)))
    return res


# ---------------------------------------------------------------------------------------------
# torch modules, one per converted node.  Each takes and returns tensors only, so that
# torch.jit.trace (which auto_LiRPA uses to read the graph) sees plain tensor operations.

class _Const(nn.Module):
    def __init__(self, value):
        super().__init__()
        self.register_buffer("value", torch.from_numpy(np.ascontiguousarray(value)))

    def forward(self):
        return self.value


class _AddConst(nn.Module):
    """x + c, c - x, x - c (sign and order fixed at conversion)."""

    def __init__(self, c, mode):
        super().__init__()
        self.register_buffer("c", torch.from_numpy(np.ascontiguousarray(c)))
        self.mode = mode

    def forward(self, x):
        if self.mode == "x+c":
            return x + self.c
        if self.mode == "x-c":
            return x - self.c
        return self.c - x


class _Binary(nn.Module):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, a, b):
        if self.op == "Add":
            return a + b
        if self.op == "Sub":
            return a - b
        return torch.matmul(a, b)


class _Flatten(nn.Module):
    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        axis = self.axis if self.axis >= 0 else self.axis + x.dim()
        if axis == 1:
            return torch.flatten(x, 1)
        lead = 1
        for s in x.shape[:axis]:
            lead *= int(s)
        return x.reshape(lead, -1)


class _Reshape(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.shape = [int(s) for s in shape]

    def forward(self, x):
        shape = [int(x.shape[i]) if s == 0 else s for i, s in enumerate(self.shape)]
        return x.reshape(shape)


class _Pad(nn.Module):
    def __init__(self, pads):
        super().__init__()
        self.pads = pads

    def forward(self, x):
        return F.pad(x, self.pads)


class _Transpose2(nn.Module):
    def forward(self, x):
        return x.t()


class _Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = float(s)

    def forward(self, x):
        return x * self.s


class ONNXModule(nn.Module):
    """Executes the converted nodes in ONNX order.  steps[i] = (module index, input names,
    output name); modules without inputs are constants."""

    def __init__(self, input_names, output_names, mods, steps):
        super().__init__()
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.mods = nn.ModuleList(mods)
        self.steps = steps

    def forward(self, *xs):
        env = dict(zip(self.input_names, xs))
        for idx, ins, out in self.steps:
            env[out] = self.mods[idx](*[env[n] for n in ins])
        outs = [env[n] for n in self.output_names]
        return outs[0] if len(outs) == 1 else tuple(outs)


def _linear(weight_out_in, bias):
    """nn.Linear with weight [out, in] and bias [out] or None, float64."""
    out_f, in_f = weight_out_in.shape
    lin = nn.Linear(in_f, out_f, bias=bias is not None).double()
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight_out_in)))
        if bias is not None:
            lin.bias.copy_(torch.from_numpy(np.ascontiguousarray(bias)))
    return lin


def _bias_vector(c, width):
    """c as a [width] vector when adding c to a [..., width] tensor broadcasts exactly like a
    bias (c has width elements along its last axis and size 1 elsewhere), else None."""
    if c.ndim == 0 or c.shape[-1] != width or c.size != width:
        return None
    return c.reshape(width)


def convert(model, fold_bias=True):
    """Converts an onnx.ModelProto (or a path) into an ONNXModule in float64.
    Returns (module, [(input name, shape)])."""
    if isinstance(model, str):
        model = onnx.load(model)
    g = model.graph
    consts = load_constants(model)
    inputs = graph_inputs(model)
    consumers = {}
    for node in g.node:
        for n in node.input:
            consumers.setdefault(n, []).append(node)
    graph_outs = {o.name for o in g.output}

    mods, steps = [], []
    folded = set()  # Add nodes already folded into a Linear bias

    def emit(mod, ins, out):
        mods.append(mod)
        steps.append((len(mods) - 1, list(ins), out))

    def fold_add(node, width):
        """If NODE's output goes only to an Add of a constant bias vector, returns (bias, add
        node) and marks the Add as folded; else (None, None)."""
        out = node.output[0]
        if not fold_bias or out in graph_outs:
            return None, None
        cs = consumers.get(out, [])
        if len(cs) != 1 or cs[0].op_type != "Add":
            return None, None
        add = cs[0]
        other = add.input[1] if add.input[0] == out else add.input[0]
        if other not in consts or add.input[0] == add.input[1]:
            return None, None
        b = _bias_vector(consts[other], width)
        if b is None:
            return None, None
        folded.add(id(add))
        return b, add

    for node in g.node:
        op = node.op_type
        a = _attrs(node)
        if id(node) in folded:
            continue
        if op not in SUPPORTED:
            raise _err(node, "operator not supported by onnx_to_torch")
        if op == "Constant":
            continue  # its value is in consts
        ins = list(node.input)
        out = node.output[0]
        if all(n in consts for n in ins if n):
            raise _err(node, "node with only constant inputs (constant folding not supported)")

        if op in ("Add", "Sub"):
            x0, x1 = ins
            if x1 in consts:
                emit(_AddConst(consts[x1], "x+c" if op == "Add" else "x-c"), [x0], out)
            elif x0 in consts:
                emit(_AddConst(consts[x0], "x+c" if op == "Add" else "c-x"), [x1], out)
            else:
                emit(_Binary(op), [x0, x1], out)

        elif op == "Relu":
            emit(nn.ReLU(), ins, out)

        elif op == "Tanh":
            emit(nn.Tanh(), ins, out)

        elif op == "Sigmoid":
            emit(nn.Sigmoid(), ins, out)

        elif op == "Softplus":
            emit(nn.Softplus(), ins, out)

        elif op == "Elu":
            emit(nn.ELU(alpha=float(a.get("alpha", 1.0))), ins, out)

        elif op == "LeakyRelu":
            emit(nn.LeakyReLU(negative_slope=float(a.get("alpha", 0.01))), ins, out)

        elif op == "Flatten":
            emit(_Flatten(int(a.get("axis", 1))), ins, out)

        elif op == "Dropout":
            # inference: the identity, unless training_mode is given and not a constant false, or the
            # mask output is read
            if len(ins) > 2 and ins[2] and (ins[2] not in consts or bool(consts[ins[2]].reshape(-1)[0])):
                raise _err(node, "training_mode must be a constant false")
            if len(node.output) > 1 and node.output[1] and (
                    any(node.output[1] in n.input for n in g.node) or any(node.output[1] == o.name for o in g.output)):
                raise _err(node, "the mask output is not supported")
            emit(nn.Identity(), [ins[0]], out)

        elif op == "Reshape":
            if ins[1] not in consts:
                raise _err(node, "the shape must be a constant")
            if int(a.get("allowzero", 0)) != 0:
                raise _err(node, "allowzero=1 is not supported")
            emit(_Reshape(consts[ins[1]].reshape(-1).tolist()), [ins[0]], out)

        elif op == "MatMul":
            x0, x1 = ins
            if x1 in consts and consts[x1].ndim == 2:
                # y = x W with W [in, out]: Linear with weight W^T.
                w = consts[x1]
                b, add = fold_add(node, w.shape[1])
                emit(_linear(w.T, b), [x0], add.output[0] if add is not None else out)
            elif x0 in consts and consts[x0].ndim == 2:
                # y = W x with W [out, in] and x 1-D [in] (or X [in, k]): F.linear(x, W) = W x
                # for a vector.  No bias folding here: the rank of x is not known at this point,
                # and for a matrix X the Add would broadcast along the other axis.
                emit(_LeftLinear(_linear(consts[x0], None)), [x1], out)
            else:
                emit(_Binary("MatMul"), [x0, x1], out)

        elif op == "Gemm":
            alpha = float(a.get("alpha", 1.0))
            beta = float(a.get("beta", 1.0))
            x0, x1 = ins[0], ins[1]
            c = ins[2] if len(ins) > 2 and ins[2] else None
            if x1 not in consts:
                raise _err(node, "B must be a constant")
            w = consts[x1]
            w = w if int(a.get("transB", 0)) else w.T  # now [out, in]
            if alpha != 1.0:
                w = alpha * w
            bias = None
            if c is not None:
                if c not in consts:
                    raise _err(node, "C must be a constant")
                bias = _bias_vector(consts[c], w.shape[0])
                if bias is None:
                    raise _err(node, "C must broadcast like a bias vector")
                if beta != 1.0:
                    bias = beta * bias
            src = x0
            if int(a.get("transA", 0)):
                emit(_Transpose2(), [x0], out + "__transA")
                src = out + "__transA"
            if bias is None:
                b, add = fold_add(node, w.shape[0])
                emit(_linear(w, b), [src], add.output[0] if add is not None else out)
            else:
                emit(_linear(w, bias), [src], out)

        elif op == "Conv":
            x0, x1 = ins[0], ins[1]
            bname = ins[2] if len(ins) > 2 and ins[2] else None
            if x1 not in consts or (bname is not None and bname not in consts):
                raise _err(node, "weight and bias must be constants")
            w = consts[x1]
            nd = w.ndim - 2
            if nd not in (1, 2):
                raise _err(node, "only 1-D and 2-D convolutions are supported")
            auto_pad = a.get("auto_pad", b"NOTSET")
            if isinstance(auto_pad, bytes):
                auto_pad = auto_pad.decode()
            if auto_pad not in ("NOTSET", "VALID"):
                raise _err(node, "auto_pad=%s is not supported" % auto_pad)
            pads = list(a.get("pads", [0] * (2 * nd))) if auto_pad == "NOTSET" else [0] * (2 * nd)
            strides = list(a.get("strides", [1] * nd))
            dil = list(a.get("dilations", [1] * nd))
            group = int(a.get("group", 1))
            if "kernel_shape" in a and list(a["kernel_shape"]) != list(w.shape[2:]):
                raise _err(node, "kernel_shape disagrees with the weight")
            begin, end = pads[:nd], pads[nd:]
            cls = nn.Conv1d if nd == 1 else nn.Conv2d
            conv = cls(w.shape[1] * group, w.shape[0], tuple(w.shape[2:]), stride=tuple(strides),
                       padding=tuple(begin) if begin == end else 0, dilation=tuple(dil),
                       groups=group, bias=bname is not None).double()
            with torch.no_grad():
                conv.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
                if bname is not None:
                    conv.bias.copy_(torch.from_numpy(consts[bname].reshape(-1)))
            src = x0
            if begin != end:
                # F.pad takes (last-axis begin, last-axis end, previous axis begin, ...).
                fp = []
                for i in reversed(range(nd)):
                    fp += [begin[i], end[i]]
                emit(_Pad(fp), [x0], out + "__pad")
                src = out + "__pad"
            emit(conv, [src], out)

    module = ONNXModule([n for n, _ in inputs], [o.name for o in g.output], mods, steps)
    module = module.double()
    module.eval()
    return module, inputs


class _LeftLinear(nn.Module):
    """y = W x for a constant W (held by LIN, weight [out, in]) and a 1-D x, or W X for a 2-D X."""

    def __init__(self, lin):
        super().__init__()
        self.lin = lin

    def forward(self, x):
        if x.dim() == 1:
            return self.lin(x)
        return self.lin(x.t()).t()


# ---------------------------------------------------------------------------------------------
# Independent numpy float64 forward, used only to check the conversion.

def _np_conv(x, w, b, strides, pads, dil, group):
    nd = w.ndim - 2
    if nd == 1:
        x = x[:, :, None, :]
        w = w[:, :, None, :]
        strides, dil = [1] + list(strides), [1] + list(dil)
        pads = [0, pads[0], 0, pads[1]]
    n, c, h, wd = x.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    m, cg, kh, kw = w.shape
    oh = (x.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (x.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for gi in range(group):
        xs = x[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * mg:(gi + 1) * mg]
        cols = np.empty((n, cg, kh, kw, oh, ow))
        for i in range(kh):
            for j in range(kw):
                cols[:, :, i, j] = xs[:, :, i * dil[0]:i * dil[0] + strides[0] * (oh - 1) + 1:strides[0],
                                      j * dil[1]:j * dil[1] + strides[1] * (ow - 1) + 1:strides[1]]
        y[:, gi * mg:(gi + 1) * mg] = np.einsum("ncklij,mckl->nmij", cols, ws)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    if nd == 1:
        y = y[:, :, 0, :]
    return y


def numpy_forward(model, feeds):
    """Evaluates the ONNX graph on FEEDS {input name: float64 array} with numpy."""
    if isinstance(model, str):
        model = onnx.load(model)
    env = dict(load_constants(model))
    env.update(feeds)
    for node in model.graph.node:
        op = node.op_type
        a = _attrs(node)
        x = [env[n] if n else None for n in node.input]
        if op == "Constant":
            continue
        if op == "Add":
            y = x[0] + x[1]
        elif op == "Sub":
            y = x[0] - x[1]
        elif op == "Relu":
            y = np.maximum(x[0], 0.0)
        elif op == "Tanh":
            y = np.tanh(x[0])
        elif op == "Sigmoid":
            y = 1.0 / (1.0 + np.exp(-x[0]))
        elif op == "Softplus":
            y = np.logaddexp(0.0, x[0])
        elif op == "Elu":
            al = float(a.get("alpha", 1.0))
            y = np.where(x[0] > 0, x[0], al * np.expm1(np.minimum(x[0], 0.0)))
        elif op == "LeakyRelu":
            al = float(a.get("alpha", 0.01))
            y = np.where(x[0] >= 0, x[0], al * x[0])
        elif op == "Flatten":
            ax = int(a.get("axis", 1))
            ax = ax if ax >= 0 else ax + x[0].ndim
            y = x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)
        elif op == "Reshape":
            shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(x[1].tolist())]
            y = x[0].reshape(shape)
        elif op == "MatMul":
            y = np.matmul(x[0], x[1])
        elif op == "Gemm":
            A = x[0].T if int(a.get("transA", 0)) else x[0]
            B = x[1].T if int(a.get("transB", 0)) else x[1]
            y = float(a.get("alpha", 1.0)) * (A @ B)
            if len(x) > 2 and x[2] is not None:
                y = y + float(a.get("beta", 1.0)) * x[2]
        elif op == "Conv":
            w = x[1]
            nd = w.ndim - 2
            y = _np_conv(x[0], w, x[2] if len(x) > 2 else None, list(a.get("strides", [1] * nd)),
                         list(a.get("pads", [0] * (2 * nd))), list(a.get("dilations", [1] * nd)),
                         int(a.get("group", 1)))
        else:
            raise _err(node, "not in the numpy reference")
        env[node.output[0]] = y
    return [env[o.name] for o in model.graph.output]


def check(path, samples=4, lo=None, hi=None, seed=0):
    """Max |torch - numpy| over SAMPLES random inputs (uniform in [lo, hi] when given, else
    standard normal) and the max |numpy output| seen.  Returns (max_abs_diff, max_abs_out)."""
    model = onnx.load(path)
    module, inputs = convert(model)
    rng = np.random.default_rng(seed)
    worst, big = 0.0, 0.0
    for _ in range(samples):
        feeds = {}
        for name, shape in inputs:
            n = int(np.prod(shape))
            if lo is not None and len(inputs) == 1:
                v = lo + (hi - lo) * rng.random(n)
            else:
                v = rng.standard_normal(n)
            feeds[name] = v.reshape(shape)
        ref = numpy_forward(model, feeds)
        with torch.no_grad():
            got = module(*[torch.from_numpy(feeds[n]) for n, _ in inputs])
        got = [got] if isinstance(got, torch.Tensor) else list(got)
        for r, t in zip(ref, got):
            t = t.numpy()
            if t.dtype != np.float64 or t.shape != r.shape:
                raise ConvertError("%s: output dtype/shape %s %s != float64 %s"
                                   % (path, t.dtype, t.shape, r.shape))
            worst = max(worst, float(np.max(np.abs(t - r))))
            big = max(big, float(np.max(np.abs(r))))
    return worst, big


def _synthetic_models():
    """Small ONNX graphs exercising every supported operator and attribute."""
    from onnx import helper, TensorProto
    rng = np.random.default_rng(1)

    def init(name, arr):
        return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)

    def mk(nodes, inits, in_shape, out_rank=2, opset=13):
        out_shape = ["d%d" % i for i in range(out_rank)]
        g = helper.make_graph(nodes, "t", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])

    r = lambda *s: rng.standard_normal(s)
    models = {}
    # Conv with asymmetric pads, stride, dilation, groups; Relu; Reshape via Constant; Gemm
    # with alpha, beta, transA=0, transB=0; Sub with the constant on the left.
    models["conv_gemm"] = mk([
        helper.make_node("Conv", ["x", "cw", "cb"], ["c1"], pads=[0, 1, 2, 1], strides=[2, 1],
                         dilations=[1, 2], group=2, kernel_shape=[3, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Constant", [], ["shp"], value=numpy_helper.from_array(np.array([0, -1], np.int64))),
        helper.make_node("Reshape", ["r1", "shp"], ["f1"]),
        helper.make_node("Gemm", ["f1", "gw", "gb"], ["g1"], alpha=0.5, beta=2.0),
        helper.make_node("Sub", ["k", "g1"], ["y"])],
        [init("cw", r(4, 1, 3, 2)), init("cb", r(4)), init("gw", r(4 * 4 * 6, 3)), init("gb", r(3)),
         init("k", r(1, 3))], [1, 2, 7, 6])
    # MatMul with the weight on the right, folded Add, Flatten axis 2, a non-constant MatMul
    # and Add, Gemm with transA, a 1-D Conv.
    models["matmul_mix"] = mk([
        helper.make_node("Flatten", ["x"], ["f"], axis=1),
        helper.make_node("MatMul", ["f", "w1"], ["m1"]),
        helper.make_node("Add", ["b1", "m1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MatMul", ["r1", "w2"], ["m2"]),
        helper.make_node("Add", ["m2", "r1"], ["a2"]),
        helper.make_node("Constant", [], ["s3"], value=numpy_helper.from_array(np.array([1, 2, 3], np.int64))),
        helper.make_node("Reshape", ["a2", "s3"], ["q"]),
        helper.make_node("Conv", ["q", "cw"], ["c"], pads=[1, 0]),
        helper.make_node("Flatten", ["c"], ["fc"], axis=2),
        helper.make_node("Flatten", ["fc"], ["fc2"], axis=0),
        helper.make_node("Gemm", ["fc2", "gw", "gb"], ["y"], transA=1, transB=1)],
        [init("w1", r(12, 6)), init("b1", r(1, 6)), init("w2", r(6, 6)), init("cw", r(4, 2, 2)),
         init("gw", r(5, 1)), init("gb", r(5))], [1, 3, 4])
    # W x with a 1-D x, as in test_small.
    models["left_matmul"] = mk([
        helper.make_node("MatMul", ["w0", "x"], ["m0"]),
        helper.make_node("Add", ["m0", "b0"], ["h0"]),
        helper.make_node("Relu", ["h0"], ["r0"]),
        helper.make_node("MatMul", ["w1", "r0"], ["y"])],
        [init("w0", r(7, 3)), init("b0", r(7)), init("w1", r(2, 7))], [3], out_rank=1)
    return models


def selftest(tol=1e-12):
    """Checks the converter on the synthetic models; returns the number of failures."""
    import os
    import tempfile
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for name, m in _synthetic_models().items():
            onnx.checker.check_model(m)
            p = os.path.join(d, name + ".onnx")
            onnx.save(m, p)
            try:
                diff, big = check(p, samples=3)
                ok = diff <= tol
            except Exception as e:
                diff, big, ok = float("nan"), float("nan"), False
                print("selftest %-12s ERROR %s: %s" % (name, type(e).__name__, e))
            print("selftest %-12s max|torch-numpy| = %.3g  (max|y| = %.3g)  %s"
                  % (name, diff, big, "ok" if ok else "FAIL"))
            bad += not ok
    # An unsupported operator is refused by name.
    from onnx import helper, TensorProto
    g = helper.make_graph([helper.make_node("Elu", ["x"], ["y"], name="e1")], "t",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])])
    try:
        convert(helper.make_model(g))
        print("selftest refuse-Elu FAIL (accepted)")
        bad += 1
    except ConvertError as e:
        print("selftest refuse-Elu ok: %s" % e)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("onnx", nargs="*")
    ap.add_argument("--selftest", action="store_true",
                    help="also check the converter on small synthetic graphs covering every operator")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--tol", type=float, default=1e-12)
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    bad = selftest(args.tol) if args.selftest else 0
    for p in args.onnx:
        try:
            d, big = check(p, args.samples)
            ok = d <= args.tol
            print("%-60s max|torch-numpy| = %.3g  (max|y| = %.3g)  %s"
                  % (p, d, big, "ok" if ok else "FAIL"))
            bad += not ok
        except Exception as e:  # report and go on
            print("%-60s ERROR %s: %s" % (p, type(e).__name__, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
