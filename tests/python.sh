#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/python.sh: the Python module python/certnn from the build tree (CERTNN_LIBRARY = the
# built libcertnn) with Debian's python3-numpy: tests/python_binding.py, then the README's Python
# example as printed.  Skips (77) without numpy.  In a sanitizer build (CN_SANITIZE_CFLAGS set by
# make check) python3 itself is not instrumented, so the ASan and UBSan runtimes are preloaded
# (ASan must come first in the process) and leak detection is off for the interpreter's own
# allocations; the library's leaks are the C tests' business.
set -u
SRC=${CN_SRCDIR:-.}
BUILD=${CN_BUILDDIR:-.}
LIB="$BUILD/.libs/libcertnn.so.0"
[ -f "$LIB" ] || { echo "SKIP: no $LIB"; exit 77; }
/usr/bin/python3 -c 'import numpy' 2> /dev/null || { echo "SKIP: /usr/bin/python3 has no numpy"; exit 77; }
export CERTNN_LIBRARY="$LIB" PYTHONPATH="$SRC/python"
if [ -n "${CN_SANITIZE_CFLAGS:-}" ]; then
  cc=${CN_CC:-cc}
  asan=$($cc -print-file-name=libasan.so) ubsan=$($cc -print-file-name=libubsan.so)
  [ -f "$asan" ] && [ -f "$ubsan" ] || { echo "FAIL: sanitizer build, but $cc names no libasan.so/libubsan.so to preload"; exit 1; }
  LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
fi
/usr/bin/python3 "$SRC/tests/python_binding.py" "$SRC" || exit 1
# the README's example, as printed there, from the source folder (its paths are relative to it)
sed -n '/^```python$/,/^```$/p' "$SRC/README.md" | sed '1d;$d' > "${TMPDIR:-/tmp}/cn_readme_$$.py"
out=$(cd "$SRC" && /usr/bin/python3 "${TMPDIR:-/tmp}/cn_readme_$$.py" 2>&1)
rc=$?
rm -f "${TMPDIR:-/tmp}/cn_readme_$$.py"
echo "README example: $out"
[ $rc -eq 0 ] && echo "$out" | grep -q '^unsat ' || { echo "FAIL: the README's Python example"; exit 1; }
