# A scenario far beyond the machine's memory is refused up front, with the estimate.
add_test(NAME limits_memory_refused_up_front
  COMMAND sh -c "! $<TARGET_FILE:agglo_cli> run -s particles.n=10000000000 -o limits_out 2>&1 && test ! -e limits_out")
add_test(NAME limits_memory_message
  COMMAND $<TARGET_FILE:agglo_cli> run -s particles.n=10000000000 -o limits_out)
set_tests_properties(limits_memory_message PROPERTIES
  PASS_REGULAR_EXPRESSION "particles.n = 10000000000 needs about 1.2e\\+04 GB of memory; this machine has")

# Guarded runs: each failure is caught in the step where it happens, named, and the last good
# state is written. (A solver stopped at its cap is reported first; the overlap check behind it
# catches contacts missed by the selection, which the model itself prevents, so it is provoked
# here through the cap with on_failure = warn.)
# an attraction of infinite impulse (kappa / epsilon = 1e600) ran until a particle became
# non-finite; the step guard now refuses it before the run (issue 41), naming the keys
add_test(NAME guard_non_finite
  COMMAND sh -c "rm -rf guard_nan; $<TARGET_FILE:agglo_cli> run -o guard_nan --quiet -s attraction.kappa=1e300 -s attraction.epsilon=1e-300 -s run.t_end=0.2 2>&1; test $? -eq 2 && test ! -e guard_nan/state.xyz"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME guard_non_finite_message
  COMMAND $<TARGET_FILE:agglo_cli> run -o guard_nan2 --overwrite --quiet -s attraction.kappa=1e300 -s attraction.epsilon=1e-300 -s run.t_end=0.2)
set_tests_properties(guard_non_finite_message PROPERTIES
  PASS_REGULAR_EXPRESSION "would carry it inf by the attraction \\(attraction.kappa / attraction.epsilon\\), more than a diameter.*lower attraction.kappa or run.dt")
add_test(NAME guard_solver_cap_stops
  COMMAND $<TARGET_FILE:agglo_cli> run -o guard_cap --overwrite --quiet -s solver.max_iter=2 -s solver.on_failure=stop -s solver.tol=1e-9 -s solver.method=uzawa -s run.t_end=1)
set_tests_properties(guard_solver_cap_stops PROPERTIES
  PASS_REGULAR_EXPRESSION "step 1: the projection did not converge in 2 iterations")
add_test(NAME guard_overlap_warns
  COMMAND $<TARGET_FILE:agglo_cli> run -o guard_warn --overwrite -s solver.max_iter=1 -s run.t_end=0.1)
set_tests_properties(guard_overlap_warns PROPERTIES
  PASS_REGULAR_EXPRESSION "warning: step 1: overlap of .* more than ten times the solver tolerance")
