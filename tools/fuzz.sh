#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/fuzz.sh: runs certnn's libFuzzer harnesses (tests/fuzz/fuzz_*.c; doc/FUZZING.md).
#
#   tools/fuzz.sh [SECONDS] [NAME...]   fuzz each harness NAME (default: all) for SECONDS (60)
#   tools/fuzz.sh --merge [NAME...]     minimise what fuzzing kept into tests/fuzz/corpus/NAME
#   tools/fuzz.sh --seeds               (re)write the seed inputs only
#
# Harnesses: onnx vnnlib wire artifact certificate.  Builds the library and the certnn command
# with clang (-fsanitize=fuzzer-no-link,address,undefined) in $CN_FUZZ_DIR (default build-fuzz,
# at the top of the source tree; configure only the first time), links each harness with
# -fsanitize=fuzzer, writes the seeds (the test data, artifacts exported from tests/data/onnx/ops,
# their operator records, certificates of tests/data/verify's problems), then runs each harness
# with the committed corpus, the regressions and the seeds.  New inputs go to
# $CN_FUZZ_DIR/corpus/NAME, crashes to $CN_FUZZ_DIR/crashes/NAME (copy each, named after what it
# broke, to tests/fuzz/regressions/NAME once fixed); crashes do not stop a run (libFuzzer's
# fork mode); each run appends a line to
# $CN_FUZZ_DIR/log.tsv: date, harness, seconds it ran, executions, executions per second, coverage
# (libFuzzer's cov and ft), crashes.  Needs clang with libFuzzer (Debian's clang) and python3.
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
W=${CN_FUZZ_DIR:-$TOP/build-fuzz}
ALL="onnx vnnlib wire artifact certificate"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS_FUZZ="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $SAN"

mode=run
seconds=60
case "${1:-}" in
  --merge) mode=merge; shift ;;
  --seeds) mode=seeds; shift ;;
  ''|*[!0-9]*) ;;
  *) seconds=$1; shift ;;
esac
names=${*:-$ALL}
for n in $names; do
  case " $ALL " in *" $n "*) ;; *) echo "fuzz.sh: no harness '$n' (have: $ALL)" >&2; exit 2 ;; esac
done
command -v clang > /dev/null || { echo "fuzz.sh: needs clang (apt-get install clang)" >&2; exit 2; }

build () {
  [ -x configure ] || autoreconf -fi
  mkdir -p "$W"
  if [ ! -f "$W/Makefile" ]; then
    (cd "$W" && "$TOP/configure" --quiet CC=clang CFLAGS="$CFLAGS_FUZZ")
  fi
  (cd "$W" && make --quiet src/io/onnx/onnx.pb-c.h && make --quiet -j"$(nproc)" libcertnn_internal.la certnn)
  libs=""
  for v in JANSSON_LIBS OPENBLAS_LIBS PROTOBUF_C_LIBS LIBS; do
    libs="$libs $(sed -n "s/^$v = //p" "$W/Makefile")"
  done
  omp=$(sed -n 's/^OPENMP_CFLAGS = //p' "$W/Makefile")
  for n in $names; do
    src=tests/fuzz/fuzz_$n.c
    bin=$W/fuzz_$n
    if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ tests/fuzz/fuzz.h -nt "$bin" ] \
       || [ "$W/.libs/libcertnn_internal.a" -nt "$bin" ]; then
      # shellcheck disable=SC2086
      clang $CFLAGS_FUZZ -fsanitize=fuzzer $omp -I include -DCN_FUZZ_DATADIR="\"$TOP/tests/data/verify\"" \
        -o "$bin" "$src" "$W/.libs/libcertnn_internal.a" $libs -lm
    fi
  done
}

