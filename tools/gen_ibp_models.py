#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates the whole-network IBP test data of tests/cli/ibp_reference.sh under tests/data/ibp/.

    /usr/bin/python3 tools/gen_ibp_models.py [--out DIR] [--check]

Uses Debian's python3-torch (1.13), python3-onnx and python3-numpy; no network access.

Each model is a small PyTorch module (seeded weights, every parameter and buffer rounded to binary32
so that the exported float32 ONNX holds exactly the module's values, every attribute constant a
binary32 number: batch-norm and layer-norm eps 2^-14, leaky-ReLU slope 1/8), exported with
torch.onnx.export in eval mode at opset 17 with a batch of 1.  For each model NAME it writes:

  NAME.onnx     the network (a few KB)
  NAME.vnnlib   the input box: X_i in [c_i - r, c_i + r] with c_i a multiple of 2^-8 and r a
                power of two, so every end is a dyadic number written exactly in decimal (every
                reader gets the same box, with no rounding); one harmless output assertion
  NAME.ref      the sampled points and their reference outputs, one line each:
                  in  n x_1 .. x_n      a point inside the box (shortest round-trip decimals)
                  out m y_1 .. y_m      the module's output at that point in binary64 (the module
                                        converted with .double(), which is exact for its binary32
                                        weights; torch's float64 arithmetic, so the numbers are
                                        within a few ulps of the exact real outputs)
                The first point is the centre, the others are uniform in the box shrunk by 10%
                around the centre (strictly inside, where the float64 error is negligible next
                to the distance to any bound).
  LIST          one "NAME OPS" line per model (OPS: the ONNX operator types, comma-separated)

--check only rebuilds the modules and compares their outputs with the stored .ref files.
benchmarks/ibp_compare.py imports build() to hand auto_LiRPA the same PyTorch modules.
"""
import argparse
import io
import os
import sys

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
OUT = os.path.join(TOP, "tests", "data", "ibp")
OPSET = 17
EPS_NORM = 2.0 ** -14   # a binary32 number: the ONNX attribute (float32) is then the same eps
N_SAMPLES = 8


# ---- the models -----------------------------------------------------------------------------
def mlp(act, n_in=6, hidden=8, n_out=3):
    return nn.Sequential(nn.Linear(n_in, hidden), act(), nn.Linear(hidden, hidden), act(),
                         nn.Linear(hidden, n_out))


class Residual(nn.Module):
    """Two residual blocks x + W2 relu(W1 x + b1) + b2, then a linear head."""

    def __init__(self, n=6, hidden=8, n_out=3):
        super().__init__()
        self.a1, self.a2 = nn.Linear(n, hidden), nn.Linear(hidden, n)
        self.b1, self.b2 = nn.Linear(n, hidden), nn.Linear(hidden, n)
        self.head = nn.Linear(n, n_out)

    def forward(self, x):
        x = x + self.a2(torch.relu(self.a1(x)))
        x = x + self.b2(torch.tanh(self.b1(x)))
        return self.head(x)


class LayerNormNet(nn.Module):
    def __init__(self, n=6, hidden=8, n_out=3):
        super().__init__()
        self.l1, self.ln, self.l2 = nn.Linear(n, hidden), nn.LayerNorm(hidden, eps=EPS_NORM), nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.l2(torch.relu(self.ln(self.l1(x))))


class BatchNormNet(nn.Module):
    """Linear, ReLU, BatchNorm1d (running statistics), sigmoid, linear.  The batch norm follows
    the ReLU so that the exporter cannot fold it into the linear layer."""

    def __init__(self, n=6, hidden=8, n_out=3):
        super().__init__()
        self.l1, self.bn, self.l2 = nn.Linear(n, hidden), nn.BatchNorm1d(hidden, eps=EPS_NORM), nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.l2(torch.sigmoid(self.bn(torch.relu(self.l1(x)))))


class ConvMaxPool(nn.Module):
    """Conv 1->3 (3x3, pad 1) on 1x6x6, ReLU, BatchNorm2d, max pooling 2x2, linear."""

    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3, eps=EPS_NORM)
        self.pool, self.fc = nn.MaxPool2d(2), nn.Linear(27, 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.bn(torch.relu(self.conv(x)))), 1))


class ConvAvgPool(nn.Module):
    """Conv 1->3 (3x3, pad 1) on 1x6x6, tanh, average pooling 2x2, ELU, linear."""

    def __init__(self):
        super().__init__()
        self.conv, self.pool, self.fc = nn.Conv2d(1, 3, 3, padding=1), nn.AvgPool2d(2), nn.Linear(27, 3)

    def forward(self, x):
        return self.fc(nn.functional.elu(torch.flatten(self.pool(torch.tanh(self.conv(x))), 1)))


class Attention(nn.Module):
    """One self-attention head over T tokens of width D: softmax(Q K^T / sqrt(D)) V with
    Q, K, V linear maps of X, a residual addition, layer norm, then a linear head."""

    def __init__(self, T=3, D=4, n_out=2):
        super().__init__()
        self.T, self.D = T, D
        self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.ln = nn.LayerNorm(D, eps=EPS_NORM)
        self.fc = nn.Linear(T * D, n_out)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        a = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / float(self.D) ** 0.5, dim=-1)
        y = self.ln(x + torch.matmul(a, v))
        return self.fc(torch.flatten(y, 1))


class Act(nn.Module):
    """An elementwise function as a module (for mlp)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class Branches(nn.Module):
    """Two linear branches a(x), b(x) of width HIDDEN joined by COMBINE, then a linear head: the
    products and quotients of two bounded operands (CROWN's McCormick planes)."""

    def __init__(self, combine, n=6, hidden=8, n_out=3):
        super().__init__()
        self.combine = combine
        self.a, self.b, self.head = nn.Linear(n, hidden), nn.Linear(n, hidden), nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.head(self.combine(self.a(x), self.b(x)))


