#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""certnn's binary32 evaluation against onnxruntime's, through IR artifacts (doc/ARTIFACT.md).

    /usr/bin/python3 benchmarks/artifact_compare.py --ort DIR [--certnn PATH] [--root DIR]
        [--points K] [--seed N] [CATEGORY ...]

For every network (.onnx) of the given VNN-COMP categories under ROOT (default
../shared/benchmarks; all categories if none is named), K random inputs (default 3; uniform in
[-1, 1], rounded to binary32, from --seed) are evaluated by onnxruntime (benchmarks/ort_eval.js,
npm's onnxruntime-node under DIR/node_modules, one thread) and written with

    certnn export NET -o A.json --dtype f32 --input X --reference ORT_OUTPUTS

then checked with `certnn check A.json --checks structure,types,execute,compare --json`.  One row
per network: its outputs' element count, the elements compared, how many differ, the largest
distance in binary32 ulps (words compared as ordered integers), and the checks' statuses (a
failed compare is a finding, not an error of this script).  Networks certnn cannot load or export
are listed with the message.  A measurement tool, not a test: differences are expected where
onnxruntime sums in another order or uses another libm.
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ulps(a, b):
    """The distance of two binary32 words in ulps (sign and magnitude mapped onto a line)."""
    if a == b:
        return 0
    sa = a & 0x7fffffff, a >> 31
    sb = b & 0x7fffffff, b >> 31
    va = -sa[0] if sa[1] else sa[0]
    vb = -sb[0] if sb[1] else sb[0]
    return abs(va - vb)


def run(cmd, stdin=None, env=None, timeout=600):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("categories", nargs="*")
    ap.add_argument("--ort", required=True, help="folder holding node_modules/onnxruntime-node")
    ap.add_argument("--certnn", default=os.path.join(HERE, "..", "build", "certnn"))
    ap.add_argument("--root", default=os.path.join(HERE, "..", "..", "shared", "benchmarks"))
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cats = a.categories or sorted(d for d in os.listdir(a.root) if os.path.isdir(os.path.join(a.root, d)))
    env = dict(os.environ, NODE_PATH=os.path.join(a.ort, "node_modules"))
    tmp = tempfile.mkdtemp()
    print("%-58s %9s %9s %7s %8s  %s" % ("network", "elements", "compared", "differ", "max_ulp", "checks"))
    tot = [0, 0, 0]
    for cat in cats:
        nets = []
        for dp, _, fs in os.walk(os.path.join(a.root, cat)):
            nets += [os.path.join(dp, f) for f in fs if f.endswith(".onnx")]
        for net in sorted(nets):
            name = os.path.relpath(net, a.root)
            art0 = os.path.join(tmp, "shape.json")
            rc, _, err = run([a.certnn, "export", net, "-o", art0])
            if rc != 0:
                print("%-58s %s" % (name, "export: " + err.strip().splitlines()[-1][:90]))
                continue
            prog = json.load(open(art0))["program"]
            if len(prog["inputs"]) != 1:
                print("%-58s %s" % (name, "skipped: %d inputs" % len(prog["inputs"])))
                continue
            inp = prog["inputs"][0]
            n = 1
            for d in inp["shape"]:
                n *= d
            elements = compared = differ = worst = 0
            statuses = set()
            for _ in range(a.points):
                x = [f32(rng.uniform(-1, 1)) for _ in range(n)]
                req = {"model": net, "inputs": {inp["name"]: {"type": "float32", "dims": inp["shape"], "data": x}}}
                rc, out, err = run(["node", os.path.join(HERE, "ort_eval.js")], json.dumps(req), env)
                res = json.loads(out) if rc == 0 and out else {"error": err}
                if "error" in res:
                    statuses.add("ort: " + str(res["error"])[:60])
                    break
                ys = [v for k in res["names"] for v in res["outputs"][k]]
                xf, yf, art = (os.path.join(tmp, f) for f in ("x.txt", "y.txt", "a.json"))
                open(xf, "w").write("\n".join(repr(v) for v in x) + "\n")
                open(yf, "w").write("\n".join(repr(v) for v in ys) + "\n")
                rc, _, err = run([a.certnn, "export", net, "-o", art, "--input", xf, "--reference", yf])
                if rc != 0:
                    statuses.add("export: " + err.strip()[-60:])
                    break
                rc, out, err = run([a.certnn, "check", art, "--checks", "structure,types,execute,compare", "--json"])
                rep = json.loads(out)
                for f in rep["findings"]:
                    statuses.add("%s %s" % (f["name"], f["status"]))
                    for m in f.get("mismatches", []):
                        differ += m["differing"]
                        for e in m["elements"]:
                            worst = max(worst, ulps(int(e["ir"], 16), int(e["reference"], 16)))
                elements += len(ys)
                compared += len(ys)
            tot[0] += compared
            tot[1] += differ
            tot[2] = max(tot[2], worst)
            st = ", ".join(sorted(statuses))
            print("%-58s %9d %9d %7d %8d  %s" % (name[:58], elements // max(a.points, 1), compared, differ, worst, st))
            sys.stdout.flush()
    print("total: %d elements compared, %d differ, largest distance %d ulps" % tuple(tot))


if __name__ == "__main__":
    main()
