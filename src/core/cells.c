#include "core/cells.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The grid: cells at least `cell` wide, particles counting-sorted by cell. */
typedef struct {
  int nc[3], span;    /* cells per axis; the stencil reaches span cells each way */
  double w[3];
  int32_t *cell_of;   /* n */
  size_t *first;      /* ncells+1 */
  int32_t *members;   /* n, grouped by cell, ascending index inside a cell */
  double *gx, *gy, *gz, *gr; /* coordinates and radii in member order: contiguous scans */
} grid;

size_t agglo_grid_counts(int dim, const double len[3], const int *periodic, double cell,
                         int min_count, size_t n, int nc[3]) {
  const size_t max_cells = 8 * n + 4096;
  for (int k = 0; k < 3; k++) nc[k] = k < dim ? agglo_cells_along(len[k], cell) : 1;
  for (;;) {
    size_t total = 1;
    int finest = 0;
    for (int k = 0; k < 3; k++) {
      if (nc[k] < min_count && (!periodic || periodic[k])) nc[k] = 1;
      total *= (size_t)nc[k];
      if (nc[k] > nc[finest]) finest = k;
    }
    if (total <= max_cells) return total;
    nc[finest] /= 2;
  }
}

static int axis_cell(const agglo_system *s, const grid *g, int k, double xk) {
  if (g->nc[k] == 1) return 0;
  double c = floor((xk - s->box.lo[k]) / g->w[k]); /* clamped before the cast: any x is safe */
  if (!(c >= 0)) return 0;
  if (c >= g->nc[k]) return g->nc[k] - 1;
  return (int)c;
}

static int grid_build(grid *g, const agglo_system *s, double cell, int span) {
  memset(g, 0, sizeof *g);
  g->span = span;
  /* a periodic axis needs 2 span + 1 cells for the stencil to see each image once */
  size_t ncells = agglo_grid_counts(s->dim, s->box.len, s->box.periodic, cell, 2 * span + 1, s->n, g->nc);
  for (int k = 0; k < 3; k++) g->w[k] = s->box.len[k] / g->nc[k];
  size_t n = s->n;
  g->cell_of = malloc((n ? n : 1) * sizeof *g->cell_of);
  g->first = calloc(ncells + 1, sizeof *g->first);
  /* 4 more members: the list's vector scan reads up to 3 past a range (masked off) */
  g->members = malloc((n + 4) * sizeof *g->members);
  if (!g->cell_of || !g->first || !g->members) return -1;
  memset(g->members + n, 0, 4 * sizeof *g->members);
#pragma omp parallel for schedule(static) if (n > AGGLO_PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    const double *x = s->x + 3 * i;
    int c0 = axis_cell(s, g, 0, x[0]), c1 = axis_cell(s, g, 1, x[1]), c2 = axis_cell(s, g, 2, x[2]);
    g->cell_of[i] = (int32_t)(((size_t)c2 * g->nc[1] + c1) * g->nc[0] + c0);
  }
  for (size_t i = 0; i < n; i++) g->first[g->cell_of[i] + 1]++;
  for (size_t c = 0; c < ncells; c++) g->first[c + 1] += g->first[c];
  size_t *fill = malloc((ncells + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, g->first, (ncells + 1) * sizeof *fill);
  for (size_t i = 0; i < n; i++) g->members[fill[g->cell_of[i]]++] = (int32_t)i;
  free(fill);
  return 0;
}

static int grid_pack(grid *g, const agglo_system *s) {
  size_t n = s->n;
  g->gx = malloc((4 * n + 4) * sizeof *g->gx); /* (padded as members) */
  if (!g->gx) return -1;
  memset(g->gx + 4 * n, 0, 4 * sizeof *g->gx);
  g->gy = g->gx + n, g->gz = g->gy + n, g->gr = g->gz + n;
#pragma omp parallel for schedule(static) if (n > AGGLO_PAR_MIN)
  for (size_t q = 0; q < n; q++) {
    size_t i = (size_t)g->members[q];
    g->gx[q] = s->x[3 * i], g->gy[q] = s->x[3 * i + 1], g->gz[q] = s->x[3 * i + 2];
    g->gr[q] = s->r[i];
  }
  return 0;
}

