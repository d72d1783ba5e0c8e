#include "constraints.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int reserve(agglo_constraints *c, size_t need) {
  if (need <= c->cap) return 0;
  size_t cap = need + need / 2 + 64;
#define GROW(p, w)                                              \
  do {                                                          \
    void *q = realloc(c->p, cap * (w) * sizeof *c->p);          \
    if (!q) return -1;                                          \
    c->p = q;                                                   \
  } while (0)
  GROW(i, 1); GROW(j, 1); GROW(e, 3); GROW(gap, 1); GROW(lambda, 1); GROW(gamma, 1); GROW(equality, 1);
#undef GROW
  c->cap = cap;
  return 0;
}

/* Order of contacts: by i, then walls (negative j) before pairs, then by j. */
static int key_less(int32_t ai, int32_t aj, int32_t bi, int32_t bj) {
  return ai < bi || (ai == bi && aj < bj);
}

int agglo_constraints_collect(agglo_constraints *c, const agglo_system *s, const agglo_neighbors *nb,
                              double reach) {
  /* keep the old set to carry multipliers across */
  agglo_constraints old = *c;
  agglo_constraints fresh = {0};
  size_t n = s->n, m = 0;
  int dim = s->dim;
  for (size_t i = 0; i < n; i++) {
    for (int w = 0; w < 2 * dim; w++) {
      if (s->box.periodic[w / 2]) continue;
      double g = agglo_wall_gap(s, w, i);
      if (g >= reach) continue;
      if (reserve(&fresh, m + 1)) goto fail;
      fresh.i[m] = (int32_t)i;
      fresh.j[m] = -1 - w;
      double *e = fresh.e + 3 * m;
      e[0] = e[1] = e[2] = 0;
      e[w / 2] = (w & 1) ? -1.0 : 1.0;
      fresh.gap[m] = g;
      m++;
    }
    for (size_t p = nb->start[i]; p < nb->start[i + 1]; p++) {
      int32_t j = nb->nbr[p];
      double d[3];
      agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * (size_t)j, d);
      double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      double g = dist - s->r[i] - s->r[j];
      if (g >= reach) continue;
      if (reserve(&fresh, m + 1)) goto fail;
      fresh.i[m] = (int32_t)i;
      fresh.j[m] = j;
      double inv = dist > 0 ? 1.0 / dist : 0.0;
      fresh.e[3 * m] = d[0] * inv;
      fresh.e[3 * m + 1] = d[1] * inv;
      fresh.e[3 * m + 2] = d[2] * inv;
      if (dist == 0) fresh.e[3 * m] = 1.0; /* coincident centres: any direction */
      fresh.gap[m] = g;
      m++;
    }
  }
  /* carry lambda and gamma over by merging the two key-ordered lists */
  size_t q = 0;
  for (size_t p = 0; p < m; p++) {
    while (q < old.n && key_less(old.i[q], old.j[q], fresh.i[p], fresh.j[p])) q++;
    int same = q < old.n && old.i[q] == fresh.i[p] && old.j[q] == fresh.j[p];
    fresh.lambda[p] = same ? old.lambda[q] : 0.0;
    fresh.gamma[p] = same ? old.gamma[q] : 0.0;
    fresh.equality[p] = 0;
  }
  fresh.n = m;
  fresh.inc_start = old.inc_start;
  fresh.inc = old.inc;
  fresh.inc_cap = old.inc_cap;
  fresh.np = old.np;
  old.inc_start = NULL;
  old.inc = NULL;
  old.n = 0;
  agglo_constraints_free(&old);
  *c = fresh;
  return agglo_constraints_index(c, n);
fail:
  agglo_constraints_free(&fresh);
  return -1;
}

int agglo_constraints_index(agglo_constraints *c, size_t np) {
  if (c->np != np || !c->inc_start) {
    free(c->inc_start);
    c->inc_start = calloc(np + 1, sizeof *c->inc_start);
    if (!c->inc_start) return -1;
    c->np = np;
  }
  memset(c->inc_start, 0, (np + 1) * sizeof *c->inc_start);
  for (size_t k = 0; k < c->n; k++) {
    c->inc_start[c->i[k] + 1]++;
    if (c->j[k] >= 0) c->inc_start[c->j[k] + 1]++;
  }
  int zmax = 0;
  for (size_t p = 0; p < np; p++) {
    if ((int)c->inc_start[p + 1] > zmax) zmax = (int)c->inc_start[p + 1];
    c->inc_start[p + 1] += c->inc_start[p];
  }
  c->max_per_particle = zmax;
  size_t total = c->inc_start[np];
  if (total > c->inc_cap) {
    free(c->inc);
    c->inc_cap = total + total / 2 + 64;
    c->inc = malloc(c->inc_cap * sizeof *c->inc);
    if (!c->inc) return -1;
  }
  size_t *fill = malloc((np + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, c->inc_start, (np + 1) * sizeof *fill);
  /* constraints in ascending order, so each particle's list is ascending: sums are deterministic */
  for (size_t k = 0; k < c->n; k++) {
    c->inc[fill[c->i[k]]++] = (uint32_t)(2 * k);
    if (c->j[k] >= 0) c->inc[fill[c->j[k]]++] = (uint32_t)(2 * k + 1);
  }
  free(fill);
  return 0;
}

void agglo_constraints_free(agglo_constraints *c) {
  free(c->i); free(c->j); free(c->e); free(c->gap); free(c->lambda); free(c->gamma);
  free(c->equality); free(c->inc_start); free(c->inc);
  memset(c, 0, sizeof *c);
}
