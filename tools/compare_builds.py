#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the same certnn commands on two builds and reports every difference in what they compute.

    tools/compare_builds.py BUILD_A BUILD_B [--benchmarks DIR] [--timeout S] [--jobs N]
                            [--cache FILE] [--only PATTERN] [--list]

BUILD_A and BUILD_B are build folders (each holding the `certnn` command and `.libs/libcertnn.so`,
configured from a source tree whose `include/` is used to compile the evaluation driver).  For
every model the commands are:

  * on every instance of the VNN-COMP benchmarks (`../shared/benchmarks`, or `$CN_BENCHMARKS`,
    each distinct network and property once): `certnn bounds --json` with ibp, crown and
    crown-ibp over the property's first input box, and `certnn run --json` (f64 and f32) at the
    centre of that box;
  * on every generated model of the source tree's `tests/data` (`*.onnx`): `certnn bounds --json`
    with ibp, crown, crown-ibp and `--method ibp --reference mpfi` over an L-infinity ball around a
    fixed point, and over a point box of small integers; `certnn run --json` in f64 and f32 at
    fixed real, integer and 0/1 points;
  * `certnn verify` on the `test` category and on the bundled example (`examples/acasxu`);
  * for the generated models with several inputs (which the command refuses), the evaluation
    driver `tools/compare_eval.c`, built against each library, evaluates the graph (every input
    fed) in f64 and f32 through the public API.

Two runs agree when their exit statuses and standard outputs are equal, the `"seconds"` field of
`bounds --json` (a timing) and the timing lines of `verify` left out; failing runs are compared by
their standard error as well (the message).  Numbers are printed with 17 significant digits, so
equal text means equal doubles: bounds agree bit for bit.  A command that runs past the time limit
in either build is listed as not compared.  The name of a run's scratch folder (where the point
files are written) is made neutral in messages.  A model that A's importer refuses and B reads (a
change that makes the importer accept more) is listed apart, with what B computes on it (the
evaluation driver's outputs), and is not counted as a difference.  Exit status 0 when nothing
differs, 1 otherwise.

The results of BUILD_A can be kept in a cache (`--cache FILE`, keyed by the command), so that a
reference build is run once while the other changes.
"""
import argparse
import concurrent.futures as cf
import csv
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def benchmarks_dir(arg):
    for d in (arg, os.environ.get("CN_BENCHMARKS"), os.path.join(TOP, "..", "shared", "benchmarks")):
        if d and os.path.isdir(d):
            return os.path.abspath(d)
    return None


# ---- the points the commands are run at ------------------------------------------------------

def real_point(n, salt):
    """n reals in [-0.9, 0.9], multiples of 0.0009, from a fixed sequence."""
    return ["%.4f" % (((i * 7919 + salt * 104729) % 2001 - 1000) * 0.0009) for i in range(n)]


def int_point(n, salt):
    return [str((i * 3 + salt) % 5 - 2) for i in range(n)]


def bit_point(n, salt):
    return [str((i + salt) % 2) for i in range(n)]


_X_BOUND = re.compile(r"\(\s*(<=|>=)\s+X_(\d+)\s+([-+0-9.eE]+)\s*\)")


def vnnlib_centre(path):
    """The centre of the first input box of a VNN-LIB file (the first bound of each X_i)."""
    lo, hi = {}, {}
    with open(path) as f:
        for m in _X_BOUND.finditer(f.read()):
            op, i, c = m.group(1), int(m.group(2)), float(m.group(3))
            (hi if op == "<=" else lo).setdefault(i, c)
    n = max(list(lo) + list(hi)) + 1 if lo or hi else 0
    out = []
    for i in range(n):
        a, b = lo.get(i, hi.get(i, 0.0)), hi.get(i, lo.get(i, 0.0))
        out.append("%.17g" % ((a + b) / 2))
    return out


def onnx_input_count(model):
    """The entries of the input of a generated model, from its .txt reference ("in genNN N ...")."""
    txt = os.path.splitext(model)[0] + ".txt"
    n_inputs, first = None, None
    if os.path.exists(txt):
        with open(txt) as f:
            for line in f:
                w = line.split()
                if w[:1] == ["inputs"] and len(w) > 1:
                    n_inputs = int(w[1])
                if w[:1] == ["in"] and len(w) > 2 and first is None:
                    try:
                        first = int(w[2])
                    except ValueError:
                        pass
    return n_inputs, first


# ---- running -----------------------------------------------------------------------------------

def normalise(kind, out):
    if kind == "bounds":
        try:
            j = json.loads(out)
            j.pop("seconds", None)
            return json.dumps(j, sort_keys=True)
        except ValueError:
            return out
    if kind == "verify":
        return "\n".join(l for l in out.splitlines() if not l.startswith("time"))
    return out


SCRATCH = re.compile(r"/tmp/cn_compare_[A-Za-z0-9_]+/")


def scrub(text):
    """TEXT with the name of a run's scratch folder (where the point files are) made neutral."""
    return SCRATCH.sub("<scratch>/", text)


def refused_by_a(ra, rb):
    """Whether A's importer refused the model (its message comes from the ONNX reader) where B
    reads it: a model the change made readable, which is reported apart from the differences."""
    msg_a = ra["err"] + ra["out"]
    return ra["rc"] not in (0, "timeout") and "onnx:" in msg_a and "onnx:" not in rb["err"] + rb["out"]


def run_one(cmd, timeout, env):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return {"rc": p.returncode, "out": p.stdout, "err": p.stderr}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "out": "", "err": ""}


