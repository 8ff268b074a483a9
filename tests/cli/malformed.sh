#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/malformed.sh: the certnn command on every input the fuzzers kept and on the test data's
# malformed files (doc/FUZZING.md).  Each reader's inputs go through the command that reads them:
# ONNX through certnn export, VNN-LIB through certnn bounds (on tests/data/verify/tiny.onnx),
# artifacts through certnn check, certificates through certnn check-certificate (tiny.onnx,
# tiny_unsat.vnnlib).  Every run ends with an exit status the command documents, never a signal or
# a crash: export and bounds 0 (accepted) or 2 (refused, with a one-line "certnn...: message" on
# standard error); check 0 or 1 (its findings) or 2 (not one JSON object, with a message);
# check-certificate 0 (accepted), 1 (rejected, naming why) or 2.  At least 100 inputs are refused
# with exit 2 and a message (the acceptance of issue 18).
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
F=$SRC/tests/fuzz
D=$SRC/tests/data
V=$D/verify
refused=0

# files DIR...: the regular files of each DIR
files () { for d in "$@"; do [ -d "$d" ] && find "$d" -maxdepth 1 -type f | sort; done; }

# run_one ALLOWED FILE CMD...: CMD's exit status must be one of ALLOWED (e.g. "0 2"); exit 2 must
# come with a message on standard error
run_one () {
  allowed=$1; f=$2; shift 2
  "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null
  got=$?
  case " $allowed " in
    *" $got "*) ;;
    *) bad "$* -> exit $got, expected one of $allowed (input $f)"; head -3 "$TMP/err" | sed 's/^/  | /'; return ;;
  esac
  if [ "$got" -eq 2 ]; then
    if head -1 "$TMP/err" | grep -q '^certnn[a-z -]*: ..'; then
      refused=$((refused + 1))
      ok
    else
      bad "$* -> exit 2 without a message (input $f)"
    fi
    return
  fi
  ok
}

n=0
for f in $(files "$F/corpus/onnx" "$F/regressions/onnx" "$D/onnx/bad" "$D/cli"); do
  case $f in *.vnnlib|*.txt) continue ;; esac
  run_one "0 2" "$f" "$CERTNN" export "$f" -o "$TMP/a.json"; n=$((n + 1))
done
for f in $(files "$F/corpus/vnnlib" "$F/regressions/vnnlib" "$D/vnnlib"); do
  run_one "0 2" "$f" "$CERTNN" bounds "$V/tiny.onnx" --vnnlib "$f" --method ibp; n=$((n + 1))
done
for f in $(files "$F/corpus/artifact" "$F/regressions/artifact"); do
  run_one "0 1 2" "$f" "$CERTNN" check "$f"; n=$((n + 1))
done
for f in $(files "$F/corpus/certificate" "$F/regressions/certificate"); do
  run_one "0 1 2" "$f" "$CERTNN" check-certificate "$V/tiny.onnx" "$V/tiny_unsat.vnnlib" "$f" --threads 1 --quiet
  n=$((n + 1))
done
echo "$n inputs, $refused refused with exit 2 and a message"
[ "$refused" -ge 100 ] && ok || bad "only $refused inputs refused with exit 2 (at least 100 expected)"
summary
