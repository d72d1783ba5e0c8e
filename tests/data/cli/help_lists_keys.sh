#!/bin/sh
# help_lists_keys.sh AGGLO DIR: every key of the key table (`agglo list keys`) and every key of a
# run's resolved scenario.ini is described under its section by `agglo run --help`.
exe=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
"$exe" list keys > keys.md || { echo "list keys failed"; exit 1; }
"$exe" run --help > help.txt || { echo "run --help failed"; exit 1; }
"$exe" run -q -o run -s particles.n=20 -s run.t_end=0.02 -s output.snapshots= > /dev/null 2>&1 ||
  { echo "tiny run failed"; exit 1; }
sed -n 's/^| `\([A-Za-z_0-9]*\.[A-Za-z_0-9]*\)`.*/\1/p' keys.md | sort > table_keys.txt
awk '/^\[/ { gsub(/[][]/, ""); s = $0; next } /=/ { sub(/ *=.*/, ""); print s "." $0 }' run/scenario.ini |
  sort > scenario_keys.txt
diff table_keys.txt scenario_keys.txt || { echo "scenario.ini and the key table differ"; exit 1; }
n=0
for k in $(cat table_keys.txt); do
  sec=${k%%.*}
  key=${k#*.}
  awk -v s="[$sec]" -v k="$key" '$1 == s { f = 1; next } /^  \[/ { f = 0 }
       f && $1 == k && $2 == "=" { found = 1 } END { exit !found }' help.txt ||
    { echo "run --help does not describe $k"; exit 1; }
  n=$((n + 1))
done
# every description carries its allowed values
a=$(grep -c '(allowed: ' help.txt)
[ "$a" -eq "$n" ] || { echo "$a 'allowed' lines for $n keys"; exit 1; }
[ "$n" -ge 30 ] || { echo "only $n keys"; exit 1; }
echo "run --help describes all $n keys"
