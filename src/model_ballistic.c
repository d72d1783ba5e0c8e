/* Ballistic aggregation by time stepping (Degond, Dimarco, Ferreira, Hecht 2024; SPEC §3):
   1. free flight of every cluster over dt = dt_factor * max r / max |V_cluster| (rule (3.3)),
      with cluster-wise specular reflection on walls;
   2. interactions: overlapping pairs of different clusters become links; the damped
      Arrow-Hurwicz minimiser (dah.c) relaxes the link set locally; pairs that overlap after the
      relaxation become links too, and the relaxation is repeated until the link set stops
      growing (outer iterations);
   3. clusters = connected components of the links; each takes the mass-weighted mean of the
      pre-step velocities of its members (momentum is conserved).
   Clusters are kept in a union-find with per-root mass and momentum, so a merge costs O(1).
   Frames: every cluster of frame_min (16) particles or more has a frame, its displacement D
   since the frame was set (kept below frame_slack = 2 r_max: the frame is reset when D grows
   larger). Its members are binned once in the frame grid (cells 2 r_max + r_max/4 +
   2 frame_slack wide) at x - D and are no longer binned and scanned every step: only the other
   particles are (the cell grid), against each other and against the frame grid; pairs between
   two framed clusters are looked for only among the candidate pairs listed when one of their
   particles was (re)binned (a Verlet list: particles within r_max/4 + 2 frame_slack of contact,
   in frame coordinates). The pairs found are sorted into the order of the full scan, so
   the dynamics are the same bit for bit with or without frames. */
#include "dah.h"
#include "model.h"
#include "error.h"
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double prof_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  agglo_config cfg;
  size_t n;
  int dim;
  agglo_links L;
  int32_t *parent;    /* union-find over particles */
  double *M, *P;      /* per root: mass, momentum (3) */
  int32_t *root;      /* per particle: root cache of the step */
  size_t n_clusters;
  double r_max, r_mean;
  /* cell grid for overlap detection (all particles, or only those outside framed clusters) */
  int nc[3];
  double w[3];
  size_t ncells;
  int32_t *cell_of, *members;
  int32_t *cstart, *ccount; /* per cell: first slot and count (0 for cells not in occ) */
  int32_t *occ;              /* the occupied cells, ascending */
  uint32_t *rk, *rk2;        /* radix sort of the sparse cell grid: keys and values */
  int32_t *rv, *rv2;
  size_t nocc;
  size_t nbinned;     /* slots in the cell grid */
  double *xs;         /* per slot (cell order): position (3) and radius, for the full scan */
  int32_t *rs;        /* per slot: root */
  double grid_slack;  /* how far particles may move after binning (cells are this much wider) */
  double moved_since_bin;
  /* pair and seed buffers */
  int32_t *pi, *pj, *seeds, *moved;
  size_t np, pcap, nseeds, scap, nmoved, mcap;
  double *ext, *shift; /* per root: extents (6) and wall shift (3) */
  agglo_dah_work *dah;
  agglo_dah_settings dset;
  const agglo_system *sys; /* the system of the current step */
  int oom;                 /* out of memory in frame_bin */
  /* clusters by handle (union by size, apart from the union-find's roots): handle per
     particle, member lists, sizes, frames */
  int32_t *cid, *mhead, *mtail, *mnext, *csize;
  size_t frame_min;
  double frame_slack;
  int fnc[3];                       /* frame grid geometry */
  double fw[3];
  size_t nfcells;
  uint8_t *framed;                  /* per handle */
  double *D;                        /* per framed handle: displacement since its frame was set */
  int32_t *flist, *fpos;            /* the framed handles */
  size_t nframed;
  int32_t *fhead, *fnext, *fcell;   /* frame grid: per cell, per particle (-1: not in it) */
  int32_t *small;                   /* the particles in the cell grid or waiting to join a frame */
  size_t nsmall;
  uint8_t *dirty;                   /* framed particles (re)binned since the candidates were listed */
  int32_t *dlist;
  size_t ndirty, dcap;
  int32_t *npend;                   /* per framed handle: members not yet in the frame grid */
  double *fbox;                     /* per framed handle: bounding box in its frame (6) */
  int32_t *hl;                      /* walls: the clusters beyond a wall */
  uint32_t *wstamp, wstamp_now;
  uint8_t *chg;                     /* per handle: velocity or root changed in this step */
  int32_t *clist;
  size_t nchg;
  int32_t *va, *vb;                 /* candidate pairs of particles of two framed clusters */
  size_t nv, vcap;
  struct pair_key *keys;            /* pairs found with their position in the full scan */
  size_t nkeys, kcap;
  double min_gap;
  double prof_work, prof_solves, prof_touched, prof_checks, prof_full; /* AGGLO_BALL_PROFILE */
  double prof_dah_s, prof_scan_s, prof_frame_steps, prof_cand, prof_reframed, prof_wall_p, prof_vel_p, prof_small_p;
} ballistic;

/* A pair with its place in the order of the full cell-by-cell scan: cell of the lower slot,
   rank of the other cell in that cell's stencil, then the two particles (slot order). */
struct pair_key {
  size_t cell;
  int rank;
  int32_t lo, hi;
};

