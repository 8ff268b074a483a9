# SPDX-License-Identifier: MIT
"""tests/python_binding.py SRCDIR: the Python module against the library's own answers.

On the bundled example network (examples/acasxu): bounds over the property's box by every method
and semantics are the numbers `certnn bounds --json` prints (the soundness of those is the C
suite's), L-infinity balls give boxes, CROWN's box lies within IBP's; verify gives the verdict of
`certnn verify`; linear_bounds() are the command's --linear numbers; an L2 ball's bounds lie
within the L-infinity ball's; ops() lists the 154 operators with relu's coverage; every error raises
certnn.Error with certnn's status and message (a missing file, a bad method, a bad option value, a
wrong semantics, an empty box, a bad timeout, a property of another size) or ValueError (a wrong
array size).  Prints what it checked; exit 1 on the first failure."""
import glob
import json
import os
import subprocess
import sys

import numpy as np

import certnn

src = sys.argv[1] if len(sys.argv) > 1 else "."
certnn_bin = os.environ.get("CN_CERTNN", "")
checks = 0


def ok(cond, what):
    global checks
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    checks += 1


ex = os.path.join(src, "examples")
nets = sorted(glob.glob(os.path.join(ex, "*", "*.onnx")))
specs = sorted(glob.glob(os.path.join(ex, "*", "*.vnnlib")))
ok(nets and specs, f"no example network and property in {ex}")
net_path, spec_path = nets[0], specs[0]
net = certnn.Network(net_path)
ok(net.input_size > 0 and net.output_size > 0, "sizes")
lo, hi = certnn.vnnlib_box(spec_path, net.input_size)
ok(lo.shape == (net.input_size,) and np.all(lo <= hi), "the property's box")

for method in ("ibp", "crown", "crown-ibp", "alpha-crown"):
    for sem in ("real", "binary32"):
        blo, bhi = net.bounds(box=(lo, hi), method=method, semantics=sem, threads=1, iterations=5)
        ok(np.all(blo <= bhi), f"{method} {sem}: lo <= hi")
        if certnn_bin and os.access(certnn_bin, os.X_OK) and method != "alpha-crown":
            p = subprocess.run([certnn_bin, "bounds", net_path, "--vnnlib", spec_path, "--method", method,
                                "--semantics", sem, "--json", "--threads", "1"], capture_output=True, text=True)
            r = json.loads(p.stdout)
            ok(np.allclose(blo, r["lower"], rtol=0, atol=0) and np.allclose(bhi, r["upper"], rtol=0, atol=0),
               f"{method} {sem}: the module's bounds are the command's")
    # an L-infinity ball around the box's centre
    c = (lo + hi) / 2
    blo, bhi = net.bounds(center=c, eps=float(np.min(hi - lo)) / 4, method=method, threads=1, iterations=5)
    ok(np.all(blo <= bhi), f"{method} ball")

# CROWN's box (intersected with IBP's by the analysis) lies within IBP's, up to rounding
ilo, ihi = net.bounds(box=(lo, hi), method="ibp")
clo, chi = net.bounds(box=(lo, hi), method="crown")
ok(np.all(clo >= ilo - 1e-9 * (1 + abs(ilo))) and np.all(chi <= ihi + 1e-9 * (1 + abs(ihi))),
   "crown within ibp")

# the sound linear bounds over the property's box are the command's --linear numbers, bit for bit
lb = net.linear_bounds(box=(lo, hi), threads=1)
ok(lb.lower_coef.shape == (net.output_size, net.input_size) and lb.upper_offset.shape == (net.output_size,),
   "linear bounds' shapes")
ok(np.array_equal(lb.lower, clo) and np.array_equal(lb.upper, chi), "linear_bounds' box is bounds()'s")
if certnn_bin and os.access(certnn_bin, os.X_OK):
    p = subprocess.run([certnn_bin, "bounds", net_path, "--vnnlib", spec_path, "--json", "--linear", "--threads", "1"],
                       capture_output=True, text=True)
    lin = json.loads(p.stdout)["linear"]
    none_inf = lambda v, s: np.array([s * np.inf if e is None else e for e in v])
    ok(np.array_equal(lb.lower_coef, np.array(lin["lower"]["coef"]))
       and np.array_equal(lb.upper_coef, np.array(lin["upper"]["coef"]))
       and np.array_equal(lb.lower_offset, none_inf(lin["lower"]["offset"], -1))
       and np.array_equal(lb.upper_offset, none_inf(lin["upper"]["offset"], 1)),
       "the module's linear bounds are the command's")
