#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole test suite: installs what is missing, builds in build-test/ and runs `make check`,
# then builds again with AddressSanitizer and UndefinedBehaviorSanitizer (no recovery) in
# build-asan/ and runs `make check` once more.  Both builds check the internal invariants
# (--enable-assertions, src/core/assert.h).  Tests that need ../shared/benchmarks skip
# (exit 77) where it is absent.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
sh tools/install-deps.sh
[ -x configure ] || autoreconf -fi
jobs=$(nproc)

run_suite () {
  dir=$1; shift
  mkdir -p "$dir"
  ( cd "$dir"
    [ -f Makefile ] || "$top/configure" --quiet "$@"
    make -j"$jobs" --quiet
    if ! make -j"$jobs" check; then
      for f in tests/*.log tests/cli/*.log; do
        [ -f "$f" ] && grep -q -E "^(FAIL|ERROR)" "${f%.log}.trs" 2>/dev/null && { echo "==> $f"; tail -n 60 "$f"; }
      done
      exit 1
    fi )
}

echo "== make check (build-test/)"
run_suite build-test --enable-assertions
echo "== make check under ASan + UBSan (build-asan/)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
run_suite build-asan --enable-sanitizers --enable-assertions CFLAGS="-O1 -g"
# One closing line over both runs, counted from automake's per-test results.
passed=$(cat build-test/tests/*.trs build-test/tests/cli/*.trs build-asan/tests/*.trs build-asan/tests/cli/*.trs \
         | grep -c '^:test-result: PASS')
skipped=$(cat build-test/tests/*.trs build-test/tests/cli/*.trs build-asan/tests/*.trs build-asan/tests/cli/*.trs \
         | grep -c '^:test-result: SKIP' || true)
echo "== all tests passed (make check, and make check under ASan + UBSan)"
echo "$passed passed, 0 failed, $skipped skipped"
