# Every example scenario is valid (`agglo run --check`).
file(GLOB EXAMPLES ${PROJECT_SOURCE_DIR}/examples/*.ini)
foreach(f ${EXAMPLES})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME example_valid_${name} COMMAND $<TARGET_FILE:agglo_cli> run ${f} --check)
  set_tests_properties(example_valid_${name} PROPERTIES PASS_REGULAR_EXPRESSION "valid scenario")
endforeach()
