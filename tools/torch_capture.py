#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Capture a PyTorch module as an IR artifact (doc/ARTIFACT.md), torch's CPU outputs as reference.

    /usr/bin/python3 tools/torch_capture.py FILE.py:FACTORY -o ARTIFACT [--certnn PATH] [--dtype f32|f64]
    /usr/bin/python3 tools/torch_capture.py --suite [--certnn PATH] [--keep DIR]

(installed as $(pkgdatadir)/torch_capture.py, by default /usr/local/share/certnn/).

FACTORY (a function of FILE.py) returns (module, args): a torch.nn.Module and the tuple of
tensors it is called with.  The script evaluates module(*args) on torch's CPU kernels (eval
mode, no gradients), traces the module to ONNX (torch.onnx.export, opset 13; tracing records the
path these arguments take), and has `certnn export` map the ONNX graph onto certnn's operators
with the arguments and torch's outputs as the reference, every number written exactly (floats
by repr of their binary32 or binary64 value, integers and Booleans as integers).  What cannot be
translated is refused with the operator named: by the tracer, or by certnn's importer (the node
and its ONNX op type).  Then `certnn check ARTIFACT` tells whether certnn's evaluation of the
captured program reproduces torch's outputs word for word (compare) and, where it does not,
lists every differing element.

--suite captures the built-in modules below (an MLP, a CNN, pooling, layer norm, softmax,
attention, integer and Boolean operators, binary16 and bfloat16 casts, binary16 arithmetic and
a bfloat16 MLP) and prints one line per
module with its checks' statuses.  Uses Debian's python3-torch (1.13); nothing is downloaded.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def numbers(tensors):
    """The elements of TENSORS, row-major, one per line, each exact in its sort."""
    out = []
    for t in tensors:
        t = t.detach().contiguous().reshape(-1)
        if t.dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            # every binary16, bfloat16 and binary32 number is a double, printed exactly
            out += [repr(float(v)) for v in t.tolist()]
        elif t.dtype == torch.bool:
            out += ["1" if v else "0" for v in t.tolist()]
        else:
            out += [str(int(v)) for v in t.tolist()]
    return "\n".join(out) + "\n"


