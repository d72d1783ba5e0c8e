#include "cells.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid: cells at least `cell` wide, particles counting-sorted by cell. */
typedef struct {
  int nc[3];
  double w[3];
  int32_t *cell_of;   /* n */
  size_t *first;      /* ncells+1 */
  int32_t *members;   /* n, grouped by cell, ascending index inside a cell */
} grid;

static int axis_cell(const agglo_system *s, const grid *g, int k, double xk) {
  if (g->nc[k] == 1) return 0;
  int c = (int)floor((xk - s->box.lo[k]) / g->w[k]);
  if (c < 0) c = 0;
  if (c >= g->nc[k]) c = g->nc[k] - 1;
  return c;
}

static int grid_build(grid *g, const agglo_system *s, double cell) {
  memset(g, 0, sizeof *g);
  size_t ncells = 1;
  for (int k = 0; k < 3; k++) {
    int nc = (k < s->dim) ? (int)floor(s->box.len[k] / cell) : 1;
    if (nc < 1) nc = 1;
    /* a periodic axis needs 3 cells for the 27-cell stencil to see each image once */
    if (s->box.periodic[k] && nc < 3) nc = 1;
    if (nc > 1 << 20) nc = 1 << 20;
    g->nc[k] = nc;
    g->w[k] = s->box.len[k] / nc;
    ncells *= (size_t)nc;
  }
  size_t n = s->n;
  g->cell_of = malloc((n ? n : 1) * sizeof *g->cell_of);
  g->first = calloc(ncells + 1, sizeof *g->first);
  g->members = malloc((n ? n : 1) * sizeof *g->members);
  if (!g->cell_of || !g->first || !g->members) return -1;
  for (size_t i = 0; i < n; i++) {
    const double *x = s->x + 3 * i;
    int c0 = axis_cell(s, g, 0, x[0]), c1 = axis_cell(s, g, 1, x[1]), c2 = axis_cell(s, g, 2, x[2]);
    int32_t c = (int32_t)(((size_t)c2 * g->nc[1] + c1) * g->nc[0] + c0);
    g->cell_of[i] = c;
    g->first[c + 1]++;
  }
  for (size_t c = 0; c < ncells; c++) g->first[c + 1] += g->first[c];
  size_t *fill = malloc((ncells + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, g->first, (ncells + 1) * sizeof *fill);
  for (size_t i = 0; i < n; i++) g->members[fill[g->cell_of[i]]++] = (int32_t)i;
  free(fill);
  return 0;
}

static void grid_free(grid *g) {
  free(g->cell_of); free(g->first); free(g->members);
}

/* Distinct neighbour cell indices along one axis (wrapping on periodic axes). */
static int axis_stencil(const agglo_system *s, const grid *g, int k, int c, int out[3]) {
  int m = 0;
  for (int d = -1; d <= 1; d++) {
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

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Partners j > i of particle i within the list distance; writes them when out != NULL. */
static size_t scan_particle(const agglo_system *s, const grid *g, size_t i, double reach,
                            int32_t *out) {
  const double *xi = s->x + 3 * i;
  int32_t ci = g->cell_of[i];
  int c[3] = {ci % g->nc[0], (ci / g->nc[0]) % g->nc[1], ci / (g->nc[0] * g->nc[1])};
  int sx[3], sy[3], sz[3];
  int mx = axis_stencil(s, g, 0, c[0], sx), my = axis_stencil(s, g, 1, c[1], sy),
      mz = axis_stencil(s, g, 2, c[2], sz);
  size_t cnt = 0;
  for (int a = 0; a < mz; a++)
    for (int b = 0; b < my; b++)
      for (int q = 0; q < mx; q++) {
        size_t cell = ((size_t)sz[a] * g->nc[1] + sy[b]) * g->nc[0] + sx[q];
        for (size_t p = g->first[cell]; p < g->first[cell + 1]; p++) {
          int32_t j = g->members[p];
          if ((size_t)j <= i) continue;
          double d[3];
          agglo_box_delta(&s->box, xi, s->x + 3 * (size_t)j, d);
          double lim = reach + s->r[i] + s->r[j];
          double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
          if (d2 < lim * lim) {
            if (out) out[cnt] = j;
            cnt++;
          }
        }
      }
  if (out) qsort(out, cnt, sizeof *out, cmp_i32);
  return cnt;
}

int agglo_neighbors_build(agglo_neighbors *nb, const agglo_system *s, double cutoff, double skin) {
  size_t n = s->n;
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
  if (grid_build(&g, s, 2 * agglo_max_radius(s) + reach) != 0) {
    grid_free(&g);
    return -1;
  }
  size_t *cnt = nb->start + 1;
#pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < n; i++) cnt[i] = scan_particle(s, &g, i, reach, NULL);
  nb->start[0] = 0;
  for (size_t i = 0; i < n; i++) nb->start[i + 1] += nb->start[i];
  nb->npairs = nb->start[n];
  if (nb->npairs > nb->cap) {
    free(nb->nbr);
    nb->cap = nb->npairs + nb->npairs / 4 + 16;
    nb->nbr = malloc(nb->cap * sizeof *nb->nbr);
    if (!nb->nbr) {
      grid_free(&g);
      return -1;
    }
  }
#pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < n; i++) scan_particle(s, &g, i, reach, nb->nbr + nb->start[i]);
  grid_free(&g);
  memcpy(nb->x_ref, s->x, 3 * n * sizeof *s->x);
  nb->builds++;
  return 0;
}

int agglo_neighbors_stale(const agglo_neighbors *nb, const agglo_system *s) {
  if (!nb->start || nb->n != s->n) return 1;
  double lim2 = 0.25 * nb->skin * nb->skin;
  int stale = 0;
#pragma omp parallel for reduction(| : stale)
  for (size_t i = 0; i < s->n; i++) {
    double d[3];
    agglo_box_delta(&s->box, nb->x_ref + 3 * i, s->x + 3 * i, d);
    stale |= d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > lim2;
  }
  return stale;
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
  if (grid_build(&g, s, cell) != 0) {
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
  grid_free(&g);
  return ok ? 0 : -1;
}
