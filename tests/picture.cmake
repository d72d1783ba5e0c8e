# Pictures from the command line: agglo render, agglo movie (ffprobe: frames and duration; skipped
# without ffmpeg) and agglo plot of a run's stats.csv. Pixel tests are in test_picture.c.
add_test(NAME picture_render_movie_plot
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/data/picture/render_movie_plot.sh $<TARGET_FILE:agglo_cli> picture_out)
set_tests_properties(picture_render_movie_plot PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
# a slab cuts 3D scenes: picture.slab_width on a 2D trajectory is refused (exit 2) before any
# directory is made, not ignored; `-o DIR/` names DIR/frame_..., not DIR//frame_...
add_test(NAME picture_slab_2d_refused COMMAND sh -c
  "rm -rf slab2d slab2d_pics && $<TARGET_FILE:agglo_cli> run -o slab2d --quiet -s particles.n=30 -s run.t_end=0.04 && \
   { $<TARGET_FILE:agglo_cli> render slab2d/ -s picture.slab_width=0.05 -o slab2d_pics; echo status $?; } && \
   test ! -e slab2d_pics && $<TARGET_FILE:agglo_cli> render slab2d/ -o slab2d_pics/")
set_tests_properties(picture_slab_2d_refused PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "picture\\.slab_width = 0\\.05: slab2d/trajectory\\.xyz is 2D and a slab cuts 3D scenes.*status 2\n.*slab2d_pics/frame_00000[0-9]\\.png\n")
