/* The built-in writers, one line each, in the order they write at a step (io/writer.h): the
   trajectory first, then the stats row and the files that follow it, then the pictures. A new
   writer is its own file (src/io/write_<name>.c, defining `const agglo_writer_class
   agglo_writer_<name>`) and one line here. */
AGGLO_WRITER(agglo_writer_trajectory_xyz)
AGGLO_WRITER(agglo_writer_trajectory_h5md)
AGGLO_WRITER(agglo_writer_stats)
AGGLO_WRITER(agglo_writer_sizes)
AGGLO_WRITER(agglo_writer_h5md_observables)
AGGLO_WRITER(agglo_writer_snapshots)
