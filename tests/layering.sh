#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers of src/ (doc/ARCHITECTURE.md), checked from the #include lines of every source file.
#
#   core      src/core        tensors, status, boxes, MPFI vectors, the environment
#   sound     src/sound       the sound arithmetic and the relaxation kit the arms build with
#   table     src/ops         the operator table: one rule per operator
#   ir        src/graph       the graph, its evaluations (floating, interval, exact), the tape
#   engines   src/analysis src/crown src/lp src/bab src/certs src/gpu src/proof (the certificate
#             checker, which includes nothing of src/sound, src/crown, src/analysis, src/lp, src/bab)
#   io        src/io          readers and writers: ONNX, VNN-LIB, the wire codec's JSON
#   bind      src/bind        the flat interface for bindings (certnn/flat.h), above engines and io
#   cli       src/cli         the certnn command
#
# A file may include the internal headers of its own layer and of the layers below it, and the
# public headers (include/certnn/) of those layers; io never reaches into the engines.  Then the
# include graph between directories must have no cycle.  Prints every offending include and
# exits 1; 0 when everything is in place.  Usage: tests/layering.sh [SRCDIR] (default
# $CN_SRCDIR or the current directory).
set -u
top=${1:-${CN_SRCDIR:-.}}
cd "$top" || exit 2
[ -d src ] && [ -d include/certnn ] || { echo "layering: no src/ and include/certnn/ under $top" >&2; exit 2; }

# The layer of a directory of src/ (its first component), and the rank of a layer.
layer_of () {
  case $1 in
    core) echo core ;;
    sound) echo sound ;;
    ops) echo table ;;
    graph) echo ir ;;
    analysis|crown|lp|bab|certs|gpu|proof) echo engines ;;
    io) echo io ;;
    bind) echo bind ;;
    cli) echo cli ;;
    *) echo unknown ;;
  esac
}
rank_of () {
  case $1 in
    core) echo 0 ;; sound) echo 1 ;; table) echo 2 ;; ir) echo 3 ;; engines) echo 4 ;; io) echo 4 ;; bind) echo 5 ;; cli) echo 6 ;;
    *) echo 99 ;;
  esac
}
# The layer a public header belongs to (what implements it).
public_layer () {
  case $1 in
    status.h|tensor.h|box.h|mpfi_vec.h|env.h) echo core ;;
    ops.h|ops.def) echo table ;;
    graph.h|tape.h) echo ir ;;
    bounds.h|reference.h|verify.h|certs.h|proof.h) echo engines ;;
    spec.h) echo spec ;;
    wire.h|artifact.h) echo io ;;
    flat.h) echo bind ;;
    certnn.h) echo umbrella ;;
    *) echo unknown ;;
  esac
}

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
complain () {
  echo "layering: $1" >&2
  bad=1
}

for f in $(find src -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' | sort); do
  dir=$(echo "$f" | cut -d/ -f2)
  me=$(layer_of "$dir")
  [ "$me" = unknown ] && { complain "$f: src/$dir/ is in no layer (add it to tests/layering.sh and doc/ARCHITECTURE.md)"; continue; }
  myrank=$(rank_of "$me")
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
    n=${line%%:*}
    inc=$(echo "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
    case $inc in
      certnn/*)
        h=${inc#certnn/}
        pl=$(public_layer "$h")
        case $pl in
          unknown) echo "BAD $f:$n includes $inc, a header tests/layering.sh does not know" ;;
          umbrella) [ "$me" = cli ] || echo "BAD $f:$n includes the umbrella header $inc (only the command may: include what you use)" ;;
          spec) [ "$me" = engines ] || [ "$me" = io ] || [ "$me" = bind ] || [ "$me" = cli ] \
                  || echo "BAD $f:$n ($me) includes $inc, the properties the engines decide and the readers read" ;;
          *)
            if [ "$me" = io ] && [ "$pl" = engines ]; then
              echo "BAD $f:$n (io) includes $inc: a reader or writer never calls an engine"
            elif [ "$me" = engines ] && [ "$pl" = io ]; then
              echo "BAD $f:$n (engines) includes $inc: the engines never call a reader or writer"
            elif [ "$(rank_of "$pl")" -gt "$myrank" ]; then
              echo "BAD $f:$n ($me) includes $inc, a header of the layer above ($pl)"
            fi ;;
        esac ;;
      */*)
        d=${inc%%/*}
        [ -d "src/$d" ] || continue     # a header of the build (config.h) or generated file
        other=$(layer_of "$d")
        echo "EDGE $dir $d"
        if [ "$dir" = proof ] && { [ "$d" = sound ] || [ "$d" = crown ] || [ "$d" = analysis ] || [ "$d" = lp ] || [ "$d" = bab ]; }; then
          echo "BAD $f:$n (the certificate checker) includes $inc: it shares no code with the fast engines"
        elif [ "$me" = io ] && [ "$other" = engines ]; then
          echo "BAD $f:$n (io) includes $inc: a reader or writer never calls an engine"
        elif [ "$me" = engines ] && [ "$other" = io ]; then
          echo "BAD $f:$n (engines) includes $inc: the engines never call a reader or writer"
        elif [ "$me" = cli ] && [ "$d" != cli ]; then
          echo "BAD $f:$n (cli) includes the internal header $inc: the command uses the public API only"
        elif [ "$(rank_of "$other")" -gt "$myrank" ]; then
          echo "BAD $f:$n ($me) includes $inc, an internal header of the layer above ($other)"
        fi ;;
      *) ;;                              # a header of the same directory, or a generated one
    esac
  done
done > "$edges.out"
if grep -q '^BAD ' "$edges.out"; then
  grep '^BAD ' "$edges.out" | sed 's/^BAD /layering: /' >&2
  bad=1
fi
grep '^EDGE ' "$edges.out" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$edges"
rm -f "$edges.out"

# No cycle between directories: repeatedly remove the directories that no remaining one
# includes, or that include no remaining one; what is left lies on a cycle.
remaining=$(awk '{ print $1; print $2 }' "$edges" | sort -u)
while [ -n "$remaining" ]; do
  progress=0
  for d in $remaining; do
    if ! awk -v d="$d" '$2 == d' "$edges" | grep -q . || ! awk -v d="$d" '$1 == d' "$edges" | grep -q .; then
      awk -v d="$d" '$1 != d && $2 != d' "$edges" > "$edges.tmp" && mv "$edges.tmp" "$edges"
      remaining=$(echo "$remaining" | grep -v -x "$d")
      progress=1
    fi
  done
  if [ $progress -eq 0 ]; then
    complain "the include graph between directories has a cycle among: $(echo $remaining)"
    awk '{ printf "layering:   src/%s -> src/%s\n", $1, $2 }' "$edges" >&2
    break
  fi
done

[ $bad -eq 0 ] && echo "layering: every include of src/ respects the layers, and the directories form no cycle"
exit $bad
