#!/usr/bin/env bash
# Install the Debian packages agglo needs, build it, and run the built-in default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
packages="build-essential cmake pkg-config libinih-dev librandom123-dev libcairo2-dev libsuitesparse-dev libcmocka-dev gnuplot-nox"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
if [ "${AGGLO_SKIP_DEFAULT_RUN:-0}" != 1 ]; then
  build/agglo run -o out
  echo "Default scenario done: see out/ (snapshot_t*.png, stats.csv, trajectory.xyz)."
fi
