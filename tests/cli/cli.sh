#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli.sh: end-to-end tests of the certnn command on the bundled example and on
# malformed inputs (exit status 2 with a message, never a crash).
set -u
. "$(dirname "$0")/common.sh"   # CERTNN, SRC, TMP, ok, bad, expect, summary
NET=$SRC/examples/acasxu/ACASXU_run2a_1_1_batch_2000.onnx
P1=$SRC/examples/acasxu/prop_1.vnnlib
P3=$SRC/examples/acasxu/prop_3.vnnlib
DATA=$SRC/tests/data/cli

expect 0 "Usage: certnn" "$CERTNN" --help
expect 0 "^certnn [0-9]" "$CERTNN" --version
expect 2 "unknown command" "$CERTNN" frobnicate
expect 2 "Usage" "$CERTNN"
for c in run bounds ops certs verify; do expect 0 "Usage: certnn $c" "$CERTNN" "$c" --help; done

# certs: the records beside the rules; relu's subgradient convention; the seed's form in ops
expect 0 "relu.pullback_subgradient_at_0" "$CERTNN" certs --op relu
expect 0 "detach.pullback_detach" "$CERTNN" certs --kind convention
expect 2 "unknown kind 'proof'" "$CERTNN" certs --kind proof
expect 2 "unknown operator 'nope'" "$CERTNN" certs --op nope
"$CERTNN" certs --json --op linear > "$TMP/certs.json" 2>&1 || bad "certs --json failed"
grep -q '"kind": "algebraic"' "$TMP/certs.json" && ok || bad "certs --json: linear has no algebraic record"
expect 0 "^evidence: [0-9]+ passed, 0 FAILED, 0 without a runner \(seed 7\)" "$CERTNN" certs --check --seed 7
expect 0 "relu.pullback_adjoint.*passed: 5 probes" "$CERTNN" certs --check --op relu --draws 5
expect 2 "--draws: '0' is not a number in range" "$CERTNN" certs --check --draws 0
expect 0 "algebraic, derivative; forward mode" "$CERTNN" ops
expect 0 "certificate records: " "$CERTNN" ops
# ops: the whole table, 154 operators, JSON with booleans
expect 0 "154 operators" "$CERTNN" ops
"$CERTNN" ops --json > "$TMP/ops.json" 2>&1 || bad "ops --json failed"
n=$(grep -c '"name"' "$TMP/ops.json")
[ "$n" -eq 154 ] && ok || bad "ops --json lists $n operators, not 154"
grep -q '"crown": true' "$TMP/ops.json" && ok || bad "ops --json: no operator with a CROWN arm"
# operators with several outputs name them (sort's index tensor at output 1, batchNorm's statistics)
tr -d ' \n' < "$TMP/ops.json" | grep -q '"name":"sort"[^}]*"outputs":\["values","indices"\]' && ok \
  || bad "ops --json: sort's outputs are not [values, indices]"
tr -d ' \n' < "$TMP/ops.json" | grep -q '"name":"batchNorm"[^}]*"outputs":\["y","mean","var"\]' && ok \
  || bad "ops --json: batchNorm's outputs are not [y, mean, var]"
