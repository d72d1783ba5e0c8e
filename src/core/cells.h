/* Uniform cell grid and a Verlet neighbour list: every pair whose gap is below cutoff + skin,
   valid until two particles may have approached by more than skin. O(N) build. */
#ifndef AGGLO_CELLS_H
#define AGGLO_CELLS_H
#include "core/system.h"

/* Loops over fewer elements than this run on one thread: below it, starting a team costs more
   than it saves, and much more on a machine whose cores are busy with other work. Results do
   not depend on it (nor on the thread count). */
#define AGGLO_PAR_MIN 8192
/* Loops over each particle's pairs (neighbour list, attraction, constraint collection) do tens
   of pair tests per particle (hundreds in 3D): they pay for a team from this many particles
   (a 3D gel of 8 000 spent a fifth of its step in a serial neighbour list below 8192). */
#define AGGLO_PAR_MIN_PAIRS 2048

/* Cells of side >= cell along a length: at least 1, at most 2^20, computed in double so that a
   huge or non-finite ratio (a corrupt box) never overflows the cast. */
static inline int agglo_cells_along(double len, double cell) {
  double q = __builtin_floor(len / cell);
  return !(q >= 1) ? 1 : q > 1048576 ? 1048576 : (int)q;
}

/* Cells per axis of a grid of cells at least `cell` wide over len[0..dim) (1 on the other axes).
   An axis with fewer than min_count cells that is periodic (every axis if periodic is NULL)
   collapses to one cell. The total is held to 8 n + 4096 by halving the finest axis: wider cells
   are still correct, and a dilute system no longer allocates and clears far more cells than it
   has particles. Returns the total. */
size_t agglo_grid_counts(int dim, const double len[3], const int *periodic, double cell,
                         int min_count, size_t n, int nc[3]);

typedef struct {
  double cutoff, skin;  /* listed pairs: gap < cutoff + skin */
  size_t *start;        /* n+1: partners of i are nbr[start[i] .. start[i+1]), all j > i, ascending */
  int32_t *nbr;
  size_t npairs, cap, n;
  double *x_ref;        /* positions at the last build */
  int64_t builds;       /* how many builds so far (statistics) */
} agglo_neighbors;

/* Build (or rebuild) the list. Returns 0 or -1 on allocation failure. */
int agglo_neighbors_build(agglo_neighbors *nb, const agglo_system *s, double cutoff, double skin);
/* The same, listing the pairs of the particles below `first` only (with partners of any index):
   a rank's region lists no pair of two ghosts (src/mpi/contact_domain.c). */
int agglo_neighbors_build_first(agglo_neighbors *nb, const agglo_system *s, double cutoff,
                                double skin, size_t first);
/* True when some pair may have come closer by more than skin since the last build (the two
   largest displacements add up to more than skin). */
int agglo_neighbors_stale(const agglo_neighbors *nb, const agglo_system *s);
/* Rebuild only when stale. */
int agglo_neighbors_update(agglo_neighbors *nb, const agglo_system *s);
void agglo_neighbors_free(agglo_neighbors *nb);

/* Sort particles into cell order (better memory locality); ids travel with the particles. */
int agglo_sort_spatially(agglo_system *s, double cell);

#endif
