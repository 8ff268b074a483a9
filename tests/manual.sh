#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/manual.sh: the manuals (doc/man/certnn.1, doc/man/libcertnn.3) say what the code does.
#  1. For every command, the options its --help prints (--name) are exactly the options of its
#     section in certnn(1) (the section `.SS "certnn COMMAND ..."`; --help itself left out).
#  2. Every function a public header declares with CN_API is named in libcertnn(3), by its name
#     or by a family written NAME_* (cn_tape_*).
#  3. Both render without a warning (groff -man -ww; skipped where groff is missing) and `man -l`
#     reads them (where man is installed).
# Usage: tests/manual.sh [SRCDIR CERTNN] (default $CN_SRCDIR and $CN_CERTNN).
set -u
src=${1:-${CN_SRCDIR:-.}}
certnn=${2:-${CN_CERTNN:-./certnn}}
man1="$src/doc/man/certnn.1"
man3="$src/doc/man/libcertnn.3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
fail () { echo "manual: $*"; bad=1; }
[ -r "$man1" ] && [ -r "$man3" ] || { echo "manual: $man1 or $man3 missing"; exit 1; }

# 1. options, command by command
commands=$("$certnn" --help 2>&1 | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || fail "certnn --help lists no command"
for c in $commands; do
  "$certnn" "$c" --help > "$tmp/help" 2>&1 || fail "certnn $c --help failed"
  grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | grep -v -x -- '--help' | sort -u > "$tmp/help.opts"
  # the section of the command, roff's \- read as -
  awk -v c="$c" '/^\.S[SH] / { on = index($0, "\"certnn " c " ") > 0 || $0 == ".SS \"certnn " c "\"" ; next } on' \
    "$man1" | sed 's/\\-/-/g' > "$tmp/section"
  [ -s "$tmp/section" ] || { fail "certnn(1) has no section for '$c'"; continue; }
  # options named in the section's heading count too
  grep "^\.SS \"certnn $c" "$man1" | sed 's/\\-/-/g' >> "$tmp/section"
  grep -o -- '--[a-z][a-z0-9-]*' "$tmp/section" | sort -u > "$tmp/man.opts"
  for o in $(comm -23 "$tmp/help.opts" "$tmp/man.opts"); do fail "certnn $c --help prints $o, certnn(1) does not"; done
  for o in $(comm -13 "$tmp/help.opts" "$tmp/man.opts"); do fail "certnn(1) gives '$c' the option $o, its --help does not"; done
done

# 2. the C API
grep -h '^CN_API ' "$src"/include/certnn/*.h | sed -E 's/^([^(]*[^a-z0-9_])?([a-z_][a-z0-9_]*) *\(.*/\2/' \
  | sort -u > "$tmp/declared"
[ -s "$tmp/declared" ] || fail "no CN_API declaration under $src/include/certnn"
sed 's/\\-/-/g' "$man3" > "$tmp/man3"
grep -o 'cn_[a-z0-9_]*\*' "$tmp/man3" | tr -d '*' | sort -u > "$tmp/families"
while read -r f; do
  grep -q -w -- "$f" "$tmp/man3" && continue
  covered=0
  while read -r p; do
    case $f in "$p"*) covered=1 ;; esac
  done < "$tmp/families"
  [ $covered = 1 ] || fail "libcertnn(3) does not name $f"
done < "$tmp/declared"

# 3. rendering
if command -v groff > /dev/null 2>&1; then
  for m in "$man1" "$man3"; do
    groff -man -Tutf8 -ww -z "$m" > "$tmp/warn" 2>&1
    [ -s "$tmp/warn" ] && fail "groff warns on $m: $(head -n 3 "$tmp/warn")"
  done
else
  echo "manual: no groff, rendering not checked"
fi
if command -v man > /dev/null 2>&1; then
  for m in "$man1" "$man3"; do
    MANWIDTH=100 man -l "$m" > "$tmp/out" 2>&1 || fail "man -l $m failed: $(head -n 3 "$tmp/out")"
    grep -q "SEE ALSO" "$tmp/out" || fail "man -l $m rendered no SEE ALSO section"
  done
fi
[ $bad = 0 ] && echo "manual: $(echo "$commands" | wc -w) commands' options and $(wc -l < "$tmp/declared") functions documented"
exit $bad
