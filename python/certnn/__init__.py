# SPDX-License-Identifier: MIT
"""certnn: sound neural-network verification, from Python (a ctypes binding over libcertnn).

    import numpy as np, certnn
    net = certnn.Network("net.onnx")
    lo, hi = net.bounds(center=x0, eps=0.01, method="crown")          # numpy arrays
    lo, hi = net.bounds(box=certnn.vnnlib_box("prop.vnnlib", net.input_size))
    r = net.verify("prop.vnnlib", timeout=30)                          # r.verdict, r.x, r.y
    certnn.ops()                                                       # the operator table's coverage

Every bound holds for the network in exact real arithmetic with its stored weights, for every
input of the set (semantics="binary32": for its binary32 evaluation in any order instead); see
libcertnn(3) and certnn/bounds.h.  An error raises certnn.Error carrying certnn's message and
status name.  The library is found by $CERTNN_LIBRARY (a path), else next to this package's
install (the libdir recorded at install time), else by the system's loader (libcertnn.so.0).
"""
import ctypes
import ctypes.util
import os

import numpy as np

__all__ = ["Error", "LinearBounds", "Network", "VerifyResult", "ops", "vnnlib_box", "version"]

_MSG = 512          # CN_ERROR_MSG_SIZE


class _CnError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * _MSG)]


class _Coverage(ctypes.Structure):   # cn_op_coverage (certnn/ops.h)
    _fields_ = [(n, ctypes.c_int) for n in ("rule", "forward", "pullback", "jvp", "ibp", "crown", "crown_box",
                                             "alpha", "cuda", "reference", "checker", "value_input")] \
               + [("sorts", ctypes.c_char * 32)]


class Error(Exception):
    """A status of libcertnn: .status (its name, "CN_ESHAPE"), .message (certnn's message)."""

    def __init__(self, status, message):
        super().__init__(f"{message} ({status})")
        self.status = status
        self.message = message


def _candidates():
    env = os.environ.get("CERTNN_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _paths      # written by make install
        yield os.path.join(_paths.LIBDIR, "libcertnn.so.0")
    except ImportError:
        pass
    found = ctypes.util.find_library("certnn")
    if found:
        yield found
    yield "libcertnn.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("certnn: cannot load libcertnn (set CERTNN_LIBRARY to its path): " + "; ".join(errors))


_lib = _load()
_P = ctypes.c_void_p
_D = ctypes.POINTER(ctypes.c_double)
_I64 = ctypes.c_int64
_E = ctypes.POINTER(_CnError)
for name, res, args in [
    ("cn_graph_load_onnx", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), _E]),
    ("cn_graph_free", None, [_P]),
    ("cn_flat_input_size", _I64, [_P]),
    ("cn_flat_output_size", _I64, [_P]),
    ("cn_flat_vnnlib_box", ctypes.c_int, [ctypes.c_char_p, _I64, _D, _D, _E]),
    ("cn_flat_bounds", ctypes.c_int, [_P, _I64, _D, _D, ctypes.c_char_p, _I64, _D, _D, _D, _E]),
    ("cn_flat_linear", ctypes.c_int, [_P, _I64, _D, _D, _D, ctypes.c_double, ctypes.c_char_p, _I64, _D, _D, _D, _D,
                                      _D, _D, _D, _E]),
    ("cn_flat_verify", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), _I64, _D,
                                      _I64, _D, ctypes.POINTER(_I64), _E]),
    ("cn_status_name", ctypes.c_char_p, [ctypes.c_int]),
    ("cn_op_name", ctypes.c_char_p, [ctypes.c_int]),
    ("cn_op_family", ctypes.c_int, [ctypes.c_int]),
    ("cn_family_name", ctypes.c_char_p, [ctypes.c_int]),
    ("cn_op_lookup", ctypes.c_int, [ctypes.c_char_p]),
    ("cn_op_coverage_get", None, [ctypes.c_int, ctypes.POINTER(_Coverage)]),
    ("cn_version", ctypes.c_char_p, []),
]:
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = args


def _check(status, err):
    if status != 0:
        raise Error(_lib.cn_status_name(status).decode(), err.msg.decode(errors="replace"))


