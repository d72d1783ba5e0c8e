# docs/config.md must list exactly the keys the program knows.
add_test(NAME docs_config_current
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> list keys > keys.md && awk '/keys:begin/{f=1;next}/keys:end/{f=0}f' ${PROJECT_SOURCE_DIR}/docs/config.md | diff keys.md - "
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# every include crosses only the layers docs/architecture.md allows
add_test(NAME docs_layers COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-layers.sh)
set_tests_properties(docs_layers PROPERTIES PASS_REGULAR_EXPRESSION "every include allowed")
