/* Structure and dynamics of a trajectory (`agglo analyze --rdf --msd`, docs/analysis.md): the
   radial distribution function g(r) of the particle centres averaged over frames, and the
   mean-square displacement against the lag time with the diffusion coefficient of its linear
   part. Periodic axes use the minimum image (g) and are unwrapped between consecutive frames
   (MSD: a particle must move less than half a box length between two frames). */
#ifndef AGGLO_STRUCTURE_H
#define AGGLO_STRUCTURE_H
#include "core/system.h"
#include <stdio.h>

typedef struct {
  double rmax;
  int bins, dim;
  double *pairs;  /* per bin: pair counts summed over frames, each weighted 2/(N rho) */
  size_t frames;
} agglo_rdf;

/* rmax <= 0: half the smallest box side of the first frame. Returns 0 or -1 (memory). */
int agglo_rdf_init(agglo_rdf *g, double rmax, int bins);
/* Add the pairs of one frame (cell grid, O(N) at fixed density). Returns 0 or -1 (memory). */
int agglo_rdf_add(agglo_rdf *g, const agglo_system *s);
/* g of bin b: counts / (frames x ideal-gas shell count), the shell volume 4 pi r^2 dr (2D:
   2 pi r dr) integrated exactly over the bin; no correction for walls. */
double agglo_rdf_value(const agglo_rdf *g, int b);
void agglo_rdf_write(const agglo_rdf *g, FILE *f); /* "r,g" then one row per bin (centres) */
void agglo_rdf_free(agglo_rdf *g);

typedef struct {
  int dim;
  size_t n, frames, cap;
  double *u;        /* frames x 3n: unwrapped positions, particles ordered by id */
  double *t;        /* frame times */
  size_t *order;    /* scratch: indices sorted by id */
  double *last;     /* wrapped positions of the previous frame, by id order */
  agglo_box box;
} agglo_msd;

/* Add a frame (same particles, matched by id). Returns 0, or -1 with a message. */
int agglo_msd_add(agglo_msd *m, const agglo_system *s, char *err, size_t errlen);
/* MSD at lag k frames, k = 1 .. frames-1, averaged over every time origin, and its mean lag
   time (for regular frames, k times the frame interval). */
double agglo_msd_value(const agglo_msd *m, size_t k, double *lag_time);
/* D from a least-squares line MSD = 2 d D tau + c over the lags from 20 % to 50 % of the
   trajectory's duration (past the ballistic start, with at least half the origins);
   NAN when fewer than 2 lags fall there. */
double agglo_msd_diffusion(const agglo_msd *m);
/* "lag_time,msd,origins": 0, or -1 when a stop was asked (analysis/stop.h; F^2 N terms) */
int agglo_msd_write(const agglo_msd *m, FILE *f);
void agglo_msd_free(agglo_msd *m);

#endif