static void grid_free(grid *g) {
  free(g->cell_of); free(g->first); free(g->members); free(g->gx);
}

/* Distinct neighbour cell indices along one axis (wrapping on periodic axes). */
#define MAX_SPAN 2
static int axis_stencil(const agglo_system *s, const grid *g, int k, int c, int out[2 * MAX_SPAN + 1]) {
  int m = 0;
  for (int d = -g->span; d <= g->span; d++) {
    int cc = c + d;
    if (cc < 0 || cc >= g->nc[k]) {
      if (!s->box.periodic[k]) continue;
      cc = (cc + g->nc[k]) % g->nc[k];
    }
    int dup = 0;
    for (int q = 0; q < m; q++) dup |= out[q] == cc;
    if (!dup) out[m++] = cc;
  }
  return m;
}

/* The stencil of every cell along one axis, made once per build: its cells (cell[c][0..ncell))
   and, along x, the same cells as runs of consecutive cells (lo..hi), each one contiguous range
   of members. The scan order does not matter: each particle's partners are sorted. */
typedef struct {
  int ncell, cell[2 * MAX_SPAN + 1];
  int nrun, lo[2 * MAX_SPAN + 1], hi[2 * MAX_SPAN + 1];
} axis_cells;

static axis_cells *axis_table(const agglo_system *s, const grid *g, int k) {
  axis_cells *t = malloc((size_t)g->nc[k] * sizeof *t);
  if (!t) return NULL;
  for (int c = 0; c < g->nc[k]; c++) {
    axis_cells *a = t + c;
    a->ncell = axis_stencil(s, g, k, c, a->cell);
    a->nrun = 0;
    for (int q = 0; q < a->ncell;) {
      int q1 = q + 1;
      while (q1 < a->ncell && a->cell[q1] == a->cell[q1 - 1] + 1) q1++;
      a->lo[a->nrun] = a->cell[q], a->hi[a->nrun++] = a->cell[q1 - 1];
      q = q1;
    }
  }
  return t;
}

/* Partners j > i of particle i within the list distance, appended to out (ascending). */
typedef struct {
  int32_t *v;
  size_t n, cap;
} ibuf;

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
/* pshufb masks that move the int32 lanes whose bit is set in the index to the front */
static const uint8_t left_pack[16][16] = {
#define L4(a) (uint8_t)(4 * (a)), (uint8_t)(4 * (a) + 1), (uint8_t)(4 * (a) + 2), (uint8_t)(4 * (a) + 3)
    {0},
    {L4(0)},
    {L4(1)},
    {L4(0), L4(1)},
    {L4(2)},
    {L4(0), L4(2)},
    {L4(1), L4(2)},
    {L4(0), L4(1), L4(2)},
    {L4(3)},
    {L4(0), L4(3)},
    {L4(1), L4(3)},
    {L4(0), L4(1), L4(3)},
    {L4(2), L4(3)},
    {L4(0), L4(2), L4(3)},
    {L4(1), L4(2), L4(3)},
    {L4(0), L4(1), L4(2), L4(3)},
#undef L4
};
#endif

/* The box's minimum image by rounding (L = 0 on a bounded axis leaves the difference alone), the
   same for every particle of a build */
typedef struct {
  double L[3], inv[3];
} box_round;

static box_round box_rounding(const agglo_system *s) {
  box_round b;
  for (int k = 0; k < 3; k++) {
    b.L[k] = s->box.periodic[k] ? s->box.len[k] : 0;
    b.inv[k] = b.L[k] > 0 ? 1 / b.L[k] : 0;
  }
  return b;
}

/* The members p0..p1 of the grid within the list distance of particle i and above it, appended
   to dst from cnt; returns the new count. 2D. The AVX2 path tests 4 members at once with the
   scalar path's operations lane by lane (GCC contracts the scalar path to these two fused
   negative multiply-adds and one fused multiply-add under -std=gnu11; the same bits), and reads
   up to 3 members past p1 (the grid's arrays are padded), masked off. */
