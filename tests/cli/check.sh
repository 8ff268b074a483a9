#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/check.sh: IR artifacts end to end (certnn/artifact.h, doc/ARTIFACT.md).  certnn export
# writes the tiny networks of tests/data/verify as artifacts (binary32 and binary64, reference
# outputs from certnn's evaluation) that certnn check passes; a reference supplied with one word
# off fails compare, listing the position and both words; a NaN of another payload passes compare
# and fails compare_bitwise; an unknown check is reported unsupported and the report still
# succeeds; capture_constraints are reported unchecked; a program mixing binary32 and binary64 is
# not executed (unsupported); binary16 and bfloat16 programs execute as an emulation written
# apart computes them (tests/cli/reduced_ref.py), and one word off fails compare; a failed
# comparison of a Jaxpr artifact names the XLA behaviour that reproduces it (tests/cli/xla_ref.py).  Malformed artifacts: text that is not JSON or not an object (exit
# 2), another version, an unknown operator, a wrong word count, an out-of-range Boolean word, a
# forward reference (cycle), an argument of the wrong shape, a record whose input disagrees with
# the value it reads: each a failed finding naming what is wrong.
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
D=$SRC/tests/data/verify

# exported artifacts pass every check
echo "0.5 -0.25 1 0 0.75 -1" > "$TMP/x6"
expect 0 '' "$CERTNN" export "$D/tinyconv.onnx" -o "$TMP/conv32.json" --input "$TMP/x6"
expect 0 '^compare +passed' "$CERTNN" check "$TMP/conv32.json"
expect 0 '^compare_bitwise +passed' "$CERTNN" check "$TMP/conv32.json" --checks compare_bitwise
expect 0 'evaluated in binary32' "$CERTNN" check "$TMP/conv32.json" --checks execute
grep -q '"sort": "f32"' "$TMP/conv32.json" && ! grep -q '"sort": "f64"' "$TMP/conv32.json" && ok || bad "f32 export holds f64 values"
expect 0 '' "$CERTNN" export "$D/tinyconv.onnx" -o "$TMP/conv64.json" --input "$TMP/x6" --dtype f64
grep -q '"sort": "f64"' "$TMP/conv64.json" && ! grep -q '"sort": "f32"' "$TMP/conv64.json" && ok || bad "f64 export holds f32 values"
expect 0 'evaluated in binary64' "$CERTNN" check "$TMP/conv64.json" --checks structure,types,execute,compare_bitwise
echo "0.5 0.25" > "$TMP/x2"
expect 0 '' "$CERTNN" export "$D/tiny.onnx" -o "$TMP/tiny.json" --input "$TMP/x2"
expect 0 '^compare +passed' "$CERTNN" check "$TMP/tiny.json"
expect 0 '"status": "passed"' "$CERTNN" check "$TMP/tiny.json" --json
# without arguments: structure and types pass, execute and compare are unsupported
expect 0 '' "$CERTNN" export "$D/tiny.onnx" -o "$TMP/noargs.json"
expect 0 '^execute +unsupported +the artifact supplies no arguments' "$CERTNN" check "$TMP/noargs.json"

# a supplied reference one ulp off in its second output (certnn run gives the exact binary32 values)
"$CERTNN" run "$D/tinyconv.onnx" --input "$TMP/x6" --dtype f32 > "$TMP/y"
# (the second output lies in [1, 2), where binary32's ulp is 2^-23)
awk 'NR == 2 {printf "%.17g\n", $1 + 2^-23; next} {print}' "$TMP/y" > "$TMP/yoff"
expect 0 '' "$CERTNN" export "$D/tinyconv.onnx" -o "$TMP/off.json" --input "$TMP/x6" --reference "$TMP/yoff"
expect 1 'position 1: IR [0-9a-f]{8}, reference [0-9a-f]{8}' "$CERTNN" check "$TMP/off.json"
expect 1 '^compare +failed +1 of 2 elements differ' "$CERTNN" check "$TMP/off.json"
expect 1 '"position": 1' "$CERTNN" check "$TMP/off.json" --json
expect 1 "supplied in" "$CERTNN" check "$TMP/off.json" --json
echo "0.1 0.2" > "$TMP/tenth"
expect 2 'not a binary32 number' "$CERTNN" export "$D/tinyconv.onnx" -o "$TMP/bad.json" --input "$TMP/x6" --reference "$TMP/tenth"

