#!/bin/sh
# Build LAMMPS with pair_style dpd (DPD-BASIC) and OpenMP from Debian's source package, as in
# /work/shared/ANCHORS.md. Nothing of LAMMPS is committed: sources and binary live in $LAMMPS_DIR.
#   bench/dpd/build_lammps.sh            -> $LAMMPS_DIR/build/lmp  (default LAMMPS_DIR=/work/lammps)
# Needs deb-src enabled (Types: deb deb-src in /etc/apt/sources.list.d/debian.sources) and
# `apt-get update`. About 10 minutes on 2 cores; runs under nice.
set -eu
LAMMPS_DIR=${LAMMPS_DIR:-/work/lammps}
mkdir -p "$LAMMPS_DIR"
cd "$LAMMPS_DIR"
src=$(ls -d lammps-*/ 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
  apt-get source lammps
  src=$(ls -d lammps-*/ | head -1)
fi
cmake -S "$src/cmake" -B build -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O3 -march=native -DNDEBUG" \
  -DBUILD_MPI=off -DBUILD_OMP=on -DPKG_DPD-BASIC=on -DPKG_OPENMP=on \
  -DBUILD_SHARED_LIBS=off -DLAMMPS_EXCEPTIONS=off -DWITH_JPEG=off -DWITH_PNG=off \
  -DWITH_FFMPEG=off -DWITH_GZIP=off -DFFT=KISS
nice -n 19 cmake --build build -j2
ls -l build/lmp
