/* Reading extended XYZ trajectories (ours or any with positions, and radii or a default). */
#ifndef AGGLO_XYZ_READ_H
#define AGGLO_XYZ_READ_H
#include "system.h"
#include <stdio.h>

typedef struct {
  FILE *f;
  const char *path;
  long line;          /* lines read so far */
  int frame;          /* frames read so far */
  double default_radius; /* used when a frame has no radius column (<= 0: then it is an error) */
  int read_ids;       /* 1: s->id from the id column when there is one (agglo analyze --msd);
                         0 (agglo_xyz_open's default): the line order, as cluster labels expect */
} agglo_xyz_reader;

int agglo_xyz_open(agglo_xyz_reader *r, const char *path, double default_radius, char *err,
                   size_t errlen);
/* Read the next frame into s (reallocated as needed). Returns 1 (a frame), 0 (end of file) or
   -1 (error naming the frame and line). */
int agglo_xyz_next(agglo_xyz_reader *r, agglo_system *s, char *err, size_t errlen);
void agglo_xyz_close(agglo_xyz_reader *r);

#endif
