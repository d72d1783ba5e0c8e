# Every example scenario is valid (`agglo run --check`).
file(GLOB EXAMPLES ${PROJECT_SOURCE_DIR}/examples/*.ini)
foreach(f ${EXAMPLES})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME example_valid_${name} COMMAND $<TARGET_FILE:agglo_cli> run ${f} --check)
  set_tests_properties(example_valid_${name} PROPERTIES PASS_REGULAR_EXPRESSION "valid scenario")
endforeach()

# numbers that reproduce: the quickest validation rows (docs/ballistic.md V_f = 0.2, N = 400, 20
# seeds; docs/validation.md Brownian N = 500, 5 seeds) rerun and compared with their tables
# within the stated error bars (bench/validate.sh --quick; the whole list by hand)
add_test(NAME validate_quick
  COMMAND bash ${PROJECT_SOURCE_DIR}/bench/validate.sh $<TARGET_FILE:agglo_cli> ${CMAKE_CURRENT_BINARY_DIR}/validate_quick --quick)
set_tests_properties(validate_quick PROPERTIES TIMEOUT 300
  PASS_REGULAR_EXPRESSION "validate: every rerun number within its table's error bar")