# ops: the coverage report (issue 4 item 6): per family, the columns Rule, CUDA, Gradient, Bounds,
# and the counts compared with the seed's table (data/seed-operators.tsv)
export CERTNN_DATA="$SRC/data"
expect 0 "^elementwise \(27 operators" "$CERTNN" ops
expect 0 "operator +Rule +CUDA +Gradient +Bounds" "$CERTNN" ops
# the Rule cell names the sorts the forward computes in
expect 0 "^  logicalAnd +bool +no +no value input" "$CERTNN" ops
expect 0 "^  bitwiseAnd +words +no" "$CERTNN" ops
expect 0 "^  add +f64, f32, words +no +algebraic, derivative; forward mode +checker, IBP, CROWN; enclosure" "$CERTNN" ops
expect 0 "^  mul +f64, f32, words +no +algebraic, derivative; forward mode +IBP, CROWN [(]alpha[)]; enclosure" "$CERTNN" ops
expect 0 "^  relu +f64, f32 +no +algebraic, derivative, convention; forward mode \(convention\) +checker, IBP, CROWN \(alpha\); enclosure" "$CERTNN" ops
grep -q '"alpha": true' "$TMP/ops.json" && ok || bad "ops --json: no operator with alpha-CROWN parameters"
expect 0 "^compared with the seed's 154 operators \(ours/seed\): rule [0-9]+/154, cuda [0-9]+/42, pullback [0-9]+/118, jvp [0-9]+/126, ibp [0-9]+/82, crown [0-9]+/13, checker [0-9]+/17" "$CERTNN" ops
expect 0 "^## movement \(" "$CERTNN" ops --markdown
expect 0 "^\| Operator \| Rule \| CUDA \| Gradient \| Bounds \|$" "$CERTNN" ops --markdown
expect 0 "^\| reshape \| f64, f32, bool, words \| no \| algebraic, derivative; forward mode \| checker, IBP, CROWN; enclosure \|$" "$CERTNN" ops --markdown
expect 0 "^\| seed \| 154 \| 42 \| 118 \| 126 \| 82 \| 13 \| 17 \|$" "$CERTNN" ops --markdown
expect 0 "^compared with the seed's 154 operators" "$CERTNN" ops --markdown
"$CERTNN" ops --json > "$TMP/ops2.json" 2>&1 || bad "ops --json (with the seed) failed"
grep -q '"jvp": 126' "$TMP/ops2.json" && ok || bad "ops --json: seed_counts lacks jvp 126"
grep -q '"gradient": "derivative; forward mode"' "$TMP/ops2.json" && ok || bad "ops --json: no seed cells"
grep -q '"comparison": "compared with the seed' "$TMP/ops2.json" && ok || bad "ops --json: no comparison line"
n=$(grep -c '"name"' "$TMP/ops2.json")
[ "$n" -eq 154 ] && ok || bad "ops --json lists $n operators, not 154"
# every operator with a pullback among ours also has a forward mode, and a rule has a forward
for k in pullback jvp forward; do
  c=$(grep -c "\"$k\": true" "$TMP/ops2.json")
  [ "$c" -ge 19 ] && ok || bad "ops --json: only $c operators with $k"
done
# without the table: the report still prints, and says so
expect 0 "^seed table not found" "$CERTNN" ops --seed "$TMP/none.tsv"
expect 0 "154 operators" "$CERTNN" ops --seed "$TMP/none.tsv"
CERTNN_DATA="$TMP" "$CERTNN" ops --json --seed "$TMP/none.tsv" > "$TMP/ops3.json" 2>&1 || bad "ops --json without a seed table failed"
grep -q '"seed_counts": null' "$TMP/ops3.json" && ok || bad "ops --json without a seed table: seed_counts not null"
expect 2 "exclude" "$CERTNN" ops --json --markdown
expect 2 "needs a file" "$CERTNN" ops --seed
unset CERTNN_DATA

# run: forward evaluation, five outputs
expect 0 "" "$CERTNN" run "$NET" --input "$DATA/point5.txt"
[ "$(wc -l < "$TMP/out")" -eq 5 ] && ok || bad "run printed $(wc -l < "$TMP/out") lines, not 5"
expect 0 '"outputs"' "$CERTNN" run "$NET" --input "$DATA/point5.txt" --json
expect 0 "" "$CERTNN" run "$NET" --input "$DATA/point5.txt" --dtype f32

# bounds: every method, text and JSON
for m in ibp crown crown-ibp alpha-crown; do
  expect 0 "\"method\": \"$m\"" "$CERTNN" bounds "$NET" --vnnlib "$P1" --method "$m" --json
  expect 0 "^4 " "$CERTNN" bounds "$NET" --vnnlib "$P1" --method "$m"
done
# alpha-crown: the iterations it ran, its history on request, its options checked; with fixed
# intermediate bounds its box lies inside crown's
expect 0 '"iterations": [1-9]' "$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --json --iterations 5
expect 0 '"history": \[\{"lower"' "$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --json --history \
  --iterations 3 --lr 0.1
expect 0 '"seconds_cold": [0-9]' "$CERTNN" bounds "$NET" --vnnlib "$P3" --method crown --json --repeat 2
expect 2 "repeat must be" "$CERTNN" bounds "$NET" --vnnlib "$P3" --repeat -1
expect 2 "history needs" "$CERTNN" bounds "$NET" --vnnlib "$P3" --method crown --json --history
expect 2 "lr must be" "$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --lr 0
expect 2 "iterations must be" "$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --iterations 0
"$CERTNN" bounds "$NET" --vnnlib "$P3" --method crown > "$TMP/crown.txt" 2>&1 || bad "bounds crown failed"
"$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --fix-intermediate > "$TMP/alpha.txt" 2>&1 \
  || bad "bounds alpha-crown failed"
paste "$TMP/crown.txt" "$TMP/alpha.txt" | awk 'NF != 6 || $5 < $2 || $6 > $3 { bad = 1 } END { exit bad }' && ok \
  || bad "alpha-crown --fix-intermediate is looser than crown: $(paste "$TMP/crown.txt" "$TMP/alpha.txt" | head -5)"