static int32_t find(int32_t *parent, int32_t a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

static void frame_bin(ballistic *b, int32_t i);

static inline void mark_changed(ballistic *b, int32_t C) {
  if (!b->chg[C]) b->chg[C] = 1, b->clist[b->nchg++] = C;
}

/* Merge the clusters of i and j (momentum and mass add). Returns 1 if they were different.
   The smaller cluster (by handle) joins the larger one's frame: O(N log N) relabelling in all. */
static int unite(ballistic *b, int32_t i, int32_t j) {
  int32_t a = find(b->parent, i), c = find(b->parent, j);
  if (a == c) return 0;
  if (c < a) { int32_t t = a; a = c; c = t; }
  b->parent[c] = a;
  b->M[a] += b->M[c];
  for (int k = 0; k < 3; k++) b->P[3 * (size_t)a + k] += b->P[3 * (size_t)c + k];
  b->n_clusters--;
  int32_t A = b->cid[i], B = b->cid[j];
  if (b->csize[A] < b->csize[B] || (b->csize[A] == b->csize[B] && B < A)) {
    int32_t t = A; A = B; B = t;
  }
  int fa = b->framed[A], fb = b->framed[B], fb0 = fb;
  if (!fa && fb) { /* A takes over B's frame: B's members keep their place in the frame grid */
    b->framed[A] = 1, b->framed[B] = 0;
    for (int k = 0; k < 3; k++) b->D[3 * (size_t)A + k] = b->D[3 * (size_t)B + k];
    for (int k = 0; k < 6; k++) b->fbox[6 * (size_t)A + k] = b->fbox[6 * (size_t)B + k];
    b->npend[A] = b->csize[A];
    b->flist[b->fpos[B]] = A, b->fpos[A] = b->fpos[B];
    fa = 1, fb = 0;
  }
  for (int32_t m = b->mhead[B]; m >= 0; m = b->mnext[m]) {
    b->cid[m] = A;
    if (fb && b->fcell[m] >= 0) frame_bin(b, m); /* into A's frame */
  }
  if (fa) b->npend[A] += fb0 ? b->npend[B] : b->csize[B];
  b->npend[B] = 0;
  if (fb) { /* B's frame goes */
    b->framed[B] = 0;
    int32_t last = b->flist[--b->nframed];
    b->flist[b->fpos[B]] = last, b->fpos[last] = b->fpos[B];
  }
  b->mnext[b->mtail[A]] = b->mhead[B], b->mtail[A] = b->mtail[B];
  b->mhead[B] = b->mtail[B] = -1;
  b->csize[A] += b->csize[B];
  mark_changed(b, A);
  if (!fa && (size_t)b->csize[A] >= b->frame_min) { /* a new frame: members join it when rebinned */
    b->framed[A] = 1;
    b->npend[A] = b->csize[A];
    for (int k = 0; k < 3; k++)
      b->D[3 * (size_t)A + k] = 0, b->fbox[6 * (size_t)A + k] = INFINITY,
      b->fbox[6 * (size_t)A + 3 + k] = -INFINITY;
    b->fpos[A] = (int32_t)b->nframed, b->flist[b->nframed++] = A;
  }
  return 1;
}

static void ball_destroy(void *state) {
  ballistic *b = state;
  if (!b) return;
  if (getenv("AGGLO_BALL_PROFILE"))
    fprintf(stderr, "ballistic: %.0f solves, %.4g particle updates, %.4g particles touched, "
            "%.4g neighbour checks, %.0f full checks; CPU: relaxations %.3g s, bin + scan %.3g s; "
            "%.0f steps with frames, %.4g candidate pair checks, %.4g particles re-framed; particle "
            "visits: %.4g outside frames, %.4g walls, %.4g velocities\n",
            b->prof_solves, b->prof_work, b->prof_touched, b->prof_checks, b->prof_full,
            b->prof_dah_s, b->prof_scan_s, b->prof_frame_steps, b->prof_cand, b->prof_reframed, b->prof_small_p, b->prof_wall_p,
            b->prof_vel_p);
  agglo_links_free(&b->L);
  free(b->parent); free(b->M); free(b->P); free(b->root);
  free(b->cell_of); free(b->members); free(b->cstart); free(b->ccount); free(b->occ); free(b->rk); free(b->rk2); free(b->rv); free(b->rv2); free(b->xs); free(b->rs);
  free(b->pi); free(b->pj); free(b->seeds); free(b->moved); free(b->ext); free(b->shift);
  free(b->cid); free(b->mhead); free(b->mtail); free(b->mnext); free(b->csize);
  free(b->framed); free(b->D); free(b->flist); free(b->fpos);
  free(b->fhead); free(b->fnext); free(b->fcell); free(b->small);
  free(b->npend); free(b->fbox); free(b->hl); free(b->wstamp); free(b->chg); free(b->clist);
  free(b->dirty); free(b->dlist); free(b->va); free(b->vb); free(b->keys);
  agglo_dah_work_free(b->dah);
  free(b);
}

static int ball_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                     size_t errlen) {
  ballistic *b = calloc(1, sizeof *b);
  if (!b) return agglo_fail(err, errlen, "out of memory");
  b->cfg = *c;
  size_t n = s->n, m = n ? n : 1;
  b->n = n;
  b->dim = s->dim;
  b->parent = malloc(m * sizeof *b->parent);
  b->M = malloc(m * sizeof *b->M);
  b->P = malloc(3 * m * sizeof *b->P);
  b->root = malloc(m * sizeof *b->root);
  b->cell_of = malloc(m * sizeof *b->cell_of);
  b->members = malloc(m * sizeof *b->members);
  b->xs = malloc(4 * m * sizeof *b->xs);
  b->rs = malloc(m * sizeof *b->rs);
  b->ext = malloc(6 * m * sizeof *b->ext);
  b->shift = calloc(3 * m, sizeof *b->shift);
  b->dah = agglo_dah_work_new(n);
  b->cid = malloc(m * sizeof *b->cid);
  b->mhead = malloc(m * sizeof *b->mhead);
  b->mtail = malloc(m * sizeof *b->mtail);
  b->mnext = malloc(m * sizeof *b->mnext);
  b->csize = malloc(m * sizeof *b->csize);
  b->framed = calloc(m, sizeof *b->framed);
  b->D = calloc(3 * m, sizeof *b->D);
  b->flist = malloc(m * sizeof *b->flist);
  b->fpos = malloc(m * sizeof *b->fpos);
  b->fnext = malloc(m * sizeof *b->fnext);
  b->fcell = malloc(m * sizeof *b->fcell);
  b->small = malloc(m * sizeof *b->small);
  b->dirty = calloc(m, sizeof *b->dirty);
  b->rk = malloc(m * sizeof *b->rk);
  b->rk2 = malloc(m * sizeof *b->rk2);
  b->rv = malloc(m * sizeof *b->rv);
  b->rv2 = malloc(m * sizeof *b->rv2);
  b->npend = calloc(m, sizeof *b->npend);
  b->fbox = malloc(6 * m * sizeof *b->fbox);
  b->hl = malloc(m * sizeof *b->hl);
  b->wstamp = calloc(m, sizeof *b->wstamp);
  b->chg = calloc(m, sizeof *b->chg);
  b->clist = malloc(m * sizeof *b->clist);
  if (!b->csize || !b->parent || !b->M || !b->P || !b->root || !b->cell_of || !b->members || !b->ext ||
      !b->xs || !b->rs || !b->cid || !b->mhead || !b->mtail || !b->mnext || !b->framed || !b->D ||
      !b->flist || !b->fpos || !b->fnext || !b->fcell || !b->small || !b->dirty ||
      !b->rk || !b->rk2 || !b->rv || !b->rv2 || !b->npend ||
      !b->fbox || !b->hl || !b->wstamp || !b->chg || !b->clist ||
      !b->shift || !b->dah || agglo_links_init(&b->L, n) != 0) {
    ball_destroy(b);
    return agglo_fail(err, errlen, "out of memory for %zu particles", n);
  }
  double rs = 0;
  for (size_t i = 0; i < n; i++) {
    b->parent[i] = (int32_t)i;
    b->root[i] = (int32_t)i;
    b->cid[i] = b->mhead[i] = b->mtail[i] = (int32_t)i;
    b->mnext[i] = -1;
    b->csize[i] = 1;
    b->fcell[i] = -1;
    b->small[i] = (int32_t)i;
    b->M[i] = s->m[i];
    for (int k = 0; k < 3; k++) b->P[3 * i + k] = s->m[i] * s->v[3 * i + k];
    rs += s->r[i];
  }
  b->nsmall = n;
  b->n_clusters = n;
  /* clusters of frame_min particles or more get a frame; AGGLO_BALL_FRAME (or its older name
     AGGLO_BALL_GIANT) sets the size (0: never; for tests and comparisons), AGGLO_BALL_FSLACK
     the frame slack in units of r_max (16 and 2: the fastest at N = 10^5, V_f = 0.2) */
  b->frame_min = 16;
  const char *gm = getenv("AGGLO_BALL_FRAME");
  if (!gm) gm = getenv("AGGLO_BALL_GIANT");
  if (gm) b->frame_min = strtoul(gm, NULL, 10) ? strtoul(gm, NULL, 10) : SIZE_MAX;
  b->r_max = agglo_max_radius(s);
  b->r_mean = n ? rs / (double)n : c->radius;
  agglo_dah_defaults(&b->dset);
  b->dset.alpha = c->dah_alpha, b->dset.beta = c->dah_beta, b->dset.gamma = c->dah_gamma;
  b->dset.c = c->dah_c, b->dset.tol = c->ball_tol, b->dset.max_iter = (int)c->dah_max_iter;
  b->dset.length = b->r_mean;
  /* grid: cells at least 2 r_max + 2 slack wide */
  b->grid_slack = 0.25 * b->r_max;
  b->frame_slack = 2 * b->r_max;
  double cell = 2 * b->r_max + 2 * b->grid_slack;
  b->ncells = 1;
  for (int k = 0; k < 3; k++) {
    int nc = k < s->dim ? (int)floor(s->box.len[k] / cell) : 1;
    if (nc < 1) nc = 1;
    if (s->box.periodic[k] && nc < 3) nc = 1;
    if (nc > 1 << 20) nc = 1 << 20;
    b->nc[k] = nc;
    b->w[k] = s->box.len[k] / nc;
    b->ncells *= (size_t)nc;
  }
  const char *fs = getenv("AGGLO_BALL_FSLACK");
  if (fs && atof(fs) > 0) b->frame_slack = atof(fs) * b->r_max;
  double fcell = 2 * b->r_max + b->grid_slack + 2 * b->frame_slack;
  b->nfcells = 1;
  for (int k = 0; k < 3; k++) {
    int nc = k < s->dim ? (int)floor(s->box.len[k] / fcell) : 1;
    if (nc < 1) nc = 1;
    if (s->box.periodic[k] && nc < 3) nc = 1;
    if (nc > 1 << 20) nc = 1 << 20;
    b->fnc[k] = nc;
    b->fw[k] = s->box.len[k] / nc;
    b->nfcells *= (size_t)nc;
  }
  b->cstart = calloc(b->ncells, sizeof *b->cstart);
  b->ccount = calloc(b->ncells, sizeof *b->ccount);
  b->occ = malloc((n < b->ncells ? (n ? n : 1) : b->ncells) * sizeof *b->occ);
  b->fhead = malloc(b->nfcells * sizeof *b->fhead);
  if (!b->cstart || !b->ccount || !b->occ || !b->fhead) {
    ball_destroy(b);
    return agglo_fail(err, errlen, "out of memory for the cell grid (%zu cells)", b->ncells);
  }
  for (size_t q = 0; q < b->nfcells; q++) b->fhead[q] = -1;
  *state = b;
  return 0;
}
/* ---- cell grid ---- */

