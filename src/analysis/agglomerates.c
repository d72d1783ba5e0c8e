#include "analysis/agglomerates.h"
#include "analysis/analysis.h"
#include "analysis/clusters.h"
#include "core/error.h"
#include "io/xyz_read.h"
#include "core/text.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int32_t *sort_labels;
static int cmp_by_label(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  if (sort_labels[x] != sort_labels[y]) return sort_labels[x] < sort_labels[y] ? -1 : 1;
  return (x > y) - (x < y);
}

void agglo_agglomerates_free(agglo_agglomerates *a) {
  free(a->volume);
  free(a->semi);
  free(a->size);
  free(a->cls);
  memset(a, 0, sizeof *a);
}

int agglo_equivalent_ellipsoid(const double *x, const double *r, size_t n, double semi[3],
                               double axes[9]) {
  if (n == 0) return -1;
  double c[3] = {0, 0, 0}, G[9] = {0}, s2 = 0;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) c[k] += x[3 * i + k];
  for (int k = 0; k < 3; k++) c[k] /= (double)n;
  for (size_t i = 0; i < n; i++) {
    double y[3];
    for (int k = 0; k < 3; k++) y[k] = x[3 * i + k] - c[k];
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 3; q++) G[3 * p + q] += y[p] * y[q];
    s2 += r[i] * r[i];
  }
  for (int p = 0; p < 9; p++) G[p] /= (double)n;
  /* each sphere's own second moment: r^2/5 per axis */
  for (int p = 0; p < 3; p++) G[4 * p] += s2 / (5.0 * (double)n);
  for (int p = 0; p < 9; p++)
    if (!isfinite(G[p])) return -1;
  double eig[3];
  agglo_sym3_eigen(G, eig, axes);
  for (int q = 0; q < 3; q++) semi[q] = sqrt(5 * eig[q]);
  return 0;
}

int agglo_ellipsoid_class_ratio(const double semi[3], double tol) {
  double a = semi[0], b = semi[1], c = semi[2]; /* descending */
  int ab = b >= (1 - tol) * a, bc = c >= (1 - tol) * b;
  if (ab && bc) return AGGLO_SPHERE;
  if (bc) return AGGLO_PROLATE;
  if (ab) return AGGLO_OBLATE;
  return AGGLO_SCALENE;
}

/* The thesis's ellipsoid (docs/dpd.md): eigenvalues of the inertia tensor of the member centres
   (y in diameters, about their centroid) plus one diameter, descending. */
static void thesis_ellipsoid(const double *y, size_t m, double semi[3]) {
  double c[3] = {0, 0, 0}, I[9] = {0};
  for (size_t t = 0; t < m; t++)
    for (int k = 0; k < 3; k++) c[k] += y[3 * t + k];
  for (int k = 0; k < 3; k++) c[k] /= (double)m;
  for (size_t t = 0; t < m; t++) {
    double z[3], z2 = 0;
    for (int k = 0; k < 3; k++) z[k] = y[3 * t + k] - c[k], z2 += z[k] * z[k];
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 3; q++) I[3 * p + q] += (p == q ? z2 : 0) - z[p] * z[q];
  }
  double eig[3];
  agglo_sym3_eigen(I, eig, NULL);
  for (int q = 0; q < 3; q++) semi[q] = eig[q] + 1; /* + one diameter */
}