typedef struct {
  size_t i;
  double x0, x1, L0, L1, i0, i1, reach_ri;
#if defined(__AVX2__) && defined(__FMA__)
  __m256d X0, X1, I0, I1, LL0, LL1, RR; /* the same, in 4 lanes */
  __m128i II;
#endif
} scan_of;

static inline __attribute__((always_inline)) scan_of scan_for(size_t i, double x0, double x1,
                                                              const box_round *br, double reach_ri) {
  scan_of o = {.i = i, .x0 = x0, .x1 = x1, .L0 = br->L[0], .L1 = br->L[1], .i0 = br->inv[0],
               .i1 = br->inv[1], .reach_ri = reach_ri};
#if defined(__AVX2__) && defined(__FMA__)
  o.X0 = _mm256_set1_pd(x0), o.X1 = _mm256_set1_pd(x1), o.I0 = _mm256_set1_pd(o.i0);
  o.I1 = _mm256_set1_pd(o.i1), o.LL0 = _mm256_set1_pd(o.L0), o.LL1 = _mm256_set1_pd(o.L1);
  o.RR = _mm256_set1_pd(reach_ri), o.II = _mm_set1_epi32((int32_t)i);
#endif
  return o;
}

static inline __attribute__((always_inline)) size_t scan_range_2(const grid *g, size_t p0, size_t p1,
                                                                 const scan_of *o, int32_t *dst,
                                                                 size_t cnt) {
#if defined(__AVX2__) && defined(__FMA__)
  const __m256d X0 = o->X0, X1 = o->X1, I0 = o->I0, I1 = o->I1, LL0 = o->LL0, LL1 = o->LL1,
                RR = o->RR;
  const __m128i II = o->II;
  for (size_t p = p0; p < p1; p += 4) {
    __m256d d0 = _mm256_sub_pd(_mm256_loadu_pd(g->gx + p), X0);
    __m256d d1 = _mm256_sub_pd(_mm256_loadu_pd(g->gy + p), X1);
    d0 = _mm256_fnmadd_pd(LL0, _mm256_round_pd(_mm256_mul_pd(d0, I0), _MM_FROUND_CUR_DIRECTION), d0);
    d1 = _mm256_fnmadd_pd(LL1, _mm256_round_pd(_mm256_mul_pd(d1, I1), _MM_FROUND_CUR_DIRECTION), d1);
    __m256d q = _mm256_fmadd_pd(d0, d0, _mm256_mul_pd(d1, d1));
    __m256d lim = _mm256_add_pd(RR, _mm256_loadu_pd(g->gr + p));
    int near = _mm256_movemask_pd(_mm256_cmp_pd(q, _mm256_mul_pd(lim, lim), _CMP_LT_OQ));
    __m128i j = _mm_loadu_si128((const __m128i *)(g->members + p));
    int above = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(j, II)));
    size_t left = p1 - p;
    int keep = near & above & (left >= 4 ? 15 : (1 << left) - 1);
    __m128i packed = _mm_shuffle_epi8(j, _mm_loadu_si128((const __m128i *)left_pack[keep]));
    _mm_storeu_si128((__m128i *)(dst + cnt), packed);
    cnt += (size_t)__builtin_popcount((unsigned)keep);
  }
#else
  size_t i = o->i;
  double x0 = o->x0, x1 = o->x1, L0 = o->L0, L1 = o->L1, i0 = o->i0, i1 = o->i1;
  for (size_t p = p0; p < p1; p++) {
    double d0 = g->gx[p] - x0, d1 = g->gy[p] - x1;
    d0 -= L0 * rint(d0 * i0);
    d1 -= L1 * rint(d1 * i1);
    double q = d0 * d0 + d1 * d1;
    double lim = o->reach_ri + g->gr[p];
    int32_t j = g->members[p];
    dst[cnt] = j;
    cnt += (size_t)((q < lim * lim) & ((size_t)j > i));
  }