static inline int axis_cell(const ballistic *b, const agglo_box *box, int k, double xk) {
  if (b->nc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / b->w[k]);
  return c < 0 ? 0 : c >= b->nc[k] ? b->nc[k] - 1 : c;
}

static inline size_t cell_of_pos(const ballistic *b, const agglo_box *box, const double *x) {
  return ((size_t)axis_cell(b, box, 2, x[2]) * b->nc[1] + axis_cell(b, box, 1, x[1])) * b->nc[0] +
         axis_cell(b, box, 0, x[0]);
}

static int occ_cmp(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, c = *(const int32_t *)pb;
  return (a > c) - (a < c);
}

/* Bin all particles in the cell grid (counting sort over the cells): slots in cell order,
   members of a cell in ascending index (deterministic). */
static void grid_bin(ballistic *b, const agglo_system *s) {
  for (size_t q = 0; q < b->nocc; q++) b->ccount[b->occ[q]] = 0;
  b->nocc = 0;
  size_t cnt = s->n;
  for (size_t i = 0; i < cnt; i++) {
    int32_t c = (int32_t)cell_of_pos(b, &s->box, s->x + 3 * i);
    b->cell_of[i] = c;
    if (b->ccount[c]++ == 0) b->occ[b->nocc++] = c;
  }
  if (b->nocc > b->ncells / 16) {
    size_t m = 0;
    for (size_t c = 0; c < b->ncells; c++)
      if (b->ccount[c]) b->occ[m++] = (int32_t)c;
  } else {
    qsort(b->occ, b->nocc, sizeof *b->occ, occ_cmp);
  }
  int32_t start = 0;
  for (size_t q = 0; q < b->nocc; q++) b->cstart[b->occ[q]] = start, start += b->ccount[b->occ[q]];
  for (size_t i = 0; i < cnt; i++) b->members[b->cstart[b->cell_of[i]]++] = (int32_t)i;
  for (size_t q = 0; q < b->nocc; q++) b->cstart[b->occ[q]] -= b->ccount[b->occ[q]];
  b->nbinned = cnt;
  b->moved_since_bin = 0;
}

/* The same for the few particles of list (ascending), by a radix sort of (cell, index): memory
   is then touched in cell order, not at random. */
static void grid_bin_list(ballistic *b, const agglo_system *s, const int32_t *list, size_t cnt) {
  for (size_t q = 0; q < b->nocc; q++) b->ccount[b->occ[q]] = 0;
  uint32_t *ka = b->rk, *kb = b->rk2;
  int32_t *va = b->rv, *vb = b->rv2;
  for (size_t k = 0; k < cnt; k++) {
    int32_t i = list[k];
    int32_t c = (int32_t)cell_of_pos(b, &s->box, s->x + 3 * (size_t)i);
    b->cell_of[i] = c;
    ka[k] = (uint32_t)c, va[k] = i;
  }
  size_t hist[2048];
  for (int shift = 0; shift < 32 && (b->ncells - 1) >> shift; shift += 11) {
    memset(hist, 0, sizeof hist);
    for (size_t k = 0; k < cnt; k++) hist[(ka[k] >> shift) & 2047]++;
    size_t sum = 0;
    for (int d = 0; d < 2048; d++) {
      size_t h = hist[d];
      hist[d] = sum, sum += h;
    }
    for (size_t k = 0; k < cnt; k++) {
      size_t p = hist[(ka[k] >> shift) & 2047]++;
      kb[p] = ka[k], vb[p] = va[k];
    }
    uint32_t *tk = ka; ka = kb; kb = tk;
    int32_t *tv = va; va = vb; vb = tv;
  }
  b->nocc = 0;
  for (size_t k = 0; k < cnt; k++) {
    int32_t c = (int32_t)ka[k];
    if (k == 0 || ka[k - 1] != ka[k]) b->occ[b->nocc++] = c, b->cstart[c] = (int32_t)k;
    b->ccount[c]++;
    b->members[k] = va[k];
  }
  b->nbinned = cnt;
  b->moved_since_bin = 0;
}

/* The distinct neighbour cells of the cell with coordinates cc (up to 27), in the order of the
   full scan. */
static int stencil_nc(const int *ncv, const agglo_box *box, const int *cc3, size_t *cells) {
  int ax[3][3] = {{0}}, m[3];
  for (int k = 0; k < 3; k++) {
    int c = cc3[k];
    m[k] = 0;
    for (int d = -1; d <= 1; d++) {
      int cc = c + d;
      if (cc < 0 || cc >= ncv[k]) {
        if (!box->periodic[k]) continue;
        cc = (cc + ncv[k]) % ncv[k];
      }
      int dup = 0;
      for (int q = 0; q < m[k]; q++) dup |= ax[k][q] == cc;
      if (!dup) ax[k][m[k]++] = cc;
    }
  }
  int cnt = 0;
  for (int a = 0; a < m[2]; a++)
    for (int q = 0; q < m[1]; q++)
      for (int p = 0; p < m[0]; p++)
        cells[cnt++] = ((size_t)ax[2][a] * ncv[1] + ax[1][q]) * ncv[0] + ax[0][p];
  return cnt;
}

static int stencil_at(const ballistic *b, const agglo_box *box, const int *cc3, size_t *cells) {
  return stencil_nc(b->nc, box, cc3, cells);
}

/* The distinct neighbour cells of position x (up to 27). */
static int stencil(const ballistic *b, const agglo_box *box, const double *x, size_t *cells) {
  int cc[3];
  for (int k = 0; k < 3; k++) cc[k] = axis_cell(b, box, k, x[k]);
  return stencil_at(b, box, cc, cells);
}

