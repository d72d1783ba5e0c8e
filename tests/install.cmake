# `cmake --install` into a scratch prefix, then examples/c/brownian.c built against it twice: with
# pkg-config (agglo.pc) and with find_package(agglo); both programs run from the installed
# libagglo.so.0 and must print the cluster counts.
set(PREFIX ${CMAKE_BINARY_DIR}/test_prefix)
add_test(NAME install_prefix
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${PREFIX})
set_tests_properties(install_prefix PROPERTIES FIXTURES_SETUP installed TIMEOUT 60)
add_test(NAME install_pkg_config COMMAND sh -c
  "export PKG_CONFIG_PATH=${PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig && \
   cc ${PROJECT_SOURCE_DIR}/examples/c/brownian.c -o brownian_pc $(pkg-config --cflags --libs agglo) && \
   LD_LIBRARY_PATH=${PREFIX}/${CMAKE_INSTALL_LIBDIR} ./brownian_pc && \
   readelf -d ./brownian_pc | grep -q 'libagglo.so.0'")
set_tests_properties(install_pkg_config PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 120
  PASS_REGULAR_EXPRESSION "t =  2.00  clusters [0-9]+")
# where only libagglo and its headers are installed: pkg-config sees agglo.pc alone (none of the
# -dev packages' .pc files) and must still give the flags; --static adds the private libraries
add_test(NAME install_pkg_config_alone COMMAND sh -c
  "export PKG_CONFIG_LIBDIR=${PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig PKG_CONFIG_PATH= && \
   ! pkg-config --exists inih && \
   pkg-config --libs agglo | grep -q -- '^-L[^ ]*/lib -lagglo *$' && \
   pkg-config --cflags agglo | grep -q -- '^-I[^ ]*/include *$' && \
   pkg-config --static --libs agglo | grep -q -- '-lagglo .*-linih.*-lcairo.*-lhdf5.*-lcholmod' && \
   cc ${PROJECT_SOURCE_DIR}/examples/c/brownian.c -o brownian_alone $(pkg-config --cflags --libs agglo) && \
   LD_LIBRARY_PATH=${PREFIX}/${CMAKE_INSTALL_LIBDIR} ./brownian_alone")
set_tests_properties(install_pkg_config_alone PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 120
  PASS_REGULAR_EXPRESSION "t =  2.00  clusters [0-9]+")
add_test(NAME install_find_package COMMAND sh -c
  "rm -rf find_package_build && \
   ${CMAKE_COMMAND} -S ${PROJECT_SOURCE_DIR}/examples/c -B find_package_build -DCMAKE_PREFIX_PATH=${PREFIX} >/dev/null && \
   ${CMAKE_COMMAND} --build find_package_build >/dev/null && \
   LD_LIBRARY_PATH=${PREFIX}/${CMAKE_INSTALL_LIBDIR} find_package_build/brownian")
set_tests_properties(install_find_package PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 120
  PASS_REGULAR_EXPRESSION "t =  2.00  clusters [0-9]+")
# the installed Python package finds the installed library, headers and example scenarios from
# where it is
add_test(NAME install_python COMMAND sh -c
  "PYTHONPATH=$(echo ${PREFIX}/lib/python3*/dist-packages) /usr/bin/python3 -c \
   'import agglo; s = agglo.Simulation.default(overrides={\"particles.n\": 100}); s.step(10); print(agglo.__version__, s.n, s.step_count, agglo._ffi.library_path(), agglo.examples.path(\"maury_brownian_500\"))'")
set_tests_properties(install_python PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 60
  PASS_REGULAR_EXPRESSION "0.1.0 100 10 [^ ]*test_prefix/lib/libagglo.so.0 [^ ]*test_prefix/share/agglo/examples/maury_brownian_500.ini")
# the installed program finds the installed examples by name from any directory (here an empty
# one), says which file it took, and `agglo list` names their directory; `-o x/` gives x/ in the
# messages, not x//
add_test(NAME install_examples_by_name COMMAND sh -c
  "rm -rf by_name && mkdir by_name && cd by_name && \
   ${PREFIX}/bin/agglo run maury_shear.ini -s run.t_end=0.04 -o x/ && \
   ${PREFIX}/bin/agglo run maury_shear --check && ${PREFIX}/bin/agglo list && ls x/stats.csv")
set_tests_properties(install_examples_by_name PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 60
  PASS_REGULAR_EXPRESSION "taking the shipped example [^ ]*test_prefix/share/agglo/examples/maury_shear\\.ini\n.*output in x/\n.*Results in x/: trajectory\\.xyz.*example scenarios in [^ ]*test_prefix/share/agglo/examples\n.*maury_shear_periodic_x\\.ini .*x/stats\\.csv"
  FAIL_REGULAR_EXPRESSION "x//")
# `man agglo`, `man agglo-COMMAND` (made from the --help texts) and the bash completion of
# commands, options, scenario keys and shipped examples, as installed
add_test(NAME install_man_completion
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/install/man_completion.sh ${PREFIX})
set_tests_properties(install_man_completion PROPERTIES FIXTURES_REQUIRED installed TIMEOUT 60
  PASS_REGULAR_EXPRESSION "man pages and completion: ok")
