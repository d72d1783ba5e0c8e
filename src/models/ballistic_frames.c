/* Overlap search of the ballistic time stepping with frames (ballistic_frames.h). The pairs
   found are sorted into the order of the full cell-by-cell scan, so the dynamics are the same
   bit for bit with or without frames. */
#include "models/ballistic_frames.h"
#include "core/cells.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pair with its place in the order of the full cell-by-cell scan: cell of the lower slot,
   rank of the other cell in that cell's stencil, then the two particles (slot order). */
struct agglo_pair_key {
  size_t cell;
  int rank;
  int32_t lo, hi;
};

void agglo_frames_free(agglo_frames *f) {
  free(f->pi); free(f->pj);
  free(f->cid); free(f->mhead); free(f->mtail); free(f->mnext); free(f->csize);
  free(f->framed); free(f->D); free(f->fbox); free(f->npend); free(f->flist); free(f->fpos);
  free(f->small);
  free(f->cell_of); free(f->members); free(f->cstart); free(f->ccount); free(f->occ);
  free(f->rk); free(f->rk2); free(f->rv); free(f->rv2); free(f->xs); free(f->rs);
  free(f->fhead); free(f->fnext); free(f->fcell);
  free(f->va); free(f->vb); free(f->dirty); free(f->dlist); free(f->keys); free(f->wstamp);
  memset(f, 0, sizeof *f);
}

/* A grid of cells at least `cell` wide (one along a periodic axis too short for three). */
static size_t grid_geometry(const agglo_system *s, double cell, int *ncv, double *w) {
  size_t ncells = agglo_grid_counts(s->dim, s->box.len, s->box.periodic, cell, 3, s->n, ncv);
  for (int k = 0; k < 3; k++) w[k] = s->box.len[k] / ncv[k];
  return ncells;
}

int agglo_frames_init(agglo_frames *f, const agglo_system *s, double r_max, size_t frame_min,
                      double frame_slack) {
  memset(f, 0, sizeof *f);
  size_t n = s->n, m = n ? n : 1;
  f->r_max = r_max;
  f->cell_of = malloc(m * sizeof *f->cell_of);
  f->members = malloc(m * sizeof *f->members);
  f->xs = malloc(4 * m * sizeof *f->xs);
  f->rs = malloc(m * sizeof *f->rs);
  f->cid = malloc(m * sizeof *f->cid);
  f->mhead = malloc(m * sizeof *f->mhead);
  f->mtail = malloc(m * sizeof *f->mtail);
  f->mnext = malloc(m * sizeof *f->mnext);
  f->csize = malloc(m * sizeof *f->csize);
  f->framed = calloc(m, sizeof *f->framed);
  f->D = calloc(3 * m, sizeof *f->D);
  f->flist = malloc(m * sizeof *f->flist);
  f->fpos = malloc(m * sizeof *f->fpos);
  f->fnext = malloc(m * sizeof *f->fnext);
  f->fcell = malloc(m * sizeof *f->fcell);
  f->small = malloc(m * sizeof *f->small);
  f->dirty = calloc(m, sizeof *f->dirty);
  f->rk = malloc(m * sizeof *f->rk);
  f->rk2 = malloc(m * sizeof *f->rk2);
  f->rv = malloc(m * sizeof *f->rv);
  f->rv2 = malloc(m * sizeof *f->rv2);
  f->npend = calloc(m, sizeof *f->npend);
  f->fbox = malloc(6 * m * sizeof *f->fbox);
  f->wstamp = calloc(m, sizeof *f->wstamp);
  if (!f->cell_of || !f->members || !f->xs || !f->rs || !f->cid || !f->mhead || !f->mtail ||
      !f->mnext || !f->csize || !f->framed || !f->D || !f->flist || !f->fpos || !f->fnext ||
      !f->fcell || !f->small || !f->dirty || !f->rk || !f->rk2 || !f->rv || !f->rv2 ||
      !f->npend || !f->fbox || !f->wstamp)
    return -1;
  for (size_t i = 0; i < n; i++) {
    f->cid[i] = f->mhead[i] = f->mtail[i] = (int32_t)i;
    f->mnext[i] = -1;
    f->csize[i] = 1;
    f->fcell[i] = -1;
    f->small[i] = (int32_t)i;
  }
  f->nsmall = n;
  f->frame_min = frame_min;
  f->frame_slack = frame_slack * r_max;
  f->grid_slack = 0.25 * r_max;
  f->ncells = grid_geometry(s, 2 * r_max + 2 * f->grid_slack, f->nc, f->w);
  f->nfcells = grid_geometry(s, 2 * r_max + f->grid_slack + 2 * f->frame_slack, f->fnc, f->fw);
  f->cstart = calloc(f->ncells, sizeof *f->cstart);
  f->ccount = calloc(f->ncells, sizeof *f->ccount);
  f->occ = malloc((n < f->ncells ? m : f->ncells) * sizeof *f->occ);
  f->fhead = malloc(f->nfcells * sizeof *f->fhead);
  if (!f->cstart || !f->ccount || !f->occ || !f->fhead) return -2;
  for (size_t q = 0; q < f->nfcells; q++) f->fhead[q] = -1;
  return 0;
}
/* ---- cell grid ---- */


