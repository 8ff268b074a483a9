#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/replay.sh: every fuzz harness (tests/fuzz/fuzz_*.c, doc/FUZZING.md) over its corpus
# (tests/fuzz/corpus/NAME: inputs tools/fuzz.sh kept for new coverage), every crash ever found
# (tests/fuzz/regressions/NAME, each a file named after what it broke) and the test data that
# seeded it, built with the suite's compiler (under the sanitizer build, with ASan and UBSan).  A
# harness aborts on a broken promise (a failure without a message, an accepted input it cannot use
# or free, a round trip that changes the text), so a clean run is: no crash, no sanitizer report,
# every file read.
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
B=${CN_BUILDDIR:-.}/tests/fuzz
F=$SRC/tests/fuzz
D=$SRC/tests/data
[ -x "$B/fuzz_onnx" ] || { echo "SKIP: no fuzz replay programs in $B"; exit 77; }

# replay NAME PATH...: the harness over the corpus, the regressions and PATH...
replay () {
  name=$1; shift
  set -- "$F/corpus/$name" "$@"
  [ -d "$F/regressions/$name" ] && [ -n "$(ls "$F/regressions/$name")" ] && set -- "$@" "$F/regressions/$name"
  if "$B/fuzz_$name" "$@" > "$TMP/out" 2>&1; then
    ok
    tail -1 "$TMP/out"
  else
    bad "fuzz_$name over $*"
    tail -20 "$TMP/out" | sed 's/^/  | /'
  fi
}

replay onnx "$D/onnx/ops" "$D/onnx/bad" "$D/cli" "$D/ibp" "$D/verify"
replay vnnlib "$D/vnnlib" "$D/ibp" "$D/verify" "$SRC/examples/acasxu/prop_1.vnnlib" "$SRC/examples/acasxu/prop_3.vnnlib"
replay wire
replay artifact
replay certificate
summary
