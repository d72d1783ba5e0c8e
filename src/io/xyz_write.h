/* Extended XYZ (OVITO, ASE): trajectory frames and the full-precision state used for restarts. */
#ifndef AGGLO_OUTPUT_XYZ_H
#define AGGLO_OUTPUT_XYZ_H
#include "core/system.h"
#include "io/frame_extras.h"
#include <stdio.h>

/* One frame: pos, radius, velo, cluster, id; time, step and box in the comment line. */
int agglo_xyz_write_frame(FILE *f, const agglo_system *s);
/* The same columns at full precision (the shortest text of each double that reads back bit for
   bit), with the type
   column when x has species, and units= and the observables as key=value pairs in the comment
   line (agglo_trajectory_convert). */
int agglo_xyz_write_frame_exact(FILE *f, const agglo_system *s, const agglo_frame_extras *x);
/* The whole state (adds mass, full precision) written atomically: path.tmp then rename. */
int agglo_xyz_write_state(const char *path, const agglo_system *s, char *err, size_t errlen);
/* Read a state written by agglo_xyz_write_state into an allocated system. */
int agglo_xyz_read_state(const char *path, agglo_system *s, char *err, size_t errlen);

#endif
