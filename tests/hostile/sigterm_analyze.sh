#!/bin/sh
# sigterm_analyze.sh AGGLO DIR ARGS...: `agglo analyze ARGS -o DIR` gets SIGTERM 1 s after its
# start; prints its messages, its status, whether it ended within 2 s, and what DIR holds (no
# NAME.part, no agglo.lock: "empty").
exe=$1 dir=$2
shift 2
rm -rf "$dir"
"$exe" analyze "$@" -o "$dir" > log 2>&1 &
pid=$!
sleep 1
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat log
echo "status $rc"
[ $ms -le 2000 ] && echo "ended within 2 s" || echo "ended after $ms ms"
[ -z "$(ls -A "$dir" 2>/dev/null)" ] && echo "empty" || ls -A "$dir"
