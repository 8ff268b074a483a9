#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/vnncomp.sh: the VNN-COMP scripts of vnncomp/ (argument handling, the result file in
# every case: a verdict, an error exit, a crash, a hang, a relative path) on the tiny instances of
# tests/data/verify, and, where /usr/bin/python3 has numpy, onnx and torch, the counterexample
# check of benchmarks/run_category.py on a witness from certnn and on a corrupted one.
set -u
CERTNN=${CN_CERTNN:-./certnn}
SRC=${CN_SRCDIR:-.}
V=$SRC/vnncomp
D=$SRC/tests/data/verify
NET=$D/tiny.onnx
SAT=$D/tiny_sat.vnnlib
UNSAT=$D/tiny_unsat.vnnlib
PY=/usr/bin/python3
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
for f in "$V/install_tool.sh" "$V/prepare_instance.sh" "$V/run_instance.sh" "$NET" "$SAT" "$UNSAT"; do
  [ -f "$f" ] || { echo "SKIP: $f is missing"; exit 77; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
# The scripts use the binary under test, and never end other tests' certnn processes.
CERTNN_NO_KILL=1
export CERTNN_NO_KILL
CERTNN_ABS=$(CDPATH='' cd -- "$(dirname -- "$CERTNN")" && pwd)/$(basename -- "$CERTNN")

ok () { pass=$((pass + 1)); }
bad () { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS PATTERN CMD...: runs CMD, checks its exit status (a number, or 'nonzero') and that
# stdout+stderr match PATTERN
expect () {
  want=$1; pat=$2; shift 2
  CERTNN=$CERTNN_ABS "$@" > "$TMP/out" 2>&1
  got=$?
  case "$want" in
    nonzero) [ "$got" -ne 0 ] ;;
    *) [ "$got" -eq "$want" ] ;;
  esac || { bad "$* -> exit $got, expected $want"; sed 's/^/  | /' "$TMP/out" | head -5; return; }
  if [ -n "$pat" ] && ! grep -q -E -- "$pat" "$TMP/out"; then bad "$* -> output lacks /$pat/"; sed 's/^/  | /' "$TMP/out" | head -5; return; fi
  ok
}

# first_is FILE WORD WHAT: line 1 of FILE is exactly WORD
first_is () {
  if [ ! -f "$1" ]; then bad "$3: no result file $1"; return; fi
  got=$(head -n 1 "$1")
  [ "$got" = "$2" ] && ok || bad "$3: result file starts with '$got', not '$2'"
}

# The harness runs the scripts directly.
for s in install_tool prepare_instance run_instance; do
  [ -x "$V/$s.sh" ] && ok || bad "vnncomp/$s.sh is not executable"
done

# The version string.
expect 1 "v1" sh "$V/install_tool.sh"
expect 1 "v1" sh "$V/install_tool.sh" v2
expect 1 "v1" sh "$V/prepare_instance.sh" v2 test "$NET" "$SAT"
expect 1 "v1" sh "$V/run_instance.sh" v0 test "$NET" "$SAT" "$TMP/r.txt" 10

# prepare_instance.sh: arguments, files, binary; no analysis.
expect 0 "" sh "$V/prepare_instance.sh" v1 test "$NET" "$SAT"
expect nonzero "usage" sh "$V/prepare_instance.sh" v1 test "$NET"
expect nonzero "usage" sh "$V/prepare_instance.sh" v1
expect nonzero "no such file" sh "$V/prepare_instance.sh" v1 test "$D/nonexistent.onnx" "$SAT"
expect nonzero "no such file" sh "$V/prepare_instance.sh" v1 test "$NET" "$D/nonexistent.vnnlib"
expect nonzero "no certnn binary" env CERTNN="$TMP/nonexistent/certnn" sh "$V/prepare_instance.sh" v1 test "$NET" "$SAT"
# a .gz is unzipped beside the original
cp "$NET" "$TMP/z.onnx" && gzip "$TMP/z.onnx"
expect 0 "" sh "$V/prepare_instance.sh" v1 test "$TMP/z.onnx.gz" "$SAT"
[ -f "$TMP/z.onnx" ] && [ -f "$TMP/z.onnx.gz" ] && cmp -s "$TMP/z.onnx" "$NET" && ok \
  || bad "prepare_instance.sh did not unzip z.onnx.gz beside the original"

# run_instance.sh: bad arguments exit 1 with a message.
expect 1 "usage" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/r.txt"
expect 1 "timeout" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/r.txt" 0
expect 1 "timeout" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/r.txt" soon

# The sat instance, with the harness's relative out.txt from another directory.
mkdir -p "$TMP/cwd"
printf 'no_result_in_file\n' > "$TMP/cwd/out.txt"
here=$(pwd)
cd "$TMP/cwd" || exit 1
expect 0 "" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" out.txt 30
cd "$here" || exit 1
first_is "$TMP/cwd/out.txt" sat "run_instance.sh on tiny_sat (relative out.txt)"
grep -q '^((X_0 ' "$TMP/cwd/out.txt" && grep -q '(Y_1 .*))$' "$TMP/cwd/out.txt" && ok \
  || bad "the sat result has no counterexample ((X_0 ...) ... (Y_1 ...))"
