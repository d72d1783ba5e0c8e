/* H5MD 1.1 trajectories (HDF5) and the XDMF description beside them (ParaView); the layout is in
   docs/formats.md. Positions and velocities are single precision (the precision of the XYZ
   frames); radius, mass and id are written once (they do not change during a run); cluster labels
   every frame. Chunked (a frame a chunk), integers shuffled and deflated, floats deflated at
   output.compression (default 0: deflate gains ~10% on them at 15 times the time); flushed after every frame, so that a killed run
   leaves every complete frame readable. */
#ifndef AGGLO_OUTPUT_H5MD_H
#define AGGLO_OUTPUT_H5MD_H
#include "core/system.h"
#include <stdint.h>

typedef struct agglo_h5md agglo_h5md;

/* Create path (replacing it), or with append = 1 continue the file a restarted run wrote (its
   particle count must match; created when absent). observables: the names of the stats columns,
   comma separated (NULL: none), written under observables/ by agglo_h5md_observables. deflate:
   the zlib level of positions and velocities (0: raw; cluster labels and the fixed data are
   always shuffled and deflated at level 1). The XDMF
   file is path with its extension replaced by .xdmf. NULL with a message in err on failure. */
agglo_h5md *agglo_h5md_open(const char *path, const agglo_system *s, int append, int deflate,
                            const char *observables, char *err, size_t errlen);
/* One frame: time, step, position, velocity, cluster (and the XDMF file rewritten). */
int agglo_h5md_frame(agglo_h5md *h, const agglo_system *s, char *err, size_t errlen);
/* One row of observables: the values as the CSV row of stats.csv (empty = NaN), at (step, t). */
int agglo_h5md_observables(agglo_h5md *h, int64_t step, double t, const char *csv_row, char *err,
                           size_t errlen);
int agglo_h5md_close(agglo_h5md *h);

#endif
