#!/bin/sh
# bounded.sh KB AGGLO ARGS...: runs `AGGLO ARGS...` with at most KB kilobytes of address space
# (0: no limit, for the sanitizer build, whose shadow memory needs more) and 2 seconds, then prints
# its output and "exit status N" (124: it did not end). Every reader bounds what it reads
# (docs/reliability.md): a device, an enormous line or a forged count fails at once.
# Makes the inputs it names in the current directory: long_line.xyz (a line of 10^6 bytes).
kb=$1
shift
awk 'BEGIN { printf "1\n"; for (i = 0; i < 10000; i++) printf "%0100d", 0; printf "\nP 0 0 0\n" }' > long_line.xyz
[ "$kb" -gt 0 ] && ulimit -v "$kb"
timeout 2 "$@" 2>&1
echo "exit status $?"
