/* Overlap search of the ballistic time stepping (docs/ballistic.md, "Frames"): which pairs of
   particles of different clusters overlap, found in the order of a full cell-by-cell scan so
   that the dynamics do not depend on how the search is organised.
   Every cluster of frame_min (16) particles or more has a frame: its displacement D since the
   frame was set (reset when |D| exceeds frame_slack = 2 r_max). Its members are binned once in
   the frame grid at x - D; only the other particles are binned and scanned every step (the cell
   grid), against each other and against the frame grid. Pairs of two framed clusters come from
   a candidate (Verlet) list, listed again for the particles (re)binned since the last step.
   Clusters are named here by handle (union by size with member lists), as frames follow them:
   the handle of a cluster is one of its particles. */
#ifndef AGGLO_BALLISTIC_FRAMES_H
#define AGGLO_BALLISTIC_FRAMES_H
#include "models/ballistic_dah.h"
#include "core/system.h"
#include <stdint.h>

typedef struct {
  const agglo_system *sys; /* the system of the current step */
  int oom;                 /* an allocation failed where it could not be reported */
  double r_max;
  /* the pairs found by the last scan (i < j) */
  int32_t *pi, *pj;
  size_t np, pcap;
  double min_gap;          /* smallest gap of the start-of-step scan within r_max/4, or inf */
  /* clusters by handle: handle per particle, member lists, sizes */
  int32_t *cid, *mhead, *mtail, *mnext, *csize;
  /* frames, per handle: framed or not, displacement D (3), bounding box in the frame (6, grown,
     never shrunk), members not yet in the frame grid; flist: the framed handles */
  size_t frame_min;
  double frame_slack;
  uint8_t *framed;
  double *D, *fbox;
  int32_t *npend;
  int32_t *flist, *fpos;
  size_t nframed;
  /* the particles outside frames (in the cell grid, or waiting to join a frame) */
  int32_t *small;
  size_t nsmall;
  /* cell grid of the particles outside frames (all particles while no frame exists at the start
     of a step) */
  int nc[3];
  double w[3];
  size_t ncells;
  int32_t *cell_of, *members;
  int32_t *cstart, *ccount; /* per cell: first slot and count (0 for cells not in occ) */
  int32_t *occ;             /* the occupied cells, ascending */
  size_t nocc, nbinned;
  uint32_t *rk, *rk2;       /* radix sort of the sparse cell grid: keys and values */
  int32_t *rv, *rv2;
  double *xs;               /* per slot (cell order): position (3) and radius, for the full scan */
  int32_t *rs;              /* per slot: root */
  double grid_slack;        /* how far particles may move after binning (cells this much wider) */
  double moved_since_bin;
  int step_framed;          /* frames existed at the start of the step: the cell grid is partial */
  /* frame grid: per cell, per particle (-1: not in it) */
  int fnc[3];
  double fw[3];
  size_t nfcells;
  int32_t *fhead, *fnext, *fcell;
  /* candidate pairs of two framed clusters, and the particles binned since they were listed */
  int32_t *va, *vb;
  size_t nv, vcap;
  uint8_t *dirty;
  int32_t *dlist;
  size_t ndirty, dcap;
  struct agglo_pair_key *keys; /* pairs found with their position in the full scan */
  size_t nkeys, kcap;
  uint32_t *wstamp, wstamp_now; /* clusters already listed as beyond a wall */
} agglo_frames;

/* frame_min 16 and frame_slack 2 r_max: the fastest at N = 10^5, V_f = 0.2 (docs/ballistic.md) */
#define AGGLO_FRAME_MIN 16
#define AGGLO_FRAME_SLACK 2.0

/* Every particle its own cluster, grids for the box of s and particles up to r_max; frames for
   clusters of frame_min particles or more (SIZE_MAX: none), reset after moving frame_slack r_max.
   Returns 0, -1 if the per-particle arrays or -2 if the grids could not be allocated. */
int agglo_frames_init(agglo_frames *f, const agglo_system *s, double r_max, size_t frame_min,
                      double frame_slack);
/* The ballistic time stepping's frames set afresh (from frame_min particles, SIZE_MAX: none;
   slack in units of r_max), before its first step (ballistic_model.c): for tests showing that
   frames do not change a run. 0, or -1 when out of memory. */
int agglo_ballistic_set_frames(void *state, const agglo_system *s, size_t frame_min, double slack);
void agglo_frames_free(agglo_frames *f);

/* Merge the clusters (handles) of particles i and j, which differ; the smaller one joins the
   larger one's frame, a cluster reaching frame_min gets one. Returns the surviving handle. */
int32_t agglo_frames_merge(agglo_frames *f, int32_t i, int32_t j);

/* Free flight: the frames move with their clusters (v: the cluster velocity of each particle). */
void agglo_frames_fly(agglo_frames *f, const double *v, int dim, double dt);

/* The handles of the clusters with a particle beyond a wall, into out (room for n). */
size_t agglo_frames_beyond_walls(agglo_frames *f, const agglo_system *s, int32_t *out);

/* The overlapping pairs of different clusters after free flight (root: each particle's root at
   the start of the step) into pi, pj, in the order of the full scan; sets min_gap. Returns -1
   when out of memory. */
int agglo_frames_scan(agglo_frames *f, const agglo_system *s, const int32_t *root);

/* After a relaxation moved the particles of moved by up to max_move: the grids follow, and the
   overlapping unlinked pairs with a moved particle go to pi, pj (per moved particle in the order
   of its partners' indices). Returns -1 when out of memory. */
int agglo_frames_rescan(agglo_frames *f, const agglo_system *s, const agglo_links *L,
                        const int32_t *moved, size_t nm, double max_move);

#endif
