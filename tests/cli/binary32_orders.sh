#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/binary32_orders.sh: tools/binary32_orders.py on 6 generated cancelling networks (seed
# from CN_TEST_SEED, else 1): the exact outputs (rational arithmetic) inside certnn's real boxes,
# numpy's float32 orders (sequential, pairwise, BLAS dot), torch's CPU kernels (when
# /usr/bin/python3 has torch) and onnxruntime-node (when CN_ORT_NODE_MODULES names a node_modules
# holding it) inside the binary32 boxes, and some binary32 result outside the real boxes.  The
# bound command's options and messages under --semantics are checked too.  Skips (77) without
# onnx and numpy.
set -u
. "${CN_SRCDIR:-.}/tests/cli/common.sh"
[ -x "$CERTNN" ] || { echo "SKIP: no certnn binary at $CERTNN"; exit 77; }
/usr/bin/python3 -c 'import onnx, numpy' 2> /dev/null || { echo "SKIP: /usr/bin/python3 has no onnx or numpy"; exit 77; }
seed=${CN_TEST_SEED:-1}
echo "seed $seed"
set -- --certnn "$CERTNN" --nets 6 --points 24 --seed "$seed" --keep "$TMP/nets"
[ -n "${CN_ORT_NODE_MODULES:-}" ] && set -- "$@" --ort "$CN_ORT_NODE_MODULES"
if /usr/bin/python3 "$SRC/tools/binary32_orders.py" "$@" > "$TMP/orders" 2>&1; then ok; else bad "binary32_orders.py"; fi
cat "$TMP/orders"
grep -q '^numpy-seq .* inside the binary32 boxes' "$TMP/orders" && ok || bad "numpy's orders did not run"
# the options' errors
expect 2 "semantics: 'binary64' is not one of real, binary32" "$CERTNN" bounds "$TMP/nets/net0.onnx" \
  --vnnlib "$TMP/nets/net0.vnnlib" --semantics binary64
expect 2 "takes no --semantics binary32" "$CERTNN" bounds "$TMP/nets/net0.onnx" --vnnlib "$TMP/nets/net0.vnnlib" \
  --method ibp --reference mpfi --semantics binary32
expect 0 '"semantics": "binary32"' "$CERTNN" bounds "$TMP/nets/net0.onnx" --vnnlib "$TMP/nets/net0.vnnlib" \
  --semantics binary32 --json
expect 0 'binary32 semantics' "$CERTNN" verify "$TMP/nets/net0.onnx" "$TMP/nets/net0.vnnlib" --semantics binary32 \
  --timeout 5
expect 2 'certificates hold for the real semantics only' "$CERTNN" verify "$TMP/nets/net0.onnx" \
  "$TMP/nets/net0.vnnlib" --semantics binary32 --certificate "$TMP/c.txt" --timeout 5
summary