# NaN policy: log(-1) is a NaN; the reference's NaN has another payload
cat > "$TMP/nan.json" <<'JSON'
{"format": "certnn-ir", "version": 1,
 "program": {"inputs": [{"name": "x", "sort": "f32", "shape": [3]}], "constants": [],
  "nodes": [{"name": "l", "op": {"version": 1, "tag": "log", "inputs": [{"sort": "f32", "shape": [3]}], "fields": {}},
             "in": [0]}],
  "outputs": [1]},
 "arguments": [{"sort": "f32", "shape": [3], "words": "bf8000003f80000040000000"}],
 "reference": {"outputs": [{"sort": "f32", "shape": [3], "words": "7fc00001000000003f317218"}], "producer": "by hand"},
 "capture_constraints": {"batch": "any", "note": ["x > 0"]}}
JSON
expect 0 '^compare +passed .*1 NaNs of different words' "$CERTNN" check "$TMP/nan.json"
expect 1 'position 0: IR [0-9a-f]{8}, reference 7fc00001' "$CERTNN" check "$TMP/nan.json" --checks compare_bitwise
expect 0 '^bogus +unsupported +unknown check' "$CERTNN" check "$TMP/nan.json" --checks structure,bogus
expect 0 'capture_constraints \(unchecked metadata\): \{"batch":"any"' "$CERTNN" check "$TMP/nan.json"
expect 0 '"capture_constraints_checked": false' "$CERTNN" check "$TMP/nan.json" --json

# mixed binary32 and binary64: not executed
cat > "$TMP/mixed.json" <<'JSON'
{"format": "certnn-ir", "version": 1,
 "program": {"inputs": [{"name": "x", "sort": "f32", "shape": [2]}],
  "constants": [{"name": "c", "sort": "f64", "shape": [2], "words": "3ff00000000000004000000000000000"}],
  "nodes": [{"name": "s", "op": {"version": 1, "tag": "add",
             "inputs": [{"sort": "f32", "shape": [2]}, {"sort": "f64", "shape": [2]}], "fields": {}}, "in": [0, 1]}],
  "outputs": [2]},
 "arguments": [{"sort": "f32", "shape": [2], "words": "3f80000040000000"}]}
JSON
expect 0 '^execute +unsupported +the program mixes f32 and f64' "$CERTNN" check "$TMP/mixed.json"

