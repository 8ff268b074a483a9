#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages certnn needs (tools/install-deps.sh) and builds build/certnn with
# autoreconf, configure and make.  Shared by tools/setup.sh and vnncomp/install_tool.sh; running
# it again only rebuilds what changed.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure --quiet
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
make -j"$jobs" --quiet
