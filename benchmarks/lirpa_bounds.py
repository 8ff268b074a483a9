#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Output bounds of an ONNX network over a VNN-LIB input box, computed by auto_LiRPA.

    /usr/bin/python3 benchmarks/lirpa_bounds.py NET.onnx SPEC.vnnlib --method CROWN [--repeat R]
        [--lirpa PATH] [--threads 1] [--iterations 20] [--lr 0.5]

This is the peer side of bench_bounds.py: it prints what `certnn bounds NET --vnnlib SPEC
--method crown --json` prints, one JSON object per line,
    {"method": "CROWN", "lower": [...], "upper": [...], "seconds": S}
with the bounds of every network output (C-order flattening of the output) over the spec's
FIRST input box.  --method takes IBP, CROWN, CROWN-IBP or CROWN-Optimized (alpha-CROWN; any case;
the certnn spellings ibp, crown, crown-ibp, alpha-crown too), or a comma-separated list of them,
which prints one line per method and builds the model only once.  CROWN-Optimized runs with
optimize_bound_args iteration = --iterations (default 20) and lr_alpha = --lr (default 0.5), the
rest auto_LiRPA's defaults (lr_decay 0.98, early stop patience 10, keep_best, fix_interm_bounds);
each call initialises its slopes afresh from CROWN (init_alpha), so the repeats do not warm-start.

The box: the X bounds of the first case of the spec (top-level asserts, and inside an `or`
only its first disjunct), each decimal constant rounded to the NEAREST float64 (Python's
float()).  certnn rounds lower ends down and upper ends up instead, so its box can be wider by
at most one ulp per end.  An X with no bound on a side gets -inf/+inf there.

The network is converted by onnx_to_torch.py (float64), wrapped in auto_LiRPA's BoundedModule
with its default options, and bounded with
    compute_bounds(x=(BoundedTensor(x, PerturbationLpNorm(norm=inf, x_L=lo, x_U=hi)),), method=M)
under torch.no_grad() (CROWN-Optimized needs gradients: without it).  S is the median over R timed calls of compute_bounds alone (after one
untimed warm-up call); loading, conversion and BoundedModule construction are not timed.

auto_LiRPA is found through --lirpa PATH (a checkout whose auto_LiRPA/ package is run in
place), else the LIRPA_PATH environment variable, else the ordinary import path.  When it cannot
be imported the script prints why on standard error and exits with status 3.
Exit status: 0 success, 2 bad input (spec, network), 3 auto_LiRPA missing, 1 other failure.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

METHODS = {"ibp": "IBP", "crown": "CROWN", "crown-ibp": "CROWN-IBP", "alpha-crown": "CROWN-Optimized",
           "crown-optimized": "CROWN-Optimized"}


# ---------------------------------------------------------------------------------------------
# VNN-LIB: the X bounds of the first case.

def _tokens(text):
    """S-expression tokens of TEXT with ';' comments removed."""
    out = []
    for line in text.splitlines():
        i = line.find(";")
        if i >= 0:
            line = line[:i]
        out.extend(line.replace("(", " ( ").replace(")", " ) ").split())
    return out


def _parse(tokens):
    """List of top-level s-expressions (nested lists of strings)."""
    stack, top = [], []
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            if not stack:
                raise ValueError("unbalanced ')'")
            e = stack.pop()
            (stack[-1] if stack else top).append(e)
        else:
            (stack[-1] if stack else top).append(t)
    if stack:
        raise ValueError("unbalanced '('")
    return top


def _number(e):
    """The float64 nearest to constant E (a numeral or (- numeral)), or None."""
    if isinstance(e, list):
        if len(e) == 2 and e[0] == "-":
            v = _number(e[1])
            return None if v is None else -v
        return None
    try:
        return float(e)
    except ValueError:
        return None


def _xindex(e):
    if isinstance(e, str) and e.startswith("X_"):
        try:
            return int(e[2:])
        except ValueError:
            return None
    return None


def read_first_box(path):
    """Returns (lo, hi) lists of float64 for X_0..X_{n-1} over the first input box of the
    VNN-LIB file at PATH.  n is the number of declared X_i."""
    with open(path) as f:
        exprs = _parse(_tokens(f.read()))
    n_x = 0
    asserts = []
    for e in exprs:
        if not isinstance(e, list) or not e:
            continue
        if e[0] == "declare-const" and len(e) >= 2 and _xindex(e[1]) is not None:
            n_x = max(n_x, _xindex(e[1]) + 1)
        elif e[0] == "assert" and len(e) == 2:
            asserts.append(e[1])
    lo = [-math.inf] * n_x
    hi = [math.inf] * n_x

    def atom(op, a, b):
        ia, ib = _xindex(a), _xindex(b)
        ca, cb = _number(a), _number(b)
        if ia is not None and cb is not None:
            i, c, upper = ia, cb, op in ("<=", "<")
        elif ib is not None and ca is not None:
            i, c, upper = ib, ca, op in (">=", ">")
        else:
            return  # an output atom (or X vs X / X vs Y, which a box cannot hold)
        if i >= n_x:
            raise ValueError("X_%d is not declared" % i)
        if upper:
            hi[i] = min(hi[i], c)
        else:
            lo[i] = max(lo[i], c)

    def walk(e):
        if not isinstance(e, list) or not e:
            return
        head = e[0]
        if head == "and":
            for c in e[1:]:
                walk(c)
        elif head == "or":
            if len(e) > 1:
                walk(e[1])  # the first case takes the first disjunct of every `or`
        elif head in ("<=", ">=", "<", ">") and len(e) == 3:
            atom(head, e[1], e[2])

    for a in asserts:
        walk(a)
    return lo, hi


# ---------------------------------------------------------------------------------------------

