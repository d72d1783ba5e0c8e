#!/bin/sh
# expect_error.sh AGGLO OUTDIR COMMAND ARGS...
# Runs `AGGLO COMMAND -o OUTDIR ARGS...` and prints its output, then "exit status N", then
# "OUTPUT DIRECTORY CREATED" if OUTDIR exists afterwards (a bad input must not create it).
exe=$1
dir=$2
cmd=$3
shift 3
rm -rf "$dir"
"$exe" "$cmd" -o "$dir" "$@" 2>&1
rc=$?
echo "exit status $rc"
if [ -e "$dir" ]; then echo "OUTPUT DIRECTORY CREATED"; fi
exit 0