# binary16 and bfloat16: each node computed in binary32 and rounded once to its format (a
# subnormal and an overflow among the entries), against tests/cli/reduced_ref.py's emulation
# written apart (numpy's float16; exact rationals for bfloat16); one word off is found
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  mkdir -p "$TMP/red" "$TMP/redoff"
  /usr/bin/python3 "$SRC/tests/cli/reduced_ref.py" "$TMP/red" 2> /dev/null && ok || bad "reduced_ref.py failed"
  /usr/bin/python3 "$SRC/tests/cli/reduced_ref.py" "$TMP/redoff" --off 2> /dev/null && ok || bad "reduced_ref.py --off failed"
  for f in f16 bf16; do
    expect 0 '^compare_bitwise +passed' "$CERTNN" check "$TMP/red/$f.json" --checks structure,types,execute,compare_bitwise
    expect 0 'rounded once per node' "$CERTNN" check "$TMP/red/$f.json" --checks execute
    expect 1 "result 0 \\($f\\): 1 of 16 elements differ" "$CERTNN" check "$TMP/redoff/$f.json"
    expect 1 'position 2: IR [0-9a-f]{4}, reference [0-9a-f]{4}' "$CERTNN" check "$TMP/redoff/$f.json"
  done
  # reference.nodes: node values beside the outputs; one off is found and located
  mkdir -p "$TMP/rednode"
  /usr/bin/python3 "$SRC/tests/cli/reduced_ref.py" "$TMP/rednode" --node-off 2> /dev/null && ok || bad "reduced_ref.py --node-off failed"
  expect 0 'the 2 node values agree' "$CERTNN" check "$TMP/red/f16.json"
  for f in f16 bf16; do
    expect 1 "0 of 48 elements differ in 0 of 3 results .*1 of 2 node values differ \\(1 of 32 elements\\), the first in program order at node 1 \\('p', mul\\)" \
      "$CERTNN" check "$TMP/rednode/$f.json"
    expect 1 'node 1 output 0 \('"$f"'\): 1 of 16 elements differ' "$CERTNN" check "$TMP/rednode/$f.json"
    expect 1 '"node": 1' "$CERTNN" check "$TMP/rednode/$f.json" --json
  done
  sed 's/"nodes": \[{"node": 0/"nodes": [{"node": 99/' "$TMP/red/f16.json" > "$TMP/m.json"
  expect 1 "^structure +failed +reference node 0: 'node' must be one of the 8 node numbers" "$CERTNN" check "$TMP/m.json"
  # an ONNX network with FLOAT16 and BFLOAT16 casts and a FLOAT16 initializer (tests/data/cli/
  # reduced_casts.onnx: y16 = float(half(x) * c16), c16 = [3, -0.1, 1000, 2^-20] in binary16;
  # yb = float(bfloat16(x))): certnn run (the reals, the casts rounding) and the artifact's
  # execute (the product rounded to binary16 too) against numpy's float16 and the bfloat16
  # emulation of reduced_ref.py; 70000 overflows binary16, 1e-7 is a binary16 subnormal
  R=$SRC/tests/data/cli/reduced_casts.onnx
  echo "0.1 70000 -3.3 1e-7" > "$TMP/xr"
  "$CERTNN" run "$R" --input "$TMP/xr" > "$TMP/yr" && ok || bad "certnn run $R failed"
  /usr/bin/python3 - "$SRC/tests/cli" "$TMP/xr" "$TMP/yr" "$TMP/refr" <<'PY' && ok || bad "reduced_casts.onnx: certnn run differs from numpy"
import sys
import warnings
import numpy as np
warnings.simplefilter("ignore")   # numpy warns of the binary16 overflow it computes
sys.path.insert(0, sys.argv[1])
from reduced_ref import bf16_round
x = [float(v) for v in open(sys.argv[2]).read().split()]
got = [float(v) for v in open(sys.argv[3]).read().split()]
c16 = np.array([3, -0.1, 1000, 2.0 ** -20], np.float16)
real = [float(np.float16(v)) * float(c) for v, c in zip(x, c16)] + [bf16_round(v) for v in x]
assert got == real, (got, real)
# the IR's semantics: the product rounded to binary16 too (numpy's float16 product), on x in binary32
x32 = np.array(x, np.float32)
ir = [float(v) for v in np.float16(x32) * c16] + [bf16_round(float(v)) for v in x32]
open(sys.argv[4], "w").write("\n".join(repr(v) for v in ir) + "\n")
PY
  /usr/bin/python3 -c 'import numpy, sys; print(" ".join(repr(float(v)) for v in numpy.float32([0.1, 70000, -3.3, 1e-7])))' \
    > "$TMP/xr32"
  expect 0 '' "$CERTNN" export "$R" -o "$TMP/reduced.json" --input "$TMP/xr32" --reference "$TMP/refr"
  grep -q '"sort": "f16"' "$TMP/reduced.json" && grep -q '"sort": "bf16"' "$TMP/reduced.json" && ok \
    || bad "reduced_casts.onnx exported without binary16 or bfloat16 values"
  expect 0 '^compare_bitwise +passed' "$CERTNN" check "$TMP/reduced.json" --checks structure,types,execute,compare_bitwise
else
  echo "skipped: the binary16 and bfloat16 artifacts (/usr/bin/python3 has no numpy)"
