#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""IBP of certnn against auto_LiRPA's IBP and the MPFI reference, on the generated models of tests/data/ibp.

    /usr/bin/python3 benchmarks/ibp_compare.py [--certnn PATH] [--lirpa PATH] [--data DIR]
        [--models a,b,...] [--repeat R] [--csv FILE] [--method ibp|crown|alpha-crown]
        [--threads 1] [--iterations 20] [--lr 0.5]

For every model NAME listed in DIR/LIST (default tests/data/ibp, made by tools/gen_ibp_models.py:
NAME.onnx, the input box NAME.vnnlib, the sampled points NAME.ref) it computes three boxes of the
network output over the same input box:

  F  certnn bounds NAME.onnx --vnnlib NAME.vnnlib --method ibp --json                (fast, sound)
  M  certnn bounds ... --method ibp --reference mpfi --json  (the same IBP in MPFI at 256 bits,
     rounded outward: the exact-arithmetic IBP box up to one ulp per end)
  L  auto_LiRPA's compute_bounds(method='IBP') in float64 (round-to-nearest, no error terms)

auto_LiRPA gets the network the way benchmarks/lirpa_bounds.py gives it: converted from the ONNX file
by benchmarks/onnx_to_torch.py.  That converter covers the VNN-COMP layers only (Gemm, MatMul, Conv,
Relu, Add, Sub, Flatten, Reshape, Constant) and refuses the rest by name; then the model is handed
to auto_LiRPA as the PyTorch module it was exported from (tools/gen_ibp_models.py's build(), in
float64), after checking that this module reproduces the stored outputs of NAME.ref bit for bit.
The box is lirpa_bounds.read_first_box(NAME.vnnlib) (its ends are dyadic, so every reader gets the
same box exactly).  Where auto_LiRPA cannot bound a model, the row says why (the operators its
BoundedModule refuses, or the exception).

