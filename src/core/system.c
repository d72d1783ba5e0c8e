#include "core/system.h"
#include "core/cells.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int agglo_system_alloc(agglo_system *s, int dim, size_t n) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->n = n;
  size_t m = n ? n : 1;
  s->x = calloc(3 * m, sizeof *s->x);
  s->v = calloc(3 * m, sizeof *s->v);
  s->r = calloc(m, sizeof *s->r);
  s->m = calloc(m, sizeof *s->m);
  s->inv_m = calloc(m, sizeof *s->inv_m);
  s->id = calloc(m, sizeof *s->id);
  s->cluster = calloc(m, sizeof *s->cluster);
  if (!s->x || !s->v || !s->r || !s->m || !s->inv_m || !s->id || !s->cluster) {
    agglo_system_free(s);
    return -1;
  }
  for (size_t i = 0; i < n; i++) s->id[i] = (int64_t)i, s->cluster[i] = (int32_t)i;
  return 0;
}

void agglo_system_free(agglo_system *s) {
  free(s->x); free(s->v); free(s->r); free(s->m); free(s->inv_m); free(s->id); free(s->cluster);
  free(s->species);
  memset(s, 0, sizeof *s);
}

double agglo_max_radius(const agglo_system *s) {
  double r = 0;
  for (size_t i = 0; i < s->n; i++) if (s->r[i] > r) r = s->r[i];
  return r;
}

double agglo_min_radius(const agglo_system *s) {
  double r = s->n ? s->r[0] : 0;
  for (size_t i = 0; i < s->n; i++) if (s->r[i] < r) r = s->r[i];
  return r;
}

double agglo_max_speed(const double *v, size_t n) {
  double q2 = 0;
#pragma omp parallel for reduction(max : q2) if (n > AGGLO_PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    const double *w = v + 3 * i;
    double q = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    if (q > q2) q2 = q;
  }
  return sqrt(q2);
}

double agglo_kinetic_energy(const agglo_system *s) {
  double e = 0;
  for (size_t i = 0; i < s->n; i++) {
    const double *v = s->v + 3 * i;
    e += 0.5 * s->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  return e;
}