def capture(module, args, path, certnn, dtype, work):
    """Writes the artifact PATH; returns (0, "") or (1, the refusal's message)."""
    module = module.eval()
    with torch.no_grad():
        outs = module(*args)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    onnx = os.path.join(work, "module.onnx")
    try:
        with torch.no_grad():
            torch.onnx.export(module, tuple(args), onnx, opset_version=13,
                              input_names=["x%d" % i for i in range(len(args))],
                              output_names=["y%d" % i for i in range(len(outs))])
    except Exception as e:      # the tracer's refusal, named as it names it
        return 1, "torch.onnx.export: %s" % str(e).splitlines()[0][:160]
    try:
        xs, ys = numbers(args), numbers(outs)
    except SystemExit as e:
        return 1, str(e)
    xf, yf = os.path.join(work, "x.txt"), os.path.join(work, "y.txt")
    open(xf, "w").write(xs)
    open(yf, "w").write(ys)
    p = subprocess.run([certnn, "export", onnx, "-o", path, "--dtype", dtype, "--input", xf, "--reference", yf],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return 1, p.stderr.strip()
    # the producer: torch's CPU kernels (certnn export records the file it read)
    art = json.load(open(path))
    art["reference"]["producer"] = "torch %s CPU, module %s" % (torch.__version__, type(module).__name__)
    json.dump(art, open(path, "w"), indent=1)
    return 0, ""


# ---- the built-in suite -------------------------------------------------------------------

def suite():
    g = torch.Generator().manual_seed(1)
    r = lambda *s: torch.rand(*s, generator=g) * 2 - 1

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = (torch.nn.Linear(8, 8) for _ in range(3))

        def forward(self, x):
            a = torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2) / 8 ** 0.5, dim=-1)
            return a @ self.v(x)

    class IntOps(torch.nn.Module):
        def forward(self, a, b):
            return (a * b + 3) // 2 - torch.remainder(a, 5)

    class BoolOps(torch.nn.Module):
        def forward(self, x):
            m = (x > 0) & ~(x > 0.5)
            return torch.where(m, x, torch.zeros_like(x)), m | (x < -0.5)

    class CastF16(torch.nn.Module):
        def forward(self, x):
            return (x.half() * 3).float()

    class CastBF16(torch.nn.Module):
        def forward(self, x):
            return (x.to(torch.bfloat16) + 1).float()

    class HalfOps(torch.nn.Module):
        # binary16 elementwise arithmetic: each of torch's CPU Half kernels rounds once
        def forward(self, x, y):
            a, b = x.half(), y.half()
            return ((a * b + a) / (b.abs() + 1)).float(), torch.maximum(a, b) - b

    class BFloat16MLP(torch.nn.Module):
        # a bfloat16 MLP: torch's CPU kernels accumulate the matrix products in binary32
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = torch.nn.Linear(6, 8).bfloat16(), torch.nn.Linear(8, 3).bfloat16()

        def forward(self, x):
            return self.l2(torch.relu(self.l1(x.bfloat16()))).float()

    torch.manual_seed(1)
    return [
        ("mlp", torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                                    torch.nn.Linear(16, 3)), (r(2, 6),)),
        ("conv", torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 2, 3),
                                     torch.nn.Flatten(), torch.nn.Linear(2 * 4 * 4, 5)), (r(1, 1, 6, 6),)),
        ("maxpool", torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.MaxPool2d(2)), (r(1, 2, 8, 8),)),
        ("avgpool", torch.nn.Sequential(torch.nn.AvgPool2d(2), torch.nn.Flatten()), (r(1, 3, 6, 6),)),
        ("layernorm", torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)), (r(3, 8),)),
        ("softmax", torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Softmax(dim=-1)), (r(4, 5),)),
        ("attention", Attention(), (r(1, 4, 8),)),
        ("sigmoid_mlp", torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Sigmoid(), torch.nn.Linear(8, 2)),
         (r(3, 4),)),
        ("integer", IntOps(), (torch.randint(-20, 20, (2, 5), generator=g), torch.randint(-5, 5, (2, 5), generator=g))),
        ("boolean", BoolOps(), (r(3, 4),)),
        ("cast_f16", CastF16(), (r(2, 3),)),
        ("cast_bf16", CastBF16(), (r(2, 3),)),
        ("half_ops", HalfOps(), (r(2, 5) * 4, r(2, 5) * 4)),
        ("bf16_mlp", BFloat16MLP(), (r(2, 6),)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec", nargs="?", help="FILE.py:FACTORY")
    ap.add_argument("-o", dest="out")
    built = os.path.join(HERE, "..", "build", "certnn")
    ap.add_argument("--certnn", default=built if os.path.exists(built) else "certnn",
                    help="the certnn binary (default: ../build/certnn beside this script, else certnn on PATH)")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    ap.add_argument("--suite", action="store_true")
    ap.add_argument("--keep", help="with --suite: write the artifacts into this folder")
    a = ap.parse_args()
    work = tempfile.mkdtemp()
    if not a.suite:
        if a.spec is None or a.out is None or ":" not in a.spec:
            ap.error("need FILE.py:FACTORY and -o ARTIFACT (or --suite)")
        f, fn = a.spec.rsplit(":", 1)
        spec = importlib.util.spec_from_file_location("captured", f)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        module, args = getattr(m, fn)()
        rc, msg = capture(module, tuple(args), a.out, a.certnn, a.dtype, work)
        if rc:
            print("torch_capture: refused: " + msg, file=sys.stderr)
            return 2
        return 0
    keep = a.keep or work
    os.makedirs(keep, exist_ok=True)
    print("%-12s %s" % ("module", "checks (certnn check ARTIFACT --checks structure,types,execute,compare)"))
    for name, module, args in suite():
        path = os.path.join(keep, name + ".json")
        rc, msg = capture(module, args, path, a.certnn, a.dtype, work)
        if rc:
            print("%-12s refused: %s" % (name, msg[:150]))
            continue
        p = subprocess.run([a.certnn, "check", path, "--checks", "structure,types,execute,compare", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rep = json.loads(p.stdout)
        cells = []
        for f in rep["findings"]:
            c = "%s %s" % (f["name"], f["status"])
            if f.get("mismatches"):
                c += " (%s)" % ", ".join("result %d: %d of %d differ" % (m["result"], m["differing"], m["total"])
                                         for m in f["mismatches"])
            elif f["status"] != "passed":
                c += " (%s)" % f["message"][:100]
            cells.append(c)
        print("%-12s %s" % (name, "; ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