class Smooth(nn.Module):
    """Linear, sin, linear, cos, linear, then the logarithm and square root of positive
    quantities (1 + y^2, 1/2 + exp(z)), joined by a linear head."""

    def __init__(self, n=6, hidden=8, n_out=3):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(n, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.head = nn.Linear(2 * hidden, n_out)

    def forward(self, x):
        y = self.l3(torch.cos(self.l2(torch.sin(self.l1(x)))))
        return self.head(torch.cat((torch.log(1 + y * y), torch.sqrt(0.5 + torch.exp(y))), dim=1))


class SoftmaxNet(nn.Module):
    """Linear, softmax over the features, linear, mean-centring (ReduceMean), linear."""

    def __init__(self, n=6, hidden=8, n_out=3):
        super().__init__()
        self.l1, self.l2, self.head = nn.Linear(n, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, n_out)

    def forward(self, x):
        y = self.l2(torch.softmax(self.l1(x), dim=1))
        return self.head(y - torch.mean(y, dim=1, keepdim=True))


# name -> (constructor, input shape without the batch, box radius, weight scale)
MODELS = {
    "tanh": (lambda: mlp(nn.Tanh), (6,), 2.0 ** -3, 1.0),
    "sigmoid": (lambda: mlp(nn.Sigmoid), (6,), 2.0 ** -2, 1.0),
    "elu": (lambda: mlp(nn.ELU), (6,), 2.0 ** -3, 1.0),
    "softplus": (lambda: mlp(nn.Softplus), (6,), 2.0 ** -3, 1.0),
    "leaky_relu": (lambda: mlp(lambda: nn.LeakyReLU(0.125)), (6,), 2.0 ** -3, 1.0),
    "batchnorm": (BatchNormNet, (6,), 2.0 ** -3, 1.0),
    "conv_maxpool": (ConvMaxPool, (1, 6, 6), 2.0 ** -5, 1.0),
    "conv_avgpool": (ConvAvgPool, (1, 6, 6), 2.0 ** -5, 1.0),
    "residual": (Residual, (6,), 2.0 ** -3, 1.0),
    "layernorm": (LayerNormNet, (6,), 2.0 ** -5, 1.0),
    "attention": (Attention, (3, 4), 2.0 ** -6, 1.0),
    "sin": (lambda: mlp(lambda: Act(torch.sin)), (6,), 2.0 ** -3, 1.0),
    "atan": (lambda: mlp(lambda: Act(torch.atan)), (6,), 2.0 ** -3, 1.0),
    "abs": (lambda: mlp(lambda: Act(torch.abs)), (6,), 2.0 ** -3, 1.0),
    "exp": (lambda: mlp(lambda: Act(torch.exp)), (6,), 2.0 ** -4, 0.5),
    "square": (lambda: mlp(lambda: Act(torch.square)), (6,), 2.0 ** -3, 1.0),
    "product": (lambda: Branches(torch.mul), (6,), 2.0 ** -3, 1.0),
    "quotient": (lambda: Branches(lambda a, b: a / (1 + b * b)), (6,), 2.0 ** -3, 1.0),
    "maximum": (lambda: Branches(torch.maximum), (6,), 2.0 ** -3, 1.0),
    "smooth": (Smooth, (6,), 2.0 ** -4, 1.0),
    "softmax": (SoftmaxNet, (6,), 2.0 ** -3, 1.0),
}


def _f32(t):
    return torch.from_numpy(t.detach().numpy().astype(np.float32).astype(np.float64)).to(t.dtype)


def build(name):
    """The module NAME in eval mode, float32, every parameter and buffer a binary32 number
    (deterministic: seeded from the name).  Call .double() for the exact float64 version."""
    ctor, shape, radius, scale = MODELS[name]
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float32)  # the draws depend on it: the same in every caller
    try:
        m = _build(ctor, name, scale)
    finally:
        torch.set_default_dtype(saved)
    return m