left=""
for f in "$TMP"/cwd/* "$TMP"/cwd/.[!.]*; do
  [ -e "$f" ] && [ "$f" != "$TMP/cwd/out.txt" ] && left="$left $(basename "$f")"
done
[ -z "$left" ] && ok || bad "run_instance.sh left files behind:$left"

# The unsat instance, absolute path; a timeout with a carriage return as in some instances.csv.
expect 0 "" sh "$V/run_instance.sh" v1 test "$NET" "$UNSAT" "$TMP/unsat.txt" "$(printf '30\r')"
v=$(head -n 1 "$TMP/unsat.txt" 2> /dev/null)
case "$v" in unsat|unknown|timeout) ok ;; *) bad "run_instance.sh on tiny_unsat wrote '$v'" ;; esac

# Whatever certnn does, the result file holds a verdict and the script exits 0.
expect 0 "refused" sh "$V/run_instance.sh" v1 test "$SRC/tests/data/cli/garbage.onnx" "$SAT" "$TMP/garbage.txt" 10
first_is "$TMP/garbage.txt" error "run_instance.sh on a malformed ONNX file"
expect 0 "no such file" sh "$V/run_instance.sh" v1 test "$D/nonexistent.onnx" "$SAT" "$TMP/missing.txt" 10
first_is "$TMP/missing.txt" error "run_instance.sh on a missing ONNX file"
# shellcheck disable=SC2016
printf '#!/bin/sh\nkill -SEGV $$\n' > "$TMP/crash"
printf '#!/bin/sh\nexec sleep 60\n' > "$TMP/hang"
# shellcheck disable=SC2016
printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --output ] && echo sat > "$2"; shift; done\n' > "$TMP/satonly"
printf '#!/bin/sh\necho unknown\n' > "$TMP/nofile"
chmod +x "$TMP/crash" "$TMP/hang" "$TMP/satonly" "$TMP/nofile"
expect 0 "failed" env CERTNN="$TMP/crash" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/crash.txt" 10
first_is "$TMP/crash.txt" error "run_instance.sh with a crashing certnn"
t0=$(date +%s)
expect 0 "stopped" env CERTNN="$TMP/hang" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/hang.txt" 1
t1=$(date +%s)
first_is "$TMP/hang.txt" timeout "run_instance.sh with a certnn that does not stop"
[ $((t1 - t0)) -le 8 ] && ok || bad "run_instance.sh took $((t1 - t0)) s to stop a hanging certnn at 1 s"
expect 0 "without a well-formed counterexample" env CERTNN="$TMP/satonly" \
  sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/satonly.txt" 10
first_is "$TMP/satonly.txt" unknown "run_instance.sh when certnn writes sat without a witness"
expect 0 "no verdict" env CERTNN="$TMP/nofile" sh "$V/run_instance.sh" v1 test "$NET" "$SAT" "$TMP/nofile.txt" 10
first_is "$TMP/nofile.txt" error "run_instance.sh when certnn writes no result file"

# The independent counterexample check (skipped without python3, numpy, onnx and torch), in one
# process (importing torch takes seconds): certnn's witness is valid, a corrupted one is not.
if [ -x "$PY" ] && [ "$(head -n 1 "$TMP/cwd/out.txt")" = sat ]; then
  # Corrupt Y_0 (its first digit) so that it no longer matches the network's output.
  sed -e 's/^(Y_0 \(-\{0,1\}\)[0-9]/(Y_0 \19/' "$TMP/cwd/out.txt" > "$TMP/corrupt.txt"
  if cmp -s "$TMP/cwd/out.txt" "$TMP/corrupt.txt"; then
    sed -e 's/^(Y_0 \(-\{0,1\}\)9/(Y_0 \18/' "$TMP/cwd/out.txt" > "$TMP/corrupt.txt"
  fi
  "$PY" "$SRC/benchmarks/run_category.py" --check-witness "$TMP/cwd/out.txt" "$NET" "$SAT" \
    --check-witness "$TMP/corrupt.txt" "$NET" "$SAT" > "$TMP/chk" 2>&1
  rc=$?
  if [ "$rc" -eq 3 ]; then
    echo "SKIP (part): run_category.py cannot check witnesses here: $(grep UNCHECKED "$TMP/chk" | head -n 1)"
  else
    grep -q -F "$TMP/cwd/out.txt: valid:" "$TMP/chk" && ok \
      || { bad "run_category.py --check-witness rejected certnn's witness"; sed 's/^/  | /' "$TMP/chk"; }
    grep -q -F "$TMP/corrupt.txt: INVALID:" "$TMP/chk" && ok \
      || { bad "run_category.py --check-witness did not reject a corrupted witness"; sed 's/^/  | /' "$TMP/chk"; }
    [ "$rc" -eq 1 ] && ok || bad "run_category.py --check-witness exited $rc on one valid and one invalid witness, not 1"
  fi
else
  echo "SKIP (part): no /usr/bin/python3 or no sat result to check"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
