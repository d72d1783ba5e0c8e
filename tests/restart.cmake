# Every shipped example restarts exactly (tests/restart/check.py; the table in docs/reliability.md,
# "Every example restarts exactly"): each examples/*.ini, briefly (the times and the overrides of
# particles.n in check.py say which and why), stopped at three times by restart_stop_at (as SIGTERM
# stops a run: a restart point at that step) and continued by `agglo run --resume`, text and HDF5
# restart points: every file equals the uninterrupted run's byte for byte. The contact and DPD
# examples also on 2 MPI ranks (not under the sanitizers: parallel.cmake says why), with text
# restart points, and with HDF5 ones brownian_3d (contact) and dpd_capillary (dpd): about 1.5 min
# of CPU serial and 2 min on ranks.
add_executable(restart_stop_at ${CMAKE_CURRENT_SOURCE_DIR}/restart/stop_at.c)
if(MPI_C_FOUND)
  target_compile_definitions(restart_stop_at PRIVATE AGGLO_HAVE_MPI)
  target_link_libraries(restart_stop_at PRIVATE agglo_mpi MPI::MPI_C)
else()
  target_link_libraries(restart_stop_at PRIVATE agglo)
endif()
set(RESTART_DIR ${CMAKE_CURRENT_BINARY_DIR}/restart)
file(MAKE_DIRECTORY ${RESTART_DIR})
file(GLOB EXAMPLES ${PROJECT_SOURCE_DIR}/examples/*.ini)
foreach(f ${EXAMPLES})
  get_filename_component(name ${f} NAME_WE)
  file(STRINGS ${f} model REGEX "^model *=")
  set(ranks 1)
  if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE AND NOT AGGLO_SANITIZE AND model MATCHES "(contact|dpd)$")
    list(APPEND ranks 2)
  endif()
  foreach(np ${ranks})
    set(formats text hdf5)
    if(np EQUAL 2 AND NOT name MATCHES "^(brownian_3d|dpd_capillary)$")
      set(formats text)
    endif()
    foreach(fmt ${formats})
      set(test restart_exact_${name}_${fmt})
      set(mpi)
      if(np EQUAL 2)
        set(test ${test}_np2)
        set(mpi ${MPIEXEC_EXECUTABLE})
      endif()
      add_test(NAME ${test}
        COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/restart/check.py ${name} ${fmt}
                $<TARGET_FILE:agglo_cli> $<TARGET_FILE:restart_stop_at> ${mpi}
        WORKING_DIRECTORY ${RESTART_DIR})
      set_tests_properties(${test} PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL:")
    endforeach()
  endforeach()
endforeach()
