#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages certnn builds and tests with, if any is missing.
# Run as root (or through sudo).  Does nothing when everything is installed.
set -eu
PACKAGES="gcc make autoconf automake libtool pkg-config libgmp-dev libmpfr-dev libmpfi-dev
libglpk-dev libopenblas-dev libjansson-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev check groff-base
python3 python3-numpy"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "certnn: installing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
