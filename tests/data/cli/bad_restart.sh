#!/bin/sh
# bad_restart.sh AGGLO DIR GROUP: each corruption of a restart point (state.xyz, contacts.txt), and
# each -s override of a key the restart point fixes, is refused with exit status 2 and a message
# naming the file, the line or particle, or the key, and the value; nothing runs and nothing
# written before is lost (the directory is unchanged). GROUP: values (state.xyz's numbers), count
# (state.xyz's count and box, its seal), contacts (contacts.txt's records, its seal), keys (-s).
exe=$1
dir=$2
group=$3
rm -rf "$dir" && mkdir -p "$dir"
"$exe" run -s particles.n=50 -s run.t_end=0.1 -s box.boundary=wall -o "$dir/good" --quiet || exit 1
fails=0
# check NAME EXPECTED ARGS...: restart $dir/NAME in place with ARGS; EXPECTED is RUNS (a valid
# state: the run goes on to step 10) or the message of the refusal
check() {
  name=$1 expected=$2
  shift 2
  rm -rf "$dir/$name.before" && cp -r "$dir/$name" "$dir/$name.before"
  msg=$("$exe" run --restart "$dir/$name" -o "$dir/$name" --quiet -s run.t_end=0.2 "$@" 2>&1)
  rc=$?
  if [ "$expected" = RUNS ]; then
    [ $rc -eq 0 ] && grep -q 'Step=10 ' "$dir/$name/state.xyz" && echo "$name: runs" && return
    echo "$name: exit status $rc, message: $msg (expected a run to step 10)"; fails=1; return
  fi
  if [ $rc -ne 2 ] || ! echo "$msg" | grep -q -- "$expected"; then
    echo "$name: exit status $rc, message: $msg (expected: $expected)"; fails=1
  elif ! diff -r "$dir/$name.before" "$dir/$name" > /dev/null; then
    echo "$name: refused, but the directory changed: $(diff -r "$dir/$name.before" "$dir/$name" | head -3)"; fails=1
  else
    echo "$name: refused: $msg"
  fi
}
# try NAME AWK EXPECTED: state.xyz edited by the awk program (particle lines are NR > 2)
try() {
  rm -rf "$dir/$1" && cp -r "$dir/good" "$dir/$1"
  awk "$2" "$dir/good/state.xyz" > "$dir/$1/state.xyz"
  check "$1" "$3"
}
# try_contacts NAME AWK EXPECTED: contacts.txt edited (header, count, records, then the seal)
try_contacts() {
  rm -rf "$dir/$1" && cp -r "$dir/good" "$dir/$1"
  awk "$2" "$dir/good/contacts.txt" > "$dir/$1/contacts.txt"
  check "$1" "$3"
}
# refuse NAME EXPECTED ARGS...: the restart point $dir/$from (good unless set) with -s overrides
refuse() {
  rm -rf "$dir/$1" && cp -r "$dir/${from:-good}" "$dir/$1"
  check "$@"
}
case $group in
values)
try nan 'NR == 5 { $2 = "nan" } { print }' 'state.xyz:5: frame 1: particle 2: column 2 is .nan., not a finite number'
try inf_velocity 'NR == 7 { $6 = "inf" } { print }' 'state.xyz:7: frame 1: particle 4: column 6 is .inf.'
try negative_radius 'NR == 3 { $8 = "-0.01" } { print }' 'state.xyz:3: frame 1: radius -0.01 is not positive'
try zero_mass 'NR == 4 { $9 = "0" } { print }' 'state.xyz:4: frame 1: particle 1 (id [0-9]*): mass 0 (allowed: positive and finite)'
try same_position 'NR == 3 { x = $2; y = $3 } NR == 4 { $2 = x; $3 = y } { print }' 'particles [0-9]* and [0-9]* overlap by'
try outside_wall 'NR == 6 { $2 = "-5" } { print }' 'state.xyz:6: frame 1: particle [0-9]* (id [0-9]*): x = -5 is outside the walled box \[0, 2\] the file gives'
try repeated_id 'NR == 4 { $10 = 0 } NR == 3 { $10 = 0 } { print }' 'particle id 0 is repeated'
try missing_line 'NR != 9 { print }' 'state.xyz:52: frame 1: file ends after 49 of 50 particle lines'
try missing_column 'NR == 2 { sub(/:masses:R:1/, "") } NR > 2 { $9 = ""; } { print }' 'no masses (or mass) column in Properties=: not a restart state'
try reordered_ok 'NR == 2 { sub(/pos:R:3:velocities:R:3/, "velocities:R:3:pos:R:3") } NR > 2 { t = $2 " " $3 " " $4; $2 = $5; $3 = $6; $4 = $7; $5 = t; $6 = ""; $7 = "" } { print }' 'RUNS'
;;
count)
# a count smaller than the particle lines (the rest was ignored)
try count_smaller 'NR == 1 { print 1; next } { print }' 'state.xyz:4: a line after the 1 particle lines that line 1 announces'
# an edited box
try lattice_edited 'NR == 2 { sub(/Lattice="2 /, "Lattice=\"3 ") } { print }' 'state.xyz: the box along x is \[0, 3\], the scenario.s \[0, 2\]'
# a value edited within its range: only the seal tells
try value_edited 'NR == 5 { $5 = "0.001" } { print }' 'state.xyz: its numbers are not those sealed in .*contacts.txt at step 5'
;;
contacts)
# the records of contacts.txt (i j lambda gamma), checked before the seal
try_contacts pair_out_of_range 'NR == 2 { print 1; print "0 600 0 0"; next } /^#/ { print }' 'contacts.txt: line 3: pair 0 600 (allowed: a partner from 1 to 49)'
try_contacts wall_out_of_range 'NR == 2 { print 1; print "3 -9 0 0"; next } /^#/ { print }' 'contacts.txt: line 3: contact 3 -9: wall 8 (allowed: walls 0 to 3, written j = -1 to -4)'
try_contacts nan_multiplier 'NR == 2 { print 1; print "0 1 nan 0"; next } /^#/ { print }' 'contacts.txt: line 3: contact 0 1: multiplier nan, memory 0 (allowed: finite numbers)'
try_contacts out_of_order 'NR == 2 { print 2; print "2 3 0 0"; print "0 1 0 0"; next } /^#/ { print }' 'contacts.txt: line 4: contact 0 1 after 2 3'
try_contacts contacts_edited 'NR == 2 { print 1; print "0 1 0 0"; next } /^#/ { print }' 'contacts.txt: the lines before its seal are not those written'
try_contacts no_seal '!/^# agglo restart point/ { print }' 'contacts.txt: no seal at its end'
# the MPI ranks' bricks after the records (a run on ranks writes them; docs/parallel.md)
B='print "# bricks of the MPI ranks: per axis the count, then the inner cuts"'
try_contacts bricks_header 'NR == 2 { print 0; print "2 0.5"; next } /^#/ { print }' 'contacts.txt: line 3: after the 0 contacts, not the header of the MPI ranks. bricks'
try_contacts bricks_outside "NR == 2 { print 0; $B; print \"2 5\"; print 1; print 1; next } /^#/ { print }" 'contacts.txt: line 4: cut 1 of 1 along x is not a number between the previous cut (or the box.s side) and the box.s other side'
try_contacts bricks_2d_z "NR == 2 { print 0; $B; print 2 \" 1\"; print 1; print 2 \" 1\"; next } /^#/ { print }" 'contacts.txt: line 6: not a count of bricks along z (allowed: 1 to 65536, 1 along an axis beyond run.dim)'
;;
keys)
# overrides of keys the restart point fixes; run.t_end before its time
refuse box_size 'box\.size = 3, but the run it continues has 2 (.*box_size/scenario\.ini): the restart point fixes it' -s box.size=3
refuse particles_n 'particles\.n = 40, but the run it continues has 50' -s particles.n=40
refuse model 'run\.model = gluey, but the run it continues has contact' -s run.model=gluey
refuse time_step 'run\.dt = 0\.01, but the run it continues has 0\.02' -s run.dt=0.01
refuse t_end_before 'run\.t_end = 0\.05 is before the time of the restart point, 0\.1 .*step 5' -s run.t_end=0.05
# a key a restart may change is applied: another seed, other random numbers from step 6 on
refuse seed RUNS -s run.seed=7
rm -rf "$dir/plain" && cp -r "$dir/good" "$dir/plain" && check plain RUNS > /dev/null
if cmp -s "$dir/plain/state.xyz" "$dir/seed/state.xyz"; then echo "seed: run.seed=7 was not applied"; fails=1; fi
# a model's own keys, as its registry entry says (fixed_on_restart): gluey's start and obstacles
"$exe" run -s run.model=gluey -s particles.n=50 -s run.t_end=0.1 -s box.boundary=wall -o "$dir/gluey" --quiet || exit 1
from=gluey
refuse gluey_region 'gluey\.region = 0\.1, 0\.1, 1\.9, 1\.9, but the run it continues has (none)' -s gluey.region=0.1,0.1,1.9,1.9
refuse gluey_obstacles 'obstacles\.planes = 0, 1, 0\.5, but the run it continues has (none)' -s obstacles.planes=0,1,0.5
refuse gluey_skin RUNS -s gluey.skin=0.01
;;
*) echo "unknown group '$group'"; fails=1 ;;
esac
exit $fails
