#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/layering.sh: the ONNX importer (src/io/onnx) is a reader above the IR: its files
# include only the C library, the public headers that are not engines (certnn/*.h but bounds.h,
# reference.h, verify.h), the IR (graph/graph_impl.h), its own header (io/onnx/onnx_impl.h) and
# the generated protobuf-c bindings (onnx.pb-c.h); they call no engine entry point (cn_reference_*,
# cn_analysis_*, cn_bounds_*, cn_verify*, cn__graph_mpfi, cn__graph_ibp); and each file stays under
# 1000 lines.  Needs only sh, grep and sed.
set -u
. "$(dirname "$0")/common.sh"   # CERTNN, SRC, TMP, ok, bad, expect, summary
D=$SRC/src/io/onnx
[ -d "$D" ] || { echo "FAIL: no importer sources at $D"; exit 1; }

for f in "$D"/*.c "$D"/*.h; do
  name=${f#"$SRC"/}
  grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" \
    | sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' > "$TMP/inc"
  while read -r h; do
    case $h in
      certnn/bounds.h | certnn/reference.h | certnn/verify.h) bad "$name includes the engine header $h" ;;
      certnn/*.h | graph/graph_impl.h | io/onnx/onnx_impl.h | onnx.pb-c.h) ok ;;
      *) bad "$name includes $h (the importer includes public headers, graph/graph_impl.h and its own header)" ;;
    esac
  done < "$TMP/inc"
  if grep -n -E '\b(cn_reference_[a-z_]+|cn_analysis_[a-z_]+|cn_bounds_[a-z_]+|cn_verify[a-z_]*|cn__graph_mpfi|cn__graph_ibp)[[:space:]]*\(' "$f" > "$TMP/calls"; then
    bad "$name calls an engine: $(head -1 "$TMP/calls")"
  else
    ok
  fi
  lines=$(wc -l < "$f")
  if [ "$lines" -ge 1000 ]; then bad "$name has $lines lines (split it by concern)"; else ok; fi
done
summary