int agglo_agglomerates_measure(agglo_system *s, double gap, double tol, int definition,
                               agglo_agglomerates *a) {
  memset(a, 0, sizeof *a);
  a->definition = definition;
  size_t n = s->n;
  double dsum = 0;
  for (size_t i = 0; i < n; i++) dsum += 2 * s->r[i];
  double d = a->diameter = n ? dsum / (double)n : 1;
  gap += AGGLO_AGGLOMERATE_TOUCH * d; /* touching counts, to round-off */
  agglo_cluster_stats st;
  if (agglo_clusters_label(s, NULL, gap, &st) != 0) return -1;
  double *u = malloc(3 * (n + 1) * sizeof *u);
  double *y = malloc(3 * (n + 1) * sizeof *y), *ry = malloc((n + 1) * sizeof *ry);
  size_t *order = malloc((n + 1) * sizeof *order);
  a->volume = malloc((n / 2 + 1) * sizeof *a->volume);
  a->semi = malloc((n / 2 + 1) * sizeof *a->semi);
  a->size = malloc((n / 2 + 1) * sizeof *a->size);
  a->cls = malloc((n / 2 + 1) * sizeof *a->cls);
  if (!u || !y || !ry || !order || !a->volume || !a->semi || !a->size || !a->cls ||
      agglo_unwrap_clusters(s, gap, u) != 0) {
    free(u);
    free(y);
    free(ry);
    free(order);
    agglo_agglomerates_free(a);
    return -1;
  }
  for (size_t i = 0; i < n; i++) order[i] = i;
  sort_labels = s->cluster; /* single-threaded use */
  qsort(order, n, sizeof *order, cmp_by_label);
  double sum_thesis = 0, sum_true = 0;
  for (size_t g0 = 0; g0 < n;) {
    size_t g1 = g0;
    while (g1 < n && s->cluster[order[g1]] == s->cluster[order[g0]]) g1++;
    size_t m = g1 - g0;
    if (m >= 2) {
      double vol = 0; /* member volume, d^3 */
      for (size_t t = g0; t < g1; t++) {
        size_t i = order[t];
        for (int k = 0; k < 3; k++) y[3 * (t - g0) + k] = u[3 * i + k] / d;
        ry[t - g0] = s->r[i] / d;
        vol += 4.0 / 3.0 * M_PI * pow(s->r[i] / d, 3);
      }
      size_t k = a->n_agglomerates++;
      if (definition == AGGLO_ELLIPSOID_THESIS) {
        thesis_ellipsoid(y, m, a->semi[k]);
        a->cls[k] = agglo_ellipsoid_class(a->semi[k], tol);
      } else {
        if (agglo_equivalent_ellipsoid(y, ry, m, a->semi[k], NULL) != 0)
          a->semi[k][0] = a->semi[k][1] = a->semi[k][2] = NAN;
        a->cls[k] = agglo_ellipsoid_class_ratio(a->semi[k], tol);
      }
      a->volume[k] = 4.0 / 3.0 * M_PI * a->semi[k][0] * a->semi[k][1] * a->semi[k][2];
      a->size[k] = m;
      a->by_class[a->cls[k]]++;
      a->n_particles += m;
      if (m > a->largest) a->largest = m;
      sum_thesis += a->volume[k] / ((double)m * 4.0 / 3.0 * M_PI);
      sum_true += a->volume[k] / vol;
    }
    g0 = g1;
  }
  if (a->n_agglomerates) {
    a->ratio_thesis = 100 * sum_thesis / (double)a->n_agglomerates;
    a->ratio_true = 100 * sum_true / (double)a->n_agglomerates;
  }
  free(u);
  free(y);
  free(ry);
  free(order);
  return 0;
}

void agglo_agglomerates_row(FILE *f, const agglo_agglomerates *a) {
  fprintf(f, "%zu %zu %zu %zu %zu %zu %.2f %.1f %zu\n", a->by_class[AGGLO_PROLATE],
          a->by_class[AGGLO_OBLATE], a->by_class[AGGLO_SPHERE], a->by_class[AGGLO_SCALENE],
          a->n_agglomerates, a->n_particles, a->ratio_thesis, a->ratio_true, a->largest);
}