#endif
  return cnt;
}

/* D = 2 leaves z out: in 2D every z is 0 (the readers refuse another), so the distances are the
   same bits without it */
static inline __attribute__((always_inline)) int scan_particle(const agglo_system *s, const grid *g,
                                                               const axis_cells *const tab[3],
                                                               const box_round *br, size_t i,
                                                               double reach, ibuf *out, int D) {
  const double *xi = s->x + 3 * i;
  double ri = s->r[i], x0 = xi[0], x1 = xi[1], x2 = xi[2];
  double L0 = br->L[0], L1 = br->L[1], L2 = br->L[2], i0 = br->inv[0], i1 = br->inv[1],
         i2 = br->inv[2];
  scan_of o = scan_for(i, x0, x1, br, reach + ri);
  int32_t ci = g->cell_of[i];
  const axis_cells *ax = tab[0] + ci % g->nc[0], *ay = tab[1] + (ci / g->nc[0]) % g->nc[1],
                   *az = tab[2] + ci / (g->nc[0] * g->nc[1]);
  size_t first = out->n;
  /* Lees-Edwards shear: the row of cells across a y face is shifted along x by the box's
     shear_x, not by whole cells; it is scanned whole, with the sheared minimum image */
  const int le = s->box.shear_x != 0 && s->box.periodic[1], cy = (int)((ci / g->nc[0]) % g->nc[1]);
  for (int a = 0; a < az->ncell; a++)
    for (int b = 0; b < ay->ncell; b++) {
      size_t row = ((size_t)az->cell[a] * g->nc[1] + ay->cell[b]) * g->nc[0];
      if (le && (g->nc[1] == 1 || abs(ay->cell[b] - cy) > 1)) {
        size_t p0 = g->first[row], p1 = g->first[row + g->nc[0]];
        if (out->n + (p1 - p0) + 4 > out->cap) {
          size_t cap = 2 * out->cap + (p1 - p0) + 1024;
          int32_t *nv = realloc(out->v, cap * sizeof *nv);
          if (!nv) return -1;
          out->v = nv, out->cap = cap;
        }
        for (size_t p = p0; p < p1; p++) {
          const double xj[3] = {g->gx[p], g->gy[p], g->gz[p]};
          double d[3], lim = reach + ri + g->gr[p];
          agglo_box_delta(&s->box, xi, xj, d);
          int32_t j = g->members[p];
          out->v[out->n] = j;
          out->n += (size_t)((d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < lim * lim) & ((size_t)j > i));
        }
        continue;
      }
      for (int q = 0; q < ax->nrun; q++) {
        /* a run of consecutive cells is one contiguous range of members */
        size_t p0 = g->first[row + ax->lo[q]], p1 = g->first[row + ax->hi[q] + 1];
        /* partners are above i: the members up to i at the start of the run are skipped, cell
           by cell (ascending within a cell; with the particles in cell order, simulation.c,
           often the whole row below) */
        for (int u = ax->lo[q]; u <= ax->hi[q]; u++) {
          size_t e = g->first[row + u + 1];
          if (p0 < e && (size_t)g->members[e - 1] <= i) { /* the whole cell: one test */
            p0 = e;
            continue;
          }
          while (p0 < e && (size_t)g->members[p0] <= i) p0++;
          if (p0 < e) break;
        }
        if (p0 >= p1) continue;
        /* (4 more: the vector path stores 4 lanes at a time) */
        if (out->n + (p1 - p0) + 4 > out->cap) {
          size_t cap = 2 * out->cap + (p1 - p0) + 1024;
          int32_t *nv = realloc(out->v, cap * sizeof *nv);
          if (!nv) return -1;
          out->v = nv, out->cap = cap;
        }
        int32_t *dst = out->v;
        size_t cnt = out->n;
        if (D == 2) {
          cnt = scan_range_2(g, p0, p1, &o, dst, cnt);
        } else {
          for (size_t p = p0; p < p1; p++) {
            double d0 = g->gx[p] - x0, d1 = g->gy[p] - x1;
            d0 -= L0 * rint(d0 * i0);
            d1 -= L1 * rint(d1 * i1);
            double q2 = d0 * d0 + d1 * d1;
            double d2 = g->gz[p] - x2;
            d2 -= L2 * rint(d2 * i2);
            q2 += d2 * d2;
            double lim = reach + ri + g->gr[p];
            int32_t j = g->members[p];
            dst[cnt] = j;
            cnt += (size_t)((q2 < lim * lim) & ((size_t)j > i));
          }
        }
        out->n = cnt;
      }
    }
  /* ascending partners (insertion sort: short, nearly sorted lists); none yet: out->v may be
     NULL, and NULL + 0 is undefined (fuzz_state, a restart point of far-apart particles) */
  size_t m = out->n - first;
  if (m < 2) return 0;
  int32_t *v = out->v + first;
  for (size_t a = 1; a < m; a++) {
    int32_t x = v[a];
    size_t b = a;
    while (b > 0 && v[b - 1] > x) v[b] = v[b - 1], b--;
    v[b] = x;
  }
  return 0;
}

