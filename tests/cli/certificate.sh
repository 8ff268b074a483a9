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
# The same for the ReLU-split search on the tiny network of tests/data/verify: a relu split's sign
# flipped, a split's entry changed, a leaf removed, a non-empty domain claimed empty; and on the
# tiny convolutional network, a certificate accepted and one with a coefficient changed rejected.
# With ../shared, also the wrong network of the same shape (ACAS Xu 1_2), and mnist_fc's
# beta-CROWN refutations with a beta raised, the betas dropped, the slopes changed, a negative beta.
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
[ -s "$C" ] && head -1 "$C" | grep -q '^certnn-certificate 4$' && ok || bad "no certificate header in $C"
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
# a file of an earlier format version (version 3 had no semantics line)
sed '1s/^certnn-certificate 4$/certnn-certificate 3/' "$C" > "$TMP/v2"
check "version 3; this checker reads version 4" "$TMP/v2"
# a certificate claiming another semantics
sed 's/^semantics real$/semantics binary32/' "$C" > "$TMP/sem"
check "for the binary32 semantics; this checker re-derives the exact real one only" "$TMP/sem"
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

# the ReLU-split search (--input-split-max 0: no input splitting) on the tiny network, the
# threshold just above the maximum 2: a restart node below the root and relu-split nodes
sed 's/2.25/2.001/' "$D/tiny_unsat.vnnlib" > "$TMP/tight.vnnlib"
R=$TMP/relu.cert
expect 0 '^unsat' "$CERTNN" verify "$D/tiny.onnx" "$TMP/tight.vnnlib" --input-split-max 0 --certificate "$R" --quiet
grep -q ' restart$' "$R" && grep -q ' split [0-9]* [0-9]* [-+]$' "$R" && ok || bad "no relu-split nodes in $R"
expect 0 '^accepted' "$CERTNN" check-certificate "$D/tiny.onnx" "$TMP/tight.vnnlib" "$R" --quiet
rcheck () {
  expect 1 "^rejected: .*$1" "$CERTNN" check-certificate "${3:-$D/tiny.onnx}" "${4:-$TMP/tight.vnnlib}" "$2" --quiet
}
# a relu split's sign flipped: both children on one side
awk '!done && / split / && $NF == "+" {$NF = "-"; done = 1} {print}' "$R" > "$TMP/rsign"
rcheck "the other sign is not covered" "$TMP/rsign"
# one child split on another entry
awk '!done && / split / {$7 = $7 > 0 ? $7 - 1 : 1; done = 1} {print}' "$R" > "$TMP/rentry"
rcheck "split it differently" "$TMP/rentry"
# a relu-split leaf removed
awk '/^node /{n=NR} {line[NR]=$0} END {
  for (i = 1; i < NR; i++) if (i < n || (i > n && line[i] !~ /^(box|refute|alpha|beta|empty)/)) print line[i]; print line[NR] }' "$R" \
  | awk '/^node /{nn++} /^refute /{nr++} /^end /{print "end", nn, nr; next} {print}' > "$TMP/rleaf"
rcheck "has one child" "$TMP/rleaf"
# a domain claimed empty that is not
awk '{print} !done && / split / {print "empty"; done = 1}' "$R" > "$TMP/rempty"
rcheck "claims an empty domain, but its re-derived boxes are not empty" "$TMP/rempty"
# a convolutional network (conv's checker step): tinyconv of tests/data/verify, the threshold
# 1/64 above the exact maximum, CROWN's bound about 1 above it, so the proof splits relus
CV=$TMP/conv.cert
expect 0 '^unsat' "$CERTNN" verify "$D/tinyconv.onnx" "$D/tinyconv_unsat.vnnlib" --input-split-max 0 --certificate "$CV" --quiet
grep -q ' split [0-9]* [0-9]* [-+]$' "$CV" && ok || bad "no relu-split nodes in $CV"
expect 0 '^accepted' "$CERTNN" check-certificate "$D/tinyconv.onnx" "$D/tinyconv_unsat.vnnlib" "$CV" --quiet
# its first refutation's input coefficient changed
c0=$(awk '/^refute /{print $7; exit}' "$CV")
c1=$($PRINTF '%.17g' "$c0" | awk '{printf "%.17g", $1 * 1.01 + 1e-3}')
awk -v a="$c1" '!done && /^refute / {$7 = a; done = 1} {print}' "$CV" > "$TMP/ccoef"
rcheck "not implied" "$TMP/ccoef" "$D/tinyconv.onnx" "$D/tinyconv_unsat.vnnlib"
# with ../shared: mnist_fc 256x2, property 0 (eps 0.03), whose refutations use beta-CROWN's
# multipliers and optimised slopes; a beta raised, the betas dropped, the slopes set to 1
MN=$SRC/../shared/benchmarks/mnist_fc
if [ -f "$MN/onnx/mnist-net_256x2.onnx" ]; then
  MNET=$MN/onnx/mnist-net_256x2.onnx
  MP=$MN/vnnlib/prop_0_0.03.vnnlib
  M=$TMP/mnist.cert
  expect 0 '^unsat' "$CERTNN" verify "$MNET" "$MP" --certificate "$M" --threads 2 --quiet
  grep -q '^beta ' "$M" && grep -q '^alpha ' "$M" && ok || bad "no beta or alpha lines in $M"
  expect 0 '^accepted' "$CERTNN" check-certificate "$MNET" "$MP" "$M" --threads 2 --quiet
  awk '!done && /^beta / {$2 = "0x1.8p+0"; done = 1} {print}' "$M" > "$TMP/mbeta"
  rcheck "not implied" "$TMP/mbeta" "$MNET" "$MP"
  awk '/^beta / && !done {for (i = 2; i <= NF; i++) if ($i != "0x0p+0") {done = 1; next}} {print}' "$M" > "$TMP/mnobeta"
  cmp -s "$M" "$TMP/mnobeta" && bad "no nonzero beta to drop in $M"
  rcheck "not implied" "$TMP/mnobeta" "$MNET" "$MP"
  awk '!done && /^alpha / {for (i = 3; i <= NF; i++) if ($i != ".") $i = "0x1p+0"; done = 1} {print}' "$M" > "$TMP/malpha"
  rcheck "not implied" "$TMP/malpha" "$MNET" "$MP"
  awk '!done && /^beta / {$2 = "-0x1p-4"; done = 1} {print}' "$M" > "$TMP/mneg"
  rcheck "is not a finite number >= 0" "$TMP/mneg" "$MNET" "$MP"
fi
summary
