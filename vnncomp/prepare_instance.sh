#!/bin/sh
# SPDX-License-Identifier: MIT
# VNN-COMP: prepare_instance.sh v1 CATEGORY ONNX VNNLIB
# Runs before every instance and does no analysis: checks the arguments, that the network and the
# property exist (a .gz is unzipped next to the original, as the harness does), that the certnn
# binary runs, and ends stale certnn processes of this user left by an earlier instance.
# Exit 0 when the instance can run, 1 (with a message) otherwise: the harness then skips it.
#
# The binary is $CERTNN when set, else <repo>/build/certnn.  Only processes running that very
# binary (or its libtool twin in .libs/) are ended, never another build's; CERTNN_NO_KILL=1 skips
# that step (the test suite sets it, since other tests may be running the same binary).
set -u

die () {
  echo "prepare_instance.sh: $*" >&2
  exit 1
}

if [ "$#" -lt 1 ] || [ "$1" != "v1" ]; then
  die "expected the version string 'v1' as the first argument, got '${1:-}'"
fi
[ "$#" -eq 4 ] || die "usage: prepare_instance.sh v1 CATEGORY ONNX VNNLIB (got $# arguments)"
category=$2
onnx=$3
vnnlib=$4
[ -n "$category" ] || die "the category is empty"

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
certnn=${CERTNN:-$top/build/certnn}

# plain FILE: FILE itself, or FILE without .gz after unzipping it beside the original
plain () {
  case "$1" in
    *.gz)
      p=${1%.gz}
      if [ ! -f "$p" ]; then
        [ -f "$1" ] || die "no such file: $1"
        gzip -dkf -- "$1" || die "cannot unzip $1"
      fi
      ;;
    *) p=$1 ;;
  esac
  [ -f "$p" ] || die "no such file: $p"
  [ -r "$p" ] || die "cannot read $p"
}
plain "$onnx"
plain "$vnnlib"

[ -f "$certnn" ] && [ -x "$certnn" ] || die "no certnn binary at $certnn (run install_tool.sh v1 first, or set CERTNN)"
"$certnn" --version > /dev/null 2>&1 || die "$certnn does not run"

# End stale certnn processes of this user: those whose executable is this build's certnn.
if [ "${CERTNN_NO_KILL:-0}" != "1" ] && [ -d /proc ]; then
  bindir=$(CDPATH='' cd -- "$(dirname -- "$certnn")" && pwd)
  targets=""
  for b in "$certnn" "$bindir/.libs/certnn" "$bindir/.libs/lt-certnn"; do
    [ -f "$b" ] && targets="$targets
$(readlink -f -- "$b")"
  done
  # is_ours PID: whether PID belongs to this user and runs one of the targets
  is_ours () {
    [ "$1" != "$$" ] && [ -O "/proc/$1" ] || return 1
    exe=$(readlink -- "/proc/$1/exe" 2> /dev/null) || return 1
    printf '%s\n' "$targets" | grep -qxF -- "${exe% (deleted)}"
  }
  stale=""
  for d in /proc/[0-9]*; do
    is_ours "${d#/proc/}" && stale="$stale ${d#/proc/}"
  done
  if [ -n "$stale" ]; then
    echo "prepare_instance.sh: ending stale certnn processes:$stale" >&2
    # shellcheck disable=SC2086
    kill -TERM $stale 2> /dev/null
    sleep 1
    for pid in $stale; do
      is_ours "$pid" && kill -KILL "$pid" 2> /dev/null
    done
  fi
fi
exit 0