/* The frame grid: cells at least 2 r_max + grid_slack + 2 frame_slack wide. */
static inline int faxis_cell(const ballistic *b, const agglo_box *box, int k, double xk) {
  if (b->fnc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / b->fw[k]);
  return c < 0 ? 0 : c >= b->fnc[k] ? b->fnc[k] - 1 : c;
}

static inline size_t fcell_of_pos(const ballistic *b, const agglo_box *box, const double *x) {
  return ((size_t)faxis_cell(b, box, 2, x[2]) * b->fnc[1] + faxis_cell(b, box, 1, x[1])) *
             b->fnc[0] + faxis_cell(b, box, 0, x[0]);
}

/* The frame-grid cells that overlap the cube of half-side R around x (up to 27 distinct cells:
   R is at most one cell wide), in any order. */
static int fstencil(const ballistic *b, const agglo_box *box, const double *x, double R,
                    size_t *cells) {
  int ax[3][3], m[3];
  for (int k = 0; k < 3; k++) {
    m[k] = 0;
    if (b->fnc[k] == 1) {
      ax[k][m[k]++] = 0;
      continue;
    }
    R += 1e-9 * b->fw[k];
    int lo = (int)floor((x[k] - R - box->lo[k]) / b->fw[k]);
    int hi = (int)floor((x[k] + R - box->lo[k]) / b->fw[k]);
    if (hi - lo > 2) hi = lo + 2; /* never wider than three cells (R <= one cell) */
    for (int c = lo; c <= hi; c++) {
      int cc = c;
      if (box->periodic[k]) cc = ((cc % b->fnc[k]) + b->fnc[k]) % b->fnc[k];
      else if (cc < 0 || cc >= b->fnc[k]) {
        cc = cc < 0 ? 0 : b->fnc[k] - 1;
      }
      int dup = 0;
      for (int q = 0; q < m[k]; q++) dup |= ax[k][q] == cc;
      if (!dup) ax[k][m[k]++] = cc;
    }
  }
  int cnt = 0;
  for (int a = 0; a < m[2]; a++)
    for (int q = 0; q < m[1]; q++)
      for (int p = 0; p < m[0]; p++)
        cells[cnt++] = ((size_t)ax[2][a] * b->fnc[1] + ax[1][q]) * b->fnc[0] + ax[0][p];
  return cnt;
}
static int push_pair(ballistic *b, int32_t i, int32_t j) {
  if (b->np == b->pcap) {
    size_t cap = b->pcap ? 2 * b->pcap : 256;
    int32_t *a = realloc(b->pi, cap * sizeof *a);
    if (a) b->pi = a;
    int32_t *c = realloc(b->pj, cap * sizeof *c);
    if (c) b->pj = c;
    if (!a || !c) return -1;
    b->pcap = cap;
  }
  b->pi[b->np] = i, b->pj[b->np] = j, b->np++;
  return 0;
}

static int push_seed(ballistic *b, int32_t i) {
  if (b->nseeds == b->scap) {
    size_t cap = b->scap ? 2 * b->scap : 256;
    int32_t *a = realloc(b->seeds, cap * sizeof *a);
    if (!a) return -1;
    b->seeds = a, b->scap = cap;
  }
  b->seeds[b->nseeds++] = i;
  return 0;
}

static inline double pair_gap2(const agglo_system *s, size_t i, size_t j, double *lim) {
  double d[3];
  agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
  *lim = s->r[i] + s->r[j];
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

static int push_key(ballistic *b, const agglo_box *box, int32_t i, size_t ci, int32_t j,
                    size_t cj) {
  if (b->nkeys == b->kcap) {
    size_t cap = b->kcap ? 2 * b->kcap : 256;
    struct pair_key *k = realloc(b->keys, cap * sizeof *k);
    if (!k) return -1;
    b->keys = k, b->kcap = cap;
  }
  /* the lower slot of the full scan: (cell, index) */
  if (cj < ci || (cj == ci && j < i)) {
    size_t tc = ci; ci = cj; cj = tc;
    int32_t t = i; i = j; j = t;
  }
  size_t cells[27];
  int cc[3] = {(int)(ci % (size_t)b->nc[0]), (int)(ci / (size_t)b->nc[0] % (size_t)b->nc[1]),
               (int)(ci / ((size_t)b->nc[0] * b->nc[1]))};
  int nc = stencil_at(b, box, cc, cells), rank = 0;
  while (rank < nc && cells[rank] != cj) rank++;
  b->keys[b->nkeys++] = (struct pair_key){ci, rank, i, j};
  return 0;
}

static int key_cmp(const void *pa, const void *pb) {
  const struct pair_key *a = pa, *c = pb;
  if (a->cell != c->cell) return a->cell < c->cell ? -1 : 1;
  if (a->rank != c->rank) return a->rank < c->rank ? -1 : 1;
  if (a->lo != c->lo) return a->lo < c->lo ? -1 : 1;
  return (a->hi > c->hi) - (a->hi < c->hi);
}

/* Overlapping pairs of different clusters (after free flight: clusters are rigid). Cell by
   cell on copies in cell order (positions, radii, roots): sequential memory access. keyed: the
   pairs go to the keys (with frames: the cell grid holds only the particles outside them). */
static int scan_all(ballistic *b, const agglo_system *s, int keyed) {
  size_t cells[27];
  b->np = 0;
  size_t n = b->nbinned;
  for (size_t p = 0; p < n; p++) {
    size_t i = (size_t)b->members[p];
    for (int k = 0; k < 3; k++) b->xs[4 * p + k] = s->x[3 * i + k];
    b->xs[4 * p + 3] = s->r[i];
    b->rs[p] = b->root[i];
  }
  const agglo_box *box = &s->box;
  int periodic = box->periodic[0] || box->periodic[1] || box->periodic[2];
  double reach_extra = b->grid_slack;
  /* interior cells: fixed offsets; cells on the faces: the general stencil */
  long off[27];
  int noff = 0;
  for (int dz = (b->nc[2] > 1 ? -1 : 0); dz <= (b->nc[2] > 1 ? 1 : 0); dz++)
    for (int dy = (b->nc[1] > 1 ? -1 : 0); dy <= (b->nc[1] > 1 ? 1 : 0); dy++)
      for (int dx = (b->nc[0] > 1 ? -1 : 0); dx <= (b->nc[0] > 1 ? 1 : 0); dx++)
        off[noff++] = ((long)dz * b->nc[1] + dy) * b->nc[0] + dx;
  for (size_t oq = 0; oq < b->nocc; oq++) {
    size_t c = (size_t)b->occ[oq];
    int cx = (int)(c % (size_t)b->nc[0]), cy = (int)(c / (size_t)b->nc[0] % (size_t)b->nc[1]),
        cz = (int)(c / ((size_t)b->nc[0] * b->nc[1]));
    size_t p0 = (size_t)b->cstart[c], p1 = p0 + (size_t)b->ccount[c];
    int interior = (b->nc[0] == 1 || (cx > 0 && cx < b->nc[0] - 1)) &&
                   (b->nc[1] == 1 || (cy > 0 && cy < b->nc[1] - 1)) &&
                   (b->nc[2] == 1 || (cz > 0 && cz < b->nc[2] - 1)) &&
                   (b->nc[0] > 2 || b->nc[0] == 1) && (b->nc[1] > 2 || b->nc[1] == 1) &&
                   (b->nc[2] > 2 || b->nc[2] == 1);
    int nc;
    if (interior) {
      for (int q = 0; q < noff; q++) cells[q] = (size_t)((long)c + off[q]);
      nc = noff;
    } else {
      nc = stencil(b, box, b->xs + 4 * p0, cells);
    }
    for (int q = 0; q < nc; q++) {
      size_t c2 = cells[q];
      size_t q0 = (size_t)b->cstart[c2], q1 = q0 + (size_t)b->ccount[c2];
      for (size_t p = p0; p < p1; p++) {
        const double *xi = b->xs + 4 * p;
        int32_t ri = b->rs[p];
        /* each pair once: from the lower cell, or the lower slot within a cell (the slots of
           a cell are in ascending index; the cells need not be in order) */
        if (c2 < c) continue;
        for (size_t u = c2 == c ? p + 1 : q0; u < q1; u++) {
          if (b->rs[u] == ri) continue;
          const double *xj = b->xs + 4 * u;
          double d[3];
          if (periodic) {
            agglo_box_delta(box, xi, xj, d);
          } else {
            d[0] = xj[0] - xi[0], d[1] = xj[1] - xi[1], d[2] = xj[2] - xi[2];
          }
          double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], lim = xi[3] + xj[3];
          if (d2 < lim * lim) {
            int32_t i = b->members[p], j = b->members[u];
            if (keyed ? push_key(b, box, i, c, j, c2) != 0
                      : push_pair(b, i < j ? i : j, i < j ? j : i) != 0)
              return -1;
          } else if (d2 < (lim + reach_extra) * (lim + reach_extra)) {
            double g = sqrt(d2) - lim;
            if (g < b->min_gap) b->min_gap = g;
          }
        }
      }
    }
  }
  return 0;
}

