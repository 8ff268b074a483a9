#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/certificate.sh: bound certificates end to end (certnn/proof.h, doc/CERTIFICATE.md).
# certnn verify --certificate writes one for the bundled ACAS Xu property 3 (unsat), certnn
# check-certificate accepts it, and rejects, naming what failed, every tampered copy: a leaf
# removed, a split side flipped, a claimed bound raised by 1e-9, a coefficient changed, an
# intermediate box narrowed, a sign claim flipped, a file of the earlier format version, a
# truncated file, the wrong network, the wrong property, and the property's input box enlarged
# (its digest fixed up, so that only the bounds can tell).  No certificate is left for a sat
# verdict, and the options a certificate cannot record are refused.
# With ../shared, also the wrong network of the same shape (ACAS Xu 1_2).
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
E=$SRC/examples/acasxu
NET=$E/ACASXU_run2a_1_1_batch_2000.onnx
P3=$E/prop_3.vnnlib
P1=$E/prop_1.vnnlib
C=$TMP/p3.cert
PRINTF=/usr/bin/printf

# the certificate of an unsat verdict
expect 0 '^unsat' "$CERTNN" verify "$NET" "$P3" --certificate "$C" --threads 2 --quiet
[ -s "$C" ] && head -1 "$C" | grep -q '^certnn-certificate 2$' && ok || bad "no certificate header in $C"
tail -1 "$C" | grep -q '^end [0-9]* [0-9]*$' && ok || bad "the certificate does not end with its end line"
grep -q "^network sha256 $(sha256sum "$NET" | cut -d' ' -f1)\$" "$C" && ok || bad "the network's digest is not sha256sum's"
expect 0 '^accepted' "$CERTNN" check-certificate "$NET" "$P3" "$C" --threads 2
expect 0 '^accepted' "$CERTNN" check-certificate "$NET" "$P3" "$C" --threads 1 --precision 128 --quiet

# check REASON FILE [SPEC]: the tampered FILE is rejected (exit 1) with REASON in the message
check () {
  expect 1 "^rejected: .*$1" "$CERTNN" check-certificate "$NET" "${3:-$P3}" "$2" --quiet
}

# a leaf removed: the last node and its lines go, the end line recounted
awk '/^node /{n=NR} {line[NR]=$0} END {
  for (i = 1; i < NR; i++) if (i < n || (i > n && line[i] !~ /^(box|refute) /)) print line[i]; print line[NR] }' "$C" \
  | awk '/^node /{nn++} /^refute /{nr++} /^end /{print "end", nn, nr; next} {print}' > "$TMP/leaf"
check "has one child" "$TMP/leaf"
# a split side flipped
awk '!done && / below$/ {sub(/ below$/, " above"); done = 1} {print}' "$C" > "$TMP/side"
check "both above" "$TMP/side"
# the first claimed bound raised by 1e-9 (field 5 of its refute line; the format reads decimals too)
low=$(awk '/^refute /{print $5; exit}' "$C")
up=$($PRINTF '%.17g' "$low" | awk '{printf "%.17g", $1 + 1e-9}')
awk -v up="$up" '!done && /^refute / {$5 = up; done = 1} {print}' "$C" > "$TMP/lower"
check "exceeds the minimum" "$TMP/lower"
# a coefficient changed (the first input coefficient, field 7)
a0=$(awk '/^refute /{print $7; exit}' "$C")
a1=$($PRINTF '%.17g' "$a0" | awk '{printf "%.17g", $1 * 1.01 + 1e-3}')
awk -v a="$a1" '!done && /^refute / {$7 = a; done = 1} {print}' "$C" > "$TMP/coef"
check "not implied" "$TMP/coef"
# an intermediate box narrowed: the first LO,HI entry of the box lines shrunk to HI,HI
awk '!done && /^box / {for (i = 3; i <= NF; i++) if ($i ~ /,/) {split($i, e, ","); $i = e[2] "," e[2]; done = 1; break}} {print}' "$C" > "$TMP/box"
cmp -s "$C" "$TMP/box" && bad "the box tamper changed nothing"
check "does not contain its re-derivation" "$TMP/box"
# a sign entry flipped: the first '+' (a value claimed nonnegative) claimed nonpositive
awk '!done && /^box / {for (i = 3; i <= NF; i++) if ($i == "+") {$i = "-"; done = 1; break}} {print}' "$C" > "$TMP/sign"
cmp -s "$C" "$TMP/sign" && bad "the sign tamper changed nothing"
check "does not contain its re-derivation" "$TMP/sign"
# a file of the earlier format version (its box entries were pairs of ends)
sed '1s/^certnn-certificate 2$/certnn-certificate 1/' "$C" > "$TMP/v1"
check "version 1; this checker reads version 2" "$TMP/v1"
# a truncated file
head -c $(($(wc -c < "$C") / 2)) "$C" > "$TMP/trunc"
check "truncated" "$TMP/trunc"
# the wrong network, the wrong property
awk 'NR == 2 {print "network sha256 0000000000000000000000000000000000000000000000000000000000000000"; next} {print}' "$C" > "$TMP/net"
check "wrong network" "$TMP/net"
check "wrong property" "$C" "$P1"
# the property's box enlarged (X_3 up to 0.6), the certificate's digest made to match it: the
# bounds no longer hold on the leaves' boxes
sed 's/(assert (<= X_3 0.5))/(assert (<= X_3 0.6))/' "$P3" > "$TMP/p3big.vnnlib"
big=$(sha256sum "$TMP/p3big.vnnlib" | cut -d' ' -f1)
awk -v h="$big" 'NR == 3 {print "property sha256 " h; next} {print}' "$C" > "$TMP/big"
expect 1 '^rejected: node' "$CERTNN" check-certificate "$NET" "$TMP/p3big.vnnlib" "$TMP/big" --quiet
# the same network of another network: ../shared's ACAS Xu 1_2, if present
NET2=$SRC/../shared/benchmarks/acasxu/onnx/ACASXU_run2a_1_2_batch_2000.onnx
if [ -f "$NET2" ]; then
  expect 1 "^rejected: wrong network" "$CERTNN" check-certificate "$NET2" "$P3" "$C" --quiet
fi

# no certificate for a verdict other than unsat; options it cannot record refused
D=$SRC/tests/data/verify
expect 0 'no certificate written: the verdict is sat' "$CERTNN" verify "$D/tiny.onnx" "$D/tiny_sat.vnnlib" --certificate "$TMP/sat.cert"
[ ! -e "$TMP/sat.cert" ] && ok || bad "a certificate was left for a sat verdict"
expect 2 'method must be crown or crown-ibp' "$CERTNN" verify "$NET" "$P3" --certificate "$TMP/a.cert" --method alpha-crown
[ ! -e "$TMP/a.cert" ] && ok || bad "a certificate was left after a refused option"
expect 2 'cannot read' "$CERTNN" check-certificate "$NET" "$P3" "$TMP/missing.cert"
# a network with an operator the checker has no step for: refused, naming the node
expect 2 "has no checker step" "$CERTNN" check-certificate "$SRC/tests/data/ibp/elu.onnx" "$SRC/tests/data/ibp/elu.vnnlib" "$C"
# crown-ibp (intermediate boxes by IBP) on the tiny network of tests/data/verify
expect 0 '^unsat' "$CERTNN" verify "$D/tiny.onnx" "$D/tiny_unsat.vnnlib" --certificate "$TMP/ibp.cert" --method crown-ibp --quiet
expect 0 '^accepted' "$CERTNN" check-certificate "$D/tiny.onnx" "$D/tiny_unsat.vnnlib" "$TMP/ibp.cert" --quiet
summary
