#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs `certnn verify` on every instance of a VNN-COMP category and checks every answer.

    /usr/bin/python3 benchmarks/run_category.py CATEGORY [options] [-- EXTRA CERTNN ARGS]
    /usr/bin/python3 benchmarks/run_category.py --check-witness RESULT_FILE NET.onnx SPEC.vnnlib [...]

CATEGORY is a folder of the benchmark root (acasxu, mnist_fc, oval21, safenlp, ...), or `all`:
every folder with an instances file, one after the other, each with its listed timeouts (mnist_fc
and oval21 with their 2022 set, instances_2022.csv, unless --instances says otherwise), each with
its own summary line and then one for all.  The instances come from its instances.csv
(`onnx,vnnlib,timeout` per line, no header), the expected verdicts from the expected.csv beside it
(instances_2022.csv goes with expected_2022.csv).  Each instance runs as

    certnn verify NET SPEC --timeout T --output TMP --quiet [--threads N] [EXTRA...]

killed at T + 30 s.  The verdict is line 1 of TMP, read as the competition reads it (whitespace
deleted).  Every `sat` has its counterexample checked independently, as the VNN-COMP 2022+ scorer
does (counterexamples.py:get_ce_diff): X reshaped in C order to the ONNX input shape, the network
run in the model's dtype (float32 here) with PyTorch through onnx_to_torch.py, its output within
rtol 1e-3 (relative to ||Y||inf) of the witness Y, X inside one of the spec's input boxes within
1e-4, and Y satisfying every row of one disjunct M y <= rhs + 1e-4.  The spec is read by the small
VNN-LIB reader below (the semantics of the scorer's read_vnnlib_simple), not by certnn.

With --ort DIR (or $ORT_PATH), DIR a folder where `npm install onnxruntime-node --ignore-scripts`
was run (its node_modules holds it), every valid sat is also replayed as VNN-COMP 2026 replays it: X fed to
onnxruntime (benchmarks/ort_eval.js under Node.js) in the model's input type, and its output must
satisfy every row of one disjunct with zero output tolerance; a sat whose replay misses is WRONG.

Status per instance:
  OK       unsat where the expected verdict is unsat, or sat with a valid witness
           (and not expected unsat); also unsat where no oracle exists (counted apart)
  WRONG    sat with a missing or invalid witness, sat where unsat is expected, unsat where
           sat is expected, sat whose onnxruntime replay misses (with --ort)
  unknown  unknown, timeout, an error exit of certnn, or a kill at T + 30 s

Prints one table row per instance as it goes, then
    correct unsat N, correct sat N, unknown/timeout N, WRONG N; total S s, median S s;
    onnxruntime replay: K of N sat hold, ...
and exits 1 if any row is WRONG, 0 otherwise (2 on bad usage).  Progress goes to standard error.

--check-witness RESULT_FILE NET SPEC (repeatable) runs nothing: it checks each result file (a
first line `sat` and the witness, or the witness alone as in a .counterexample file) and prints
`RESULT_FILE: valid: ...` or `RESULT_FILE: INVALID: why`.  Exit 0 if all are valid, else 2 if a
file is missing, else 3 if a check cannot run (numpy, onnx or torch missing, or a network that
onnx_to_torch.py refuses), else 1.
"""
import argparse
import csv
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

VERDICTS = ("sat", "unsat", "unknown", "timeout", "error")
INPUT_TOL = 1e-4        # X may leave the input box by this much (absolute), as in the scorer
SPEC_TOL = 1e-4         # M y <= rhs + this
REL_TOL = 1e-3          # ||f(X) - Y||inf <= this * ||Y||inf
KILL_GRACE = 30         # seconds after T before the driver kills certnn

# The organizers' `test` category ships no expected.csv.  Its verdicts, read off the files
# (see ../shared/benchmarks/README.md):
#   test_nano: y = relu(w x) >= 0 can never satisfy Y_0 <= -1                      -> unsat
#   test_tiny, test_small: x in [-1,1], Y_0 >= 100, while max y is 1.0 and 78.5     -> unsat
#   test_sat / test_unsat: ACAS Xu-shaped nets with property 3, named for the answer -> sat / unsat
BUILTIN_EXPECTED = {
    "test": {
        ("test_nano.onnx", "test_nano.vnnlib"): "unsat",
        ("test_tiny.onnx", "test_tiny.vnnlib"): "unsat",
        ("test_small.onnx", "test_small.vnnlib"): "unsat",
        ("test_sat.onnx", "test_prop.vnnlib"): "sat",
        ("test_unsat.onnx", "test_prop.vnnlib"): "unsat",
    }
}


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# VNN-LIB: the subset of the scorer's read_vnnlib_simple, read as S-expressions.

class SpecError(Exception):
    pass


def _sexprs(text):
    """Parses TEXT (comments from ';' to the end of the line removed) into a list of nested lists
    of atoms (strings)."""
    text = re.sub(r";[^\n]*", " ", text)
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    stack, top = [], []
    cur = top
    for t in tokens:
        if t == "(":
            stack.append(cur)
            cur.append([])
            cur = cur[-1]
        elif t == ")":
            if not stack:
                raise SpecError("unbalanced ')'")
            cur = stack.pop()
        else:
            cur.append(t)
    if stack:
        raise SpecError("unbalanced '(': %d left open" % len(stack))
    return top


def _var(tok):
    """('X', i) or ('Y', i) for X_i / Y_i, else None."""
    m = re.fullmatch(r"([XY])_(\d+)", tok)
    return (m.group(1), int(m.group(2))) if m else None


def _const(tok):
    try:
        v = float(tok)
    except ValueError:
        raise SpecError("not a number or variable: %r" % tok)
    if math.isnan(v):
        raise SpecError("NaN constant %r" % tok)
    return v


def _dnf(f):
    """The formula F as a list of conjunctions, each a list of atoms (op, a, b)."""
    if not isinstance(f, list) or not f:
        raise SpecError("expected a formula, got %r" % (f,))
    head = f[0]
    if head in ("<=", ">="):
        if len(f) != 3 or isinstance(f[1], list) or isinstance(f[2], list):
            raise SpecError("bad comparison %r" % (f,))
        return [[(head, f[1], f[2])]]
    if head == "and":
        res = [[]]
        for sub in f[1:]:
            res = [a + b for a in res for b in _dnf(sub)]
        return res
    if head == "or":
        res = []
        for sub in f[1:]:
            res += _dnf(sub)
        return res
    raise SpecError("unsupported connective %r" % (head,))


def read_vnnlib(path, n_in, n_out):
    """Reads PATH as the scorer's read_vnnlib_simple does: returns [(box, [(M, b), ...]), ...],
    box a list of [lo, hi] per input, M a list of rows over the n_out outputs, grouped by identical
    input boxes.  The instance is sat iff some x in some box has M f(x) <= b for some (M, b) of
    that box."""
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        exprs = _sexprs(f.read())
    dnf = [[]]
    for e in exprs:
        if not isinstance(e, list) or not e:
            raise SpecError("unexpected top-level %r" % (e,))
        if e[0] == "declare-const":
            if len(e) != 3 or _var(e[1]) is None:
                raise SpecError("bad declaration %r" % (e,))
            kind, i = _var(e[1])
            if i >= (n_in if kind == "X" else n_out):
                raise SpecError("%s is out of range (%d inputs, %d outputs)" % (e[1], n_in, n_out))
            continue
        if e[0] != "assert" or len(e) != 2:
            raise SpecError("unsupported statement %r" % (e[0],))
        dnf = [a + b for a in dnf for b in _dnf(e[1])]
    groups = {}
    for conj in dnf:
        box = [[-math.inf, math.inf] for _ in range(n_in)]
        mat, rhs = [], []
        for op, a, b in conj:
            va, vb = _var(a), _var(b)
            if op == ">=":          # a >= b  is  b <= a
                a, b, va, vb = b, a, vb, va
            # now a <= b
            if va is not None and va[0] == "X" or vb is not None and vb[0] == "X":
                if va is not None and vb is not None:
                    raise SpecError("input constraints must be a box: (%s %s %s)" % (op, a, b))
                if va is not None:
                    if va[1] >= n_in:
                        raise SpecError("%s out of range" % a)
                    box[va[1]][1] = min(box[va[1]][1], _const(b))
                else:
                    if vb[1] >= n_in:
                        raise SpecError("%s out of range" % b)
                    box[vb[1]][0] = max(box[vb[1]][0], _const(a))
                continue
            row = [0.0] * n_out
            c = 0.0
            for v, sign, tok in ((va, 1.0, a), (vb, -1.0, b)):
                if v is None:
                    c -= sign * _const(tok)
                else:
                    if v[1] >= n_out:
                        raise SpecError("%s out of range" % tok)
                    row[v[1]] += sign
            mat.append(row)
            rhs.append(c)
        if any(lo > hi for lo, hi in box):
            continue            # an empty box holds no counterexample
        for j, (lo, hi) in enumerate(box):
            if lo == -math.inf or hi == math.inf:
                raise SpecError("input X_%d is unbounded in a disjunct" % j)
        key = tuple((lo, hi) for lo, hi in box)
        groups.setdefault(key, []).append((mat, rhs))
    return [([list(k) for k in key], specs) for key, specs in groups.items()]


# ---------------------------------------------------------------------------------------------
# Counterexamples.

def parse_witness(text):
    """Parses the witness (the result file after its first line) as get_ce_diff does: returns
    (x list, y list); raises ValueError with the reason."""
    content = " ".join(text.splitlines()).strip()
    if len(content) < 2:
        raise ValueError("no counterexample after 'sat'")
    if content[0] != "(" or content[-1] != ")":
        raise ValueError("the counterexample is not one parenthesized list")
    content = content[1:-1]
    xs, ys = [], []
    for part in content.split(")"):
        part = " ".join(part.split())
        if not part:
            continue
        if part[0] != "(":
            raise ValueError("expected '(' before %r" % part[:40])
        fields = part[1:].split(" ")
        if len(fields) != 2:
            raise ValueError("expected (NAME VALUE), got %r" % part[:40])
        name, num = fields
        v = _var(name)
        if v is None:
            raise ValueError("expected X_i or Y_j, got %r" % name)
        lst = xs if v[0] == "X" else ys
        if v[1] != len(lst):
            raise ValueError("%s out of order (expected %s_%d)" % (name, v[0], len(lst)))
        val = float(num)
        if not math.isfinite(val):
            raise ValueError("%s is %s" % (name, num))
        lst.append(val)
    return xs, ys


_MODELS = {}
_INPUTS = {}


def _input_info(net, m=None):
    """(name, dims with unknown ones as 1, ONNX element type) of NET's first graph input that is
    no initializer, cached per path (M: the loaded model, if at hand)."""
    if net not in _INPUTS:
        import onnx
        m = m if m is not None else onnx.load(net)
        inits = {i.name for i in m.graph.initializer}
        vi = [v for v in m.graph.input if v.name not in inits][0]
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tt.shape.dim]
        _INPUTS[net] = (vi.name, dims, tt.elem_type)
    return _INPUTS[net]


def _witness_text(result_text):
    """(the first line's verdict with whitespace deleted, or None where the text starts with the
    witness itself, the witness text) of a result file."""
    lines = result_text.splitlines()
    if lines and lines[0].strip() and not lines[0].lstrip().startswith("("):
        return "".join(lines[0].split()), "\n".join(lines[1:])
    return None, "\n".join(lines)


def _in_box(box, xs):
    """Whether XS lies in BOX (a list of (lo, hi)) within the scorer's input tolerance."""
    return all(lo - INPUT_TOL <= xi <= hi + INPUT_TOL for (lo, hi), xi in zip(box, xs))


def _model(net):
    """(torch module in the model's dtype, input shape, numpy dtype), cached per path."""
    if net not in _MODELS:
        import numpy as np
        import onnx
        import torch
        sys.path.insert(0, HERE)
        import onnx_to_torch
        torch.set_num_threads(1)
        m = onnx.load(net)
        module, inputs = onnx_to_torch.convert(m)
        if len(inputs) != 1:
            raise ValueError("the network has %d inputs, not 1" % len(inputs))
        elem = _input_info(net, m)[2]
        if elem == onnx.TensorProto.FLOAT:
            dtype, module = np.float32, module.float()
        elif elem == onnx.TensorProto.DOUBLE:
            dtype, module = np.float64, module.double()
        else:
            raise ValueError("input element type %d is neither float nor double" % elem)
        _MODELS[net] = (module, inputs[0][1], dtype)
    return _MODELS[net]


def check_witness(result_text, net, spec):
    """Checks RESULT_TEXT (a result file: 'sat' then the witness, or the witness alone) against
    NET and SPEC.  Returns (valid, message), valid None when the check itself cannot run."""
    first, witness = _witness_text(result_text)
    if first is not None and first != "sat":
        return False, "first line is %r, not sat" % first
    try:
        xs, ys = parse_witness(witness)
    except ValueError as e:
        return False, "witness: %s" % e
    try:
        import numpy as np
        import torch
        module, shape, dtype = _model(net)
    except ImportError as e:
        return None, "cannot check: %s (needs numpy, onnx and torch)" % e
    except Exception as e:  # a network the converter refuses, an unreadable file
        return None, "cannot evaluate the network: %s: %s" % (type(e).__name__, e)
    n_in = int(np.prod(shape))
    if len(xs) != n_in:
        return False, "witness has %d X values, the network %d inputs" % (len(xs), n_in)
    x = np.array(xs, dtype=dtype).reshape(shape, order="C")
    with torch.no_grad():
        out = module(torch.from_numpy(x))
    if not isinstance(out, torch.Tensor):
        out = out[0]
    fy = out.detach().numpy().astype(np.float64).flatten(order="C")
    if len(ys) != fy.size:
        return False, "witness has %d Y values, the network %d outputs" % (len(ys), fy.size)
    y = np.array(ys, dtype=np.float64)
    diff = float(np.max(np.abs(fy - y))) if y.size else 0.0
    norm = float(np.max(np.abs(y))) if y.size else 0.0
    rel = 0.0 if norm < 1e-6 else diff / norm     # the scorer's rule, including its small-norm case
    if not rel <= REL_TOL:
        return False, "Y differs from the network's output: |f(X)-Y|inf = %.3g (rel %.3g > %g)" % (diff, rel, REL_TOL)
    try:
        specs = read_vnnlib(spec, n_in, fy.size)
    except (SpecError, OSError) as e:
        return None, "cannot read the spec: %s" % e
    in_a_box = False
    for box, disjuncts in specs:
        if not _in_box(box, xs):
            continue
        in_a_box = True
        for mat, rhs in disjuncts:
            if not mat:
                ok_rows = True
                slack = math.inf
            else:
                vals = np.array(mat, dtype=np.float64).dot(y)
                ok_rows = bool(np.all(vals <= np.array(rhs) + SPEC_TOL))
                slack = float(np.min(np.array(rhs) - vals))
            if ok_rows:
                exact = all(lo <= xi <= hi for (lo, hi), xi in zip(box, xs)) and slack >= 0
                f_ok = (not mat) or bool(np.all(np.array(mat).dot(fy) <= np.array(rhs) + SPEC_TOL))
                msg = "valid witness (|f(X)-Y|inf = %.3g)" % diff
                if y.size and norm < 1e-6 and diff > REL_TOL * 1e-6:
                    msg += ", accepted only because ||Y||inf < 1e-6 (the scorer then skips the comparison)"
                if not exact:
                    msg += ", valid only up to the 1e-4 tolerances"
                if not f_ok:
                    msg += ", but the float evaluation f(X) misses the disjunct"
                return True, msg
    if not in_a_box:
        return False, "X lies in none of the %d input box(es), even with the 1e-4 tolerance" % len(specs)
    return False, "X is in an input box, but Y satisfies none of its disjuncts (with the 1e-4 tolerance)"


def ort_replay(result_text, net, spec, ort_dir):
    """Replays the witness X of RESULT_TEXT in onnxruntime (benchmarks/ort_eval.js under Node.js,
    onnxruntime-node from ORT_DIR, a node_modules folder) as VNN-COMP 2026 does: X in the model's
    input type, and the output must satisfy every row of one disjunct of a box holding X (within
    the input tolerance) with zero output tolerance, M y <= rhs in float64.  Returns (holds,
    message); holds None when the replay cannot run."""
    import json
    try:
        xs, _ = parse_witness(_witness_text(result_text)[1])
        import onnx
        name, dims, elem = _input_info(net)
    except Exception as e:
        return None, "cannot replay: %s" % e
    typ = "float64" if elem == onnx.TensorProto.DOUBLE else "float32"
    req = {"model": os.path.abspath(net), "inputs": {name: {"type": typ, "dims": dims, "data": xs}}}
    env = dict(os.environ, NODE_PATH=ort_dir)
    try:
        p = subprocess.run(["node", os.path.join(HERE, "ort_eval.js")], input=json.dumps(req).encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=600)
        res = json.loads(p.stdout.decode() or "{}")
    except (OSError, subprocess.TimeoutExpired, ValueError) as e:
        return None, "cannot replay: %s" % e
    if "error" in res or "outputs" not in res:
        return None, "onnxruntime: %s" % res.get("error", "no output")
    y = res["outputs"][res["names"][0]]
    try:
        specs = read_vnnlib(spec, len(xs), len(y))
    except (SpecError, OSError) as e:
        return None, "cannot read the spec: %s" % e
    best = -math.inf
    for box, disjuncts in specs:
        if not _in_box(box, xs):
            continue
        for mat, rhs in disjuncts:
            if not mat:
                return True, "onnxruntime replay holds"
            slack = min(r - sum(c * yi for c, yi in zip(row, y)) for row, r in zip(mat, rhs))
            best = max(best, slack)
            if slack >= 0:
                return True, "onnxruntime replay holds (margin %.3g)" % slack
    return False, "onnxruntime's output satisfies no disjunct with zero tolerance (best margin %.3g)" % best


# ---------------------------------------------------------------------------------------------
# Running a category.

def read_instances(path):
    res = []
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 3:
                raise ValueError("%s: expected 'onnx,vnnlib,timeout', got %r" % (path, line))
            res.append((parts[0], parts[1], float(parts[2])))
    return res


def strip_gz(p):
    return p[:-3] if p.endswith(".gz") else p


def _rel(path):
    """PATH of an instances file (`onnx/...`, `vnnlib/...`, `vnnlib_2022/...`) without its first
    folder, as the expected*.csv files name it (`ruarobot/perturbations_0.onnx`)."""
    parts = strip_gz(path).replace("\\", "/").split("/")
    return "/".join(parts[1:]) if len(parts) > 1 else parts[0]


class Expected(dict):
    """{(onnx, vnnlib) as the expected*.csv names them: verdict}, looked up by an instance's paths
    (expected.get(onnx, vnnlib)): by the paths below their first folder, else by basenames where
    those name one row only (safenlp has equal basenames in two folders)."""

    def __init__(self):
        super().__init__()
        self.by_base = {}

    def add(self, onnx, vnnlib, verdict):
        self[(strip_gz(onnx), strip_gz(vnnlib))] = verdict
        key = (os.path.basename(strip_gz(onnx)), os.path.basename(strip_gz(vnnlib)))
        self.by_base[key] = None if key in self.by_base else verdict

    def get(self, onnx, vnnlib, default="-"):
        v = dict.get(self, (_rel(onnx), _rel(vnnlib)))
        if v is None:
            v = self.by_base.get((os.path.basename(strip_gz(onnx)), os.path.basename(strip_gz(vnnlib))))
        return default if v is None else v


def read_expected(catdir, instances_name, category):
    """The Expected verdicts of the expected*.csv matching the instances file."""
    m = re.fullmatch(r"instances(.*)\.csv", os.path.basename(instances_name))
    exp_path = os.path.join(catdir, "expected%s.csv" % (m.group(1) if m else ""))
    res = Expected()
    for (o, v), verdict in BUILTIN_EXPECTED.get(category, {}).items():
        res.add(o, v, verdict)
    if os.path.isfile(exp_path):
        with open(exp_path, "r", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                res.add(row["onnx"], row["vnnlib"], row.get("expected", "").strip() or "-")
    return res


def run_one(certnn, net, spec, timeout, threads, extra, tmpdir):
    """Runs certnn verify; returns (verdict, seconds, exit status, result text, note)."""
    out = os.path.join(tmpdir, "result.txt")
    if os.path.exists(out):
        os.unlink(out)
    cmd = [certnn, "verify", net, spec, "--timeout", "%g" % timeout, "--output", out, "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    cmd += extra
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return "error", 0.0, None, "", "cannot run %s: %s" % (certnn, e)
    killed = False
    try:
        _, err = p.communicate(timeout=timeout + KILL_GRACE)
    except subprocess.TimeoutExpired:
        killed = True
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    secs = time.monotonic() - t0
    err = err.decode("utf-8", "replace").strip().splitlines()
    last = err[-1] if err else ""
    if killed:
        return "killed", secs, p.returncode, "", "killed at T+%d s" % KILL_GRACE
    if p.returncode != 0:
        return "error", secs, p.returncode, "", "exit %d: %s" % (p.returncode, last)
    try:
        with open(out, "r", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        return "error", secs, 0, "", "no result file: %s" % e
    lines = text.splitlines()
    first = "".join(lines[0].split()) if lines else ""
    if first not in VERDICTS:
        return "error", secs, 0, text, "first line %r is not a verdict" % first[:30]
    return first, secs, 0, text, ""


def judge(verdict, expected, text, net, spec, ort_dir=None, replays=None):
    """(status, note) of one answer.  With ORT_DIR, a sat is also replayed in onnxruntime
    (ort_replay) and is WRONG when the replay misses; REPLAYS (a list) receives its outcome."""
    if verdict == "sat":
        valid, msg = check_witness(text, net, spec)
        if valid is None:
            return "WRONG", "sat, but the witness could not be checked: " + msg
        if not valid:
            return "WRONG", "sat with an invalid witness: " + msg
        if expected == "unsat":
            return "WRONG", "sat where unsat is expected (" + msg + ")"
        if ort_dir:
            holds, rmsg = ort_replay(text, net, spec, ort_dir)
            if replays is not None:
                replays.append(holds)
            if holds is False:
                return "WRONG", "sat, " + msg + ", but " + rmsg
            msg += "; " + rmsg
        return "OK", msg
    if verdict == "unsat":
        if expected == "sat":
            return "WRONG", "unsat where sat is expected"
        if expected != "unsat":
            return "OK", "no oracle for this instance"
        return "OK", ""
    return "unknown", ""


def main_check(args):
    """--check-witness, once or repeated: one line per result file, then the exit status: 2 if a
    file is missing, else 3 if some check could not run, else 1 if some witness is invalid, else 0."""
    worst = 0
    rank = {0: 0, 1: 1, 3: 2, 2: 3}
    for result, net, spec in args.check_witness:
        missing = [p for p in (result, net, spec) if not os.path.isfile(p)]
        if missing:
            print("%s: MISSING: no such file: %s" % (result, missing[0]))
            rc = 2
        else:
            with open(result, "r", encoding="utf-8", errors="replace") as f:
                text = f.read()
            ok, msg = check_witness(text, net, spec)
            print("%s: %s: %s" % (result, {True: "valid", False: "INVALID", None: "UNCHECKED"}[ok], msg))
            rc = {True: 0, False: 1, None: 3}[ok]
        sys.stdout.flush()
        worst = rc if rank[rc] > rank[worst] else worst
    return worst


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        description="Run certnn verify on every instance of a VNN-COMP category and check the answers.",
        epilog="Arguments after -- go to certnn verify.")
    ap.add_argument("category", nargs="?", help="benchmark folder (acasxu, mnist_fc, oval21, safenlp, ...), or all")
    ap.add_argument("--root", metavar="DIR", help="benchmark root (default $CERTNN_BENCHMARKS, else ../shared/benchmarks beside the repository)")
    ap.add_argument("--instances", metavar="FILE", help="instances file in the category folder (default instances.csv; "
                    "with all, instances_2022.csv where there is one)")
    ap.add_argument("--ort", metavar="DIR", help="folder whose node_modules holds onnxruntime-node (default "
                    "$ORT_PATH): every sat is replayed in onnxruntime with zero output tolerance")
    ap.add_argument("--timeout-scale", metavar="F", type=float, default=1.0, help="multiply every instance timeout by F")
    ap.add_argument("--timeout", metavar="S", type=float, help="use S seconds for every instance instead")
    ap.add_argument("--filter", metavar="REGEX", help="keep instances whose 'onnx,vnnlib' (as in the csv) matches REGEX")
    ap.add_argument("--limit", metavar="N", type=int, help="run at most N instances (after --filter)")
    ap.add_argument("--certnn", metavar="PATH", help="the certnn binary (default $BENCH_CERTNN, else <repo>/build/certnn)")
    ap.add_argument("--csv", metavar="FILE", help="also write the rows to FILE")
    ap.add_argument("--threads", metavar="N", type=int, help="pass --threads N to certnn")
    ap.add_argument("--check-witness", nargs=3, action="append", metavar=("RESULT_FILE", "NET", "SPEC"),
                    help="only check the counterexample in RESULT_FILE (may be repeated); exit 0 if every "
                         "one is valid, else 2 if a file is missing, else 3 if a check cannot run (numpy, "
                         "onnx or torch missing, or a network the converter refuses), else 1")
    args = ap.parse_args(argv)

    if args.check_witness:
        return main_check(args)
    if not args.category:
        ap.error("a category is needed (or --check-witness)")
    if args.timeout is not None and not args.timeout > 0:
        ap.error("--timeout must be > 0")
    if not args.timeout_scale > 0:
        ap.error("--timeout-scale must be > 0")
    root = args.root or os.environ.get("CERTNN_BENCHMARKS") or os.path.join(os.path.dirname(REPO), "shared", "benchmarks")
    certnn = args.certnn or os.environ.get("BENCH_CERTNN") or os.path.join(REPO, "build", "certnn")
    if not (os.path.isfile(certnn) and os.access(certnn, os.X_OK)):
        log("run_category: no certnn binary at %s (build it, or give --certnn or $BENCH_CERTNN)" % certnn)
        return 2
    ort = args.ort if args.ort is not None else os.environ.get("ORT_PATH", "")
    ort_dir = os.path.join(ort, "node_modules") if ort else ""
    if ort_dir and not os.path.isdir(os.path.join(ort_dir, "onnxruntime-node")):
        log("run_category: no node_modules/onnxruntime-node in %s (npm install onnxruntime-node --ignore-scripts "
            "there)" % ort)
        return 2
    if ort_dir and shutil.which("node") is None:
        log("run_category: --ort needs Node.js (node) on PATH")
        return 2
    if args.category == "all":
        if not os.path.isdir(root):
            log("run_category: no benchmark root %s" % root)
            return 2
        sets = []
        for c in sorted(os.listdir(root)):
            if args.instances is not None:
                inst = args.instances
            elif os.path.isfile(os.path.join(root, c, "instances_2022.csv")):
                inst = "instances_2022.csv"   # the set the 2022 and 2023 results refer to
            else:
                inst = "instances.csv"
            if os.path.isfile(os.path.join(root, c, inst)):
                sets.append((c, inst))
    else:
        sets = [(args.category, args.instances or "instances.csv")]
    rows, summaries = [], []
    for category, inst_name in sets:
        got = run_set(args, ap, root, category, inst_name, certnn, ort_dir, extra)
        if got is None:
            return 2
        rows += got
        summaries.append((category, inst_name, summary(got, ort_dir)))
    for category, inst_name, line in summaries:
        print(("%s (%s): %s" % (category, inst_name, line)) if len(sets) > 1 else line)
    if len(sets) > 1:
        print("all: " + summary(rows, ort_dir))
    sys.stdout.flush()
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            wr = csv.DictWriter(f, fieldnames=["category", "onnx", "vnnlib", "timeout", "verdict", "seconds",
                                               "expected", "status", "exit", "replay", "note"])
            wr.writeheader()
            wr.writerows(rows)
    return 1 if any(r["status"] == "WRONG" for r in rows) else 0


def summary(rows, ort_dir):
    """The summary line of ROWS."""
    n_unsat = sum(1 for r in rows if r["status"] == "OK" and r["verdict"] == "unsat" and r["expected"] == "unsat")
    n_unsat_nooracle = sum(1 for r in rows if r["status"] == "OK" and r["verdict"] == "unsat" and r["expected"] != "unsat")
    n_sat = sum(1 for r in rows if r["status"] == "OK" and r["verdict"] == "sat")
    n_unknown = sum(1 for r in rows if r["status"] == "unknown")
    n_wrong = sum(1 for r in rows if r["status"] == "WRONG")
    secs = [float(r["seconds"]) for r in rows]
    line = "correct unsat %d, correct sat %d, unknown/timeout %d, WRONG %d; total %.1f s, median %.2f s" % (
        n_unsat, n_sat, n_unknown, n_wrong, sum(secs), statistics.median(secs) if secs else 0.0)
    if n_unsat_nooracle:
        line += "; unsat without an oracle %d" % n_unsat_nooracle
    replayed = [r["replay"] for r in rows if r["replay"]]
    if ort_dir:
        line += "; onnxruntime replay: %d of %d sat hold, %d miss, %d not replayed" % (
            replayed.count("holds"), len(replayed), replayed.count("misses"), replayed.count("not run"))
    else:
        line += "; onnxruntime replay: not run (no --ort / $ORT_PATH)"
    return line


def run_set(args, ap, root, category, inst_name, certnn, ort_dir, extra):
    """Runs one instance set and prints its rows; returns the rows, or None on bad usage."""
    catdir = os.path.join(root, category)
    inst_path = os.path.join(catdir, inst_name)
    if not os.path.isfile(inst_path):
        log("run_category: no instances file %s" % inst_path)
        return None
    instances = read_instances(inst_path)
    if args.filter:
        try:
            rx = re.compile(args.filter)
        except re.error as e:
            ap.error("--filter: %s" % e)
        instances = [i for i in instances if rx.search("%s,%s" % (i[0], i[1]))]
    if args.limit is not None:
        instances = instances[:max(args.limit, 0)]
    if not instances:
        log("run_category: no instance of %s matches" % inst_path)
        return [] if args.category == "all" else None
    expected = read_expected(catdir, inst_name, category)

    names = ["%s %s" % (os.path.splitext(os.path.basename(strip_gz(o)))[0],
                        os.path.splitext(os.path.basename(strip_gz(v)))[0]) for o, v, _ in instances]
    w = max(len("instance"), max(len(n) for n in names))
    fmt = "%-{w}s  %-7s  %8s  %-8s  %-7s  %s".format(w=w)
    print((fmt % ("instance", "verdict", "seconds", "expected", "status", "note")).rstrip())
    sys.stdout.flush()
    rows = []
    tmpdir = tempfile.mkdtemp(prefix="run_category.")
    try:
        for k, ((o, v, t), name) in enumerate(zip(instances, names)):
            net = strip_gz(os.path.join(catdir, o))
            spec = strip_gz(os.path.join(catdir, v))
            timeout = args.timeout if args.timeout is not None else t * args.timeout_scale
            exp = expected.get(o, v, "-")
            log("[%d/%d] %s %s (timeout %g s)" % (k + 1, len(instances), category, name, timeout))
            if not (os.path.isfile(net) and os.path.isfile(spec)):
                verdict, secs, rc, text, note = "error", 0.0, None, "", "missing %s" % (net if not os.path.isfile(net) else spec)
            else:
                verdict, secs, rc, text, note = run_one(certnn, net, spec, timeout, args.threads, extra, tmpdir)
            replays = []
            status, jnote = judge(verdict, exp, text, net, spec, ort_dir, replays)
            note = "; ".join(s for s in (note, jnote) if s)
            print((fmt % (name, verdict, "%.2f" % secs, exp, status, note)).rstrip())
            sys.stdout.flush()
            replay = {True: "holds", False: "misses", None: "not run"}[replays[0]] if replays else ""
            rows.append({"category": category, "onnx": o, "vnnlib": v, "timeout": "%g" % timeout,
                         "verdict": verdict, "seconds": "%.3f" % secs, "expected": exp, "status": status,
                         "exit": "" if rc is None else rc, "replay": replay, "note": note})
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return rows


if __name__ == "__main__":
    sys.exit(main())
