# Data formats read by the real readers (tests/h5md/, docs/formats.md): h5py, MDAnalysis and ASE
# from Debian (scripts/setup.sh installs them), run with Debian's /usr/bin/python3; ParaView's
# XDMF readers through Debian's pvpython under xvfb-run (packages paraview, xvfb).
set(H5MD_PYTHON /usr/bin/python3)
execute_process(COMMAND ${H5MD_PYTHON} -c "import pytest, numpy, h5py, MDAnalysis, ase"
  RESULT_VARIABLE H5MD_READERS_MISSING OUTPUT_QUIET ERROR_QUIET)
set(H5MD_ENV "AGGLO=$<TARGET_FILE:agglo_cli>;HDF5_USE_FILE_LOCKING=FALSE")
if(H5MD_READERS_MISSING)
  message(STATUS "tests/h5md skipped: /usr/bin/python3 lacks pytest, h5py, MDAnalysis or ASE "
                 "(scripts/setup.sh installs python3-h5py python3-mdanalysis python3-ase)")
else()
  add_test(NAME h5md_readers
    COMMAND ${H5MD_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/h5md
            --ignore=${CMAKE_CURRENT_SOURCE_DIR}/h5md/test_paraview.py
            --ignore=${CMAKE_CURRENT_SOURCE_DIR}/h5md/test_reader_property.py
            --basetemp=${CMAKE_CURRENT_BINARY_DIR}/h5md_tmp)
  set_tests_properties(h5md_readers PROPERTIES TIMEOUT 300 ENVIRONMENT "${H5MD_ENV}")
  # issue 41: every reader refuses or gives what run would, on random corruptions of valid XYZ,
  # H5MD, scenario and restart-point files (about 5 s of CPU; 50 s on a loaded 2-core machine)
  add_test(NAME reader_property
    COMMAND ${H5MD_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/h5md/test_reader_property.py
            --basetemp=${CMAKE_CURRENT_BINARY_DIR}/reader_property_tmp)
  set_tests_properties(reader_property PROPERTIES TIMEOUT 300 ENVIRONMENT "${H5MD_ENV}")
  find_program(PVPYTHON pvpython)
  find_program(XVFB_RUN xvfb-run)
  if(PVPYTHON AND XVFB_RUN)
    add_test(NAME h5md_paraview
      COMMAND ${H5MD_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/h5md/test_paraview.py
              --basetemp=${CMAKE_CURRENT_BINARY_DIR}/h5md_paraview_tmp)
    set_tests_properties(h5md_paraview PROPERTIES TIMEOUT 600 ENVIRONMENT "${H5MD_ENV}")
  else()
    message(STATUS "h5md_paraview skipped: no pvpython or xvfb-run (scripts/setup.sh installs paraview xvfb)")
  endif()
endif()

# The closing line of a run lists the files it wrote: an H5MD trajectory and an HDF5 restart point
# here, not trajectory.xyz and state.xyz.
add_test(NAME h5md_closing_line
  COMMAND $<TARGET_FILE:agglo_cli> run -o h5md_closing --overwrite -s particles.n=20 -s run.t_end=0.04
          -s output.format=h5md -s output.checkpoint_format=hdf5 -s output.snapshots=)
set_tests_properties(h5md_closing_line PROPERTIES PASS_REGULAR_EXPRESSION
  "Results in h5md_closing/: trajectory\\.h5md, trajectory\\.xdmf, stats\\.csv, sizes\\.csv, state\\.h5, scenario\\.ini\n")

# convert XYZ -> H5MD -> XYZ keeps every comment line's box and time as written: the Origin of a 2D
# run's slab (z = -r_max, agglo's parameters/box_origin), and numbers as the shortest text that
# reads back to the same double (Time=0.7000000000000001, Time=0.6, not 0.59999999999999998)
add_test(NAME h5md_convert_keeps_header COMMAND sh -c
  "rm -rf h5md_hdr && $<TARGET_FILE:agglo_cli> run -o h5md_hdr --quiet -s particles.n=30 -s run.t_end=1 && \
   $<TARGET_FILE:agglo_cli> convert h5md_hdr/trajectory.xyz h5md_hdr/t.h5md && \
   $<TARGET_FILE:agglo_cli> convert h5md_hdr/t.h5md h5md_hdr/back.xyz && \
   grep -o 'Lattice=.*Time=[^ ]*' h5md_hdr/trajectory.xyz > h5md_hdr/a && grep -o 'Lattice=.*Time=[^ ]*' h5md_hdr/back.xyz > h5md_hdr/b && \
   cmp h5md_hdr/a h5md_hdr/b && sed -n 8p h5md_hdr/b")
set_tests_properties(h5md_convert_keeps_header PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "(^|\n)Lattice=\"2 0 0 0 2 0 0 0 0\\.02292603263189085\" Origin=\"0 0 -0\\.011463016315945426\" .* Time=0\\.7000000000000001\n$")
