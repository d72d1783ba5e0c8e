# docs/config.md must list exactly the keys the program knows.
add_test(NAME docs_config_current
  COMMAND sh -c "$<TARGET_FILE:agglo_cli> list keys > keys.md && awk '/keys:begin/{f=1;next}/keys:end/{f=0}f' ${PROJECT_SOURCE_DIR}/docs/config.md | diff keys.md - "
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# every include crosses only the layers docs/architecture.md allows
add_test(NAME docs_layers COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-layers.sh)
set_tests_properties(docs_layers PROPERTIES PASS_REGULAR_EXPRESSION "every include allowed")

# Every command of the README's Use section and every ```sh, ```python and ```c block of docs/
# (but those marked `skip: WHY`) runs as written, in order, from an empty directory, against the
# agglo installed by install_prefix (tests/run_docs.py; its log in docs_commands/*/commands.log).
if(NOT AGGLO_SANITIZE)
  add_test(NAME docs_commands
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/run_docs.py ${CMAKE_BINARY_DIR}/test_prefix
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/docs_commands)
  set_tests_properties(docs_commands PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 900
    ENVIRONMENT "OMP_NUM_THREADS=2;MANPATH=${CMAKE_BINARY_DIR}/test_prefix/share/man:"
    PASS_REGULAR_EXPRESSION "docs: [0-9]+ commands or blocks run, [0-9]+ blocks skipped, 0 failed")
endif()
# the runner itself: a command that fails stops its file and fails the test, naming file:line;
# a fenced block with anything but `skip: WHY` after the language is refused
add_test(NAME docs_commands_runner COMMAND sh -c
  "rm -rf runner_src && mkdir -p runner_src/docs && \
   printf '# x\\n## Use\\n```sh skip: why\\nfalse\\n```\\n```sh\\ntrue\\nfalse   # fails\\ntouch never\\n```\\n' > runner_src/README.md && \
   /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/run_docs.py /nonexistent runner_src runner_work; echo status $?; \
   test ! -e runner_work/README/never && echo not-run")
set_tests_properties(docs_commands_runner PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "skip +README.md:4 ```sh: why.*FAIL +[0-9.]+ s  README.md:8: false.*docs: 2 commands or blocks run, 1 blocks skipped, 1 failed: README.md:8\nstatus 1\nnot-run")
