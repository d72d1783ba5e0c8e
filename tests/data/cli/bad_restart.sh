#!/bin/sh
# bad_restart.sh AGGLO DIR: each corruption of a restart point is refused with exit status 2 and a
# message naming the file, the line or particle and the value, and nothing runs (no step added).
exe=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$exe" run -s particles.n=50 -s run.t_end=0.1 -s box.boundary=wall -o "$dir/good" --quiet || exit 1
fails=0
try() { # name, awk program over state.xyz's particle lines (NR > 2), expected message
  rm -rf "$dir/$1" && cp -r "$dir/good" "$dir/$1"
  awk "$2" "$dir/good/state.xyz" > "$dir/$1/state.xyz"
  msg=$("$exe" run --restart "$dir/$1" -s run.t_end=0.2 -o "$dir/$1" --quiet 2>&1)
  rc=$?
  if [ "$3" = RUNS ]; then # a valid state (e.g. columns in another order, as ASE writes them)
    [ $rc -eq 0 ] && grep -q 'Step=10 ' "$dir/$1/state.xyz" && echo "$1: runs" && return
    echo "$1: exit status $rc, message: $msg (expected a run to step 10)"; fails=1; return
  fi
  if [ $rc -ne 2 ] || ! echo "$msg" | grep -q -- "$3"; then
    echo "$1: exit status $rc, message: $msg (expected: $3)"; fails=1
  elif ! grep -q 'Step=5 ' "$dir/$1/state.xyz"; then
    echo "$1: the run went on"; fails=1
  else
    echo "$1: refused: $msg"
  fi
}
try nan 'NR == 5 { $2 = "nan" } { print }' 'state.xyz:5: frame 1: particle 2: column 2 is .nan., not a finite number'
try inf_velocity 'NR == 7 { $6 = "inf" } { print }' 'state.xyz:7: frame 1: particle 4: column 6 is .inf.'
try negative_radius 'NR == 3 { $8 = "-0.01" } { print }' 'state.xyz:3: frame 1: radius -0.01 is not positive'
try zero_mass 'NR == 4 { $9 = "0" } { print }' 'state.xyz: frame 1: particle 1 (id [0-9]*): mass 0 (allowed: positive and finite)'
try same_position 'NR == 3 { x = $2; y = $3 } NR == 4 { $2 = x; $3 = y } { print }' 'particles [0-9]* and [0-9]* overlap by'
try outside_wall 'NR == 6 { $2 = "-5" } { print }' 'state.xyz:6: particle [0-9]* (radius [0-9.e-]*) at x = -5 crosses the wall'
try repeated_id 'NR == 4 { $10 = 0 } NR == 3 { $10 = 0 } { print }' 'particle id 0 is repeated'
try missing_line 'NR != 9 { print }' 'state.xyz:52: frame 1: file ends after 49 of 50 particle lines'
try missing_column 'NR == 2 { sub(/:masses:R:1/, "") } NR > 2 { $9 = ""; } { print }' 'no masses (or mass) column in Properties=: not a restart state'
try reordered_ok 'NR == 2 { sub(/pos:R:3:velocities:R:3/, "velocities:R:3:pos:R:3") } NR > 2 { t = $2 " " $3 " " $4; $2 = $5; $3 = $6; $4 = $7; $5 = t; $6 = ""; $7 = "" } { print }' 'RUNS'
exit $fails