def _vec(a, n, what):
    v = np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(-1))
    if v.size != n:
        raise ValueError(f"{what} has {v.size} entries; the network input has {n}")
    return v


def _ptr(v):
    return v.ctypes.data_as(_D)


def _options(**kw):
    words = []
    for k, v in kw.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = int(v)
        words.append(f"{k}={v}")
    return " ".join(words).encode()


def version():
    """The library's version string."""
    return _lib.cn_version().decode()


def vnnlib_box(path, n):
    """The first input box of the VNN-LIB property at PATH (N entries, constants rounded outward):
    (lo, hi) as numpy arrays."""
    lo, hi = np.empty(n), np.empty(n)
    err = _CnError()
    _check(_lib.cn_flat_vnnlib_box(os.fsencode(path), n, _ptr(lo), _ptr(hi), ctypes.byref(err)), err)
    return lo, hi


class VerifyResult:
    """verdict ("unsat", "sat", "unknown" or "timeout"), and for a sat x (the counterexample) and y
    (its outputs) as numpy arrays (else None); domains bounded."""

    def __init__(self, verdict, x, y, domains):
        self.verdict, self.x, self.y, self.domains = verdict, x, y, domains

    def __repr__(self):
        return f"VerifyResult(verdict={self.verdict!r}, domains={self.domains})"


class LinearBounds:
    """Network.linear_bounds(): lower_coef, lower_offset, upper_coef, upper_offset (the affine
    bounds of each output entry in the input) and lower, upper (the output's bounds)."""

    def __init__(self, lower_coef, lower_offset, upper_coef, upper_offset, lower, upper):
        self.lower_coef, self.lower_offset = lower_coef, lower_offset
        self.upper_coef, self.upper_offset = upper_coef, upper_offset
        self.lower, self.upper = lower, upper

    def __repr__(self):
        return f"LinearBounds(outputs={len(self.lower)}, inputs={self.lower_coef.shape[1]})"


_VERDICTS = ("unsat", "sat", "unknown", "timeout")