/* ---- frames ---- */

static void glist_remove(int32_t *head, int32_t *next, int32_t c, int32_t i) {
  int32_t *p = &head[c];
  while (*p != i) p = &next[*p];
  *p = next[i];
}

static int mark_dirty(ballistic *b, int32_t i) {
  if (b->dirty[i]) return 0;
  if (b->ndirty == b->dcap) {
    size_t cap = b->dcap ? 2 * b->dcap : 1024;
    int32_t *a = realloc(b->dlist, cap * sizeof *a);
    if (!a) return -1;
    b->dlist = a, b->dcap = cap;
  }
  b->dirty[i] = 1;
  b->dlist[b->ndirty++] = i;
  return 0;
}

/* Position of framed particle i in its cluster's frame, x - D, periodic axes wrapped. */
static inline void frame_pos(const ballistic *b, const agglo_box *box, int32_t i, double *y) {
  const double *x = b->sys->x + 3 * (size_t)i, *D = b->D + 3 * (size_t)b->cid[i];
  for (int k = 0; k < 3; k++) y[k] = x[k] - D[k];
  agglo_box_wrap(box, y);
}

/* (Re)bin particle i of a framed cluster in the frame grid at its current position in the frame;
   its candidate pairs are listed again at the next step. */
static void frame_bin(ballistic *b, int32_t i) {
  double y[3];
  frame_pos(b, &b->sys->box, i, y);
  int32_t c = (int32_t)fcell_of_pos(b, &b->sys->box, y);
  if (c != b->fcell[i]) {
    if (b->fcell[i] >= 0) glist_remove(b->fhead, b->fnext, b->fcell[i], i);
    b->fcell[i] = c, b->fnext[i] = b->fhead[c], b->fhead[c] = i;
  }
  double *fb = b->fbox + 6 * (size_t)b->cid[i], r = b->sys->r[i];
  for (int k = 0; k < 3; k++) {
    if (y[k] - r < fb[k]) fb[k] = y[k] - r;
    if (y[k] + r > fb[3 + k]) fb[3 + k] = y[k] + r;
  }
  if (mark_dirty(b, i) != 0) b->oom = 1;
}

/* Frames that moved more than frame_slack: reset (D = 0), members rebinned. */
static void reframe(ballistic *b) {
  double s2 = b->frame_slack * b->frame_slack;
  for (size_t k = 0; k < b->nframed; k++) {
    int32_t C = b->flist[k];
    double *D = b->D + 3 * (size_t)C;
    if (D[0] * D[0] + D[1] * D[1] + D[2] * D[2] <= s2) continue;
    D[0] = D[1] = D[2] = 0;
    for (int k = 0; k < 3; k++)
      b->fbox[6 * (size_t)C + k] = INFINITY, b->fbox[6 * (size_t)C + 3 + k] = -INFINITY;
    for (int32_t m = b->mhead[C]; m >= 0; m = b->mnext[m])
      if (b->fcell[m] >= 0) frame_bin(b, m), b->prof_reframed++;
  }
}

/* Rebuild the cell grid of the particles outside frames; those of framed clusters join the
   frame grid. */
static void small_rebin(ballistic *b, const agglo_system *s) {
  size_t m = 0;
  for (size_t k = 0; k < b->nsmall; k++) {
    int32_t i = b->small[k];
    if (b->framed[b->cid[i]]) frame_bin(b, i), b->npend[b->cid[i]]--;
    else b->small[m++] = i;
  }
  b->nsmall = m;
  grid_bin_list(b, s, b->small, m);
}

static int push_cand(ballistic *b, int32_t i, int32_t j) {
  if (b->nv == b->vcap) {
    size_t cap = b->vcap ? 2 * b->vcap : 1024;
    int32_t *a = realloc(b->va, cap * sizeof *a);
    if (a) b->va = a;
    int32_t *c = realloc(b->vb, cap * sizeof *c);
    if (c) b->vb = c;
    if (!a || !c) return -1;
    b->vcap = cap;
  }
  b->va[b->nv] = i, b->vb[b->nv] = j, b->nv++;
  return 0;
}

/* A pair of the start-of-step scan: overlapping (kept with its key) or a near miss. */
static inline int scan_pair(ballistic *b, const agglo_system *s, int32_t i, size_t ci, int32_t j) {
  double lim, d2 = pair_gap2(s, (size_t)i, (size_t)j, &lim);
  if (d2 < lim * lim) return push_key(b, &s->box, i, ci, j, cell_of_pos(b, &s->box, s->x + 3 * (size_t)j));
  if (d2 < (lim + b->grid_slack) * (lim + b->grid_slack)) {
    double g = sqrt(d2) - lim;
    if (g < b->min_gap) b->min_gap = g;
  }
  return 0;
}

/* scan_all with frames: the particles of the cell grid against each other and against the frame
   grid, then the candidate pairs of two framed clusters (listed again for the particles binned
   since the last step), all sorted into the full scan's order. A framed particle is at most
   frame_slack from its place in the frame grid, so the stencil of its frame position holds all
   particles of other frames within 2 r_max + r_max/4 + 2 frame_slack (one cell). */