int agglo_neighbors_build(agglo_neighbors *nb, const agglo_system *s, double cutoff, double skin) {
  return agglo_neighbors_build_first(nb, s, cutoff, skin, s->n);
}

int agglo_neighbors_build_first(agglo_neighbors *nb, const agglo_system *s, double cutoff,
                                double skin, size_t first) {
  size_t n = s->n;
  first = first < n ? first : n;
  if (nb->n != n || !nb->start) {
    free(nb->start); free(nb->x_ref);
    nb->start = calloc(n + 1, sizeof *nb->start);
    nb->x_ref = malloc(3 * (n ? n : 1) * sizeof *nb->x_ref);
    if (!nb->start || !nb->x_ref) return -1;
    nb->n = n;
  }
  nb->cutoff = cutoff;
  nb->skin = skin;
  double reach = cutoff + skin;
  grid g;
  /* cells one list distance wide, 3 x 3 (x 3) stencil, scanned as runs of consecutive cells
     (measured faster than half-width cells and a 5 x 5 stencil); each axis's stencils made once */
  if (grid_build(&g, s, 2 * agglo_max_radius(s) + reach, 1) != 0 || grid_pack(&g, s) != 0) {
    grid_free(&g);
    return -1;
  }
  const axis_cells *tab[3] = {axis_table(s, &g, 0), axis_table(s, &g, 1), axis_table(s, &g, 2)};
  const box_round br = box_rounding(s);
  if (!tab[0] || !tab[1] || !tab[2]) {
    for (int k = 0; k < 3; k++) free((void *)tab[k]);
    grid_free(&g);
    return -1;
  }
  /* one scan: each thread lists a contiguous range of particles into its own buffer, then the
     buffers are concatenated in particle order (the list does not depend on the threads) */
  int failed = 0;
  size_t *tot = NULL;
#pragma omp parallel if (first > AGGLO_PAR_MIN_PAIRS)
  {
    int nt = 1, tid = 0;
#ifdef _OPENMP
    nt = omp_get_num_threads();
    tid = omp_get_thread_num();
#endif
#pragma omp single
    {
      tot = calloc((size_t)nt + 1, sizeof *tot);
      if (!tot) failed = 1;
    }
    ibuf buf = {0};
    size_t a = first * (size_t)tid / (size_t)nt, b = first * (size_t)(tid + 1) / (size_t)nt;
    int bad = failed;
    for (size_t i = a; i < b && !bad; i++) {
      size_t before = buf.n;
      bad = (s->dim == 2 ? scan_particle(s, &g, tab, &br, i, reach, &buf, 2)
                         : scan_particle(s, &g, tab, &br, i, reach, &buf, 3)) != 0;
      nb->start[i + 1] = buf.n - before;
    }
    if (bad) {
#pragma omp atomic write
      failed = 1;
    }
    if (!failed) tot[tid + 1] = buf.n;
#pragma omp barrier
#pragma omp single
    {
      for (int q = 0; q < nt; q++) tot[q + 1] += tot[q];
      nb->npairs = tot[nt];
      if (!failed && nb->npairs > nb->cap) {
        free(nb->nbr);
        nb->cap = nb->npairs + nb->npairs / 4 + 16;
        nb->nbr = malloc(nb->cap * sizeof *nb->nbr);
        if (!nb->nbr) failed = 1, nb->cap = 0;
      }
    }
    if (!failed && buf.n) memcpy(nb->nbr + tot[tid], buf.v, buf.n * sizeof *buf.v);
    free(buf.v);
  }
  free(tot);
  for (int k = 0; k < 3; k++) free((void *)tab[k]);
  grid_free(&g);
  if (failed) return -1;
  nb->start[0] = 0;
  for (size_t i = first; i < n; i++) nb->start[i + 1] = 0;
  for (size_t i = 0; i < n; i++) nb->start[i + 1] += nb->start[i];
  memcpy(nb->x_ref, s->x, 3 * n * sizeof *s->x);
  nb->builds++;
  return 0;
}