# seeds: inputs made from the test data, in $W/seeds/NAME
seeds () {
  S=$W/seeds
  rm -rf "$S"
  mkdir -p "$S/onnx" "$S/vnnlib" "$S/wire" "$S/artifact" "$S/certificate"
  cp tests/data/onnx/ops/*.onnx tests/data/onnx/bad/* tests/data/cli/*.onnx tests/data/ibp/*.onnx \
     tests/data/verify/*.onnx "$S/onnx/" 2> /dev/null || true
  for f in tests/data/vnnlib/* tests/data/ibp/*.vnnlib tests/data/verify/*.vnnlib examples/acasxu/*.vnnlib; do
    cp "$f" "$S/vnnlib/$(echo "$f" | tr / _)"
  done
  # artifacts: each operator network exported, with arguments where it has one floating input
  for m in tests/data/onnx/ops/*.onnx tests/data/verify/*.onnx tests/data/ibp/*.onnx; do
    b=$(basename "$m" .onnx)
    "$W/certnn" export "$m" -o "$S/artifact/$b.json" > /dev/null 2>&1 || continue
    python3 - "$S/artifact/$b.json" "$W/x.txt" << 'PY' || continue
import json, sys, random
a = json.load(open(sys.argv[1]))
ins = a["program"]["inputs"]
if len(ins) != 1 or ins[0]["sort"] not in ("f32", "f64"):
    sys.exit(1)
n = 1
for d in ins[0]["shape"]:
    n *= d
random.seed(n)
open(sys.argv[2], "w").write(" ".join("%.3f" % random.uniform(-1, 1) for _ in range(n)) + "\n")
PY
    "$W/certnn" export "$m" -o "$S/artifact/${b}_args.json" --input "$W/x.txt" > /dev/null 2>&1 || true
  done
  # operator records: every node's record of every artifact, one per file (duplicates dropped)
  python3 - "$S/artifact" "$S/wire" << 'PY'
import json, os, sys, hashlib
for f in sorted(os.listdir(sys.argv[1])):
    a = json.load(open(os.path.join(sys.argv[1], f)))
    for node in a["program"]["nodes"]:
        t = json.dumps(node["op"])
        open(os.path.join(sys.argv[2], hashlib.sha1(t.encode()).hexdigest()), "w").write(t)
PY
  # certificates of the certificate harness's problems (tests/fuzz/fuzz_certificate.c)
  D=tests/data/verify
  "$W/certnn" verify $D/tiny.onnx $D/tiny_unsat.vnnlib --certificate "$S/certificate/tiny" --quiet > /dev/null
  "$W/certnn" verify $D/tiny.onnx $D/tiny_unsat.vnnlib --method crown-ibp --certificate "$S/certificate/tiny_ibp" \
    --quiet > /dev/null
  "$W/certnn" verify $D/tinyconv.onnx $D/tinyconv_unsat.vnnlib --certificate "$S/certificate/conv" --quiet > /dev/null
  "$W/certnn" verify $D/tinyconv.onnx $D/tinyconv_unsat.vnnlib --input-split-max 0 \
    --certificate "$S/certificate/conv_relu" --quiet > /dev/null
  for n in $ALL; do
    echo "fuzz.sh: $(ls "$S/$n" | wc -l) seeds for $n"
  done
}

# the directories a harness reads: what it keeps first, then the corpus, regressions and seeds
dirs () {
  for d in "$W/corpus/$1" tests/fuzz/corpus/$1 tests/fuzz/regressions/$1 "$W/seeds/$1"; do
    mkdir -p "$d"
    printf '%s ' "$d"
  done
}

build
# the seeds are written once (--seeds rewrites them: after the test data changed)
[ -d "$W/seeds" ] && [ "$mode" != seeds ] || seeds
[ "$mode" = seeds ] && exit 0

if [ "$mode" = merge ]; then
  for n in $names; do
    new=$W/merged/$n
    rm -rf "$new"
    mkdir -p "$new"
    # shellcheck disable=SC2046
    "$W/fuzz_$n" -merge=1 -timeout=30 -rss_limit_mb=4096 "$new" $(dirs "$n") > "$W/merge-$n.log" 2>&1
    rm -rf tests/fuzz/corpus/$n
    mv "$new" tests/fuzz/corpus/$n
    echo "fuzz.sh: tests/fuzz/corpus/$n holds $(ls tests/fuzz/corpus/$n | wc -l) inputs ($(du -sk tests/fuzz/corpus/$n | cut -f1) KiB)"
  done
  exit 0
fi

status=0
for n in $names; do
  mkdir -p "$W/crashes/$n"
  log=$W/run-$n.log
  echo "fuzz.sh: $n for ${seconds}s (log $log)"
  # shellcheck disable=SC2046
  start=$(date +%s)
  # fork mode: a crash, leak, timeout or out-of-memory is saved and the run goes on
  # a harness's dictionary (tests/fuzz/NAME.dict: the words of its format), where there is one
  dict=
  [ -f "tests/fuzz/$n.dict" ] && dict=-dict=tests/fuzz/$n.dict
  # shellcheck disable=SC2086
  "$W/fuzz_$n" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -max_total_time="$seconds" \
    -timeout=30 -rss_limit_mb=4096 $dict -artifact_prefix="$W/crashes/$n/" $(dirs "$n") > "$log" 2>&1 || status=1
  last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1)
  execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  rate=$(echo "$last" | sed -n 's/.*exec\/s:\{0,1\} \([0-9]*\).*/\1/p')
  cov=$(echo "$last" | grep -o 'cov: [0-9]* ft: [0-9]*')
  crashes=$(ls "$W/crashes/$n" | wc -l)
  elapsed=$(( $(date +%s) - start ))
  [ -n "$execs" ] && [ "$elapsed" -gt 0 ] && rate=$((execs / elapsed))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$n" "$elapsed" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "$crashes" >> "$W/log.tsv"
  echo "fuzz.sh: $n: ${execs:-?} executions, ${rate:-?}/s, ${cov:-?}, $crashes crash files"
  [ "$crashes" -eq 0 ] || status=1
done
exit $status