static int scan_frames(ballistic *b, const agglo_system *s) {
  size_t cells[27];
  const agglo_box *box = &s->box;
  b->nkeys = 0;
  if (scan_all(b, s, 1) != 0) return -1;
  for (size_t p = 0; p < b->nbinned; p++) {
    int32_t i = b->members[p];
    size_t ci = (size_t)b->cell_of[i];
    int nc = fstencil(b, box, s->x + 3 * (size_t)i,
                      s->r[i] + b->r_max + b->grid_slack + b->frame_slack, cells);
    for (int q = 0; q < nc; q++)
      for (int32_t j = b->fhead[cells[q]]; j >= 0; j = b->fnext[j])
        if (scan_pair(b, s, i, ci, j) != 0) return -1;
  }
  if (b->ndirty) {
    size_t m = 0;
    for (size_t e = 0; e < b->nv; e++) {
      int32_t i = b->va[e], j = b->vb[e];
      if (b->dirty[i] || b->dirty[j] || b->cid[i] == b->cid[j]) continue;
      b->va[m] = i, b->vb[m] = j, m++;
    }
    b->nv = m;
    double reach = b->grid_slack + 2 * b->frame_slack;
    for (size_t k = 0; k < b->ndirty; k++) {
      int32_t i = b->dlist[k], ci = b->cid[i];
      double yi[3], yj[3], d[3];
      frame_pos(b, box, i, yi);
      int nc = fstencil(b, box, yi, s->r[i] + b->r_max + reach, cells);
      for (int q = 0; q < nc; q++)
        for (int32_t j = b->fhead[cells[q]]; j >= 0; j = b->fnext[j]) {
          if (b->cid[j] == ci || (b->dirty[j] && j < i)) continue;
          frame_pos(b, box, j, yj);
          agglo_box_delta(box, yi, yj, d);
          double lim = s->r[i] + s->r[j] + reach;
          if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < lim * lim && push_cand(b, i, j) != 0)
            return -1;
        }
    }
    for (size_t k = 0; k < b->ndirty; k++) b->dirty[b->dlist[k]] = 0;
    b->ndirty = 0;
  }
  b->prof_cand += (double)b->nv;
  for (size_t e = 0; e < b->nv; e++) {
    int32_t i = b->va[e], j = b->vb[e];
    if (b->cid[i] == b->cid[j]) continue;
    if (scan_pair(b, s, i, cell_of_pos(b, box, s->x + 3 * (size_t)i), j) != 0) return -1;
  }
  qsort(b->keys, b->nkeys, sizeof *b->keys, key_cmp);
  b->np = 0;
  for (size_t k = 0; k < b->nkeys; k++) {
    int32_t i = b->keys[k].lo, j = b->keys[k].hi;
    if (push_pair(b, i < j ? i : j, i < j ? j : i) != 0) return -1;
  }
  return 0;
}

/* Overlapping unlinked pairs that involve a particle moved by the minimiser, per moved particle
   in the order of its partners' indices (an order that does not depend on how the grids were
   binned: with or without frames, the same pairs in the same order). */
static int check_moved_pair(ballistic *b, const agglo_system *s, size_t i, size_t j) {
  if (j == i) return 0;
  double lim, d2 = pair_gap2(s, i, j, &lim);
  if (d2 < lim * lim && !agglo_links_has(&b->L, (int32_t)i, (int32_t)j))
    /* both ends may be moved: the link is added once (checked again on adding) */
    return push_pair(b, (int32_t)(i < j ? i : j), (int32_t)(i < j ? j : i));
  return 0;
}

static int scan_moved(ballistic *b, const agglo_system *s, const int32_t *moved, size_t nm) {
  size_t cells[27];
  b->np = 0;
  for (size_t k = 0; k < nm; k++) {
    size_t i = (size_t)moved[k], np0 = b->np;
    int nc = stencil(b, &s->box, s->x + 3 * i, cells);
    for (int q = 0; q < nc; q++)
      for (size_t p = (size_t)b->cstart[cells[q]], pe = p + (size_t)b->ccount[cells[q]]; p < pe; p++)
        if (check_moved_pair(b, s, i, (size_t)b->members[p]) != 0) return -1;
    if (b->nframed) {
      nc = fstencil(b, &s->box, s->x + 3 * i, s->r[i] + b->r_max + b->frame_slack, cells);
      for (int q = 0; q < nc; q++)
        for (int32_t j = b->fhead[cells[q]]; j >= 0; j = b->fnext[j])
          if (check_moved_pair(b, s, i, (size_t)j) != 0) return -1;
    }
    /* partners of i in ascending order (few: insertion sort) */
    for (size_t u = np0 + 1; u < b->np; u++) {
      int32_t a = b->pi[u], c = b->pj[u], key = a == (int32_t)i ? c : a;
      size_t v = u;
      for (; v > np0; v--) {
        int32_t kv = b->pi[v - 1] == (int32_t)i ? b->pj[v - 1] : b->pi[v - 1];
        if (kv <= key) break;
        b->pi[v] = b->pi[v - 1], b->pj[v] = b->pj[v - 1];
      }
      b->pi[v] = a, b->pj[v] = c;
    }
  }
  return 0;
}

/* Turn the pairs found into links (lambda = 1/2), merge clusters, seed the minimiser. */
static int link_pairs(ballistic *b) {
  b->nseeds = 0;
  for (size_t k = 0; k < b->np; k++) {
    int32_t i = b->pi[k], j = b->pj[k];
    if (agglo_links_has(&b->L, i, j)) continue;
    if (agglo_links_add(&b->L, i, j, 0.5) != 0) return -1;
    unite(b, i, j);
    if (push_seed(b, i) != 0 || push_seed(b, j) != 0) return -1;
  }
  return 0;
}

/* Clusters that cross a wall: translate them back, flipping the normal velocity if they move
   outward (specular reflection of the whole cluster). reflect = 0: only push back inside. The
   frames follow their clusters' shifts. */
/* Does particle i reach beyond a wall? */
static inline int beyond_wall(const agglo_system *s, size_t i) {
  const double *x = s->x + 3 * i;
  for (int k = 0; k < s->dim; k++)
    if (!s->box.periodic[k] && (x[k] - s->r[i] < s->box.lo[k] || x[k] + s->r[i] > s->box.hi[k]))
      return 1;
  return 0;
}

