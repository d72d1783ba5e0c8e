#include "analysis/structure.h"
#include "analysis/line_fit.h"
#include "core/cells.h"
#include "core/error.h"
#include "analysis/stop.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- g(r) */

int agglo_rdf_init(agglo_rdf *g, double rmax, int bins) {
  memset(g, 0, sizeof *g);
  g->rmax = rmax, g->bins = bins;
  g->pairs = calloc((size_t)bins, sizeof *g->pairs);
  return g->pairs ? 0 : -1;
}

void agglo_rdf_free(agglo_rdf *g) {
  free(g->pairs);
  memset(g, 0, sizeof *g);
}

int agglo_rdf_add(agglo_rdf *g, const agglo_system *s) {
  size_t n = s->n;
  int d = s->dim;
  if (g->rmax <= 0) {
    g->rmax = INFINITY;
    for (int k = 0; k < d; k++) g->rmax = fmin(g->rmax, 0.5 * s->box.len[k]);
  }
  if (g->frames == 0) g->dim = d;
  double V = 1;
  for (int k = 0; k < d; k++) V *= s->box.len[k];
  /* cells at least rmax wide; fewer than 3 on an axis: one (every pair along it); at most
     8 n + 4096 of them (a tiny rmax in 3D asked for 1024^3) */
  int nc[3];
  size_t ncell = agglo_grid_counts(d, s->box.len, NULL, g->rmax, 3, n, nc);
  size_t *start = calloc(ncell + 2, sizeof *start), *item = malloc((n + 1) * sizeof *item);
  size_t *cell = malloc((n + 1) * sizeof *cell);
  if (!start || !item || !cell) {
    free(start), free(item), free(cell);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    size_t c = 0;
    for (int k = 2; k >= 0; k--) {
      int q = (int)floor((s->x[3 * i + k] - s->box.lo[k]) / s->box.len[k] * nc[k]);
      q = q < 0 ? 0 : q >= nc[k] ? nc[k] - 1 : q;
      c = c * (size_t)nc[k] + (size_t)q;
    }
    cell[i] = c;
    start[c + 2]++;
  }
  for (size_t c = 0; c < ncell; c++) start[c + 2] += start[c + 1];
  for (size_t i = 0; i < n; i++) item[start[cell[i] + 1]++] = i;
  /* now start[c] .. start[c + 1] are the members of cell c */
  double *h = calloc((size_t)g->bins, sizeof *h), r2max = g->rmax * g->rmax;
  if (!h) {
    free(start), free(item), free(cell);
    return -1;
  }
  for (size_t c = 0; c < ncell; c++) {
    int cc[3] = {(int)(c % nc[0]), (int)(c / nc[0] % nc[1]), (int)(c / nc[0] / nc[1])};
    for (int o = 0; o < 27; o++) {
      int off[3] = {o % 3 - 1, o / 3 % 3 - 1, o / 9 - 1}, q[3], skip = 0;
      for (int k = 0; k < 3; k++) {
        if (nc[k] == 1 && off[k] != 0) skip = 1;
        q[k] = cc[k] + off[k];
        if (q[k] < 0 || q[k] >= nc[k]) {
          if (!s->box.periodic[k]) skip = 1;
          q[k] = (q[k] + nc[k]) % nc[k];
        }
      }
      if (skip) continue;
      size_t c2 = ((size_t)q[2] * nc[1] + q[1]) * nc[0] + q[0];
      if (c2 < c) continue;
      for (size_t a = start[c]; a < start[c + 1]; a++)
        for (size_t b = c2 == c ? a + 1 : start[c2]; b < start[c2 + 1]; b++) {
          double dx[3];
          agglo_box_delta(&s->box, s->x + 3 * item[a], s->x + 3 * item[b], dx);
          double r2 = dx[0] * dx[0] + dx[1] * dx[1] + (d == 3 ? dx[2] * dx[2] : 0);
          if (r2 >= r2max) continue;
          int bin = (int)(sqrt(r2) / g->rmax * g->bins);
          if (bin < g->bins) h[bin] += 1;
        }
    }
  }
  /* pairs in a shell of an ideal gas of the same N and V: N (N - 1) / 2 * shell / V */
  double ideal = n > 1 ? 0.5 * (double)n * ((double)n - 1) / V : 1;
  for (int b = 0; b < g->bins; b++) g->pairs[b] += h[b] / ideal;
  g->frames++;
  free(h), free(start), free(item), free(cell);
  return 0;
}

double agglo_rdf_value(const agglo_rdf *g, int b) {
  double r1 = g->rmax * b / g->bins, r2 = g->rmax * (b + 1) / g->bins;
  double shell = g->dim == 2 ? M_PI * (r2 * r2 - r1 * r1)
                             : 4.0 / 3.0 * M_PI * (r2 * r2 * r2 - r1 * r1 * r1);
  return g->frames ? g->pairs[b] / ((double)g->frames * shell) : NAN;
}