static inline int axis_cell(const agglo_frames *f, const agglo_box *box, int k, double xk) {
  if (f->nc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / f->w[k]);
  return c < 0 ? 0 : c >= f->nc[k] ? f->nc[k] - 1 : c;
}

static inline size_t cell_of_pos(const agglo_frames *f, const agglo_box *box, const double *x) {
  return ((size_t)axis_cell(f, box, 2, x[2]) * f->nc[1] + axis_cell(f, box, 1, x[1])) * f->nc[0] +
         axis_cell(f, box, 0, x[0]);
}

static int occ_cmp(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, c = *(const int32_t *)pb;
  return (a > c) - (a < c);
}

/* Bin all particles in the cell grid (counting sort over the cells): slots in cell order,
   members of a cell in ascending index (deterministic). */
static void grid_bin(agglo_frames *f, const agglo_system *s) {
  for (size_t q = 0; q < f->nocc; q++) f->ccount[f->occ[q]] = 0;
  f->nocc = 0;
  size_t cnt = s->n;
  for (size_t i = 0; i < cnt; i++) {
    int32_t c = (int32_t)cell_of_pos(f, &s->box, s->x + 3 * i);
    f->cell_of[i] = c;
    if (f->ccount[c]++ == 0) f->occ[f->nocc++] = c;
  }
  if (f->nocc > f->ncells / 16) {
    size_t m = 0;
    for (size_t c = 0; c < f->ncells; c++)
      if (f->ccount[c]) f->occ[m++] = (int32_t)c;
  } else {
    qsort(f->occ, f->nocc, sizeof *f->occ, occ_cmp);
  }
  int32_t start = 0;
  for (size_t q = 0; q < f->nocc; q++) f->cstart[f->occ[q]] = start, start += f->ccount[f->occ[q]];
  for (size_t i = 0; i < cnt; i++) f->members[f->cstart[f->cell_of[i]]++] = (int32_t)i;
  for (size_t q = 0; q < f->nocc; q++) f->cstart[f->occ[q]] -= f->ccount[f->occ[q]];
  f->nbinned = cnt;
  f->moved_since_bin = 0;
}

/* The same for the few particles of list (ascending), by a radix sort of (cell, index): memory
   is then touched in cell order, not at random. */
