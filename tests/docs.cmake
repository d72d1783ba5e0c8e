# docs/config.md must list exactly the keys the program knows.
add_test(NAME docs_config_current
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> list keys > keys.md && awk '/keys:begin/{f=1;next}/keys:end/{f=0}f' ${PROJECT_SOURCE_DIR}/docs/config.md | diff keys.md - "
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