# a working memory too small for all rows at once: blocks of rows, the same bounds but for the
# last bits (a matrix product of fewer rows may sum in another order)
expect 2 "alpha-memory must be" "$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --alpha-memory 0
"$CERTNN" bounds "$NET" --vnnlib "$P3" --method alpha-crown --fix-intermediate --alpha-memory 0.0001 \
  > "$TMP/alpha_blocks.txt" 2>&1 || bad "bounds alpha-crown --alpha-memory failed"
paste "$TMP/alpha.txt" "$TMP/alpha_blocks.txt" \
  | awk 'function d(a, b) { return (a - b < 0 ? b - a : a - b) > 1e-9 * (1 + (a < 0 ? -a : a)) }
         NF != 6 || d($2, $5) || d($3, $6) { bad = 1 } END { exit bad }' && ok \
  || bad "alpha-crown in blocks differs: $(paste "$TMP/alpha.txt" "$TMP/alpha_blocks.txt" | head -5)"
expect 0 '"lower"' "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.01 --json
# the L2 ball (never looser than the box) and the sound linear bounds of each output entry
expect 0 '"norm": "2"' "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.01 --norm 2 --json
expect 0 '"linear": [{]"lower": [{]"coef": [[][[]' "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.01 --json --linear
expect 2 "norm takes inf or 2" "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.01 --norm 1
expect 2 "norm 2 needs a CROWN method" "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.01 --norm 2 --method ibp
expect 2 "norm 2 needs --center" "$CERTNN" bounds "$NET" --vnnlib "$P1" --norm 2
expect 2 "linear needs --json" "$CERTNN" bounds "$NET" --vnnlib "$P1" --linear
"$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.05 > "$TMP/linf.txt" 2>&1 \
  && "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps 0.05 --norm 2 > "$TMP/l2.txt" 2>&1 \
  && paste "$TMP/linf.txt" "$TMP/l2.txt" | awk 'NF != 6 || $5 < $2 || $6 > $3 { bad = 1 } END { exit bad }' && ok \
  || bad "the L2 bounds are looser than the box's: $(paste "$TMP/linf.txt" "$TMP/l2.txt" | head -3)"
# a ReLU network is relaxed everywhere; batchNorm with batch statistics has no CROWN arm and is
# discharged over its IBP box, which the JSON counts and stderr notes
expect 0 '"discharged": 0' "$CERTNN" bounds "$NET" --vnnlib "$P1" --method crown --json
BNT="$SRC/tests/data/onnx/ops/o15_batchnorm_training.onnx"
awk 'BEGIN { for (i = 0; i < 24; i++) printf "0.1\n" }' > "$TMP/c24.txt"
expect 0 '"discharged": [1-9]' "$CERTNN" bounds "$BNT" --center "$TMP/c24.txt" --eps 0.01 --method crown --json
expect 0 'note: [0-9]+ CROWN steps? found no relaxation' "$CERTNN" bounds "$BNT" --center "$TMP/c24.txt" --eps 0.01 \
  --method crown

# verify: the verdict is the first line; --output writes the same
expect 0 "" "$CERTNN" verify "$NET" "$P3" --timeout 60 --quiet --output "$TMP/result.txt"
v=$(head -n 1 "$TMP/out")
case "$v" in unsat|sat|unknown|timeout) ok ;; *) bad "verify printed '$v' first" ;; esac
[ "$(head -n 1 "$TMP/result.txt")" = "$v" ] && ok || bad "verify --output disagrees with stdout"
[ "$v" != "sat" ] && ok || bad "prop_3 on net 1_1 is unsat in every published result; verify said sat"
expect 0 "^(unsat|unknown|timeout)" "$CERTNN" verify "$NET" "$P3" --timeout 5 --quiet --no-relu-split
# the same property in VNN-LIB 2.0: the same box and the same verdict
P3V2=$SRC/examples/acasxu/prop_3.v2.vnnlib
"$CERTNN" bounds "$NET" --vnnlib "$P3" --method ibp --json > "$TMP/b1.json" 2>&1 || bad "bounds on prop_3 failed"
"$CERTNN" bounds "$NET" --vnnlib "$P3V2" --method ibp --json > "$TMP/b2.json" 2>&1 || bad "bounds on prop_3.v2 failed"
[ "$(sed 's/"seconds": [^,]*,//' "$TMP/b1.json")" = "$(sed 's/"seconds": [^,]*,//' "$TMP/b2.json")" ] && ok || bad "prop_3 in 1.0 and 2.0 bound differently"
"$CERTNN" verify "$NET" "$P3V2" --timeout 60 --quiet > "$TMP/v2.txt" 2>&1
[ "$(head -n 1 "$TMP/v2.txt")" = "$v" ] && ok || bad "prop_3.v2 gave '$(head -n 1 "$TMP/v2.txt")', prop_3 '$v'"
printf '(vnnlib-version <2.0>)\n(declare-network n (declare-input X Real [1,5]) (declare-output Y Real [1,5]))\n(assert (<= X[0,5] 1))\n' > "$TMP/bad2.vnnlib"
expect 2 "bad2.vnnlib:3:17: index 5 is out of range" "$CERTNN" verify "$NET" "$TMP/bad2.vnnlib" --timeout 5
# an input axis whose exact bounds leave no number, though both round to 1: refused (was a wrong sat at X_0 = 1)
expect 2 "empty box: X_0 lies in \\[1, 1\\]" "$CERTNN" verify "$SRC/tests/data/verify/tiny.onnx" \
  "$SRC/tests/data/vnnlib/err_empty_between_doubles.vnnlib" --timeout 5