static void walls(ballistic *b, agglo_system *s, int reflect) {
  int any_wall = 0;
  const agglo_box *box = &s->box;
  for (int k = 0; k < s->dim; k++) any_wall |= !box->periodic[k];
  if (!any_wall) return;
  /* the clusters with a particle beyond a wall, looked for among the particles outside frames
     and the members of the framed clusters whose bounding box (in their frame, never shrunk)
     may reach a wall or that have members waiting to join the frame grid; the other clusters
     are inside the box and stay where they are */
  int32_t *hl = b->hl;
  size_t nh = 0;
  b->wstamp_now++;
  b->prof_wall_p += (double)b->nsmall;
  for (size_t q = 0; q < b->nsmall; q++) {
    int32_t i = b->small[q], C = b->cid[i];
    if (!b->framed[C] && b->wstamp[C] != b->wstamp_now && beyond_wall(s, (size_t)i))
      b->wstamp[C] = b->wstamp_now, hl[nh++] = C;
  }
  for (size_t q = 0; q < b->nframed; q++) {
    int32_t C = b->flist[q];
    int may = b->npend[C] > 0;
    const double *fb = b->fbox + 6 * (size_t)C, *D = b->D + 3 * (size_t)C;
    for (int k = 0; k < s->dim && !may; k++) {
      if (box->periodic[k]) continue;
      double tol = 1e-9 * box->len[k];
      may = fb[k] + D[k] - tol <= box->lo[k] || fb[3 + k] + D[k] + tol >= box->hi[k];
    }
    if (!may) continue;
    b->prof_wall_p += b->csize[C];
    for (int32_t m = b->mhead[C]; m >= 0; m = b->mnext[m])
      if (beyond_wall(s, (size_t)m)) {
        b->wstamp[C] = b->wstamp_now, hl[nh++] = C;
        break;
      }
  }
  if (!nh) return;
  for (size_t q = 0; q < nh; q++) {
    size_t C = (size_t)hl[q], r = (size_t)find(b->parent, (int32_t)C);
    double *e = b->ext + 6 * C, *P = b->P + 3 * r, *sh = b->shift + 3 * C;
    for (int k = 0; k < 3; k++) e[k] = INFINITY, e[3 + k] = -INFINITY;
    for (int32_t m = b->mhead[C]; m >= 0; m = b->mnext[m]) {
      const double *x = s->x + 3 * (size_t)m;
      for (int k = 0; k < s->dim; k++) {
        double lo = x[k] - s->r[m], hi = x[k] + s->r[m];
        if (lo < e[k]) e[k] = lo;
        if (hi > e[3 + k]) e[3 + k] = hi;
      }
    }
    mark_changed(b, (int32_t)C);
    int moved = 0;
    for (int k = 0; k < s->dim; k++) {
      sh[k] = 0;
      if (box->periodic[k]) continue;
      double under = box->lo[k] - e[k], over = e[3 + k] - box->hi[k];
      if (under > 0 && over > 0) { /* spans the box: centre it, stop it along k [choice] */
        sh[k] = 0.5 * (under - over);
        P[k] = 0;
      } else if (under > 0) {
        if (reflect && P[k] < 0) P[k] = -P[k], sh[k] = 2 * under; /* mirror the motion */
        else sh[k] = under;
        if (e[3 + k] + sh[k] > box->hi[k]) sh[k] = box->hi[k] - e[3 + k];
        if (sh[k] < under) sh[k] = under;
      } else if (over > 0) {
        if (reflect && P[k] > 0) P[k] = -P[k], sh[k] = -2 * over;
        else sh[k] = -over;
        if (e[k] + sh[k] < box->lo[k]) sh[k] = box->lo[k] - e[k];
        if (sh[k] > -over) sh[k] = -over;
      }
      if (sh[k] != 0) moved = 1;
    }
    if (!moved) continue;
    if (b->framed[C])
      for (int k = 0; k < s->dim; k++) b->D[3 * C + k] += sh[k];
    for (int32_t m = b->mhead[C]; m >= 0; m = b->mnext[m])
      for (int k = 0; k < s->dim; k++) s->x[3 * (size_t)m + k] += sh[k];
  }
}

/* Root cache and velocity of particle i from its cluster's mass and momentum; 0 if the
   position or velocity is not finite. */
static inline int update_velocity(ballistic *b, agglo_system *s, size_t i) {
  int32_t r = find(b->parent, (int32_t)i);
  b->root[i] = r;
  double inv = 1.0 / b->M[r], *v = s->v + 3 * i;
  for (int k = 0; k < 3; k++) v[k] = k < s->dim ? b->P[3 * (size_t)r + k] * inv : 0;
  const double *x = s->x + 3 * i;
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) && isfinite(v[1]) &&
         isfinite(v[2]);
}

static int ball_step(void *state, agglo_system *s, agglo_step_info *info, char *err,
                     size_t errlen) {
  ballistic *b = state;
  const agglo_config *c = &b->cfg;
  size_t n = s->n;
  int d = s->dim;
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->bad_particle = SIZE_MAX;
  info->min_gap = INFINITY;
  int stop_t = c->ball_stop == BALL_STOP_T_END;
  /* 1. time step from the fastest cluster (rule (3.3)) */
  double vmax2 = 0;
  for (size_t k = 0; k < b->nsmall + b->nframed; k++) { /* roots outside frames, framed ones */
    size_t i = (size_t)(k < b->nsmall ? b->small[k] : find(b->parent, b->flist[k - b->nsmall]));
    if (b->parent[i] == (int32_t)i) {
      const double *P = b->P + 3 * i;
      double q = (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) / (b->M[i] * b->M[i]);
      if (q > vmax2) vmax2 = q;
    }
  }
  if ((!stop_t && b->n_clusters <= 1) || (stop_t && s->t >= c->t_end)) {
    info->finished = 1;
    return 0;
  }
  double dt;
  if (vmax2 == 0) { /* nothing moves: nothing will ever happen */
    dt = stop_t ? c->t_end - s->t : 0;
    info->finished = 1;
  } else {
    dt = c->ball_dt_factor * b->r_max / sqrt(vmax2);
    if (stop_t && s->t + dt > c->t_end) dt = c->t_end - s->t;
  }
  /* 2. free flight (s->v holds each particle's cluster velocity), root cache, walls */
  for (size_t q = 0; q < b->nframed; q++) {
    int32_t C = b->flist[q];
    for (int k = 0; k < d; k++) b->D[3 * (size_t)C + k] += dt * s->v[3 * (size_t)C + k];
  }
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i;
    const double *v = s->v + 3 * i;
    for (int k = 0; k < d; k++) x[k] += dt * v[k];
  }
  walls(b, s, 1);
  if (s->box.periodic[0] || s->box.periodic[1] || s->box.periodic[2])
    for (size_t i = 0; i < n; i++) agglo_box_wrap(&s->box, s->x + 3 * i);
  /* 3. interactions: new links from overlaps, relaxation, repeated while the set grows */
  b->min_gap = INFINITY;
  double t_scan = prof_now();
  b->sys = s;
  int fm = b->nframed > 0;
  if (fm) {
    b->prof_frame_steps++;
    reframe(b);
    small_rebin(b, s);
    if (b->oom || scan_frames(b, s) != 0) return agglo_fail(err, errlen, "out of memory");
  } else {
    grid_bin(b, s);
    if (scan_all(b, s, 0) != 0) return agglo_fail(err, errlen, "out of memory");
  }
  if (link_pairs(b) != 0) return agglo_fail(err, errlen, "out of memory");
  b->prof_scan_s += prof_now() - t_scan;
  double max_overlap = 0;
  int outer = 0, touched_walls = 0;
  while (b->nseeds > 0) {
    /* one relaxation per new link, in order: each stays in cache, and a relaxation that
       disturbs an earlier one's particles takes them up again (Gauss-Seidel across links) */
    double t_dah = prof_now();
    b->nmoved = 0;
    double max_move = 0;
    for (size_t q = 0; q + 1 < b->nseeds; q += 2) {
      agglo_dah_stats ds;
      if (agglo_dah_solve(&b->L, s->x, s->r, &s->box, b->seeds + q, 2, &b->dset, b->dah, &ds,
                          NULL, 0) != 0)
        return agglo_fail(err, errlen, "out of memory in the minimiser");
      info->iterations += ds.iterations;
      b->prof_work += ds.work, b->prof_solves++, b->prof_touched += (double)ds.active;
      b->prof_checks += ds.checks, b->prof_full += ds.full_checks;
      if (!ds.converged) info->converged = 0;
      if (ds.max_overlap > max_overlap) max_overlap = ds.max_overlap;
      if (ds.max_move > max_move) max_move = ds.max_move;
      size_t nm;
      const int32_t *mv = agglo_dah_moved(b->dah, &nm);
      if (b->nmoved + nm > b->mcap) {
        size_t cap = 2 * (b->nmoved + nm) + 256;
        int32_t *m2 = realloc(b->moved, cap * sizeof *m2);
        if (!m2) return agglo_fail(err, errlen, "out of memory");
        b->moved = m2, b->mcap = cap;
      }
      memcpy(b->moved + b->nmoved, mv, nm * sizeof *mv);
      b->nmoved += nm;
    }
    b->prof_dah_s += prof_now() - t_dah;
    outer++;
    b->moved_since_bin += max_move;
    const int32_t *moved = b->moved;
    size_t nm = b->nmoved;
    for (size_t k = 0; k < nm; k++)
      if (b->fcell[moved[k]] >= 0) frame_bin(b, moved[k]);
    if (b->moved_since_bin > b->grid_slack) {
      if (fm) small_rebin(b, s);
      else grid_bin(b, s);
    }
    for (size_t k = 0; k < nm && !touched_walls; k++) {
      const double *x = s->x + 3 * (size_t)moved[k];
      for (int q = 0; q < d; q++)
        if (!s->box.periodic[q] && (x[q] - s->r[moved[k]] < s->box.lo[q] ||
                                    x[q] + s->r[moved[k]] > s->box.hi[q]))
          touched_walls = 1;
    }
    if (b->oom || scan_moved(b, s, moved, nm) != 0 || link_pairs(b) != 0)
      return agglo_fail(err, errlen, "out of memory");
    if (outer >= 1000) {
      info->converged = 0;
      break;
    }
  }
  if (touched_walls) { /* the relaxation pushed a cluster through a wall: push it back [choice] */
    walls(b, s, 0);
  }
  /* 4. cluster velocities: mass-weighted mean of the pre-step velocities; in frames only the
     clusters that merged or hit a wall (the others keep their velocity and root) */
  size_t bad = SIZE_MAX;
  b->prof_small_p += (double)b->nsmall;
  for (size_t k = 0; k < b->nsmall; k++) {
    size_t i = (size_t)b->small[k];
    if (!update_velocity(b, s, i) && i < bad) bad = i;
  }
  for (size_t q = 0; q < b->nframed; q++) {
    int32_t C = b->flist[q];
    const double *D = b->D + 3 * (size_t)C;
    if (!b->chg[C] && isfinite(D[0]) && isfinite(D[1]) && isfinite(D[2])) continue;
    b->prof_vel_p += b->csize[C];
    /* one root and one velocity for all members (the same values update_velocity gives) */
    int32_t r = find(b->parent, C);
    double inv = 1.0 / b->M[r], V[3];
    for (int k = 0; k < 3; k++) V[k] = k < d ? b->P[3 * (size_t)r + k] * inv : 0;
    int vok = isfinite(V[0]) && isfinite(V[1]) && isfinite(V[2]);
    for (int32_t m = b->mhead[C]; m >= 0; m = b->mnext[m]) {
      double *v = s->v + 3 * (size_t)m;
      const double *x = s->x + 3 * (size_t)m;
      b->root[m] = r;
      v[0] = V[0], v[1] = V[1], v[2] = V[2];
      if (!(vok && isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) && (size_t)m < bad)
        bad = (size_t)m;
    }
  }
  for (size_t q = 0; q < b->nchg; q++) b->chg[b->clist[q]] = 0;
  b->nchg = 0;
  s->step++;
  s->t += dt;
  info->outer_iterations = outer;
  info->max_violation = max_overlap;
  info->min_gap = b->min_gap;
  info->n_contacts = b->L.count;
  info->bad_particle = bad;
  if ((!stop_t && b->n_clusters <= 1) || (stop_t && s->t >= c->t_end * (1 - 1e-15)))
    info->finished = 1;
  return 0;
}