def import_lirpa(path):
    """Imports auto_LiRPA from PATH (or LIRPA_PATH, or sys.path).  Returns the three names
    needed, or raises ImportError with the reason."""
    path = path or os.environ.get("LIRPA_PATH")
    if path:
        if not os.path.isdir(os.path.join(path, "auto_LiRPA")):
            raise ImportError("no auto_LiRPA package under %s" % path)
        sys.path.insert(0, os.path.abspath(path))
    # auto_LiRPA prints a CUDA notice on import; keep standard output for the JSON.
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        from auto_LiRPA import BoundedModule, BoundedTensor
        from auto_LiRPA.perturbations import PerturbationLpNorm
    finally:
        sys.stdout = saved
    return BoundedModule, BoundedTensor, PerturbationLpNorm


def _finite_or_str(v):
    return v if math.isfinite(v) else ("Infinity" if v > 0 else "-Infinity" if v < 0 else "NaN")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("onnx")
    ap.add_argument("vnnlib")
    ap.add_argument("--method", default="CROWN",
                    help="IBP, CROWN, CROWN-IBP, or a comma-separated list (default CROWN)")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs; the median is reported")
    ap.add_argument("--lirpa", default=None, help="auto_LiRPA checkout (default: $LIRPA_PATH)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--iterations", type=int, default=20, help="CROWN-Optimized iterations (default 20)")
    ap.add_argument("--lr", type=float, default=0.5, help="CROWN-Optimized lr_alpha (default 0.5)")
    args = ap.parse_args(argv)

    methods = []
    for m in args.method.split(","):
        key = m.strip().lower()
        if key not in METHODS:
            print("lirpa_bounds: unknown method %r (IBP, CROWN, CROWN-IBP, CROWN-Optimized)" % m,
                  file=sys.stderr)
            return 2
        methods.append(METHODS[key])
    repeat = max(1, args.repeat)

    try:
        import torch
        BoundedModule, BoundedTensor, PerturbationLpNorm = import_lirpa(args.lirpa)
    except Exception as e:  # ImportError, or anything the import itself raised
        print("lirpa_bounds: auto_LiRPA unavailable: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 3
    sys.path.insert(0, HERE)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    import onnx_to_torch

    torch.set_num_threads(args.threads)
    torch.set_default_dtype(torch.float64)

    try:
        lo, hi = read_first_box(args.vnnlib)
    except (OSError, ValueError) as e:
        print("lirpa_bounds: %s: %s" % (args.vnnlib, e), file=sys.stderr)
        return 2
    try:
        model, inputs = onnx_to_torch.convert(args.onnx)
    except Exception as e:
        print("lirpa_bounds: %s: %s: %s" % (args.onnx, type(e).__name__, e), file=sys.stderr)
        return 2
    if len(inputs) != 1:
        print("lirpa_bounds: %s: %d inputs, expected 1" % (args.onnx, len(inputs)), file=sys.stderr)
        return 2
    shape = inputs[0][1]
    n = 1
    for s in shape:
        n *= s
    if n != len(lo):
        print("lirpa_bounds: %s declares %d X, the network input %s has %d elements"
              % (args.vnnlib, len(lo), list(shape), n), file=sys.stderr)
        return 2
    if any(l > h for l, h in zip(lo, hi)):
        print("lirpa_bounds: %s: empty input box" % args.vnnlib, file=sys.stderr)
        return 2

    model.requires_grad_(False)
    x_l = torch.tensor(lo, dtype=torch.float64).reshape(shape)
    x_u = torch.tensor(hi, dtype=torch.float64).reshape(shape)
    # The center serves as the nominal input; with an unbounded end, the finite one.
    center = torch.where(torch.isfinite(x_l) & torch.isfinite(x_u), (x_l + x_u) / 2,
                         torch.where(torch.isfinite(x_l), x_l,
                                     torch.where(torch.isfinite(x_u), x_u, torch.zeros_like(x_l))))
    saved = sys.stdout
    sys.stdout = sys.stderr  # auto_LiRPA may print while tracing
    try:
        bmodel = BoundedModule(model, (center,), device="cpu",
                               bound_opts={"optimize_bound_args": {"iteration": args.iterations,
                                                                   "lr_alpha": args.lr}})
    except Exception as e:
        sys.stdout = saved
        print("lirpa_bounds: BoundedModule failed on %s: %s: %s" % (args.onnx, type(e).__name__, e),
              file=sys.stderr)
        return 1
    sys.stdout = saved
    ptb = PerturbationLpNorm(norm=math.inf, x_L=x_l, x_U=x_u)
    bx = BoundedTensor(center, ptb)

    for method in methods:
        times = []
        try:
            import contextlib
            ctx = contextlib.nullcontext() if method == "CROWN-Optimized" else torch.no_grad()
            with ctx:
                for k in range(repeat + 1):
                    t0 = time.perf_counter()
                    lb, ub = bmodel.compute_bounds(x=(bx,), method=method)
                    t1 = time.perf_counter()
                    if k > 0:
                        times.append(t1 - t0)
        except Exception as e:
            print("lirpa_bounds: compute_bounds(method=%s) failed: %s: %s"
                  % (method, type(e).__name__, e), file=sys.stderr)
            return 1
        if lb.dtype != torch.float64:
            print("lirpa_bounds: warning: bounds came back as %s" % lb.dtype, file=sys.stderr)
        lower = [_finite_or_str(float(v)) for v in lb.detach().reshape(-1).tolist()]
        upper = [_finite_or_str(float(v)) for v in ub.detach().reshape(-1).tolist()]
        print(json.dumps({"method": method, "lower": lower, "upper": upper,
                          "seconds": statistics.median(times)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
