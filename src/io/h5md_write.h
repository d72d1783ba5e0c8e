/* H5MD 1.1 trajectories (HDF5) and the XDMF description beside them (ParaView); the layout is in
   docs/formats.md. Positions and velocities in single precision (the precision of the XYZ
   frames) or double (output.precision); radius, mass, id and species are written once (they do
   not change during a run; a frame where they did is refused); cluster labels every frame.
   Observables (the stats.csv columns and dt) have one row per frame, at the frame's step and time.
   Chunked (a frame a chunk), integers shuffled and deflated, floats deflated at
   output.compression (default 0: deflate gains ~10% on them at 15 times the time); flushed after
   every frame, so that a killed run leaves every complete frame readable. */
#ifndef AGGLO_OUTPUT_H5MD_H
#define AGGLO_OUTPUT_H5MD_H
#include "core/system.h"
#include "io/units.h"
#include <stdint.h>

typedef struct agglo_h5md agglo_h5md;

typedef struct {
  int deflate;            /* zlib level of positions and velocities (0: raw; cluster labels and the
                             fixed data are always shuffled and deflated at level 1) */
  int precision64;        /* positions and velocities as float64 (else float32) */
  agglo_units units;      /* of the values: the unit attributes (none when unknown) */
  int gamma_weighted;     /* gluey.radius_weighting = on (the unit of gluey's gamma columns) */
  const int32_t *species; /* n species, storage order (NULL: the run has no species) */
  const char *observables; /* the observables' names, comma separated (time and step skipped;
                              NULL: none but dt) */
  int known_observables;  /* 1: every observable must have a unit in src/io/units.c (a run);
                             0: those it lacks get none (a converted file) */
} agglo_h5md_options;

/* Create path (replacing it), or with append = 1 continue the file a restarted run wrote (its
   particle count and observables must match; created when absent). The XDMF file is path with
   its extension replaced by .xdmf. NULL with a message in err on failure. */
agglo_h5md *agglo_h5md_open(const char *path, const agglo_system *s, int append,
                            const agglo_h5md_options *o, char *err, size_t errlen);
/* One frame: time, step, position, velocity, cluster, its observables row (dt; the others NaN
   until agglo_h5md_observables gives the row of the frame's step), the XDMF file rewritten. */
int agglo_h5md_frame(agglo_h5md *h, const agglo_system *s, char *err, size_t errlen);
/* The observables at step, values in the order of the names (NaN: none): kept for a frame at
   that step, or written into the last frame's row when it is at that step. */
int agglo_h5md_observables(agglo_h5md *h, int64_t step, const double *values, char *err, size_t errlen);
/* The same from a row of stats.csv (time, step, then the columns; empty = NaN). */
int agglo_h5md_observables_csv(agglo_h5md *h, const char *csv_row, char *err, size_t errlen);
int agglo_h5md_close(agglo_h5md *h);
/* The frames the file holds (a continued one: those up to the restart's step) and the last one's
   step and time (-1 and -inf when none). */
size_t agglo_h5md_last_frame(const agglo_h5md *h, int64_t *step, double *t);
/* The XDMF file that goes with path: path with its extension replaced by .xdmf, into buf of len
   bytes (len >= strlen(path) + 6 always fits). 0, or -1 when it does not fit. */
int agglo_h5md_xdmf_path(const char *path, char *buf, size_t len);

#endif