static void grid_bin_list(agglo_frames *f, const agglo_system *s, const int32_t *list, size_t cnt) {
  for (size_t q = 0; q < f->nocc; q++) f->ccount[f->occ[q]] = 0;
  uint32_t *ka = f->rk, *kb = f->rk2;
  int32_t *va = f->rv, *vb = f->rv2;
  for (size_t k = 0; k < cnt; k++) {
    int32_t i = list[k];
    int32_t c = (int32_t)cell_of_pos(f, &s->box, s->x + 3 * (size_t)i);
    f->cell_of[i] = c;
    ka[k] = (uint32_t)c, va[k] = i;
  }
  size_t hist[2048];
  for (int shift = 0; shift < 32 && (f->ncells - 1) >> shift; shift += 11) {
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
  f->nocc = 0;
  for (size_t k = 0; k < cnt; k++) {
    int32_t c = (int32_t)ka[k];
    if (k == 0 || ka[k - 1] != ka[k]) f->occ[f->nocc++] = c, f->cstart[c] = (int32_t)k;
    f->ccount[c]++;
    f->members[k] = va[k];
  }
  f->nbinned = cnt;
  f->moved_since_bin = 0;
}

/* Adds cell coordinate c to the axis list a (m entries) unless it is there already. */
static inline void axis_add(int *a, int *m, int c) {
  int dup = 0;
  for (int q = 0; q < *m; q++) dup |= a[q] == c;
  if (!dup) a[(*m)++] = c;
}

/* The cells of the product of the three axis lists, x fastest (grid of nc cells per axis). */
static inline int axis_product(int ax[3][3], const int m[3], const int *nc, size_t *cells) {
  int cnt = 0;
  for (int a = 0; a < m[2]; a++)
    for (int q = 0; q < m[1]; q++)
      for (int p = 0; p < m[0]; p++)
        cells[cnt++] = ((size_t)ax[2][a] * nc[1] + ax[1][q]) * nc[0] + ax[0][p];
  return cnt;
}

/* The distinct neighbour cells of the cell with coordinates cc3 (up to 27), in the order of the
   full scan. */
static int stencil_at(const agglo_frames *f, const agglo_box *box, const int *cc3,
                      size_t *cells) {
  const int *ncv = f->nc;
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
      axis_add(ax[k], &m[k], cc);
    }
  }
  return axis_product(ax, m, ncv, cells);
}

/* The distinct neighbour cells of position x (up to 27). */
static int stencil(const agglo_frames *f, const agglo_box *box, const double *x, size_t *cells) {
  int cc[3];
  for (int k = 0; k < 3; k++) cc[k] = axis_cell(f, box, k, x[k]);
  return stencil_at(f, box, cc, cells);
}

/* The frame grid: cells at least 2 r_max + grid_slack + 2 frame_slack wide. */
static inline int faxis_cell(const agglo_frames *f, const agglo_box *box, int k, double xk) {
  if (f->fnc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / f->fw[k]);
  return c < 0 ? 0 : c >= f->fnc[k] ? f->fnc[k] - 1 : c;
}

static inline size_t fcell_of_pos(const agglo_frames *f, const agglo_box *box, const double *x) {
  return ((size_t)faxis_cell(f, box, 2, x[2]) * f->fnc[1] + faxis_cell(f, box, 1, x[1])) *
             f->fnc[0] + faxis_cell(f, box, 0, x[0]);
}

/* The frame-grid cells that overlap the cube of half-side R around x (up to 27 distinct cells:
   R is at most one cell wide), in any order. */
static int fstencil(const agglo_frames *f, const agglo_box *box, const double *x, double R,
                    size_t *cells) {
  int ax[3][3], m[3];
  for (int k = 0; k < 3; k++) {
    m[k] = 0;
    if (f->fnc[k] == 1) {
      ax[k][m[k]++] = 0;
      continue;
    }
    R += 1e-9 * f->fw[k];
    int lo = (int)floor((x[k] - R - box->lo[k]) / f->fw[k]);
    int hi = (int)floor((x[k] + R - box->lo[k]) / f->fw[k]);
    if (hi - lo > 2) hi = lo + 2; /* never wider than three cells (R <= one cell) */
    for (int c = lo; c <= hi; c++) {
      int cc = c;
      if (box->periodic[k]) cc = ((cc % f->fnc[k]) + f->fnc[k]) % f->fnc[k];
      else if (cc < 0 || cc >= f->fnc[k]) {
        cc = cc < 0 ? 0 : f->fnc[k] - 1;
      }
      axis_add(ax[k], &m[k], cc);
    }
  }
  return axis_product(ax, m, f->fnc, cells);
}
/* Appends (i, j) to the pair list (a, b) of n entries, growing it from first by doubling. */
static int pair_push(int32_t **a, int32_t **b, size_t *n, size_t *cap, size_t first, int32_t i,
                     int32_t j) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : first;
    int32_t *na = realloc(*a, c * sizeof *na);
    if (na) *a = na;
    int32_t *nb = realloc(*b, c * sizeof *nb);
    if (nb) *b = nb;
    if (!na || !nb) return -1;
    *cap = c;
  }
  (*a)[*n] = i, (*b)[*n] = j, (*n)++;
  return 0;
}
static int push_pair(agglo_frames *f, int32_t i, int32_t j) {
  return pair_push(&f->pi, &f->pj, &f->np, &f->pcap, 256, i, j);
}

