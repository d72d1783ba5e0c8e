# `agglo ensemble`: the same members whatever the schedule (sequential, --jobs 2, mpirun -np 1, 2,
# 3), --resume after a kill, a crash or a member's files changed, members that die with their
# ensemble, failures reported while the others finish, refusals.
# tests/ensemble/check.sh runs each case; tiny members (120 particles, t_end 0.6): < 10 s in all.
set(ENS_CHECK sh ${CMAKE_CURRENT_SOURCE_DIR}/ensemble/check.sh)
set(ENS_SCENARIO ${PROJECT_SOURCE_DIR}/examples/maury_brownian_500.ini)
set(ENS_DIR ${CMAKE_CURRENT_BINARY_DIR}/ensemble)
file(MAKE_DIRECTORY ${ENS_DIR})
set(ens_cases jobs resume_crashed resume_killed killed_jobs resume_changed failures refusals)
# Open MPI under the sanitizers reports its own allocations: the MPI cases run in the plain build.
if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE AND NOT AGGLO_SANITIZE)
  list(APPEND ens_cases np1 np2 np3 np2_resume)
endif()
add_test(NAME ensemble_reference
  COMMAND ${ENS_CHECK} reference $<TARGET_FILE:agglo_cli> ${ENS_SCENARIO}
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_reference PROPERTIES FIXTURES_SETUP ensemble_ref TIMEOUT 120)
foreach(case ${ens_cases})
  add_test(NAME ensemble_${case}
    COMMAND ${ENS_CHECK} ${case} $<TARGET_FILE:agglo_cli> ${ENS_SCENARIO} ${MPIEXEC_EXECUTABLE}
    WORKING_DIRECTORY ${ENS_DIR})
  set_tests_properties(ensemble_${case} PROPERTIES FIXTURES_REQUIRED ensemble_ref TIMEOUT 120
    FAIL_REGULAR_EXPRESSION "FAIL:")
endforeach()

# agglo compare is an ensemble over ballistic.method with the report of before
add_test(NAME ensemble_compare_report
  COMMAND sh -c "rm -rf cmp && $<TARGET_FILE:agglo_cli> compare ${PROJECT_SOURCE_DIR}/examples/ballistic_paper_400.ini -s particles.n=60 --seeds 3 -o cmp --quiet --csv cmp.csv && test $(wc -l < cmp.csv) -eq 7 && test $(grep -c ',ok,' cmp/members.csv) -eq 6"
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_compare_report PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "ballistic, N = 60, 2D, 3 seeds from 1.*N_c +[0-9.]+ \\([0-9.e-]+\\) +[0-9.]+ \\([0-9.e-]+\\) +[-+][0-9.]+%.*P\\(20r\\)")

# agglo plot: the means with bands against time, and against a varied key
add_test(NAME ensemble_plot
  COMMAND sh -c "rm -rf ens_plot && cp -r ens_ref ens_plot && $<TARGET_FILE:agglo_cli> plot ens_plot -y n_clusters && $<TARGET_FILE:agglo_cli> plot ens_plot --x particles.fraction -y max_cluster_size && test -s ens_plot/plot_n_clusters.png && test -s ens_plot/plot_max_cluster_size_particles.fraction.png"
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_plot PROPERTIES FIXTURES_REQUIRED ensemble_ref TIMEOUT 60)

# an ensemble whose members all failed has no statistics: plot says so (it said "no column")
add_test(NAME ensemble_plot_all_failed
  COMMAND sh -c "rm -rf ens_all_failed; $<TARGET_FILE:agglo_cli> ensemble ${ENS_SCENARIO} --seeds 1 --vary particles.from=no_such_file.xyz -o ens_all_failed --quiet 2>/dev/null; $<TARGET_FILE:agglo_cli> plot ens_all_failed -y n_clusters; echo status $?"
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_plot_all_failed PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "agglo plot: ens_all_failed: no member finished \\(every one failed or did not run\\), so ens_all_failed/ensemble.csv holds no statistics to plot; ens_all_failed/members.csv says why\nstatus 1")

# --vary values compare by value, as -s ones do through base.ini (0.020 then 0.02 was refused by
# --resume while -s 0.20 then 0.2 was taken): numbers are named as the settings write them
set(ENS_TINY "${ENS_SCENARIO} -s box.size= -s particles.n=40 -s run.t_end=0.1 --seeds 1 --quiet")
add_test(NAME ensemble_vary_by_value
  COMMAND sh -c "rm -rf ens_by_value; $<TARGET_FILE:agglo_cli> ensemble ${ENS_TINY} --vary particles.fraction=0.020,1e-1 -o ens_by_value && ls ens_by_value | grep particles && $<TARGET_FILE:agglo_cli> ensemble ${ENS_TINY} --vary particles.fraction=0.02,0.10 -o ens_by_value --resume && echo RESUMED; $<TARGET_FILE:agglo_cli> ensemble ${ENS_TINY} --vary particles.fraction=0.1,0.10 -o ens_by_value2"
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_vary_by_value PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "particles.fraction=0.02\nparticles.fraction=0.1\nRESUMED\n.*--vary particles.fraction: value '0.1' given twice")

add_test(NAME ensemble_help COMMAND $<TARGET_FILE:agglo_cli> ensemble --help)
set_tests_properties(ensemble_help PROPERTIES
  PASS_REGULAR_EXPRESSION "usage: agglo ensemble.*--seeds LIST.*--vary section.key=v1,v2.*--resume.*mpirun -np K")
# compare and ensemble name the directory they write (compare/ by default), at the start and at
# the end; `-o DIR/` is DIR/ in the messages
add_test(NAME ensemble_compare_names_directory
  COMMAND sh -c "rm -rf cmp_dir && $<TARGET_FILE:agglo_cli> compare ${PROJECT_SOURCE_DIR}/examples/ballistic_paper_400.ini -s particles.n=40 --seeds 1 -o cmp_dir/"
  WORKING_DIRECTORY ${ENS_DIR})
set_tests_properties(ensemble_compare_names_directory PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "2 members into cmp_dir/, one at a time.*2 members done; cmp_dir/ensemble\\.csv and cmp_dir/members\\.csv written"
  FAIL_REGULAR_EXPRESSION "cmp_dir//")
