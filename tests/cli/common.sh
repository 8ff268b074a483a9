# SPDX-License-Identifier: MIT
# tests/cli/common.sh: the preamble of the shell tests of tests/cli, sourced by them (not a test
# itself): the certnn binary (CERTNN, from $CN_CERTNN, else ./certnn), the source tree (SRC,
# from $CN_SRCDIR, else .), a scratch folder TMP removed on exit, the pass and fail counters
# with ok and bad, expect, and summary, which ends a test.
CERTNN=${CN_CERTNN:-./certnn}
SRC=${CN_SRCDIR:-.}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok () { pass=$((pass + 1)); }
bad () { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS PATTERN CMD...: runs CMD, checks its exit status and that stdout+stderr match PATTERN
expect () {
  want=$1; pat=$2; shift 2
  "$@" > "$TMP/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then bad "$* -> exit $got, expected $want"; sed 's/^/  | /' "$TMP/out" | head -5; return; fi
  if [ -n "$pat" ] && ! grep -q -E -- "$pat" "$TMP/out"; then bad "$* -> output lacks /$pat/"; sed 's/^/  | /' "$TMP/out" | head -5; return; fi
  ok
}

# summary: prints the counts; the exit status is 0 if nothing failed.
summary () {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