def _build(ctor, name, scale):
    torch.manual_seed(sum(ord(c) * 131 ** i for i, c in enumerate(name)) % (2 ** 31))
    m = ctor().float()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)):
                n = mod.num_features
                mod.running_mean.copy_(torch.randn(n) * 0.5)
                mod.running_var.copy_(torch.rand(n) * 1.5 + 0.25)
                mod.weight.copy_(torch.randn(n) * 0.5 + 1.0)
                mod.bias.copy_(torch.randn(n) * 0.5)
            if isinstance(mod, nn.LayerNorm):
                n = mod.normalized_shape[0]
                mod.weight.copy_(torch.randn(n) * 0.5 + 1.0)
                mod.bias.copy_(torch.randn(n) * 0.5)
        for p in list(m.parameters()) + list(m.buffers()):
            if p.dtype.is_floating_point:
                p.copy_(p * scale)
    m.eval()
    return m


def box_of(name):
    """(centre, radius) of the input box of NAME: centre entries multiples of 2^-8 in [-1, 1],
    numpy float64 arrays of the input shape (batch 1 in front)."""
    _, shape, radius, _ = MODELS[name]
    rng = np.random.default_rng(sum(ord(c) for c in name) + 7)
    c = np.round(rng.uniform(-1, 1, size=(1,) + shape) * 256) / 256
    return c, radius


def samples(name):
    """N_SAMPLES points of the box of NAME: the centre, then uniform in the box shrunk by 10%."""
    c, r = box_of(name)
    rng = np.random.default_rng(1000 + sum(ord(ch) for ch in name))
    pts = [c.copy()]
    for _ in range(N_SAMPLES - 1):
        pts.append(c + rng.uniform(-0.9 * r, 0.9 * r, size=c.shape))
    return pts


def fmt(x):
    """Shortest decimal that reads back as the binary64 X."""
    return repr(float(x))


