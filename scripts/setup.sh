#!/usr/bin/env bash
# Install the Debian packages agglo needs, build it, install it (the CLI, libagglo, the headers,
# agglo.pc, the CMake package, the Python package, the examples, the man pages and the bash
# completion; prefix AGGLO_PREFIX, default /usr/local),
# and run the built-in default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
packages="build-essential cmake pkg-config libinih-dev librandom123-dev libcairo2-dev libsuitesparse-dev
  libcmocka-dev gnuplot-nox libopenmpi-dev openmpi-bin python3 python3-cffi python3-numpy python3-pytest python3-matplotlib
  libhdf5-dev python3-h5py python3-mdanalysis python3-ase ffmpeg paraview xvfb xauth
  python3-pip python3-setuptools python3-wheel python3-venv python3-build python3-pil
  python3-nbclient python3-nbformat python3-ipykernel mypy man-db"
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
prefix=${AGGLO_PREFIX:-/usr/local}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
cmake --build build -j"$(nproc)"
$sudo cmake --install build > /dev/null
$sudo ldconfig 2>/dev/null || true
echo "Installed under $prefix: agglo, libagglo.so, include/agglo, agglo.pc, the Python package agglo,"
echo "  the examples (share/agglo/examples: agglo run NAME.ini from anywhere), man pages (man agglo),"
echo "  bash completion (share/bash-completion/completions/agglo)."
if [ "${AGGLO_SKIP_DEFAULT_RUN:-0}" != 1 ]; then
  build/agglo run -o out --overwrite   # a second setup replaces the first default run
  echo "Default scenario done: see out/ (snapshot_*.png, stats.csv, trajectory.xyz)."
fi
