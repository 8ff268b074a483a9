#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/torch_capture.sh: tools/torch_capture.py --suite (PyTorch modules captured as IR
# artifacts with torch's CPU outputs as reference), where /usr/bin/python3 has torch: every module
# certnn can import passes structure, types and execute; the modules whose results torch computes
# exactly as certnn does (average pooling by powers of two, Boolean logic) also pass compare; the
# others' compare failures list elements (they are torch's summation orders, and the exporter's
# integer division: not asserted, they change with torch); the binary16 and bfloat16 modules
# (casts, elementwise binary16 arithmetic, a bfloat16 MLP) pass structure, types and execute, and
# the elementwise ones compare (each of torch's Half and BFloat16 CPU kernels rounds once, as the
# IR's reduced nodes do).  Skips (77) without torch.
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
/usr/bin/python3 -c 'import torch' 2> /dev/null || { echo "SKIP: /usr/bin/python3 has no torch"; exit 77; }
/usr/bin/python3 "$SRC/tools/torch_capture.py" --suite --certnn "$CERTNN" --keep "$TMP/caps" > "$TMP/suite" 2> "$TMP/err" \
  && ok || { bad "torch_capture.py --suite failed"; cat "$TMP/err"; }
for m in mlp conv maxpool avgpool layernorm softmax attention sigmoid_mlp integer boolean cast_f16 cast_bf16 half_ops \
         bf16_mlp; do
  grep -q "^$m  *structure passed; types passed; execute passed; compare" "$TMP/suite" && ok \
    || bad "$m: $(grep "^$m " "$TMP/suite")"
done
for m in avgpool boolean cast_f16 cast_bf16 half_ops; do
  grep -q "^$m .*compare passed" "$TMP/suite" && ok || bad "$m: $(grep "^$m " "$TMP/suite")"
done
grep -q '"sort": "bf16"' "$TMP/caps/bf16_mlp.json" && ok || bad "bf16_mlp holds no bfloat16 value"
expect 0 'torch .* CPU, module Sequential' "$CERTNN" check "$TMP/caps/avgpool.json"
summary