void agglo_agglomerates_print(FILE *f, const agglo_agglomerates *a, int nbins) {
  fprintf(f, "agglomerates (ellipsoids, %s definition): %zu holding %zu particles (largest %zu)\n",
          a->definition == AGGLO_ELLIPSOID_THESIS ? "thesis" : "moments", a->n_agglomerates,
          a->n_particles, a->largest);
  fprintf(f, "  prolate %zu, oblate %zu, sphere %zu, scalene %zu\n", a->by_class[AGGLO_PROLATE],
          a->by_class[AGGLO_OBLATE], a->by_class[AGGLO_SPHERE], a->by_class[AGGLO_SCALENE]);
  fprintf(f, "  ellipsoid volume / particle volume (mean over ellipsoids): %.2f%% with the "
          "thesis's particle volume (4/3) pi d^3, %.1f%% with (4/3) pi r^3\n",
          a->ratio_thesis, a->ratio_true);
  if (!a->n_agglomerates || nbins < 1) return;
  double lo = a->volume[0], hi = a->volume[0];
  for (size_t k = 1; k < a->n_agglomerates; k++)
    lo = fmin(lo, a->volume[k]), hi = fmax(hi, a->volume[k]);
  if (hi <= lo) hi = lo + 1e-9 * (fabs(lo) + 1);
  /* logarithmic bins when the volumes span more than a factor 20 */
  int logb = lo > 0 && hi / lo > 20;
  double a0 = logb ? log(lo) : lo, a1 = logb ? log(hi) : hi;
  size_t *h = calloc((size_t)nbins, sizeof *h), hmax = 0;
  if (!h) return;
  for (size_t k = 0; k < a->n_agglomerates; k++) {
    double v = logb ? log(a->volume[k]) : a->volume[k];
    int b = (int)((v - a0) / (a1 - a0) * nbins);
    h[b >= nbins ? nbins - 1 : b < 0 ? 0 : b]++;
  }
  for (int b = 0; b < nbins; b++) hmax = h[b] > hmax ? h[b] : hmax;
  fprintf(f, "  histogram of ellipsoid volumes (units of d^3, d = %g%s):\n", a->diameter,
          logb ? "; logarithmic bins" : "");
  for (int b = 0; b < nbins; b++) {
    double e0 = a0 + (a1 - a0) * b / nbins, e1 = a0 + (a1 - a0) * (b + 1) / nbins;
    fprintf(f, "  %9.3g - %-9.3g %5zu ", logb ? exp(e0) : e0, logb ? exp(e1) : e1, h[b]);
    int bar = hmax ? (int)(40.0 * (double)h[b] / (double)hmax + 0.5) : 0;
    for (int q = 0; q < bar; q++) fputc('#', f);
    fputc('\n', f);
  }
  free(h);
}

/* Keep the particles of radius >= r_min, in order (the colloids among solvent beads). */
static void keep_large(agglo_system *s, double r_min) {
  if (!(r_min > 0)) return;
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (s->r[i] < r_min) continue;
    memmove(s->x + 3 * k, s->x + 3 * i, 3 * sizeof *s->x);
    memmove(s->v + 3 * k, s->v + 3 * i, 3 * sizeof *s->v);
    s->r[k] = s->r[i], s->m[k] = s->m[i], s->inv_m[k] = s->inv_m[i], s->id[k] = s->id[i];
    s->cluster[k] = s->cluster[i];
    k++;
  }
  s->n = k;
}

agglo_status agglo_agglomerates_report(const agglo_agglomerates_options *o, char **text) {
  if (!o || !o->path || !text)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_agglomerates_report: NULL options, path or text");
  *text = NULL;
  char *err = agglo_error_buffer();
  agglo_xyz_reader rd;
  agglo_system s;
  memset(&s, 0, sizeof s);
  if (agglo_xyz_open(&rd, o->path, 0, err, AGGLO_ERROR_LEN) != 0) return AGGLO_ERROR_INPUT;
  int got = 0, r = 0;
  while ((o->frame == 0 || got < o->frame) && (r = agglo_xyz_next(&rd, &s, err, AGGLO_ERROR_LEN)) == 1) got++;
  agglo_xyz_close(&rd);
  agglo_status st = AGGLO_OK;
  agglo_agglomerates a;
  if (r < 0) st = AGGLO_ERROR_INPUT;
  else if (got == 0 || (o->frame && got < o->frame))
    st = agglo_error(AGGLO_ERROR_INPUT, "%s: frame %d not found (%d frames)", o->path, o->frame, got);
  else if (o->definition != AGGLO_ELLIPSOID_MOMENTS && o->definition != AGGLO_ELLIPSOID_THESIS)
    st = agglo_error(AGGLO_ERROR_INPUT, "agglo_agglomerates_report: definition %d (allowed: "
                     "AGGLO_ELLIPSOID_MOMENTS or AGGLO_ELLIPSOID_THESIS)", o->definition);
  if (st == AGGLO_OK) {
    keep_large(&s, o->min_radius);
    if (agglo_agglomerates_measure(&s, o->gap, o->tol, o->definition, &a) != 0)
      st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  agglo_text out;
  if (st == AGGLO_OK && (st = agglo_text_open(&out, "agglo_agglomerates_report")) != AGGLO_OK)
    agglo_agglomerates_free(&a);
  if (st == AGGLO_OK) {
    if (o->row) agglo_agglomerates_row(out.f, &a);
    else {
      fprintf(out.f, "%s, frame %d (t = %g, %zu particles)\n", o->path, got, s.t, s.n);
      agglo_agglomerates_print(out.f, &a, o->bins > 0 ? o->bins : 8);
    }
    agglo_agglomerates_free(&a);
    st = agglo_text_close(&out, st, text);
  }
  agglo_system_free(&s);
  return st;
}
