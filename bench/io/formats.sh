#!/usr/bin/env bash
# Trajectory formats, XYZ against H5MD, for N = 10^4 and 10^6 (docs/performance.md, "Data formats").
# usage: bench/io/formats.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build}/bench/io_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 10000 1000000; do
  frames=$([ $n -gt 100000 ] && echo 4 || echo 20)
  mkdir -p "$tmp/$n"
  "$bin" $n $frames "$tmp/$n"
  rm -rf "${tmp:?}/$n"
done