# issue 41: the step guard counts the masses (noise and attraction go as 1/m): a mass of 1e-30
# is refused before the run (it ran to the end with every step unconverged, exit 0)
add_test(NAME guard_mass_refused
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> run -o guard_mass --overwrite --quiet -s particles.n=50 -s box.size=1 -s run.t_end=0.1 -s particles.mass=1e-30 2>&1; echo status $?")
set_tests_properties(guard_mass_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "particle [0-9]+ of mass 7.3[0-9e+-]+ \\(particles.mass = 1e-30\\): a step of run.dt = 0.02 would carry it [0-9.e+]+ by the noise \\(brownian.sigma\\), more than a diameter.*\nstatus 2\n$")
add_test(NAME guard_mass_attraction_refused
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> run -o guard_mass2 --overwrite --quiet -s particles.mass=1e-300 -s brownian.sigma=0 2>&1; echo status $?")
set_tests_properties(guard_mass_attraction_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "by the attraction \\(attraction.kappa / attraction.epsilon\\).*\nstatus 2\n$")
# with solver.on_failure = warn a run fails once more than 5% of its steps are unconverged (here
# the first of 5), keeping the last good state (step 0)
add_test(NAME guard_unconverged_fraction_fails
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> run -o guard_frac --overwrite --quiet -s solver.max_iter=1 -s run.t_end=0.1 2>&1; echo status $?; grep -o 'Step=[0-9]*' guard_frac/state.xyz"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(guard_unconverged_fraction_fails PROPERTIES
  PASS_REGULAR_EXPRESSION "step 1: the solver stopped at its cap in 1 of the 5 steps of the run \\(allowed: at most 5% of them.*last good state \\(step 0\\) is saved\n.*status 1\nStep=0\n$")
add_test(NAME guard_gravity_step_refused
  COMMAND $<TARGET_FILE:agglo_cli> run -o guard_g --overwrite --quiet -s gravity.g=1e6)
set_tests_properties(guard_gravity_step_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "run.dt = 0.02 is too large for gravity.g")
# A shear carries a particle flow.rate times its height along axis 1: a box long along the flow
# (run_maury.sh's free cloud, 3 x 1) is accepted, the same box standing (1 x 3) is refused.
add_test(NAME guard_flow_step_along_flow_accepted
  COMMAND $<TARGET_FILE:agglo_cli> run ${PROJECT_SOURCE_DIR}/examples/maury_shear.ini -s box.size=3,1 --check)
set_tests_properties(guard_flow_step_along_flow_accepted PROPERTIES PASS_REGULAR_EXPRESSION "valid scenario")
add_test(NAME guard_flow_step_refused
  COMMAND $<TARGET_FILE:agglo_cli> run ${PROJECT_SOURCE_DIR}/examples/maury_shear.ini -s box.size=1,3 --check)
set_tests_properties(guard_flow_step_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "run.dt = 0.02 is too large for the flow: it carries a particle 0.06 per step, more than two diameters \\(0.046\\)")
# A jam (gluey: no velocities meet every contact) stops the run, names solver.compliance and keeps
# the last good state (velocities 0 here, not the failed solve's); a compliance lets it run.
add_test(NAME guard_jam_message
  COMMAND $<TARGET_FILE:agglo_cli> run ${CMAKE_CURRENT_SOURCE_DIR}/data/cli/gluey_jam.ini -o guard_jam --overwrite --quiet)
set_tests_properties(guard_jam_message PROPERTIES
  PASS_REGULAR_EXPRESSION "step 1: the projection failed .* a jam.*solver\\.compliance.*last good state \\(step 0\\) is saved")
add_test(NAME guard_jam_state
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> run ${CMAKE_CURRENT_SOURCE_DIR}/data/cli/gluey_jam.ini -o guard_jam2 --overwrite --quiet 2>/dev/null; test $? -eq 1 && tail -1 guard_jam2/state.xyz | grep -q '^X 0.5 0.5 0 0 0 0 '"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME guard_jam_compliance_runs
  COMMAND $<TARGET_FILE:agglo_cli> run ${CMAKE_CURRENT_SOURCE_DIR}/data/cli/gluey_jam.ini -o guard_jam3 --overwrite --quiet -s solver.compliance=1e-4)

# Bounded reads (docs/reliability.md, "Every reader bounds what it reads"): a device, an enormous
# line, a count no file can hold is refused at once, naming the file, the line and the bound, in
# 300 MB of address space and 2 s (bounded.sh; no memory limit under the sanitizers).
if(AGGLO_SANITIZE)
  set(READ_KB 0)
else()
  set(READ_KB 300000)
endif()
function(read_bound name status regex)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/read_bound_${name})
  file(MAKE_DIRECTORY ${dir})
  add_test(NAME read_bound_${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/data/cli/bounded.sh ${READ_KB} $<TARGET_FILE:agglo_cli> ${ARGN}
    WORKING_DIRECTORY ${dir})
  set_tests_properties(read_bound_${name} PROPERTIES
    PASS_REGULAR_EXPRESSION "^agglo: ${regex}\nexit status ${status}\n$" TIMEOUT 10)
endfunction()
set(DEVICE "/dev/zero: is a character device; agglo reads regular files only")
read_bound(analyze_device 1 "${DEVICE}.*" analyze /dev/zero -o out)
read_bound(from_device 2 "${DEVICE}.*" run -s particles.from=/dev/zero -o out --quiet)
read_bound(scenario_device 2 "${DEVICE}.*" run /dev/zero -o out)
set(LONG "long_line\\.xyz:2: frame 1: line longer than 65535 bytes \\(the limit of a line\\)")
read_bound(analyze_long_line 1 "${LONG}" analyze long_line.xyz -o out)
read_bound(from_long_line 2 "${LONG}" run -s particles.from=long_line.xyz -o out --quiet)
set(HUGE "[^ ]*huge_count\\.xyz:1: frame 1: announces 1000000000000 particles but only 61 bytes follow, room for at most 8 particle lines of 8 bytes.*")
read_bound(analyze_huge_count 1 "${HUGE}" analyze ${CMAKE_CURRENT_SOURCE_DIR}/data/cli/huge_count.xyz -o out)
read_bound(from_huge_count 2 "${HUGE}" run -s particles.from=${CMAKE_CURRENT_SOURCE_DIR}/data/cli/huge_count.xyz -o out --quiet)

# issue 41: the hostile sweep (scripts/hostile_sweep.py) on a short list of keys, each at 0,
# negative, tiny, huge and NaN: every run refused, clean, warned or failed with a message; none
# crashed or outlived its limit (the full list, by hand: its table in docs/reliability.md)
find_program(SWEEP_PYTHON NAMES python3)
if(SWEEP_PYTHON)
  add_test(NAME hostile_sweep_short
    COMMAND ${SWEEP_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/hostile_sweep.py $<TARGET_FILE:agglo_cli> --strict
            --limit 20 --keys box.size,dpd.kT,ballistic.speed,attraction.epsilon,drag.tau,flow.rate,run.dt)
  set_tests_properties(hostile_sweep_short PROPERTIES TIMEOUT 300
    PASS_REGULAR_EXPRESSION "35 runs over 7 keys: " FAIL_REGULAR_EXPRESSION "crashed|slow")
endif()
