#!/bin/sh
# SPDX-License-Identifier: MIT
# One command from a fresh Debian 12 clone: install the packages, build certnn in build/
# (tools/build.sh), and verify the bundled example (an ACAS Xu network and property), printing
# the verdict.
set -eu
cd "$(dirname "$0")/.."
sh tools/build.sh
echo "certnn: built build/certnn; verifying the bundled example:"
build/certnn verify examples/acasxu/ACASXU_run2a_1_1_batch_2000.onnx examples/acasxu/prop_3.vnnlib --timeout 60
