#!/bin/sh
# SPDX-License-Identifier: MIT
# VNN-COMP: run_instance.sh v1 CATEGORY ONNX VNNLIB RESULTS_FILE TIMEOUT
# Decides one instance with `certnn verify` and writes RESULTS_FILE: line 1 is exactly one of
# sat, unsat, unknown, timeout, error; after sat, the counterexample in the VNN-COMP format.
#
# RESULTS_FILE may be relative (the harness passes out.txt); it is resolved against the current
# directory.  certnn gets a time limit a few seconds below TIMEOUT (never above it), all cores,
# --quiet, and writes into a temporary file beside RESULTS_FILE; RESULTS_FILE receives that file
# only when certnn exited 0 with a well-formed answer.  Otherwise it gets `timeout` (certnn ran
# past TIMEOUT and was stopped) or `error` (certnn refused the input, crashed, or wrote no
# answer), and a message goes to standard error.  The harness kills this script at TIMEOUT + 60 s;
# certnn itself is stopped at TIMEOUT (SIGTERM, SIGKILL 5 s later), and a TERM/INT/HUP sent to
# this script stops certnn too.
#
# Exit 0 whatever certnn did; 1 only when the arguments are wrong or RESULTS_FILE cannot be written.
# The binary is $CERTNN when set, else <repo>/build/certnn.
set -u

die () {
  echo "run_instance.sh: $*" >&2
  exit 1
}

if [ "$#" -lt 1 ] || [ "$1" != "v1" ]; then
  die "expected the version string 'v1' as the first argument, got '${1:-}'"
fi
[ "$#" -eq 6 ] || die "usage: run_instance.sh v1 CATEGORY ONNX VNNLIB RESULTS_FILE TIMEOUT (got $# arguments)"
category=$2
onnx=$3
vnnlib=$4
results=$5
timeout=$(printf '%s' "$6" | tr -d ' \t\r\n')

[ -n "$results" ] || die "the results file name is empty"
case "$results" in
  /*) ;;
  *) results=$(pwd)/$results ;;
esac
# TIMEOUT: a number of seconds > 0 (an integer or a decimal, as in instances.csv).
printf '%s\n' "$timeout" | grep -Eq '^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$' \
  && awk -v t="$timeout" 'BEGIN { exit !(t + 0 > 0) }' \
  || die "the timeout must be a number of seconds > 0, not '$6'"

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
certnn=${CERTNN:-$top/build/certnn}

# From here on, RESULTS_FILE always ends with a valid first line.
tmp="$results.certnn.$$"
trap 'rm -f -- "$tmp"' EXIT
# answer WORD MESSAGE: writes WORD as the whole result and says why on standard error
answer () {
  [ -n "$2" ] && echo "run_instance.sh: $2" >&2
  printf '%s\n' "$1" > "$results" || die "cannot write $results"
  exit 0
}
: > "$tmp" 2> /dev/null || { printf 'error\n' > "$results" 2> /dev/null; die "cannot write beside $results"; }

# Per-category settings go here, chosen by the category name only (never by file name).
extra=""
case "$category" in
  acasxu|mnist_fc|oval21|test) ;;
  *) ;;
esac

# The harness unzips a .gz next to the original and passes the plain path; accept a .gz anyway.
case "$onnx" in
  *.gz)
    [ -f "${onnx%.gz}" ] || gzip -dkf -- "$onnx" 2> /dev/null || answer error "cannot unzip $onnx"
    onnx=${onnx%.gz} ;;
esac
case "$vnnlib" in
  *.gz)
    [ -f "${vnnlib%.gz}" ] || gzip -dkf -- "$vnnlib" 2> /dev/null || answer error "cannot unzip $vnnlib"
    vnnlib=${vnnlib%.gz} ;;
esac
[ -f "$onnx" ] || answer error "no such file: $onnx"
[ -f "$vnnlib" ] || answer error "no such file: $vnnlib"
[ -f "$certnn" ] && [ -x "$certnn" ] || answer error "no certnn binary at $certnn (run install_tool.sh v1 first, or set CERTNN)"

# certnn's own limit: TIMEOUT less 2 s and 1 %, but at least half of TIMEOUT.
soft=$(awk -v t="$timeout" 'BEGIN { s = t - 2 - 0.01 * t; if (s < t / 2) s = t / 2; printf "%.3f", s }')
threads=$(nproc 2> /dev/null || getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)

# shellcheck disable=SC2086
timeout -k 5 "$timeout" "$certnn" verify "$onnx" "$vnnlib" --timeout "$soft" --output "$tmp" --quiet \
  --threads "$threads" $extra &
child=$!
signaled=0
trap 'signaled=1; kill -TERM "$child" 2> /dev/null' TERM INT HUP
wait "$child"
rc=$?
# A signal to this script interrupts wait: wait again for timeout(1) to end certnn.
while kill -0 "$child" 2> /dev/null; do
  wait "$child"
  rc=$?
done
trap - TERM INT HUP
[ "$signaled" -eq 0 ] || answer timeout "stopped by a signal"

case "$rc" in
  0) ;;
  124|137) answer timeout "certnn ran past the ${timeout} s limit and was stopped" ;;
  2) answer error "certnn refused the input (exit 2)" ;;
  *) answer error "certnn failed (exit $rc)" ;;
esac

first=$(head -n 1 "$tmp" | tr -d ' \t\r')
case "$first" in
  unsat|unknown|timeout|error) answer "$first" "" ;;
  sat)
    # A sat without a well-formed witness would cost a penalty: answer unknown instead.
    if grep -q '(X_0 ' "$tmp" && grep -q '(Y_0 ' "$tmp" \
       && [ "$(tail -n +2 "$tmp" | tr -d ' \t\r\n' | tail -c 2)" = "))" ]; then
      cat "$tmp" > "$results" || die "cannot write $results"
      exit 0
    fi
    answer unknown "certnn answered sat without a well-formed counterexample"
    ;;
  *) answer error "certnn exited 0 but wrote no verdict" ;;
esac
