/* A hashed grid of cells over a cluster's monomers, for the overlap test of a placement: cells of
   side at least the largest diameter, so that a monomer can touch only monomers of its own and
   the neighbouring cells. Hashed (not a dense box): a fractal cluster fills little of its
   bounding box. */
#ifndef AGGLO_AGGREGATES_CONTACT_GRID_H
#define AGGLO_AGGREGATES_CONTACT_GRID_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  double side;
  int dim;
  size_t cap;       /* table slots (a power of two, at least twice the monomers) */
  int shift;        /* 64 - log2(cap): the hash's top bits index the table */
  int64_t *key;     /* packed cell coordinates, INT64_MIN: empty */
  int32_t *head;    /* first monomer (local index) of the cell */
  int32_t *next;    /* next monomer of the same cell */
  size_t n, n_cap;  /* monomers inserted, room */
  const double *x;  /* the centres (3 per monomer), global array */
  const double *r;
  size_t first;     /* local index k is global first + k */
} agg_grid;

/* Room for n monomers starting at global index first of x, r; 0 or -1 (memory). */
int agg_grid_init(agg_grid *g, int dim, double side, const double *x, const double *r,
                  size_t first, size_t n);
void agg_grid_insert(agg_grid *g, size_t local);
/* Does a sphere at y of radius ry overlap a monomer of the grid by more than tol (relative to
   the sum of the radii)? */
int agg_grid_overlaps(const agg_grid *g, const double y[3], double ry, double tol);
/* The local indices of the monomers in y's cell and its neighbours (those a sphere at y can
   touch), at most max of them into out: how many were written. */
size_t agg_grid_near(const agg_grid *g, const double y[3], size_t *out, size_t max);
void agg_grid_free(agg_grid *g);

#endif