class Job:
    def __init__(self, kind, label, args, files=None):
        self.kind, self.label, self.args, self.files = kind, label, args, files or {}

    def key(self):
        h = hashlib.sha256(json.dumps([self.kind, self.args, sorted(self.files.items())]).encode())
        return h.hexdigest()[:24]


def materialise(job, tmp):
    """The job's argument list with its point files written under TMP."""
    args = []
    for a in job.args:
        if isinstance(a, str) and a.startswith("@file:"):
            name = a[6:]
            path = os.path.join(tmp, job.key() + "_" + name)
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write("\n".join(job.files[name]) + "\n")
            args.append(path)
        else:
            args.append(a)
    return args


def build_driver(build, out):
    """Compiles tools/compare_eval.c against BUILD's library (the source tree of BUILD's configure)."""
    src_top = TOP
    mk = os.path.join(build, "Makefile")
    if os.path.exists(mk):
        with open(mk) as f:
            for line in f:
                if line.startswith("abs_top_srcdir ="):
                    src_top = line.split("=", 1)[1].strip()
                    break
    libs = os.path.join(os.path.abspath(build), ".libs")
    cmd = ["cc", "-O1", "-std=gnu11", "-o", out, os.path.join(HERE, "compare_eval.c"),
           "-I" + os.path.join(src_top, "include"), "-L" + libs, "-Wl,-rpath," + libs, "-lcertnn", "-lm"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare_builds: cannot build the evaluation driver for %s:\n%s" % (build, p.stderr))
    return out


def jobs_for(bench, tests_data, only):
    jobs = []

    def add(j):
        if only is None or re.search(only, j.label):
            jobs.append(j)

    # VNN-COMP instances
    if bench is not None:
        for cat in sorted(os.listdir(bench)):
            inst = os.path.join(bench, cat, "instances.csv")
            if not os.path.exists(inst):
                continue
            seen = set()
            with open(inst) as f:
                for row in csv.reader(f):
                    if len(row) < 2 or (row[0], row[1]) in seen:
                        continue
                    seen.add((row[0], row[1]))
                    net, spec = os.path.join(bench, cat, row[0]), os.path.join(bench, cat, row[1])
                    label = "%s/%s %s" % (cat, os.path.basename(row[0]), os.path.basename(row[1]))
                    for m in ("ibp", "crown", "crown-ibp"):
                        add(Job("bounds", label + " bounds " + m,
                                ["bounds", net, "--vnnlib", spec, "--method", m, "--json", "--threads", "1"]))
                    centre = vnnlib_centre(spec)
                    for d in ("f64", "f32"):
                        add(Job("run", label + " run " + d, ["run", net, "--input", "@file:x", "--dtype", d, "--json"],
                                {"x": centre}))
        for row in csv.reader(open(os.path.join(bench, "test", "instances.csv"))) \
                if os.path.exists(os.path.join(bench, "test", "instances.csv")) else []:
            net, spec = os.path.join(bench, "test", row[0]), os.path.join(bench, "test", row[1])
            add(Job("verify", "test/%s verify" % os.path.basename(row[0]),
                    ["verify", net, spec, "--timeout", "60", "--threads", "1", "--seed", "1", "--quiet"]))
    for spec in sorted(glob.glob(os.path.join(TOP, "examples", "acasxu", "*.vnnlib"))):
        for net in sorted(glob.glob(os.path.join(TOP, "examples", "acasxu", "*.onnx"))):
            add(Job("verify", "examples/%s %s verify" % (os.path.basename(net), os.path.basename(spec)),
                    ["verify", net, spec, "--timeout", "60", "--threads", "1", "--seed", "1", "--quiet"]))

    # generated models
    for model in sorted(glob.glob(os.path.join(tests_data, "**", "*.onnx"), recursive=True)):
        rel = os.path.relpath(model, tests_data)
        n_inputs, n = onnx_input_count(model)
        spec = os.path.splitext(model)[0] + ".vnnlib"
        if n is None and os.path.exists(spec):
            n = len(vnnlib_centre(spec))
        if n_inputs is not None and n_inputs > 1:
            for d in ("f64", "f32"):
                add(Job("eval", "data/%s eval %s" % (rel, d), ["@driver", model, d]))
            continue
        if n is None:
            # a model the importer refuses, or whose input size is unknown: the commands compare the
            # messages, and the evaluation driver, which feeds the inputs the graph's own shapes,
            # what a build that reads the model computes
            n = 1
            for d in ("f64", "f32"):
                add(Job("eval", "data/%s eval %s" % (rel, d), ["@driver", model, d]))
        salt = int(hashlib.sha256(rel.encode()).hexdigest()[:6], 16)
        pts = {"real": real_point(n, salt), "int": int_point(n, salt), "bit": bit_point(n, salt)}
        if os.path.exists(spec):
            for m in ("ibp", "crown", "crown-ibp"):
                add(Job("bounds", "data/%s vnnlib bounds %s" % (rel, m),
                        ["bounds", model, "--vnnlib", spec, "--method", m, "--json", "--threads", "1"]))
        for m in ("ibp", "crown", "crown-ibp", "mpfi"):
            margs = ["--method", "ibp", "--reference", "mpfi"] if m == "mpfi" else ["--method", m]
            add(Job("bounds", "data/%s ball bounds %s" % (rel, m),
                    ["bounds", model, "--center", "@file:real", "--eps", "0.05", "--json", "--threads", "1"] + margs,
                    {"real": pts["real"]}))
            add(Job("bounds", "data/%s point bounds %s" % (rel, m),
                    ["bounds", model, "--center", "@file:int", "--eps", "0", "--json", "--threads", "1"] + margs,
                    {"int": pts["int"]}))
        for pname in ("real", "int", "bit"):
            for d in ("f64", "f32"):
                add(Job("run", "data/%s run %s %s" % (rel, pname, d),
                        ["run", model, "--input", "@file:" + pname, "--dtype", d, "--json"], {pname: pts[pname]}))
    return jobs


def execute(job, build, driver, tmp, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", CN_NO_REEXEC="1", OMP_PROC_BIND="false")
    args = materialise(job, tmp)
    if args and args[0] == "@driver":
        cmd = [driver] + args[1:]
    else:
        cmd = [os.path.join(build, "certnn")] + args
    r = run_one(cmd, timeout, env)
    r["out"] = normalise(job.kind, scrub(r["out"]))
    r["err"] = scrub(r["err"])
    return r


def save_cache(path, cache, res_a):
    """Adds RES_A to CACHE and writes it to PATH (through a temporary file, so a reader never sees
    half of it)."""
    cache.update(res_a)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cache, f)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_a")
    ap.add_argument("build_b")
    ap.add_argument("--benchmarks", default=None, help="the VNN-COMP data (default ../shared/benchmarks)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per command (default 20)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="commands run at once")
    ap.add_argument("--cache", default=None, help="JSON file keeping BUILD_A's results between runs")
    ap.add_argument("--only", default=None, help="only the commands whose label matches this regex")
    ap.add_argument("--list", action="store_true", help="list the commands and exit")
    a = ap.parse_args()
    bench = benchmarks_dir(a.benchmarks)
    jobs = jobs_for(bench, os.path.join(TOP, "tests", "data"), a.only)
    if a.list:
        for j in jobs:
            print(j.label)
        print("%d commands" % len(jobs))
        return 0
    if bench is None:
        print("compare_builds: no VNN-COMP benchmarks found; comparing the generated models only", file=sys.stderr)
    cache = {}
    if a.cache and os.path.exists(a.cache):
        with open(a.cache) as f:
            cache = json.load(f)
    with tempfile.TemporaryDirectory(prefix="cn_compare_") as tmp:
        drivers = {}
        if any(j.args[:1] == ["@driver"] for j in jobs):
            drivers = {b: build_driver(b, os.path.join(tmp, "eval_%d" % i)) for i, b in enumerate((a.build_a, a.build_b))}
        todo = []
        for j in jobs:
            if j.key() not in cache:
                todo.append((j, a.build_a))
            todo.append((j, a.build_b))
        res_a, res_b = {}, {}
        done = 0
        with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            futs = {ex.submit(execute, j, b, drivers.get(b), tmp, a.timeout): (j, b) for j, b in todo}
            for f in cf.as_completed(futs):
                j, b = futs[f]
                (res_a if b == a.build_a else res_b)[j.key()] = f.result()
                done += 1
                if a.cache and b == a.build_a and len(res_a) % 500 == 0:
                    save_cache(a.cache, cache, res_a)   # a long run keeps what it has
                if sys.stderr.isatty():
                    print("\r%d/%d" % (done, len(todo)), end="", file=sys.stderr)
        if sys.stderr.isatty():
            print(file=sys.stderr)
        if a.cache:
            save_cache(a.cache, cache, res_a)
        else:
            cache.update(res_a)
    same = differ = timed = 0
    failing_both = 0
    newly_read = {}
    n_new = 0
    for j in jobs:
        ra, rb = cache[j.key()], res_b[j.key()]
        ra = dict(ra, out=scrub(ra["out"]), err=scrub(ra["err"]))   # a cache from before scrub()
        if ra["rc"] == "timeout" or rb["rc"] == "timeout":
            timed += 1
            print("NOT COMPARED (time limit: %s %s) %s" % (ra["rc"] == "timeout" and "A" or "",
                                                          rb["rc"] == "timeout" and "B" or "", j.label))
            continue
        eq = ra["rc"] == rb["rc"] and ra["out"] == rb["out"] and (ra["rc"] == 0 or ra["err"] == rb["err"])
        if eq:
            same += 1
            failing_both += ra["rc"] != 0
        elif refused_by_a(ra, rb):
            n_new += 1
            model = j.label.split(" ")[0]
            newly_read.setdefault(model, (ra, rb))
            if rb["rc"] == 0 and j.kind == "eval":
                newly_read[model] = (ra, rb)
        else:
            differ += 1
            print("DIFFERS %s" % j.label)
            print("   A: rc %s  out %s  err %s" % (ra["rc"], ra["out"][:300].strip(), ra["err"][:300].strip()))
            print("   B: rc %s  out %s  err %s" % (rb["rc"], rb["out"][:300].strip(), rb["err"][:300].strip()))
    for model, (ra, rb) in sorted(newly_read.items()):
        print("READ BY B ONLY %s" % model)
        print("   A: %s" % (ra["err"] + ra["out"])[:300].strip())
        print("   B: rc %s  %s" % (rb["rc"], (rb["out"] if rb["rc"] == 0 else rb["err"] + rb["out"])[:300].strip()))
    by_kind = {}
    for j in jobs:
        by_kind[j.kind] = by_kind.get(j.kind, 0) + 1
    print("%d commands (%s): %d identical (%d of them failing alike, message included), %d differ, %d not compared, "
          "%d on %d models that A's importer refuses and B reads (listed above, not differences)"
          % (len(jobs), ", ".join("%s %d" % kv for kv in sorted(by_kind.items())), same, failing_both, differ, timed,
             n_new, len(newly_read)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