# malformed inputs: exit status 2 and a message naming the problem
expect 2 "No such file" "$CERTNN" bounds "$SRC/no/such.onnx" --vnnlib "$P1"
expect 2 "onnx" "$CERTNN" bounds "$DATA/garbage.onnx" --vnnlib "$P1"
expect 2 "onnx" "$CERTNN" bounds "$DATA/truncated.onnx" --vnnlib "$P1"
expect 2 "unbalanced.vnnlib:[0-9]+:[0-9]+" "$CERTNN" bounds "$NET" --vnnlib "$DATA/unbalanced.vnnlib"
expect 2 "method" "$CERTNN" bounds "$NET" --vnnlib "$P1" --method magic
expect 2 "unknown or incomplete option" "$CERTNN" bounds "$NET" --vnnlib "$P1" --frob
expect 2 "not a number" "$CERTNN" run "$NET" --input "$P1"
expect 2 "timeout" "$CERTNN" verify "$NET" "$P1" --timeout -3
expect 2 "eps" "$CERTNN" bounds "$NET" --center "$DATA/point5.txt" --eps nan
echo "0 1 2" > "$TMP/short.txt"
expect 2 "needs 5" "$CERTNN" bounds "$NET" --center "$TMP/short.txt" --eps 0.1
expect 2 "needs 5" "$CERTNN" run "$NET" --input "$TMP/short.txt"

# every malformed model and property of the library tests, through the command: exit 2 with a message
for f in "$SRC"/tests/data/onnx/bad/*.onnx; do
  case "$f" in */good.onnx) continue ;; esac
  expect 2 "certnn: " "$CERTNN" bounds "$f" --vnnlib "$P1"
done
for f in "$SRC"/tests/data/vnnlib/err_*.vnnlib; do
  expect 2 "$(basename "$f"):[0-9]+:[0-9]+" "$CERTNN" bounds "$NET" --vnnlib "$f"
done
# a property whose X and Y counts do not fit the network
expect 2 "declares" "$CERTNN" bounds "$NET" --vnnlib "$SRC/tests/data/vnnlib/ok_mixed.vnnlib"

# the memory budget (--max-memory): an analysis whose estimate exceeds it is refused before it
# allocates, naming both; within it the answers are the same
expect 2 "more than the memory budget of 0.01 MiB" "$CERTNN" bounds "$NET" --vnnlib "$P3" --max-memory 0.01
expect 2 "more than the memory budget" "$CERTNN" verify "$NET" "$P3" --max-memory 0.01 --quiet
expect 2 "max-memory must be a finite number" "$CERTNN" bounds "$NET" --vnnlib "$P3" --max-memory -1
"$CERTNN" bounds "$NET" --vnnlib "$P3" > "$TMP/free.txt" 2>&1
"$CERTNN" bounds "$NET" --vnnlib "$P3" --max-memory 64 > "$TMP/budget.txt" 2>&1
cmp -s "$TMP/free.txt" "$TMP/budget.txt" && ok || bad "bounds change under --max-memory 64"
expect 0 "^unsat" "$CERTNN" verify "$NET" "$P3" --max-memory 16 --quiet --threads 2
# the size limit (cn_max_numel): files that claim huge tensors are refused by name before allocating
expect 2 "Resize.*more than the limit" "$CERTNN" export "$SRC/tests/fuzz/regressions/onnx/resize-huge-output" -o "$TMP/x.json"
expect 2 "Tile.*overflows the size limit" "$CERTNN" export "$SRC/tests/fuzz/regressions/onnx/tile-repeat-overflow" -o "$TMP/x.json"

summary
