/* Reading H5MD trajectories frame by frame (agglo's, or any H5MD 1.x file with particles/<group>/
   position): position, and when present velocity, radius, mass, id, cluster, box and step/time.
   Only complete frames are read: a file cut by a killed run ends at its last complete frame. */
#ifndef AGGLO_H5MD_READ_H
#define AGGLO_H5MD_READ_H
#include "core/system.h"
#include "io/frame_extras.h"

typedef struct agglo_h5md_reader agglo_h5md_reader;

/* 1 if path starts with the HDF5 signature. */
int agglo_is_hdf5(const char *path);
agglo_h5md_reader *agglo_h5md_read_open(const char *path, char *err, size_t errlen);
/* Frames readable. */
size_t agglo_h5md_read_frames(const agglo_h5md_reader *r);
/* 1 if a last frame follows them that a killed write cut (some of its series lack their row). */
int agglo_h5md_read_cut(const agglo_h5md_reader *r);
/* Which per-particle data the file has (1 or 0). */
typedef struct { int velocity, radius, mass, id, cluster, box, time; } agglo_h5md_has;
agglo_h5md_has agglo_h5md_read_has(const agglo_h5md_reader *r);
/* Frame k (0-based) into s (reallocated); default_radius when the file has none (<= 0: an
   error); x (if not NULL): the file's units, the observables at the frame's step (a row of
   observables/<name> whose step is the frame's), the species. Returns 0 or -1 with a message
   naming the file and frame. */
int agglo_h5md_read_frame(agglo_h5md_reader *r, size_t k, agglo_system *s, double default_radius,
                          agglo_frame_extras *x, char *err, size_t errlen);
void agglo_h5md_read_close(agglo_h5md_reader *r);

#endif
