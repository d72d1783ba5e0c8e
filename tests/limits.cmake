# A scenario far beyond the machine's memory is refused up front, with the estimate.
add_test(NAME limits_memory_refused_up_front
  COMMAND sh -c "! $<TARGET_FILE:agglo_cli> run -s particles.n=10000000000 -o limits_out 2>&1 && test ! -e limits_out")
add_test(NAME limits_memory_message
  COMMAND $<TARGET_FILE:agglo_cli> run -s particles.n=10000000000 -o limits_out)
set_tests_properties(limits_memory_message PROPERTIES
  PASS_REGULAR_EXPRESSION "particles.n = 10000000000 needs about 1.2e\\+04 GB of memory; this machine has")