void agglo_rdf_write(const agglo_rdf *g, FILE *f) {
  fprintf(f, "r,g\n");
  for (int b = 0; b < g->bins; b++)
    fprintf(f, "%.6g,%.6g\n", g->rmax * (b + 0.5) / g->bins, agglo_rdf_value(g, b));
}

/* ---------------------------------------------------------------- MSD */

static const int64_t *id_key;
static int by_id(const void *a, const void *b) {
  int64_t x = id_key[*(const size_t *)a], y = id_key[*(const size_t *)b];
  return (x > y) - (x < y);
}

int agglo_msd_add(agglo_msd *m, const agglo_system *s, char *err, size_t errlen) {
  size_t n = s->n;
  if (m->frames == 0) {
    m->dim = s->dim, m->n = n, m->box = s->box;
    m->order = malloc((n + 1) * sizeof *m->order);
    m->last = malloc((3 * n + 1) * sizeof *m->last);
    if (!m->order || !m->last) return agglo_fail(err, errlen, "out of memory (MSD)");
  } else if (n != m->n) {
    return agglo_fail(err, errlen, "MSD: frame %zu has %zu particles, the first had %zu",
                      m->frames + 1, n, m->n);
  }
  if (m->frames > 0 && !(s->t > m->t[m->frames - 1])) /* (lags of negative or zero time) */
    return agglo_fail(err, errlen, "MSD: frame %zu is at time %g, not after frame %zu's %g (the "
                      "mean-square displacement needs frames in increasing time; a file without Time= has every "
                      "frame at 0)", m->frames + 1,
                      s->t, m->frames, m->t[m->frames - 1]);
  if (m->frames == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 64;
    double *u = realloc(m->u, cap * 3 * (n ? n : 1) * sizeof *u);
    if (!u) return agglo_fail(err, errlen, "out of memory (MSD of %zu frames)", cap);
    m->u = u;
    double *t = realloc(m->t, cap * sizeof *t);
    if (!t) return agglo_fail(err, errlen, "out of memory (MSD)");
    m->t = t, m->cap = cap;
  }
  for (size_t i = 0; i < n; i++) m->order[i] = i;
  id_key = s->id; /* single-threaded use */
  qsort(m->order, n, sizeof *m->order, by_id);
  for (size_t a = 1; a < n; a++)
    if (s->id[m->order[a]] == s->id[m->order[a - 1]])
      return agglo_fail(err, errlen, "MSD: two particles with id %lld in frame %zu",
                        (long long)s->id[m->order[a]], m->frames + 1);
  double *u = m->u + 3 * n * m->frames, *prev = m->u + 3 * n * (m->frames ? m->frames - 1 : 0);
  for (size_t a = 0; a < n; a++) {
    const double *x = s->x + 3 * m->order[a];
    for (int k = 0; k < 3; k++) {
      double dx = m->frames ? x[k] - m->last[3 * a + k] : 0;
      if (m->box.periodic[k]) dx -= m->box.len[k] * rint(dx / m->box.len[k]);
      u[3 * a + k] = m->frames ? prev[3 * a + k] + dx : x[k];
      m->last[3 * a + k] = x[k];
    }
  }
  m->t[m->frames++] = s->t;
  return 0;
}

double agglo_msd_value(const agglo_msd *m, size_t k, double *lag_time) {
  size_t n = m->n, no = m->frames - k;
  double sum = 0, lag = 0;
  for (size_t j = 0; j < no; j++) {
    const double *a = m->u + 3 * n * j, *b = m->u + 3 * n * (j + k);
    double sj = 0;
    for (size_t i = 0; i < n; i++)
      for (int q = 0; q < m->dim; q++) {
        double d = b[3 * i + q] - a[3 * i + q];
        sj += d * d;
      }
    sum += sj / (double)n;
    lag += m->t[j + k] - m->t[j];
  }
  if (lag_time) *lag_time = lag / (double)no;
  return sum / (double)no;
}

double agglo_msd_diffusion(const agglo_msd *m) {
  if (m->frames < 3) return NAN;
  double T = m->t[m->frames - 1] - m->t[0];
  agglo_line_fit fit = {0};
  for (size_t k = 1; k < m->frames && !agglo_analysis_stopping(); k++) {
    double tau, y = agglo_msd_value(m, k, &tau);
    if (tau >= 0.2 * T && tau <= 0.5 * T) agglo_line_fit_add(&fit, tau, y);
  }
  return agglo_line_fit_slope(&fit) / (2 * m->dim); /* NAN with fewer than two lags */
}

int agglo_msd_write(const agglo_msd *m, FILE *f) {
  fprintf(f, "lag_time,msd,origins\n");
  for (size_t k = 1; k < m->frames; k++) {
    if (agglo_analysis_stopping()) return -1;
    double tau, y = agglo_msd_value(m, k, &tau);
    fprintf(f, "%.9g,%.9g,%zu\n", tau, y, m->frames - k);
  }
  return 0;
}

void agglo_msd_free(agglo_msd *m) {
  free(m->u), free(m->t), free(m->order), free(m->last);
  memset(m, 0, sizeof *m);
}
