# Every input the fuzzers found crashing (tests/data/fuzz/) must now give a clean error.
file(GLOB FUZZ_XYZ ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz/*.xyz)
foreach(f ${FUZZ_XYZ})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME fuzz_regression_${name} COMMAND $<TARGET_FILE:agglo_cli> analyze ${f} --overwrite -o fuzz_${name})
  set_tests_properties(fuzz_regression_${name} PROPERTIES PASS_REGULAR_EXPRESSION "^agglo: .*frame")
endforeach()
file(GLOB FUZZ_INI ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz/*.ini)
foreach(f ${FUZZ_INI})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME fuzz_regression_${name} COMMAND $<TARGET_FILE:agglo_cli> run ${f} -o fuzz_${name})
  set_tests_properties(fuzz_regression_${name} PROPERTIES PASS_REGULAR_EXPRESSION "^agglo: ")
endforeach()
# a box of 10^19 (fuzz_state): cell counts are capped before their integer cast (no undefined
# behaviour: the sanitizer build fails the test on any runtime error); since issue 41 the reader
# refuses its particle outside the walled box first
add_test(NAME fuzz_regression_huge_box
  COMMAND $<TARGET_FILE:agglo_cli> analyze ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz/huge-box.trajectory --overwrite -o fuzz_huge_box)
set_tests_properties(fuzz_regression_huge_box PROPERTIES PASS_REGULAR_EXPRESSION "5 particles|huge-box.trajectory:5: frame 1: particle 2 \\(id 4\\): z = 5 is outside the walled box"
  FAIL_REGULAR_EXPRESSION "runtime error|Sanitizer")
# a restart point at Step=2^63-1 (fuzz_state): the next step overflowed; steps beyond 2^53 are refused
add_test(NAME fuzz_regression_state_step_overflow
  COMMAND $<TARGET_FILE:agglo_cli> run --restart ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz/state-step-overflow
          -o fuzz_state_step_overflow --overwrite)
set_tests_properties(fuzz_regression_state_step_overflow PROPERTIES
  PASS_REGULAR_EXPRESSION "Step=9223372036854775807 \\(allowed: 0 to 2\\^53\\)")
