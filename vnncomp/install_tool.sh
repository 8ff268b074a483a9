#!/bin/sh
# SPDX-License-Identifier: MIT
# VNN-COMP: install_tool.sh v1
# Installs the Debian/Ubuntu packages certnn needs (tools/install-deps.sh, through sudo when not
# root) and builds <repo>/build/certnn with autoreconf, configure and make (tools/build.sh, which
# tools/setup.sh uses too).  Then checks the binary on a bundled sat instance.  Run once on a fresh machine;
# running it again only rebuilds what changed.
set -eu

if [ "$#" -lt 1 ] || [ "$1" != "v1" ]; then
  echo "install_tool.sh: expected the version string 'v1' as the first argument, got '${1:-}'" >&2
  exit 1
fi

top=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
cd "$top"
echo "certnn: installing packages and building in $top/build"
sh tools/build.sh
cd build
./certnn --version

# A smoke test that exercises the whole path (ONNX and VNN-LIB loading, bounds, the exact
# counterexample check): the bundled 2-input network and its sat property.
data=../tests/data/verify
verdict=$(./certnn verify "$data/tiny.onnx" "$data/tiny_sat.vnnlib" --timeout 60 --quiet | head -n 1)
if [ "$verdict" != "sat" ]; then
  echo "install_tool.sh: the smoke test answered '$verdict', expected 'sat'" >&2
  exit 1
fi
echo "certnn: installed $top/build/certnn (smoke test: $verdict)"
