/* The hashed cell grid of contact_grid.h. */
#include "aggregates/contact_grid.h"
#include <math.h>
#include <stdlib.h>

/* Cell coordinates packed into one key, 21 bits each: cells 2^21 apart along an axis (a chain
   of millions of monomers) share a key, which costs distance tests, never a missed overlap (a
   cell and its neighbours are looked up by the same keys they were inserted with). */
static int64_t cell_key(long ix, long iy, long iz) {
  const uint64_t m = (1u << 21) - 1;
  uint64_t k = (((uint64_t)(ix + (1L << 20)) & m) << 42) | (((uint64_t)(iy + (1L << 20)) & m) << 21) |
               ((uint64_t)(iz + (1L << 20)) & m);
  return (int64_t)k; /* 63 bits: never INT64_MIN, the empty slot */
}

/* Fibonacci hashing: the slot is the product's top bits, which every bit of the key reaches (its
   bits 20.. below the top, used before, never saw the x coordinate: every cell of a row along x
   fell into one probe chain) */
static size_t slot_of(const agg_grid *g, int64_t key) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  size_t s = (size_t)(h >> g->shift);
  while (g->key[s] != INT64_MIN && g->key[s] != key) s = (s + 1) & (g->cap - 1);
  return s;
}

int agg_grid_init(agg_grid *g, int dim, double side, const double *x, const double *r,
                  size_t first, size_t n) {
  *g = (agg_grid){.side = side, .dim = dim, .x = x, .r = r, .first = first, .n_cap = n};
  g->cap = 16, g->shift = 60;
  while (g->cap < 2 * n) g->cap *= 2, g->shift--;
  g->key = malloc(g->cap * sizeof *g->key);
  g->head = malloc(g->cap * sizeof *g->head);
  g->next = malloc((n ? n : 1) * sizeof *g->next);
  if (!g->key || !g->head || !g->next) return agg_grid_free(g), -1;
  for (size_t s = 0; s < g->cap; s++) g->key[s] = INT64_MIN;
  return 0;
}

static void cell_of(const agg_grid *g, const double *y, long c[3]) {
  for (int k = 0; k < 3; k++) c[k] = k < g->dim ? (long)floor(y[k] / g->side) : 0;
}

void agg_grid_insert(agg_grid *g, size_t local) {
  long c[3];
  cell_of(g, g->x + 3 * (g->first + local), c);
  int64_t key = cell_key(c[0], c[1], c[2]);
  size_t s = slot_of(g, key);
  if (g->key[s] != key) g->key[s] = key, g->head[s] = -1;
  g->next[local] = g->head[s];
  g->head[s] = (int32_t)local;
  g->n++;
}

/* The occupied slots of the cells around y's (3x3x3, 3x3 in 2D), in a fixed order: at most 27. */
static int near_slots(const agg_grid *g, const double y[3], size_t slots[27]) {
  long c[3];
  cell_of(g, y, c);
  int zr = g->dim == 3 ? 1 : 0, n = 0;
  for (long dx = -1; dx <= 1; dx++)
    for (long dy = -1; dy <= 1; dy++)
      for (long dz = -zr; dz <= zr; dz++) {
        int64_t key = cell_key(c[0] + dx, c[1] + dy, c[2] + dz);
        size_t s = slot_of(g, key);
        if (g->key[s] == key) slots[n++] = s;
      }
  return n;
}

int agg_grid_overlaps(const agg_grid *g, const double y[3], double ry, double tol) {
  size_t slots[27];
  int ns = near_slots(g, y, slots);
  for (int t = 0; t < ns; t++)
    for (int32_t k = g->head[slots[t]]; k >= 0; k = g->next[k]) {
      size_t i = g->first + (size_t)k;
      const double *xi = g->x + 3 * i;
      double d2 = 0;
      for (int q = 0; q < 3; q++) d2 += (y[q] - xi[q]) * (y[q] - xi[q]);
      double reach = (ry + g->r[i]) * (1 - tol);
      if (d2 < reach * reach) return 1;
    }
  return 0;
}

size_t agg_grid_near(const agg_grid *g, const double y[3], size_t *out, size_t max) {
  size_t slots[27], n = 0;
  int ns = near_slots(g, y, slots);
  for (int t = 0; t < ns; t++)
    for (int32_t k = g->head[slots[t]]; k >= 0 && n < max; k = g->next[k]) out[n++] = (size_t)k;
  return n;
}

void agg_grid_free(agg_grid *g) {
  free(g->key), free(g->head), free(g->next);
  g->key = NULL, g->head = NULL, g->next = NULL;
}
