# `mpirun -np K agglo run` (domain decomposition, docs/parallel.md): tests/parallel/check.py runs
# each case on 1, 2, 4 (and 8) ranks; about 15 s in all. Open MPI under the sanitizers reports
# its own allocations: these run in the plain build.
if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE AND NOT AGGLO_SANITIZE)
  set(PAR_DIR ${CMAKE_CURRENT_BINARY_DIR}/parallel)
  file(MAKE_DIRECTORY ${PAR_DIR})
  foreach(case np1 fluid attractive bridges bridge_counts crossing restart kill refusals shear shear_bridges
               shear_restart shear_grid contact_np1 contact_span
               contact_restart contact_kill contact_balance)
    add_test(NAME parallel_${case}
      COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/parallel/check.py ${case}
              $<TARGET_FILE:agglo_cli> ${MPIEXEC_EXECUTABLE}
      WORKING_DIRECTORY ${PAR_DIR})
    # timeouts catch hangs: two suites at once on 2 cores took up to 300 s for contact_span
    set_tests_properties(parallel_${case} PROPERTIES TIMEOUT 900 FAIL_REGULAR_EXPRESSION "FAIL:")
  endforeach()
endif()