static double ball_contact_gap(const void *state) {
  const ballistic *b = state;
  double g = 10 * b->cfg.ball_tol;
  return (g < 0.1 ? g : 0.1) * b->r_mean;
}

/* Labels: the connected components of the links, named by their smallest id. */
static int ball_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size) {
  const ballistic *b = state;
  size_t n = s->n;
  int64_t *low = malloc((n ? n : 1) * sizeof *low);
  size_t *size = calloc(n ? n : 1, sizeof *size);
  if (!low || !size) {
    free(low); free(size);
    return -1;
  }
  for (size_t i = 0; i < n; i++) low[i] = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    int32_t r = find(b->parent, (int32_t)i);
    if (s->id[i] < low[r]) low[r] = s->id[i];
    size[r]++;
  }
  size_t nc = 0, mx = 0;
  for (size_t i = 0; i < n; i++) {
    s->cluster[i] = (int32_t)low[find(b->parent, (int32_t)i)];
    if (size[i]) {
      nc++;
      if (size[i] > mx) mx = size[i];
    }
  }
  *n_clusters = nc, *max_size = mx;
  free(low); free(size);
  return 0;
}

/* Restart: the links and their multipliers, then each cluster's mass and momentum as they were
   summed merge by merge (re-summing m v on loading would round differently: the restart would
   not go on bit for bit). Clusters are named by their root, the smallest index of the cluster. */
static int ball_save(const void *state, FILE *f) {
  const ballistic *b = state;
  fprintf(f, "# ballistic links: i j lambda (storage indices)\n%zu\n", b->L.count);
  for (size_t l = 0; l < b->L.count; l++)
    fprintf(f, "%d %d %.17g\n", b->L.link[l].a, b->L.link[l].b, b->L.link[l].lambda);
  fprintf(f, "# ballistic clusters: root mass momentum (3)\n%zu\n", b->n_clusters);
  for (size_t i = 0; i < b->n; i++)
    if (b->parent[i] == (int32_t)i)
      fprintf(f, "%zu %.17g %.17g %.17g %.17g\n", i, b->M[i], b->P[3 * i], b->P[3 * i + 1],
              b->P[3 * i + 2]);
  return ferror(f) ? -1 : 0;
}

static int ball_load(void *state, FILE *f, char *err, size_t errlen) {
  ballistic *b = state;
  char line[256];
  size_t cnt;
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1)
    return agglo_fail(err, errlen, "contacts file: missing header");
  for (size_t k = 0; k < cnt; k++) {
    int i, j;
    double lam;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lg", &i, &j, &lam) != 3 || i < 0 ||
        j < 0 || (size_t)i >= b->n || (size_t)j >= b->n)
      return agglo_fail(err, errlen, "contacts file: line %zu is not 'i j lambda'", k + 3);
    if (agglo_links_add(&b->L, i, j, lam) != 0) return agglo_fail(err, errlen, "out of memory");
    unite(b, i, j); /* members share the cluster velocity: the momenta add up to M V */
  }
  /* the saved sums, if present (files of older versions have only the links) */
  if (fgets(line, sizeof line, f) && fgets(line, sizeof line, f)) {
    if (sscanf(line, "%zu", &cnt) != 1 || cnt != b->n_clusters)
      return agglo_fail(err, errlen, "contacts file: %zu clusters expected after the links",
                        b->n_clusters);
    for (size_t k = 0; k < cnt; k++) {
      size_t r;
      double m, p[3];
      if (!fgets(line, sizeof line, f) ||
          sscanf(line, "%zu %lg %lg %lg %lg", &r, &m, &p[0], &p[1], &p[2]) != 5 || r >= b->n ||
          b->parent[r] != (int32_t)r)
        return agglo_fail(err, errlen, "contacts file: cluster line %zu is not 'root M P'", k + 1);
      b->M[r] = m;
      for (int q = 0; q < 3; q++) b->P[3 * r + q] = p[q];
    }
  }
  for (size_t i = 0; i < b->n; i++) b->root[i] = find(b->parent, (int32_t)i);
  return 0;
}

const agglo_model agglo_model_ballistic = {
    .name = "ballistic (time stepping)",
    .init = ball_init,
    .step = ball_step,
    .contact_gap = ball_contact_gap,
    .neighbors = NULL,
    .save = ball_save,
    .load = ball_load,
    .destroy = ball_destroy,
    .variable_step = 1,
    .labels = ball_labels,
};