# an L2 ball: never looser than the L-infinity ball of the same radius, tighter somewhere
c, e = (lo + hi) / 2, float(np.min(hi - lo)) / 4
for method in ("crown", "crown-ibp", "alpha-crown"):
    blo, bhi = net.bounds(center=c, eps=e, method=method, threads=1, iterations=5)
    l2lo, l2hi = net.bounds(center=c, eps=e, norm=2, method=method, threads=1, iterations=5)
    ok(np.all(l2lo >= blo) and np.all(l2hi <= bhi) and (np.any(l2lo > blo) or np.any(l2hi < bhi)),
       f"{method}: the L2 ball's bounds within the box's, tighter somewhere")

r = net.verify(spec_path, timeout=30, threads=1)
ok(r.verdict in ("unsat", "sat", "unknown", "timeout"), f"verdict {r.verdict}")
if certnn_bin and os.access(certnn_bin, os.X_OK):
    p = subprocess.run([certnn_bin, "verify", net_path, spec_path, "--timeout", "30", "--threads", "1", "--quiet"],
                       capture_output=True, text=True)
    ok(p.stdout.split("\n")[0] == r.verdict, f"verify: module {r.verdict}, command {p.stdout.splitlines()[:1]}")
if r.verdict == "sat":
    ok(r.x.shape == (net.input_size,) and np.all(r.x >= lo) and np.all(r.x <= hi), "the counterexample in the box")
else:
    ok(r.x is None and r.y is None, "no counterexample without sat")
print(f"example {os.path.basename(net_path)} / {os.path.basename(spec_path)}: verify {r.verdict}, "
      f"{r.domains} domains")

table = certnn.ops()
ok(len(table) == 154 and all("name" in o and "crown" in o for o in table), f"ops(): {len(table)} operators")
ok(any(o["name"] == "relu" and o["crown"] and o["alpha"] for o in table), "relu's coverage")


def raises(f, status, text):
    try:
        f()
    except certnn.Error as e:
        ok(e.status == status and text in e.message, f"{status} {text!r}: got {e.status} {e.message!r}")
        return
    except ValueError as e:
        ok(status == "ValueError" and text in str(e), f"ValueError {text!r}: {e}")
        return
    ok(False, f"no error for {text!r}")


raises(lambda: certnn.Network(os.path.join(src, "no-such.onnx")), "EIO", "cannot open")
raises(lambda: net.bounds(center=c, eps=e, norm=2, method="ibp"), "EINVAL", "needs a CROWN method")
raises(lambda: net.bounds(box=(lo, hi), norm=2), "ValueError", "norm=2 needs center")
raises(lambda: net.bounds(center=c, eps=e, norm=1), "ValueError", "norm is")
raises(lambda: net.bounds(box=(lo, hi), method="nope"), "EINVAL", "'nope' is not one of")
raises(lambda: net.bounds(box=(lo, hi), threads=0), "EINVAL", "threads must be")
raises(lambda: net.bounds(box=(lo, hi), semantics="binary64"), "EINVAL", "not one of real, binary32")
raises(lambda: net.bounds(box=(lo[:-1], hi)), "ValueError", "entries")
raises(lambda: net.bounds(box=(hi, lo)) if np.any(lo < hi) else net.bounds(box=(lo, hi), threads=-1),
       "EINVAL" if np.any(lo < hi) else "EINVAL", "")
raises(lambda: net.verify(spec_path, timeout=0), "EINVAL", "timeout must be")
raises(lambda: net.bounds(box=(lo, hi), max_memory=0.001), "ELIMIT", "more than the memory budget")
raises(lambda: net.verify(spec_path, max_memory=0.001), "ELIMIT", "more than the memory budget")
raises(lambda: net.bounds(box=(lo, hi), max_memory=-1), "EINVAL", "max_memory must be")
blo, bhi = net.bounds(box=(lo, hi), max_memory=256)
flo, fhi = net.bounds(box=(lo, hi))
ok(np.array_equal(blo, flo) and np.array_equal(bhi, fhi), "bounds under max_memory=256 are the same")
raises(lambda: certnn.vnnlib_box(spec_path, net.input_size + 1), "ESHAPE", "inputs")
net.close()
print(f"python binding: {checks} checks passed (certnn {certnn.version()})")
