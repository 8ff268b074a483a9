#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/symbols.sh: what libcertnn.so exports is exactly the public API.  The library is compiled
# with hidden visibility (Makefile.am), and a function is exported when its declaration in a
# header of include/certnn/ carries CN_API (certnn/status.h).  Checks, from `nm -D --defined-only`
# on the built shared library, that every exported symbol is a cn_ function declared so (no
# internal cn__ function, no generated onnx__ binding, no data), and that every declared function
# is exported.  Skips (77) where the build made no shared library (--disable-shared) or nm is
# missing.  Usage: tests/symbols.sh [SRCDIR BUILDDIR] (default $CN_SRCDIR and $CN_BUILDDIR).
set -u
src=${1:-${CN_SRCDIR:-.}}
build=${2:-${CN_BUILDDIR:-.}}
command -v nm > /dev/null 2>&1 || { echo "symbols: no nm, skipped"; exit 77; }
lib=$(ls "$build"/.libs/libcertnn.so.[0-9]* 2> /dev/null | head -n 1)
[ -n "$lib" ] || { echo "symbols: no shared library under $build/.libs, skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The declared API: the name before the parenthesis of every declaration that starts with CN_API.
grep -h '^CN_API ' "$src"/include/certnn/*.h | sed -E 's/^([^(]*[^a-z0-9_])?([a-z_][a-z0-9_]*) *\(.*/\2/' \
  | sort -u > "$tmp/declared"
# The exported symbols (T: functions; anything else defined is reported too).
nm -D --defined-only "$lib" | awk '{ print $2, $3 }' | sort -k2 > "$tmp/exported"

bad=0
n_decl=$(wc -l < "$tmp/declared")
[ "$n_decl" -gt 0 ] || { echo "symbols: found no CN_API declaration under $src/include/certnn"; exit 1; }
while read -r kind name; do
  case $kind in
    T) grep -q -x "$name" "$tmp/declared" || { echo "symbols: $lib exports $name, which no public header declares"; bad=1; } ;;
    *) echo "symbols: $lib exports $name (nm kind $kind), not a function of the public API"; bad=1 ;;
  esac
done < "$tmp/exported"
awk '$1 == "T" { print $2 }' "$tmp/exported" > "$tmp/functions"
while read -r name; do
  grep -q -x "$name" "$tmp/functions" || { echo "symbols: $name is declared with CN_API but not exported"; bad=1; }
done < "$tmp/declared"
[ $bad -eq 0 ] && echo "symbols: libcertnn.so exports exactly the $n_decl functions the public headers declare"
exit $bad
