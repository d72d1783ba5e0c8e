/* Reading trajectories frame by frame: extended XYZ (ours or any with positions, and radii or a
   default; columns found by Properties=, in any order) or H5MD (recognised by the HDF5 signature,
   read by h5md_read.c). */
#ifndef AGGLO_XYZ_READ_H
#define AGGLO_XYZ_READ_H
#include "core/system.h"
#include "io/frame_extras.h"
#include <stdio.h>

typedef struct {
  FILE *f;
  char *buf;          /* a line: at most AGGLO_LINE_MAX bytes (files.h) */
  const char *path;
  long line;          /* lines read so far */
  int frame;          /* frames read so far */
  double default_radius; /* used when a frame has no radius column (<= 0: then it is an error) */
  struct agglo_h5md_reader *h5; /* an H5MD file instead */
  /* the columns the last frame had (velocities, masses, ids, clusters; else defaults) */
  int has_velocity, has_radius, has_mass, has_id, has_cluster, has_box, has_time;
  agglo_frame_extras extras; /* of the last frame: units=, the other numeric key=value pairs of
                                the comment line (observables), the type column (species) */
  int partial;   /* the last line read had no newline */
  int truncated; /* the last error: the file ends inside a frame (a run killed while writing) */
} agglo_xyz_reader;

int agglo_xyz_open(agglo_xyz_reader *r, const char *path, double default_radius, char *err,
                   size_t errlen);
/* Read the next frame into s (reallocated as needed). Returns 1 (a frame), 0 (end of file) or
   -1 (error naming the frame and line). */
int agglo_xyz_next(agglo_xyz_reader *r, agglo_system *s, char *err, size_t errlen);
void agglo_xyz_close(agglo_xyz_reader *r);

#endif