fi
# XLA's CPU behaviours (doc/ARTIFACT.md): Jaxpr artifacts whose references tests/cli/xla_ref.py
# computes with its own numpy emulation of XLA; each failed comparison names exactly the
# behaviour that reproduces it, and a difference the emulation does not reproduce gets none
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  mkdir -p "$TMP/xla"
  /usr/bin/python3 "$SRC/tests/cli/xla_ref.py" "$TMP/xla" && ok || bad "xla_ref.py failed"
  for f in recip_prim recip_jit; do
    expect 1 'consistent with divisor_reciprocal \(advice' "$CERTNN" check "$TMP/xla/$f.json"
    expect 1 '^ +"divisor_reciprocal"$' "$CERTNN" check "$TMP/xla/$f.json" --json
  done
  expect 1 'consistent with subnormal \(advice' "$CERTNN" check "$TMP/xla/subnormal.json"
  expect 1 'consistent with subnormal \(advice' "$CERTNN" check "$TMP/xla/subnormal.json" --checks compare_bitwise
  expect 1 'consistent with subnormal \(advice' "$CERTNN" check "$TMP/xla/subnormal64.json"
  for f in div_div div_by_div div_sqrt; do
    expect 1 'consistent with rewritten_division \(advice' "$CERTNN" check "$TMP/xla/$f.json"
  done
  for f in pow3 pow3_half; do
    expect 1 'consistent with power_products \(advice' "$CERTNN" check "$TMP/xla/$f.json"
  done
  expect 1 'XLA.s CPU emulation does not reproduce them' "$CERTNN" check "$TMP/xla/div_div_prim.json"
  # a primitive-by-primitive reference beside the jax.jit one keeps the advice when it agrees with
  # the IR or is reproduced without jax.jit, and withholds it otherwise
  expect 1 'consistent with rewritten_division \(advice' "$CERTNN" check "$TMP/xla/div_div_primref.json"
  expect 1 'consistent with divisor_reciprocal \(advice' "$CERTNN" check "$TMP/xla/recip_primref.json"
  expect 1 'primitive-by-primitive reference neither agrees with the IR nor is reproduced without jax.jit: no advice' \
    "$CERTNN" check "$TMP/xla/div_div_primref_odd.json"
  expect 1 '"consistent_with": \[\]' "$CERTNN" check "$TMP/xla/div_div_primref_odd.json" --json
  # XLA's own rsqrt (2 ulps) and pow (1 ulp, arguments only): the windows' ends
  for f in rsqrt_in rsqrt_in_below; do
    expect 1 'consistent with reciprocal_sqrt \(advice' "$CERTNN" check "$TMP/xla/$f.json"
  done
  expect 1 'consistent with power \(advice' "$CERTNN" check "$TMP/xla/pow_in.json"
  for f in rsqrt_out pow_out pow_computed; do
    expect 1 'XLA.s CPU emulation does not reproduce them' "$CERTNN" check "$TMP/xla/$f.json"
  done
  expect 1 'XLA.s CPU emulation does not reproduce them' "$CERTNN" check "$TMP/xla/recip_bf16.json"
  for f in recip_nojit recip_other; do
    expect 1 'XLA.s CPU emulation does not reproduce them' "$CERTNN" check "$TMP/xla/$f.json"
    expect 1 '"consistent_with": \[\]' "$CERTNN" check "$TMP/xla/$f.json" --json
  done
  expect 0 '^compare +passed' "$CERTNN" check "$TMP/xla/agree.json"
  # version 1 has no jaxpr member
  sed 's/"version": 2,/"version": 1,/' "$TMP/xla/agree.json" > "$TMP/m.json"
  expect 1 "^structure +failed +artifact: unknown member 'jaxpr'" "$CERTNN" check "$TMP/m.json"
  sed 's/"reference_execution": "jit"/"reference_execution": "eager"/' "$TMP/xla/agree.json" > "$TMP/m.json"
  expect 1 "^structure +failed +jaxpr: 'reference_execution' must be" "$CERTNN" check "$TMP/m.json"
  sed 's/"computation": \[0\]/"computation": [0, 1]/' "$TMP/xla/recip_nojit.json" > "$TMP/m.json"
  expect 1 "^structure +failed +jaxpr: 'computation' must list 1 entries" "$CERTNN" check "$TMP/m.json"