static inline double pair_gap2(const agglo_system *s, size_t i, size_t j, double *lim) {
  double d[3];
  agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
  *lim = s->r[i] + s->r[j];
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

static int push_key(agglo_frames *f, const agglo_box *box, int32_t i, size_t ci, int32_t j,
                    size_t cj) {
  if (f->nkeys == f->kcap) {
    size_t cap = f->kcap ? 2 * f->kcap : 256;
    struct agglo_pair_key *k = realloc(f->keys, cap * sizeof *k);
    if (!k) return -1;
    f->keys = k, f->kcap = cap;
  }
  /* the lower slot of the full scan: (cell, index) */
  if (cj < ci || (cj == ci && j < i)) {
    size_t tc = ci; ci = cj; cj = tc;
    int32_t t = i; i = j; j = t;
  }
  size_t cells[27];
  int cc[3] = {(int)(ci % (size_t)f->nc[0]), (int)(ci / (size_t)f->nc[0] % (size_t)f->nc[1]),
               (int)(ci / ((size_t)f->nc[0] * f->nc[1]))};
  int nc = stencil_at(f, box, cc, cells), rank = 0;
  while (rank < nc && cells[rank] != cj) rank++;
  f->keys[f->nkeys++] = (struct agglo_pair_key){ci, rank, i, j};
  return 0;
}

static int key_cmp(const void *pa, const void *pb) {
  const struct agglo_pair_key *a = pa, *c = pb;
  if (a->cell != c->cell) return a->cell < c->cell ? -1 : 1;
  if (a->rank != c->rank) return a->rank < c->rank ? -1 : 1;
  if (a->lo != c->lo) return a->lo < c->lo ? -1 : 1;
  return (a->hi > c->hi) - (a->hi < c->hi);
}

/* Overlapping pairs of different clusters (after free flight: clusters are rigid). Cell by
   cell on copies in cell order (positions, radii, roots): sequential memory access. keyed: the
   pairs go to the keys (with frames: the cell grid holds only the particles outside them). */
static int scan_all(agglo_frames *f, const agglo_system *s, const int32_t *root, int keyed) {
  size_t cells[27];
  f->np = 0;
  size_t n = f->nbinned;
  for (size_t p = 0; p < n; p++) {
    size_t i = (size_t)f->members[p];
    for (int k = 0; k < 3; k++) f->xs[4 * p + k] = s->x[3 * i + k];
    f->xs[4 * p + 3] = s->r[i];
    f->rs[p] = root[i];
  }
  const agglo_box *box = &s->box;
  int periodic = box->periodic[0] || box->periodic[1] || box->periodic[2];
  double reach_extra = f->grid_slack;
  /* interior cells: fixed offsets; cells on the faces: the general stencil */
  long off[27];
  int noff = 0;
  for (int dz = (f->nc[2] > 1 ? -1 : 0); dz <= (f->nc[2] > 1 ? 1 : 0); dz++)
    for (int dy = (f->nc[1] > 1 ? -1 : 0); dy <= (f->nc[1] > 1 ? 1 : 0); dy++)
      for (int dx = (f->nc[0] > 1 ? -1 : 0); dx <= (f->nc[0] > 1 ? 1 : 0); dx++)
        off[noff++] = ((long)dz * f->nc[1] + dy) * f->nc[0] + dx;
  for (size_t oq = 0; oq < f->nocc; oq++) {
    size_t c = (size_t)f->occ[oq];
    int cx = (int)(c % (size_t)f->nc[0]), cy = (int)(c / (size_t)f->nc[0] % (size_t)f->nc[1]),
        cz = (int)(c / ((size_t)f->nc[0] * f->nc[1]));
    size_t p0 = (size_t)f->cstart[c], p1 = p0 + (size_t)f->ccount[c];
    int interior = (f->nc[0] == 1 || (cx > 0 && cx < f->nc[0] - 1)) &&
                   (f->nc[1] == 1 || (cy > 0 && cy < f->nc[1] - 1)) &&
                   (f->nc[2] == 1 || (cz > 0 && cz < f->nc[2] - 1)) &&
                   (f->nc[0] > 2 || f->nc[0] == 1) && (f->nc[1] > 2 || f->nc[1] == 1) &&
                   (f->nc[2] > 2 || f->nc[2] == 1);
    int nc;
    if (interior) {
      for (int q = 0; q < noff; q++) cells[q] = (size_t)((long)c + off[q]);
      nc = noff;
    } else {
      nc = stencil(f, box, f->xs + 4 * p0, cells);
    }
    for (int q = 0; q < nc; q++) {
      size_t c2 = cells[q];
      size_t q0 = (size_t)f->cstart[c2], q1 = q0 + (size_t)f->ccount[c2];
      for (size_t p = p0; p < p1; p++) {
        const double *xi = f->xs + 4 * p;
        int32_t ri = f->rs[p];
        /* each pair once: from the lower cell, or the lower slot within a cell (the slots of
           a cell are in ascending index; the cells need not be in order) */
        if (c2 < c) continue;
        for (size_t u = c2 == c ? p + 1 : q0; u < q1; u++) {
          if (f->rs[u] == ri) continue;
          const double *xj = f->xs + 4 * u;
          double d[3];
          if (periodic) {
            agglo_box_delta(box, xi, xj, d);
          } else {
            d[0] = xj[0] - xi[0], d[1] = xj[1] - xi[1], d[2] = xj[2] - xi[2];
          }
          double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], lim = xi[3] + xj[3];
          if (d2 < lim * lim) {
            int32_t i = f->members[p], j = f->members[u];
            if (keyed ? push_key(f, box, i, c, j, c2) != 0
                      : push_pair(f, i < j ? i : j, i < j ? j : i) != 0)
              return -1;
          } else if (d2 < (lim + reach_extra) * (lim + reach_extra)) {
            double g = sqrt(d2) - lim;
            if (g < f->min_gap) f->min_gap = g;
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

static int mark_dirty(agglo_frames *f, int32_t i) {
  if (f->dirty[i]) return 0;
  if (f->ndirty == f->dcap) {
    size_t cap = f->dcap ? 2 * f->dcap : 1024;
    int32_t *a = realloc(f->dlist, cap * sizeof *a);
    if (!a) return -1;
    f->dlist = a, f->dcap = cap;
  }
  f->dirty[i] = 1;
  f->dlist[f->ndirty++] = i;
  return 0;
}

/* Position of framed particle i in its cluster's frame, x - D, periodic axes wrapped. */
static inline void frame_pos(const agglo_frames *f, const agglo_box *box, int32_t i, double *y) {
  const double *x = f->sys->x + 3 * (size_t)i, *D = f->D + 3 * (size_t)f->cid[i];
  for (int k = 0; k < 3; k++) y[k] = x[k] - D[k];
  agglo_box_wrap(box, y);
}

/* (Re)bin particle i of a framed cluster in the frame grid at its current position in the frame;
   its candidate pairs are listed again at the next step. */
static void frame_bin(agglo_frames *f, int32_t i) {
  double y[3];
  frame_pos(f, &f->sys->box, i, y);
  int32_t c = (int32_t)fcell_of_pos(f, &f->sys->box, y);
  if (c != f->fcell[i]) {
    if (f->fcell[i] >= 0) glist_remove(f->fhead, f->fnext, f->fcell[i], i);
    f->fcell[i] = c, f->fnext[i] = f->fhead[c], f->fhead[c] = i;
  }
  double *fb = f->fbox + 6 * (size_t)f->cid[i], r = f->sys->r[i];
  for (int k = 0; k < 3; k++) {
    if (y[k] - r < fb[k]) fb[k] = y[k] - r;
    if (y[k] + r > fb[3 + k]) fb[3 + k] = y[k] + r;
  }
  if (mark_dirty(f, i) != 0) f->oom = 1;
}

/* Frames that moved more than frame_slack: reset (D = 0), members rebinned. */
static void reframe(agglo_frames *f) {
  double s2 = f->frame_slack * f->frame_slack;
  for (size_t k = 0; k < f->nframed; k++) {
    int32_t C = f->flist[k];
    double *D = f->D + 3 * (size_t)C;
    if (D[0] * D[0] + D[1] * D[1] + D[2] * D[2] <= s2) continue;
    D[0] = D[1] = D[2] = 0;
    for (int k = 0; k < 3; k++)
      f->fbox[6 * (size_t)C + k] = INFINITY, f->fbox[6 * (size_t)C + 3 + k] = -INFINITY;
    for (int32_t m = f->mhead[C]; m >= 0; m = f->mnext[m])
      if (f->fcell[m] >= 0) frame_bin(f, m);
  }
}

/* Rebuild the cell grid of the particles outside frames; those of framed clusters join the
   frame grid. */
static void small_rebin(agglo_frames *f, const agglo_system *s) {
  size_t m = 0;
  for (size_t k = 0; k < f->nsmall; k++) {
    int32_t i = f->small[k];
    if (f->framed[f->cid[i]]) frame_bin(f, i), f->npend[f->cid[i]]--;
    else f->small[m++] = i;
  }
  f->nsmall = m;
  grid_bin_list(f, s, f->small, m);
}

static int push_cand(agglo_frames *f, int32_t i, int32_t j) {
  return pair_push(&f->va, &f->vb, &f->nv, &f->vcap, 1024, i, j);
}

/* A pair of the start-of-step scan: overlapping (kept with its key) or a near miss. */
static inline int scan_pair(agglo_frames *f, const agglo_system *s, int32_t i, size_t ci,
                            int32_t j) {
  double lim, d2 = pair_gap2(s, (size_t)i, (size_t)j, &lim);
  if (d2 < lim * lim)
    return push_key(f, &s->box, i, ci, j, cell_of_pos(f, &s->box, s->x + 3 * (size_t)j));
  if (d2 < (lim + f->grid_slack) * (lim + f->grid_slack)) {
    double g = sqrt(d2) - lim;
    if (g < f->min_gap) f->min_gap = g;
  }
  return 0;
}

/* scan_all with frames: the particles of the cell grid against each other and against the frame
   grid, then the candidate pairs of two framed clusters (listed again for the particles binned
   since the last step), all sorted into the full scan's order. A framed particle is at most
   frame_slack from its place in the frame grid, so the stencil of its frame position holds all
   particles of other frames within 2 r_max + r_max/4 + 2 frame_slack (one cell). */
static int scan_frames(agglo_frames *f, const agglo_system *s, const int32_t *root) {
  size_t cells[27];
  const agglo_box *box = &s->box;
  f->nkeys = 0;
  if (scan_all(f, s, root, 1) != 0) return -1;
  for (size_t p = 0; p < f->nbinned; p++) {
    int32_t i = f->members[p];
    size_t ci = (size_t)f->cell_of[i];
    int nc = fstencil(f, box, s->x + 3 * (size_t)i,
                      s->r[i] + f->r_max + f->grid_slack + f->frame_slack, cells);
    for (int q = 0; q < nc; q++)
      for (int32_t j = f->fhead[cells[q]]; j >= 0; j = f->fnext[j])
        if (scan_pair(f, s, i, ci, j) != 0) return -1;
  }
  if (f->ndirty) {
    size_t m = 0;
    for (size_t e = 0; e < f->nv; e++) {
      int32_t i = f->va[e], j = f->vb[e];
      if (f->dirty[i] || f->dirty[j] || f->cid[i] == f->cid[j]) continue;
      f->va[m] = i, f->vb[m] = j, m++;
    }
    f->nv = m;
    double reach = f->grid_slack + 2 * f->frame_slack;
    for (size_t k = 0; k < f->ndirty; k++) {
      int32_t i = f->dlist[k], ci = f->cid[i];
      double yi[3], yj[3], d[3];
      frame_pos(f, box, i, yi);
      int nc = fstencil(f, box, yi, s->r[i] + f->r_max + reach, cells);
      for (int q = 0; q < nc; q++)
        for (int32_t j = f->fhead[cells[q]]; j >= 0; j = f->fnext[j]) {
          if (f->cid[j] == ci || (f->dirty[j] && j < i)) continue;
          frame_pos(f, box, j, yj);
          agglo_box_delta(box, yi, yj, d);
          double lim = s->r[i] + s->r[j] + reach;
          if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < lim * lim && push_cand(f, i, j) != 0)
            return -1;
        }
    }
    for (size_t k = 0; k < f->ndirty; k++) f->dirty[f->dlist[k]] = 0;
    f->ndirty = 0;
  }
  for (size_t e = 0; e < f->nv; e++) {
    int32_t i = f->va[e], j = f->vb[e];
    if (f->cid[i] == f->cid[j]) continue;
    if (scan_pair(f, s, i, cell_of_pos(f, box, s->x + 3 * (size_t)i), j) != 0) return -1;
  }
  if (f->nkeys) qsort(f->keys, f->nkeys, sizeof *f->keys, key_cmp); /* keys may be NULL */
  f->np = 0;
  for (size_t k = 0; k < f->nkeys; k++) {
    int32_t i = f->keys[k].lo, j = f->keys[k].hi;
    if (push_pair(f, i < j ? i : j, i < j ? j : i) != 0) return -1;
  }
  return 0;
}

/* Overlapping unlinked pairs that involve a particle moved by the minimiser, per moved particle
   in the order of its partners' indices (an order that does not depend on how the grids were
   binned: with or without frames, the same pairs in the same order). */
static int check_moved_pair(agglo_frames *f, const agglo_system *s, const agglo_links *L,
                            size_t i, size_t j) {
  if (j == i) return 0;
  double lim, d2 = pair_gap2(s, i, j, &lim);
  if (d2 < lim * lim && !agglo_links_has(L, (int32_t)i, (int32_t)j))
    /* both ends may be moved: the link is added once (checked again on adding) */
    return push_pair(f, (int32_t)(i < j ? i : j), (int32_t)(i < j ? j : i));
  return 0;
}

static int scan_moved(agglo_frames *f, const agglo_system *s, const agglo_links *L,
                      const int32_t *moved, size_t nm) {
  size_t cells[27];
  f->np = 0;
  for (size_t k = 0; k < nm; k++) {
    size_t i = (size_t)moved[k], np0 = f->np;
    int nc = stencil(f, &s->box, s->x + 3 * i, cells);
    for (int q = 0; q < nc; q++) {
      size_t p0 = (size_t)f->cstart[cells[q]], p1 = p0 + (size_t)f->ccount[cells[q]];
      for (size_t p = p0; p < p1; p++)
        if (check_moved_pair(f, s, L, i, (size_t)f->members[p]) != 0) return -1;
    }
    if (f->nframed) {
      nc = fstencil(f, &s->box, s->x + 3 * i, s->r[i] + f->r_max + f->frame_slack, cells);
      for (int q = 0; q < nc; q++)
        for (int32_t j = f->fhead[cells[q]]; j >= 0; j = f->fnext[j])
          if (check_moved_pair(f, s, L, i, (size_t)j) != 0) return -1;
    }
    /* partners of i in ascending order (few: insertion sort) */
    for (size_t u = np0 + 1; u < f->np; u++) {
      int32_t a = f->pi[u], c = f->pj[u], key = a == (int32_t)i ? c : a;
      size_t v = u;
      for (; v > np0; v--) {
        int32_t kv = f->pi[v - 1] == (int32_t)i ? f->pj[v - 1] : f->pi[v - 1];
        if (kv <= key) break;
        f->pi[v] = f->pi[v - 1], f->pj[v] = f->pj[v - 1];
      }
      f->pi[v] = a, f->pj[v] = c;
    }
  }
  return 0;
}
/* ---- the interface ---- */

int32_t agglo_frames_merge(agglo_frames *f, int32_t i, int32_t j) {
  int32_t A = f->cid[i], B = f->cid[j];
  if (f->csize[A] < f->csize[B] || (f->csize[A] == f->csize[B] && B < A)) {
    int32_t t = A; A = B; B = t;
  }
  int fa = f->framed[A], fb = f->framed[B], fb0 = fb;
  if (!fa && fb) { /* A takes over B's frame: B's members keep their place in the frame grid */
    f->framed[A] = 1, f->framed[B] = 0;
    for (int k = 0; k < 3; k++) f->D[3 * (size_t)A + k] = f->D[3 * (size_t)B + k];
    for (int k = 0; k < 6; k++) f->fbox[6 * (size_t)A + k] = f->fbox[6 * (size_t)B + k];
    f->npend[A] = f->csize[A];
    f->flist[f->fpos[B]] = A, f->fpos[A] = f->fpos[B];
    fa = 1, fb = 0;
  }
  for (int32_t m = f->mhead[B]; m >= 0; m = f->mnext[m]) {
    f->cid[m] = A;
    if (fb && f->fcell[m] >= 0) frame_bin(f, m); /* into A's frame */
  }
  if (fa) f->npend[A] += fb0 ? f->npend[B] : f->csize[B];
  f->npend[B] = 0;
  if (fb) { /* B's frame goes */
    f->framed[B] = 0;
    int32_t last = f->flist[--f->nframed];
    f->flist[f->fpos[B]] = last, f->fpos[last] = f->fpos[B];
  }
  f->mnext[f->mtail[A]] = f->mhead[B], f->mtail[A] = f->mtail[B];
  f->mhead[B] = f->mtail[B] = -1;
  f->csize[A] += f->csize[B];
  if (!fa && (size_t)f->csize[A] >= f->frame_min) { /* a new frame: members join it when rebinned */
    f->framed[A] = 1;
    f->npend[A] = f->csize[A];
    for (int k = 0; k < 3; k++)
      f->D[3 * (size_t)A + k] = 0, f->fbox[6 * (size_t)A + k] = INFINITY,
      f->fbox[6 * (size_t)A + 3 + k] = -INFINITY;
    f->fpos[A] = (int32_t)f->nframed, f->flist[f->nframed++] = A;
  }
  return A;
}

void agglo_frames_fly(agglo_frames *f, const double *v, int dim, double dt) {
  for (size_t q = 0; q < f->nframed; q++) {
    int32_t C = f->flist[q];
    for (int k = 0; k < dim; k++) f->D[3 * (size_t)C + k] += dt * v[3 * (size_t)C + k];
  }
}

/* Does particle i reach beyond a wall? */
static inline int beyond_wall(const agglo_system *s, size_t i) {
  const double *x = s->x + 3 * i;
  for (int k = 0; k < s->dim; k++)
    if (!s->box.periodic[k] && (x[k] - s->r[i] < s->box.lo[k] || x[k] + s->r[i] > s->box.hi[k]))
      return 1;
  return 0;
}

/* Looked for among the particles outside frames and the members of the framed clusters whose
   bounding box (in their frame) may reach a wall or that have members waiting to join the frame
   grid: the other clusters are inside the box. */
size_t agglo_frames_beyond_walls(agglo_frames *f, const agglo_system *s, int32_t *out) {
  const agglo_box *box = &s->box;
  size_t nh = 0;
  f->wstamp_now++;
  for (size_t q = 0; q < f->nsmall; q++) {
    int32_t i = f->small[q], C = f->cid[i];
    if (!f->framed[C] && f->wstamp[C] != f->wstamp_now && beyond_wall(s, (size_t)i))
      f->wstamp[C] = f->wstamp_now, out[nh++] = C;
  }
  for (size_t q = 0; q < f->nframed; q++) {
    int32_t C = f->flist[q];
    int may = f->npend[C] > 0;
    const double *fb = f->fbox + 6 * (size_t)C, *D = f->D + 3 * (size_t)C;
    for (int k = 0; k < s->dim && !may; k++) {
      if (box->periodic[k]) continue;
      double tol = 1e-9 * box->len[k];
      may = fb[k] + D[k] - tol <= box->lo[k] || fb[3 + k] + D[k] + tol >= box->hi[k];
    }
    if (!may) continue;
    for (int32_t m = f->mhead[C]; m >= 0; m = f->mnext[m])
      if (beyond_wall(s, (size_t)m)) {
        f->wstamp[C] = f->wstamp_now, out[nh++] = C;
        break;
      }
  }
  return nh;
}

int agglo_frames_scan(agglo_frames *f, const agglo_system *s, const int32_t *root) {
  f->min_gap = INFINITY;
  f->sys = s;
  f->step_framed = f->nframed > 0;
  if (!f->step_framed) {
    grid_bin(f, s);
    return scan_all(f, s, root, 0);
  }
  reframe(f);
  small_rebin(f, s);
  return f->oom || scan_frames(f, s, root) != 0 ? -1 : 0;
}

int agglo_frames_rescan(agglo_frames *f, const agglo_system *s, const agglo_links *L,
                        const int32_t *moved, size_t nm, double max_move) {
  f->moved_since_bin += max_move;
  for (size_t k = 0; k < nm; k++)
    if (f->fcell[moved[k]] >= 0) frame_bin(f, moved[k]);
  if (f->moved_since_bin > f->grid_slack) {
    if (f->step_framed) small_rebin(f, s);
    else grid_bin(f, s);
  }
  return f->oom || scan_moved(f, s, L, moved, nm) != 0 ? -1 : 0;
}