Columns (widths are hi - lo per output; ratios over the outputs with a finite, positive width):
  model, onnx ops    the model and the ONNX operator types it holds
  peer via           onnx (onnx_to_torch.py) or torch (the source module), or '-' with the reason in note
  F/L max, F/L mean  width ratio certnn/auto_LiRPA: above 1 means certnn is wider
  within             'yes' when F lies inside L widened at every end by certnn's charged rounding
                     error at that end (M.lo - F.lo below, F.hi - M.hi above), i.e. when M lies
                     inside L.  auto_LiRPA rounds to nearest, so its ends can land inside the exact
                     IBP box by a few ulps; then 'yes*' with the largest such cut in ulps of the
                     bound (at most 2^10 ulps), and 'NO' beyond
  charged            the largest charged rounding error max(M.lo - F.lo, F.hi - M.hi) over the outputs
  F/M max            width ratio fast/MPFI (1 + the relative charged error)
  peer cut           the largest amount, in ulps of the bound, by which L cuts into M (0: none)
  certnn s, peer s   seconds of the bound computation, both the median of R runs after a warm-up
                     (certnn's `bounds --repeat R` JSON `seconds`; compute_bounds alone)
  note               refusals, failures, and any sampled output outside a box (which would be a bug)

With --method crown the comparison is certnn's CROWN (`--method crown`: full-CROWN intermediate
bounds, sound) against auto_LiRPA's compute_bounds(method='CROWN') (float64, round-to-nearest).
There is no MPFI reference of CROWN, so the columns are:
  F/L max, F/L mean  width ratio certnn CROWN / auto_LiRPA CROWN (below 1: certnn is tighter)
  F/I mean           width ratio certnn CROWN / certnn IBP (what the relaxations gain over IBP)
  certnn s, peer s   seconds of the bound computation, as above
  note               as above (every sampled output must lie in certnn's CROWN box)
With --method alpha-crown the same columns compare certnn's alpha-CROWN (`--method alpha-crown
--iterations N --lr X`) with auto_LiRPA's compute_bounds(method='CROWN-Optimized') given the same
optimize_bound_args iteration and lr_alpha (the rest its defaults), F/I still against certnn's IBP.
Both sides run on --threads threads (default 1: certnn --threads 1, torch.set_num_threads(1)).
"""
import argparse
import io
import json
import logging
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))


def find_certnn(arg):
    """--certnn, else $BENCH_CERTNN, else ./certnn (a build folder), else certnn on PATH."""
    for cand in (arg, os.environ.get("BENCH_CERTNN"), os.path.join(os.getcwd(), "certnn")):
        if cand:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return os.path.abspath(cand), None
            if cand in (arg, os.environ.get("BENCH_CERTNN")):
                return None, "%s is not an executable file" % cand
    found = shutil.which("certnn")
    if found:
        return found, None
    return None, "not found (give --certnn PATH or set BENCH_CERTNN)"


def certnn_box(certnn, net, spec, extra, method="ibp", repeat=0):
    """(lo, hi, seconds) from `certnn bounds NET --vnnlib SPEC --method METHOD --json EXTRA`, or
    raises RuntimeError with certnn's message."""
    cmd = [certnn, "bounds", net, "--vnnlib", spec, "--method", method, "--json"] + extra
    if repeat:
        cmd += ["--repeat", str(repeat)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    d = json.loads(p.stdout)
    lo = [-math.inf if v is None else float(v) for v in d["lower"]]
    hi = [math.inf if v is None else float(v) for v in d["upper"]]
    return lo, hi, float(d["seconds"])


def ulp(x):
    return math.ulp(abs(x)) if math.isfinite(x) else math.inf


def ratios(alo, ahi, blo, bhi):
    """Width ratios (a/b) over the entries where both widths are finite and b's is positive."""
    out = []
    for a0, a1, b0, b1 in zip(alo, ahi, blo, bhi):
        wa, wb = a1 - a0, b1 - b0
        if math.isfinite(wa) and math.isfinite(wb) and wb > 0:
            out.append(wa / wb)
    return out


class Capture(logging.Handler):
    """Collects auto_LiRPA's 'Name: onnx::Elu, ...' lines about unsupported operations."""

    def __init__(self):
        super().__init__()
        self.names = []

    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith("Name: "):
            name = msg[6:].split(",")[0]
            if name not in self.names:
                self.names.append(name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--certnn", help="the certnn command (default: $BENCH_CERTNN, ./certnn, PATH)")
    ap.add_argument("--lirpa", help="auto_LiRPA checkout (default: $LIRPA_PATH)")
    ap.add_argument("--data", default=os.path.join(TOP, "tests", "data", "ibp"))
    ap.add_argument("--models", default=None, help="comma-separated subset of the models")
    ap.add_argument("--repeat", type=int, default=5, help="timed compute_bounds calls (median)")
    ap.add_argument("--threads", type=int, default=1, help="threads of both sides (default 1)")
    ap.add_argument("--iterations", type=int, default=20, help="alpha-crown iterations, both sides (20)")
    ap.add_argument("--lr", type=float, default=0.5, help="alpha-crown learning rate, both sides (0.5)")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--method", choices=("ibp", "crown", "alpha-crown"), default="ibp",
                    help="ibp (default): IBP against IBP and MPFI; crown: CROWN against auto_LiRPA's CROWN; "
                         "alpha-crown: alpha-CROWN against its CROWN-Optimized")
    args = ap.parse_args(argv)
    crown = args.method in ("crown", "alpha-crown")
    alpha = args.method == "alpha-crown"
    th = ["--threads", str(args.threads)]
    alpha_args = ["--iterations", str(args.iterations), "--lr", repr(args.lr)] if alpha else []
    peer_method = "CROWN-Optimized" if alpha else "CROWN" if crown else "IBP"

    certnn, why = find_certnn(args.certnn)
    if certnn is None:
        print("ibp_compare: certnn %s" % why, file=sys.stderr)
        return 2
    listing = []
    with open(os.path.join(args.data, "LIST")) as f:
        for line in f:
            t = line.split()
            if t:
                listing.append((t[0], t[1] if len(t) > 1 else ""))
    if args.models:
        keep = args.models.split(",")
        listing = [m for m in listing if m[0] in keep]

    import numpy as np
    import torch
    import lirpa_bounds
    import onnx_to_torch
    import gen_ibp_models as gen

    torch.set_num_threads(args.threads)
    torch.set_default_dtype(torch.float64)
    try:
        BoundedModule, BoundedTensor, PerturbationLpNorm = lirpa_bounds.import_lirpa(args.lirpa)
        peer_why = None
    except Exception as e:
        BoundedModule = None
        peer_why = "auto_LiRPA unavailable: %s: %s" % (type(e).__name__, e)
    print("certnn: %s" % certnn)
    print("auto_LiRPA: %s" % (peer_why or os.path.abspath(args.lirpa or os.environ.get("LIRPA_PATH", "") or "(import path)")))
    cap = Capture()
    logging.getLogger("auto_LiRPA").addHandler(cap)

    rows = []
    for name, ops in listing:
        print("[%d/%d] %s" % (len(rows) + 1, len(listing), name), file=sys.stderr)
        net = os.path.join(args.data, name + ".onnx")
        spec = os.path.join(args.data, name + ".vnnlib")
        ref = gen.read_ref(os.path.join(args.data, name + ".ref"))
        row = {"model": name, "ops": ops, "via": "-", "notes": []}
        rows.append(row)
        try:
            if crown:
                flo, fhi, row["certnn_s"] = certnn_box(certnn, net, spec, th + alpha_args, args.method, args.repeat)
                ilo, ihi, _ = certnn_box(certnn, net, spec, th)
            else:
                flo, fhi, row["certnn_s"] = certnn_box(certnn, net, spec, th, "ibp", args.repeat)
                mlo, mhi, row["mpfi_s"] = certnn_box(certnn, net, spec, ["--reference", "mpfi"])
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
            row["notes"].append("certnn failed: %s" % e)
            continue
        if crown:
            fi = ratios(flo, fhi, ilo, ihi)
            row["fi_mean"] = statistics.mean(fi) if fi else None
            mlo, mhi = flo, fhi   # no MPFI reference of CROWN: the soundness checks use F
        charge = [max(m0 - f0, f1 - m1) for f0, f1, m0, m1 in zip(flo, fhi, mlo, mhi)]
        row["charged"] = max(charge)
        fm = ratios(flo, fhi, mlo, mhi)
        row["fm_max"] = max(fm) if fm else None
        if any(m0 < f0 or m1 > f1 for f0, f1, m0, m1 in zip(flo, fhi, mlo, mhi)):
            row["notes"].append("the fast box does not contain the MPFI box")
        for _, y in ref:
            for j, v in enumerate(y):
                if not (mlo[j] <= v <= mhi[j] and flo[j] <= v <= fhi[j]):
                    row["notes"].append("sampled output %d = %r outside certnn's boxes" % (j, float(v)))
        if BoundedModule is None:
            row["notes"].append(peer_why)
            continue

        # The peer's model: the ONNX file through onnx_to_torch.py, else the source module.
        lo, hi = lirpa_bounds.read_first_box(spec)
        model = None
        try:
            model, inputs = onnx_to_torch.convert(net)
            shape = inputs[0][1]
            row["via"] = "onnx"
        except Exception as e:
            row["notes"].append("onnx_to_torch: %s" % e)
        if model is None:
            model = gen.build(name).double()
            shape = (1,) + gen.MODELS[name][1]
            with torch.no_grad():
                same = all(np.array_equal(model(torch.tensor(x.reshape(shape))).numpy().reshape(-1), y) for x, y in ref)
            if not same:
                row["notes"].append("the rebuilt PyTorch module differs from %s.ref; not compared" % name)
                continue
            row["via"] = "torch"
        model.eval()
        model.requires_grad_(False)
        x_l = torch.tensor(lo, dtype=torch.float64).reshape(shape)
        x_u = torch.tensor(hi, dtype=torch.float64).reshape(shape)
        center = (x_l + x_u) / 2
        cap.names = []
        saved = sys.stdout
        sys.stdout = io.StringIO()  # auto_LiRPA prints while tracing
        try:
            opts = {"optimize_bound_args": {"iteration": args.iterations, "lr_alpha": args.lr}}
            bmodel = BoundedModule(model, (center,), device="cpu", bound_opts=opts if alpha else None)
            bx = BoundedTensor(center, PerturbationLpNorm(norm=math.inf, x_L=x_l, x_U=x_u))
            times = []
            import contextlib
            with contextlib.nullcontext() if alpha else torch.no_grad():   # CROWN-Optimized needs gradients
                for k in range(args.repeat + 1):
                    t0 = time.perf_counter()
                    lb, ub = bmodel.compute_bounds(x=(bx,), method=peer_method)
                    if k:
                        times.append(time.perf_counter() - t0)
        except Exception as e:
            sys.stdout = saved
            what = ("unsupported operations %s" % ", ".join(cap.names)) if cap.names else "%s: %s" % (type(e).__name__, e)
            row["notes"].append("auto_LiRPA fails: %s" % what)
            row["via"] = "-"
            continue
        finally:
            sys.stdout = saved
        llo = [float(v) for v in lb.detach().reshape(-1).tolist()]
        lhi = [float(v) for v in ub.detach().reshape(-1).tolist()]
        row["peer_s"] = statistics.median(times)
        if len(llo) != len(flo):
            row["notes"].append("auto_LiRPA gives %d outputs, certnn %d" % (len(llo), len(flo)))
            continue
        fl = ratios(flo, fhi, llo, lhi)
        row["fl_max"] = max(fl) if fl else None
        row["fl_mean"] = statistics.mean(fl) if fl else None
        # F within L widened by the charge at each end  <=>  M within L.  The cut is how far L
        # reaches inside M, in ulps of the bound.
        cut = 0.0
        for l0, l1, m0, m1 in zip(llo, lhi, mlo, mhi):
            if l0 > m0:
                cut = max(cut, (l0 - m0) / ulp(m0))
            if l1 < m1:
                cut = max(cut, (m1 - l1) / ulp(m1))
        row["cut"] = cut
        row["within"] = "yes" if cut == 0 else "yes*" if cut <= 1024 else "NO"
        for _, y in ref:
            for j, v in enumerate(y):
                if not llo[j] <= v <= lhi[j]:
                    row["notes"].append("sampled output %d = %r outside auto_LiRPA's box" % (j, float(v)))

    def g(v, f="%.4g"):
        return "-" if v is None else f % v

    if crown:
        cols = ["model", "onnx ops", "peer via", "F/L max", "F/L mean", "F/I mean", "certnn s", "peer s", "note"]
    else:
        cols = ["model", "onnx ops", "peer via", "F/L max", "F/L mean", "within", "charged", "F/M max", "peer cut",
                "certnn s", "peer s", "note"]
    table = []
    for r in rows:
        if crown:
            table.append([r["model"], r["ops"], r["via"], g(r.get("fl_max"), "%.6f"), g(r.get("fl_mean"), "%.6f"),
                          g(r.get("fi_mean"), "%.6f"), g(r.get("certnn_s"), "%.2e"), g(r.get("peer_s"), "%.2e"),
                          "; ".join(r["notes"])])
            continue
        table.append([r["model"], r["ops"], r["via"], g(r.get("fl_max"), "%.15f"), g(r.get("fl_mean"), "%.15f"),
                      r.get("within", "-"), g(r.get("charged"), "%.2e"), g(r.get("fm_max"), "%.15f"),
                      g(r.get("cut"), "%.0f ulp"), g(r.get("certnn_s"), "%.2e"), g(r.get("peer_s"), "%.2e"),
                      "; ".join(r["notes"])])
    w = [max(len(c), *(len(t[i]) for t in table)) if table else len(c) for i, c in enumerate(cols[:-1])]
    print("  ".join(c.ljust(w[i]) for i, c in enumerate(cols[:-1])) + "  note")
    for t in table:
        print("  ".join(v.ljust(w[i]) for i, v in enumerate(t[:-1])) + "  " + t[-1])
    cmp_rows = [r for r in rows if "fl_max" in r]
    if crown:
        print("summary: %d models, %d compared with auto_LiRPA's %s, max F/L %s, mean F/L %s"
              % (len(rows), len(cmp_rows), peer_method,
                 g(max((r["fl_max"] for r in cmp_rows if r["fl_max"] is not None), default=None), "%.6f"),
                 g(statistics.mean([r["fl_mean"] for r in cmp_rows if r["fl_mean"] is not None])
                   if cmp_rows else None, "%.6f")))
    else:
        print("summary: %d models, %d compared with auto_LiRPA, within %d (strict %d), max F/L %s, max F/M %s"
              % (len(rows), len(cmp_rows), sum(r["within"] != "NO" for r in cmp_rows),
                 sum(r["within"] == "yes" for r in cmp_rows),
                 g(max((r["fl_max"] for r in cmp_rows if r["fl_max"] is not None), default=None), "%.15f"),
                 g(max((r["fm_max"] for r in rows if r.get("fm_max") is not None), default=None), "%.15f")))
    if args.csv:
        import csv
        keys = ["model", "ops", "via", "fl_max", "fl_mean", "within", "charged", "fm_max", "cut", "certnn_s",
                "mpfi_s", "peer_s", "fi_mean"]
        with open(args.csv, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(keys + ["note"])
            for r in rows:
                wr.writerow([("" if r.get(k) is None else r.get(k)) for k in keys] + ["; ".join(r["notes"])])
    bad = any(n.startswith(("the fast box", "sampled output")) and "auto_LiRPA" not in n
              for r in rows for n in r["notes"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