class Network:
    """An ONNX network loaded into certnn (one input, output 0 bounded)."""

    def __init__(self, path):
        self._g = _P()
        err = _CnError()
        _check(_lib.cn_graph_load_onnx(os.fsencode(path), ctypes.byref(self._g), ctypes.byref(err)), err)
        self.path = os.fspath(path)
        self.input_size = int(_lib.cn_flat_input_size(self._g))
        self.output_size = int(_lib.cn_flat_output_size(self._g))

    def close(self):
        if getattr(self, "_g", None):
            _lib.cn_graph_free(self._g)
            self._g = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _input_set(self, box, center, eps, norm):
        n = self.input_size
        if (box is None) == (center is None):
            raise ValueError("give box=(lo, hi) or center= with eps=")
        if norm not in ("inf", 2, "2"):
            raise ValueError("norm is 'inf' or 2, not %r" % (norm,))
        if box is not None:
            if norm != "inf":
                raise ValueError("norm=2 needs center= and eps=")
            return _vec(box[0], n, "box[0]"), _vec(box[1], n, "box[1]"), None
        if eps is None or not eps >= 0:
            raise ValueError("center= needs eps >= 0")
        c = _vec(center, n, "center")
        # c -+ eps rounded to nearest lies within half an ulp of the exact end: one step outward
        # holds the whole ball (of either norm)
        lo = np.nextafter(c - np.float64(eps), -np.inf)
        hi = np.nextafter(c + np.float64(eps), np.inf)
        return lo, hi, (c if norm != "inf" else None)

    def _bounds(self, box, center, eps, norm, linear, method, semantics, threads, iterations, lr, fix_intermediate,
                max_memory=None):
        n, m = self.input_size, self.output_size
        lo, hi, ball = self._input_set(box, center, eps, norm)
        out_lo, out_hi, secs = np.empty(m), np.empty(m), ctypes.c_double()
        lin = [np.empty((m, n)), np.empty(m), np.empty((m, n)), np.empty(m)] if linear else None
        err = _CnError()
        opts = _options(method=method, semantics=semantics, threads=threads, iterations=iterations, lr=lr,
                        fix_intermediate=fix_intermediate, max_memory=max_memory)
        _check(_lib.cn_flat_linear(self._g, n, _ptr(lo), _ptr(hi), _ptr(ball) if ball is not None else None,
                                   float(eps) if ball is not None else -1.0, opts, m, _ptr(out_lo), _ptr(out_hi),
                                   *[_ptr(a) if lin else None for a in (lin or [None] * 4)],
                                   ctypes.byref(secs), ctypes.byref(err)), err)
        self.seconds = secs.value
        return out_lo, out_hi, lin

    def bounds(self, box=None, center=None, eps=None, norm="inf", method="crown", semantics="real", threads=None,
               iterations=None, lr=None, fix_intermediate=None, max_memory=None):
        """Sound bounds (lo, hi) of every entry of output 0 over BOX = (lo, hi) or the ball of
        radius EPS around CENTER (NORM 'inf': the box; 2: the Euclidean ball, a CROWN method), by
        METHOD (ibp, crown, crown-ibp, alpha-crown).  An end nothing finite bounds is an infinity.
        MAX_MEMORY (MiB): refuse (certnn.Error, CN_ELIMIT) an analysis estimated to need more."""
        lo, hi, _ = self._bounds(box, center, eps, norm, False, method, semantics, threads, iterations, lr,
                                 fix_intermediate, max_memory)
        return lo, hi

    def linear_bounds(self, box=None, center=None, eps=None, norm="inf", method="crown", semantics="real",
                      threads=None, iterations=None, lr=None, fix_intermediate=None, max_memory=None):
        """Sound affine bounds of every output entry over the input set (as bounds()): a
        LinearBounds whose lower_coef [m, n], lower_offset [m], upper_coef, upper_offset satisfy
        lower_coef[j] . x + lower_offset[j] <= y_j(x) <= upper_coef[j] . x + upper_offset[j] for
        every x of the set, read in exact arithmetic on these binary64 numbers (evaluate them
        with rounding accounted for: a float64 dot product is not exact), and lower, upper the
        bounds() of the same set."""
        lo, hi, lin = self._bounds(box, center, eps, norm, True, method, semantics, threads, iterations, lr,
                                   fix_intermediate, max_memory)
        return LinearBounds(lin[0], lin[1], lin[2], lin[3], lo, hi)

    def verify(self, vnnlib, timeout=60, method=None, semantics="real", threads=None, seed=None, max_memory=None):
        """Decides the VNN-LIB property at VNNLIB (certnn verify): a VerifyResult.  MAX_MEMORY
        (MiB) as for bounds(); the queue of domains is kept within half of it."""
        x, y = np.empty(self.input_size), np.empty(self.output_size)
        v, dom = ctypes.c_int(), _I64()
        err = _CnError()
        opts = _options(timeout=timeout, method=method, semantics=semantics, threads=threads, seed=seed,
                        max_memory=max_memory)
        _check(_lib.cn_flat_verify(self._g, os.fsencode(vnnlib), opts, ctypes.byref(v), self.input_size, _ptr(x),
                                   self.output_size, _ptr(y), ctypes.byref(dom), ctypes.byref(err)), err)
        verdict = _VERDICTS[v.value]
        sat = verdict == "sat"
        return VerifyResult(verdict, x if sat else None, y if sat else None, int(dom.value))


def ops():
    """The operator table's coverage: one dict per operator (name, family and what its rule has:
    forward, pullback, jvp, ibp, crown, crown_box, alpha, cuda, reference, checker, sorts)."""
    out = []
    count = _lib.cn_op_lookup(b"")          # CN_OP_COUNT: no operator has the empty name
    for op in range(count):
        c = _Coverage()
        _lib.cn_op_coverage_get(op, ctypes.byref(c))
        d = {"name": _lib.cn_op_name(op).decode(), "family": _lib.cn_family_name(_lib.cn_op_family(op)).decode()}
        for f, _ in _Coverage._fields_:
            v = getattr(c, f)
            d[f] = v.decode() if isinstance(v, bytes) else bool(v)
        out.append(d)
    return out