fi
# binary64 into binary16: one rounding from the binary64 value (numpy's float16 gives these
# words: 0.1, an overflow, a subnormal)
cat > "$TMP/f64f16.json" <<'JSON'
{"format": "certnn-ir", "version": 1,
 "program": {"inputs": [{"name": "x", "sort": "f64", "shape": [3]}], "constants": [],
  "nodes": [{"name": "h", "op": {"version": 1, "tag": "cast", "inputs": [{"sort": "f64", "shape": [3]}],
             "fields": {"to": "f16"}}, "in": [0]}],
  "outputs": [1]},
 "arguments": [{"sort": "f64", "shape": [3], "words": "3fb999999999999a40f1170000000000beb0c6f7a0b5ed8d"}],
 "reference": {"outputs": [{"sort": "f16", "shape": [3], "words": "2e667c008011"}], "producer": "numpy float16"}}
JSON
expect 0 '^compare_bitwise +passed' "$CERTNN" check "$TMP/f64f16.json" --checks structure,types,execute,compare_bitwise

# malformed artifacts: exit 2 for what is not an object, else a failed finding
fails () {   # fails CHECK REASON: the artifact $TMP/m.json fails CHECK with REASON
  expect 1 "^$1 +failed +.*$2" "$CERTNN" check "$TMP/m.json"
}
echo '{"format": "certnn-ir", "version": 1,' > "$TMP/m.json"
expect 2 'line [0-9]+' "$CERTNN" check "$TMP/m.json"
echo '[1, 2]' > "$TMP/m.json"
expect 2 'not an artifact object' "$CERTNN" check "$TMP/m.json"
expect 2 'No such file' "$CERTNN" check "$TMP/absent.json"
sed 's/"version": 1,/"version": 3,/' "$TMP/nan.json" > "$TMP/m.json"; fails structure "version 3; this checker reads versions 1 to 2"
sed 's/"tag": "log"/"tag": "logg"/' "$TMP/nan.json" > "$TMP/m.json"; fails structure "unknown operator 'logg'"
sed 's/"words": "bf8000003f80000040000000"/"words": "bf8000003f800000400000"/' "$TMP/nan.json" > "$TMP/m.json"
fails structure "a wrong word count"
sed 's/"constants": \[\]/"constants": [{"name": "b", "sort": "bool", "shape": [2], "words": "0102"}]/' "$TMP/nan.json" > "$TMP/m.json"
fails structure "Boolean word 1 is 02"
sed 's/"in": \[0\]/"in": [1]/' "$TMP/nan.json" > "$TMP/m.json"; fails structure "a forward reference or a cycle"
sed 's/"arguments": \[{"sort": "f32", "shape": \[3\]/"arguments": [{"sort": "f32", "shape": [1, 3]/' "$TMP/nan.json" > "$TMP/m.json"
fails types "a shape or sort mismatch"
sed 's/"inputs": \[{"sort": "f32", "shape": \[3\]}\], "fields"/"inputs": [{"sort": "f32", "shape": [4]}], "fields"/' "$TMP/nan.json" > "$TMP/m.json"
fails types "value 0 is f32 \[3\], the record's input 0 f32 \[4\]"
sed 's/"producer": "by hand"/"producer": "by hand", "extra": 1/' "$TMP/nan.json" > "$TMP/m.json"; fails structure "unknown member 'extra'"
expect 1 '^compare +failed +not run: the structure check failed' "$CERTNN" check "$TMP/m.json"
expect 2 'comma-separated' "$CERTNN" check "$TMP/nan.json" --checks structure,,types
expect 2 'need NET.onnx and -o' "$CERTNN" export "$D/tiny.onnx"
echo 1 > "$TMP/y1"
expect 2 "holds 1 numbers" "$CERTNN" export "$D/tiny.onnx" -o "$TMP/z.json" --input "$TMP/y1"
summary