int agglo_neighbors_stale(const agglo_neighbors *nb, const agglo_system *s) {
  if (!nb->start || nb->n != s->n) return 1;
  /* a pair's separation changed by at most the sum of the two largest displacements */
  double top1 = 0, top2 = 0;
#pragma omp parallel if (s->n > AGGLO_PAR_MIN)
  {
    double a1 = 0, a2 = 0;
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < s->n; i++) {
      double d[3];
      agglo_box_delta(&s->box, nb->x_ref + 3 * i, s->x + 3 * i, d);
      double q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (q > a2) {
        if (q > a1) a2 = a1, a1 = q;
        else a2 = q;
      }
    }
#pragma omp critical(agglo_stale)
    {
      double v[4] = {top1, top2, a1, a2};
      for (int x = 0; x < 4; x++)
        for (int y = x + 1; y < 4; y++)
          if (v[y] > v[x]) { double tmp = v[x]; v[x] = v[y]; v[y] = tmp; }
      top1 = v[0], top2 = v[1];
    }
  }
  return sqrt(top1) + sqrt(top2) > nb->skin;
}

int agglo_neighbors_update(agglo_neighbors *nb, const agglo_system *s) {
  return agglo_neighbors_stale(nb, s) ? agglo_neighbors_build(nb, s, nb->cutoff, nb->skin) : 0;
}

void agglo_neighbors_free(agglo_neighbors *nb) {
  free(nb->start); free(nb->nbr); free(nb->x_ref);
  memset(nb, 0, sizeof *nb);
}

#define PERMUTE(arr, T, width)                                             \
  do {                                                                     \
    T *tmp = malloc(n * (width) * sizeof(T));                              \
    if (!tmp) { ok = 0; break; }                                           \
    for (size_t p = 0; p < n; p++)                                         \
      memcpy(tmp + p * (width), (arr) + (size_t)order[p] * (width), (width) * sizeof(T)); \
    memcpy((arr), tmp, n * (width) * sizeof(T));                           \
    free(tmp);                                                             \
  } while (0)

int agglo_sort_spatially(agglo_system *s, double cell) {
  size_t n = s->n;
  if (n < 2) return 0;
  grid g;
  if (grid_build(&g, s, cell, 1) != 0) {
    grid_free(&g);
    return -1;
  }
  const int32_t *order = g.members;
  int ok = 1;
  PERMUTE(s->x, double, 3);
  PERMUTE(s->v, double, 3);
  PERMUTE(s->r, double, 1);
  PERMUTE(s->m, double, 1);
  PERMUTE(s->inv_m, double, 1);
  PERMUTE(s->id, int64_t, 1);
  PERMUTE(s->cluster, int32_t, 1);
  if (s->species) PERMUTE(s->species, int32_t, 1);
  grid_free(&g);
  return ok ? 0 : -1;
}
