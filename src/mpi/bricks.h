/* What the domain decompositions share (docs/parallel.md): the px x py x pz grid of bricks over
   the box, one per rank of MPI_COMM_WORLD; gathering to rank 0; and the end of a step on rank 0,
   which keeps the serial API's simulation (flags, outputs, restart points, stops). */
#ifndef AGGLO_MPI_BRICKS_H
#define AGGLO_MPI_BRICKS_H
#include "core/simulation.h"
#include <mpi.h>

typedef struct {
  int rank, size, dim, dims[3], coord[3], nb[3][2]; /* nb: lower and upper neighbour per axis */
  double glo[3], glen[3], blo[3], bhi[3];          /* the box; this rank's brick */
  int gper[3];                                     /* the box's periodic axes */
  MPI_Comm comm;
  const double *cut[3]; /* per axis the dims + 1 faces where they moved, or NULL: equal widths */
  int shear; /* set before agglo_bricks_setup: Lees-Edwards shear, the grid 1 x py x pz (x, the
                flow, whole; y cut on more than one rank) */
} agglo_bricks;

/* *buf (of *cap items of `size` bytes) grown to hold n, with room to spare: 0, or -1 (memory). */
int agglo_bricks_grow(void *buf, size_t *cap, size_t n, size_t size);

/* One stage of a staged exchange: send[s] (cnt[s] records of rec doubles) to the lower (s = 0)
   and upper (s = 1) neighbour along axis k; what arrives, got[0] records from the upper then
   got[1] from the lower, into *recv (grown, *cap). Returns got[0] + got[1], or -1 (memory). */
long agglo_bricks_exchange(const agglo_bricks *b, int k, double *const send[2],
                           const size_t cnt[2], int rec, double **recv, size_t *cap,
                           size_t got[2]);

/* The grid (parallel.grid, or the fewest ghosts for a halo `halo`; under b->shear of the form
   1 x py x pz, py > 1 on more than one rank) over rank 0's box lo, len,
   periodic (broadcast from rank 0; the others' are ignored). Fails, with the allowed range, when
   a brick is narrower than the halo. Collective. */
int agglo_bricks_setup(agglo_bricks *b, const agglo_config *c, const double lo[3],
                       const double len[3], const int periodic[3], double halo, char *err,
                       size_t errlen);
void agglo_bricks_free(agglo_bricks *b);
/* The rank owning position x (in the box's units): along each axis the brick from cut[k][c] up
   to (without) cut[k][c + 1], as a migration decides (agglo_bricks_side), else of equal widths. */
int agglo_bricks_owner(const agglo_bricks *b, const double *x);
/* Axis and side of the brick that x has left, for migration along axis k: 0 (below), 1 (above)
   or -1 (inside, or no neighbour that side). */
static inline int agglo_bricks_side(const agglo_bricks *b, int k, double x) {
  int s = x < b->blo[k] ? 0 : x >= b->bhi[k] ? 1 : -1;
  return s >= 0 && b->nb[k][s] != MPI_PROC_NULL ? s : -1;
}
/* Shift of a record sent to side s along axis k: a period across the box's edge, else 0. */
static inline double agglo_bricks_shift(const agglo_bricks *b, int k, int s) {
  if (!b->gper[k]) return 0;
  if (s == 0 && b->coord[k] == 0) return b->glen[k];
  if (s == 1 && b->coord[k] == b->dims[k] - 1) return -b->glen[k];
  return 0;
}

/* Rank 0's n particles to the ranks owning them: pack(ctx, i, r) writes particle i's record of
   `rec` doubles, its position first. On every rank *recs (malloc'd) holds its *mine records.
   Collective: 0, or -1 on every rank when memory failed on any. */
typedef void (*agglo_bricks_pack_fn)(const void *ctx, size_t i, double *r);
int agglo_bricks_hand_out(const agglo_bricks *b, size_t n, int rec, agglo_bricks_pack_fn pack,
                          const void *ctx, double **recs, size_t *mine);

/* Every rank's cnt items of `size` bytes (MPI type t) to rank 0, in rank order: on rank 0, *all
   (malloc'd) holds *total of them, and counts (if not NULL, size entries) each rank's count.
   Collective: 0, or -1 on every rank when memory failed on any. */
int agglo_bricks_gather(const agglo_bricks *b, const void *mine, int cnt, MPI_Datatype t,
                        size_t size, void **all, size_t *total, int *counts);

/* id -> index of rank 0's system, for placing gathered particles */
typedef struct { int64_t id; size_t index; } agglo_id_index;
/* The index of id in map (sorted by id, n entries), or SIZE_MAX. */
size_t agglo_id_lookup(const agglo_id_index *map, size_t n, int64_t id);

/* The start of a run: step and last step from rank 0, the id map of its system (rank 0; *map
   NULL elsewhere), the initial outputs. Collective; AGGLO_OK or the same error on every rank. */
agglo_status agglo_bricks_start(const agglo_bricks *b, agglo_sim *sim, int64_t *step,
                                int64_t *last, agglo_id_index **map);

enum { AGGLO_BRICKS_GATHER = 1, AGGLO_BRICKS_STOP = 2, AGGLO_BRICKS_FINAL = 4, AGGLO_BRICKS_FAILED = 8 };
/* The end of a step on rank 0, as after a serial step (agglo_sim_record_step): sim->sys is at
   `step`, info its report over the ranks, bad_id 1 + the id of a particle with a non-finite
   value (0: none). Rank 0 checks the step's health (FAILED: the error, on every rank, says that
   the last good state is the last restart point) and decides whether the state must be
   gathered: an output, the last step, a callback's stop. Every rank gets the flags. */
int agglo_bricks_end_step(const agglo_bricks *b, agglo_sim *sim, const agglo_id_index *map,
                          int64_t step, int64_t last, agglo_step_info *info, double bad_id);
/* After a gather: rank 0 writes the outputs, restart point or stop state the flags call for.
   Collective: AGGLO_OK, AGGLO_STOPPED or an I/O error on every rank. */
agglo_status agglo_bricks_write(const agglo_bricks *b, agglo_sim *sim, int flags);
/* parallel.csv in the output directory, after a run of `steps` steps taking `wall` seconds: the
   grid and, per rank and step, the particles (mean, largest), ghosts, records sent (bytes =
   8 rec each) and the time exchanging (largest, share of wall), from each rank's
   mine = {particles, ghosts per step, records per step, seconds exchanging}. Rank 0 gets the
   file open after those columns, for the model's own (names in extra, ",a,b"; values and the
   newline are the caller's), others and a run without an output directory get NULL. Collective. */
FILE *agglo_bricks_report(const agglo_bricks *b, const agglo_sim *sim, int64_t steps, double wall,
                          int rec, const double mine[4], const char *extra);
/* The message of the lowest rank with fail != 0 reaches every rank (in the error buffer):
   returns 1 on every rank when some rank failed. Collective. */
int agglo_bricks_any_failed(const agglo_bricks *b, int fail);

#endif
