# Pictures from the command line: agglo render, agglo movie (ffprobe: frames and duration; skipped
# without ffmpeg) and agglo plot of a run's stats.csv. Pixel tests are in test_picture.c.
add_test(NAME picture_render_movie_plot
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/data/picture/render_movie_plot.sh $<TARGET_FILE:agglo_cli> picture_out)
set_tests_properties(picture_render_movie_plot PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