def onnx_ops(data):
    import onnx
    m = onnx.load_from_string(data)
    seen = []
    for n in m.graph.node:
        if n.op_type not in seen:
            seen.append(n.op_type)
    return seen


def export(name):
    m = build(name)
    c, _ = box_of(name)
    b = io.BytesIO()
    torch.onnx.export(m, torch.tensor(c, dtype=torch.float32), b, opset_version=OPSET, input_names=["x"],
                      output_names=["y"], do_constant_folding=True)
    return b.getvalue()


def reference(name):
    """[(x, y)] numpy float64 arrays (flattened) at the sample points."""
    m = build(name).double()
    out = []
    with torch.no_grad():
        for x in samples(name):
            y = m(torch.tensor(x, dtype=torch.float64))
            out.append((x.reshape(-1), y.numpy().reshape(-1).astype(np.float64)))
    return out


def vnnlib(name, n_out):
    c, r = box_of(name)
    c = c.reshape(-1)
    lines = ["; tests/data/ibp/%s.vnnlib: made by tools/gen_ibp_models.py; the input box of %s.onnx" % (name, name),
             "; (every end is dyadic and written exactly); the output assertion is only there to be valid"]
    lines += ["(declare-const X_%d Real)" % i for i in range(c.size)]
    lines += ["(declare-const Y_%d Real)" % j for j in range(n_out)]
    lines.append("")
    for i, ci in enumerate(c):
        lo, hi = ci - r, ci + r  # exact: dyadic numbers of few bits
        lines.append("(assert (>= X_%d %s))" % (i, np.format_float_positional(lo, unique=True, trim="-")))
        lines.append("(assert (<= X_%d %s))" % (i, np.format_float_positional(hi, unique=True, trim="-")))
    lines.append("(assert (>= Y_0 -1000000))")
    return "\n".join(lines) + "\n"


def ref_text(name, ref):
    lines = ["# tests/data/ibp/%s.ref: made by tools/gen_ibp_models.py; points inside %s.vnnlib and the" % (name, name),
             "# outputs of the PyTorch module in float64 (see the generator's docstring)"]
    for x, y in ref:
        lines.append("in %d %s" % (x.size, " ".join(fmt(v) for v in x)))
        lines.append("out %d %s" % (y.size, " ".join(fmt(v) for v in y)))
    return "\n".join(lines) + "\n"


def read_ref(path):
    """[(x, y)] from a .ref file, numpy float64 arrays."""
    pts, x = [], None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            v = np.array([float(s) for s in t[2:]], dtype=np.float64)
            if t[0] == "in":
                x = v
            elif t[0] == "out":
                pts.append((x, v))
    return pts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="compare rebuilt modules with the stored .ref files")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    if args.check:
        bad = 0
        for name in MODELS:
            stored = read_ref(os.path.join(args.out, name + ".ref"))
            for (x0, y0), (x1, y1) in zip(stored, reference(name)):
                if not (np.array_equal(x0, x1) and np.array_equal(y0, y1)):
                    print("%s: the rebuilt module differs from %s.ref" % (name, name))
                    bad += 1
                    break
        print("check: %d of %d models differ" % (bad, len(MODELS)))
        return 1 if bad else 0
    os.makedirs(args.out, exist_ok=True)
    listing = []
    for name in MODELS:
        data = export(name)
        ref = reference(name)
        with open(os.path.join(args.out, name + ".onnx"), "wb") as f:
            f.write(data)
        with open(os.path.join(args.out, name + ".vnnlib"), "w") as f:
            f.write(vnnlib(name, ref[0][1].size))
        with open(os.path.join(args.out, name + ".ref"), "w") as f:
            f.write(ref_text(name, ref))
        ops = onnx_ops(data)
        listing.append("%s %s" % (name, ",".join(ops)))
        print("%-13s %5d bytes  %s" % (name, len(data), " ".join(ops)))
    with open(os.path.join(args.out, "LIST"), "w") as f:
        f.write("\n".join(listing) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
