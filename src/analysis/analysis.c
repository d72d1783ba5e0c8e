#define _GNU_SOURCE /* qsort_r */
#include "analysis/analysis.h"
#include "analysis/line_fit.h"
#include "core/cells.h"
#include "core/compare.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- small linear algebra ---------- */

void agglo_sym3_eigen(const double A_in[9], double eig[3], double V_out[9]) {
  double V[9];
  double A[9];
  memcpy(A, A_in, sizeof A);
  for (int i = 0; i < 9; i++) V[i] = (i % 4 == 0);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    double diag = fabs(A[0]) + fabs(A[4]) + fabs(A[8]);
    if (off <= 1e-15 * diag || off < 1e-300) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double apq = A[3 * p + q];
        if (fabs(apq) < 1e-300) continue;
        double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; k++) { /* A = J^T A J */
          double akp = A[3 * k + p], akq = A[3 * k + q];
          A[3 * k + p] = c * akp - s * akq;
          A[3 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          double apk = A[3 * p + k], aqk = A[3 * q + k];
          A[3 * p + k] = c * apk - s * aqk;
          A[3 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = V[3 * k + p], vkq = V[3 * k + q];
          V[3 * k + p] = c * vkp - s * vkq;
          V[3 * k + q] = s * vkp + c * vkq;
        }
      }
  }
  int idx[3] = {0, 1, 2};
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if (A[4 * idx[b]] > A[4 * idx[a]]) {
        int t = idx[a];
        idx[a] = idx[b];
        idx[b] = t;
      }
  double W[9];
  for (int a = 0; a < 3; a++) {
    eig[a] = A[4 * idx[a]];
    if (eig[a] < 0) eig[a] = 0; /* round-off of a zero eigenvalue (PSD input) */
    for (int k = 0; k < 3; k++) W[3 * k + a] = V[3 * k + idx[a]];
  }
  if (V_out) memcpy(V_out, W, sizeof W);
}

/* ---------- clusters ---------- */

typedef struct {
  int64_t label;
  size_t first, count;
} group;

static int cmp_label_index(const void *a, const void *b, void *ctx) {
  const int32_t *lab = ctx;
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  if (lab[x] != lab[y]) return lab[x] < lab[y] ? -1 : 1;
  return (x > y) - (x < y);
}

static int cmp_info(const void *a, const void *b) {
  const agglo_cluster_info *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return (x->label > y->label) - (x->label < y->label);
}

int agglo_unwrap_clusters(const agglo_system *s, double contact_gap, double *u) {
  size_t n = s->n;
  memcpy(u, s->x, 3 * n * sizeof *u);
  if (!(s->box.periodic[0] || s->box.periodic[1] || s->box.periodic[2]) || n < 2) return 0;
  agglo_neighbors nb = {0};
  int32_t *queue = malloc(n * sizeof *queue);
  unsigned char *placed = calloc(n, 1);
  size_t *adj_start = calloc(n + 1, sizeof *adj_start);
  int32_t *adj = NULL;
  int rc = -1;
  if (!queue || !placed || !adj_start || agglo_neighbors_build(&nb, s, contact_gap, 0) != 0) goto out;
  /* both directions of every contact */
  adj = malloc((2 * nb.npairs + 1) * sizeof *adj);
  if (!adj) goto out;
  for (size_t i = 0; i < n; i++)
    for (size_t p = nb.start[i]; p < nb.start[i + 1]; p++) adj_start[i + 1]++, adj_start[nb.nbr[p] + 1]++;
  for (size_t i = 0; i < n; i++) adj_start[i + 1] += adj_start[i];
  {
    size_t *fill = malloc((n + 1) * sizeof *fill);
    if (!fill) goto out;
    memcpy(fill, adj_start, (n + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++)
      for (size_t p = nb.start[i]; p < nb.start[i + 1]; p++) {
        adj[fill[i]++] = nb.nbr[p];
        adj[fill[nb.nbr[p]]++] = (int32_t)i;
      }
    free(fill);
  }
  /* walk each cluster from a member, placing neighbours at their minimum image */
  for (size_t seed = 0; seed < n; seed++) {
    if (placed[seed]) continue;
    size_t head = 0, tail = 0;
    queue[tail++] = (int32_t)seed;
    placed[seed] = 1;
    while (head < tail) {
      int32_t i = queue[head++];
      for (size_t p = adj_start[i]; p < adj_start[i + 1]; p++) {
        int32_t j = adj[p];
        if (placed[j] || s->cluster[j] != s->cluster[i]) continue;
        double d[3];
        agglo_box_delta(&s->box, s->x + 3 * (size_t)i, s->x + 3 * (size_t)j, d);
        for (int k = 0; k < 3; k++) u[3 * (size_t)j + k] = u[3 * (size_t)i + k] + d[k];
        placed[j] = 1;
        queue[tail++] = j;
      }
    }
  }
  rc = 0;
out:
  free(queue); free(placed); free(adj_start); free(adj);
  agglo_neighbors_free(&nb);
  return rc;
}

double agglo_aspect_ratio(const double eig[3]) {
  if (!(eig[0] > 0)) return 1.0; /* one particle: no axis at all, isotropic */
  /* collinear centres (a dimer, a straight chain): lambda2 is rounding noise (1e-20 lambda1 seen),
     so the ratio would be too; below 1e-10 lambda1 (an rms thickness of 1e-5 of the length, what
     the solver's tolerance leaves) there is no second axis and A_r is undefined */
  return eig[1] > 1e-10 * eig[0] ? eig[0] / eig[1] : NAN;
}

int agglo_cluster_infos(const agglo_system *s, double contact_gap, agglo_cluster_info **out,
                        size_t *n_out) {
  size_t n = s->n;
  *out = NULL;
  *n_out = 0;
  int32_t *order = malloc((n ? n : 1) * sizeof *order);
  double *u = malloc(3 * (n ? n : 1) * sizeof *u); /* unwrapped positions */
  if (!order || !u || agglo_unwrap_clusters(s, contact_gap, u) != 0) goto oom;
  /* members grouped by label: a counting sort when labels are indices (ours), else qsort */
  int small = 1;
  for (size_t i = 0; i < n; i++) small &= s->cluster[i] >= 0 && (size_t)s->cluster[i] < n;
  size_t *bucket = small ? calloc(n + 1, sizeof *bucket) : NULL;
  if (bucket) {
    for (size_t i = 0; i < n; i++) bucket[s->cluster[i] + 1]++;
    for (size_t q = 0; q < n; q++) bucket[q + 1] += bucket[q];
    for (size_t i = 0; i < n; i++) order[bucket[s->cluster[i]]++] = (int32_t)i;
    free(bucket);
  } else {
    for (size_t i = 0; i < n; i++) order[i] = (int32_t)i;
    qsort_r(order, n, sizeof *order, cmp_label_index, s->cluster);
  }
  /* count clusters */
  size_t nc = 0;
  for (size_t a = 0; a < n; a++)
    if (a == 0 || s->cluster[order[a]] != s->cluster[order[a - 1]]) nc++;
  agglo_cluster_info *info = calloc(nc ? nc : 1, sizeof *info);
  if (!info) goto oom;
  size_t c = 0;
  for (size_t a = 0; a < n;) {
    size_t b = a;
    while (b < n && s->cluster[order[b]] == s->cluster[order[a]]) b++;
    agglo_cluster_info *ci = &info[c++];
    ci->label = s->cluster[order[a]];
    ci->size = b - a;
    double com[3] = {0, 0, 0}, cen[3] = {0, 0, 0}, mass = 0;
    for (size_t q = a; q < b; q++) {
      size_t i = (size_t)order[q];
      mass += s->m[i];
      for (int k = 0; k < 3; k++) com[k] += s->m[i] * u[3 * i + k], cen[k] += u[3 * i + k];
    }
    for (int k = 0; k < 3; k++) com[k] /= mass, cen[k] /= (double)ci->size;
    /* gyration tensor of the member centres (unweighted, as Degond et al. 2024) */
    double G[9] = {0};
    for (size_t q = a; q < b; q++) {
      size_t i = (size_t)order[q];
      double y[3];
      for (int k = 0; k < 3; k++) y[k] = u[3 * i + k] - cen[k];
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) G[3 * k + l] += y[k] * y[l];
    }
    for (int k = 0; k < 9; k++) G[k] /= (double)ci->size;
    double V[9];
    agglo_sym3_eigen(G, ci->eig, V);
    ci->rg = sqrt(G[0] + G[4] + G[8]);
    /* the tunable aggregates' R_g: weighted by r^3 about that centre, and the geometric mean */
    double vol = 0, cv[3] = {0, 0, 0}, q2 = 0, lr = 0;
    for (size_t q = a; q < b; q++) {
      size_t i = (size_t)order[q];
      double v = s->r[i] * s->r[i] * s->r[i];
      vol += v, lr += log(s->r[i]);
      for (int k = 0; k < 3; k++) cv[k] += v * u[3 * i + k];
    }
    for (int k = 0; k < 3; k++) cv[k] /= vol;
    for (size_t q = a; q < b; q++) {
      size_t i = (size_t)order[q];
      double v = s->r[i] * s->r[i] * s->r[i];
      for (int k = 0; k < 3; k++) q2 += v * (u[3 * i + k] - cv[k]) * (u[3 * i + k] - cv[k]);
    }
    ci->rg_volume = sqrt(q2 / vol);
    ci->log_radius = lr / (double)ci->size;
    for (int k = 0; k < 3; k++) ci->axis[k] = V[3 * k];
    ci->aspect = agglo_aspect_ratio(ci->eig);
    ci->mass = mass;
    agglo_box_wrap(&s->box, com);
    memcpy(ci->com, com, sizeof com);
    a = b;
  }
  qsort(info, nc, sizeof *info, cmp_info);
  *out = info;
  *n_out = nc;
  free(order); free(u);
  return 0;
oom:
  free(order); free(u);
  return -1;
}

/* ---------- fractal dimensions ---------- */

/* Spread the low bits of v so that d interleaved coordinates form a Morton code. */
static uint64_t spread_bits(uint64_t v, int d) {
  uint64_t r = 0;
  for (int b = 0; b < 21; b++) r |= ((v >> b) & 1u) << (d * b);
  return r;
}

double agglo_box_counting_grid(const double *x, size_t n, int dim, const double lo[3],
                               const double len[3], double eps_min, double *eps_out,
                               double *counts_out, int *npoints) {
  if (npoints) *npoints = 0;
  double L = 0;
  for (int k = 0; k < dim; k++) L = fmax(L, len[k]);
  if (n == 0 || !(L > 0)) return NAN;
  const int M = 21;
  uint64_t *code = malloc(n * sizeof *code);
  if (!code) return NAN;
  for (size_t i = 0; i < n; i++) {
    uint64_t c = 0;
    for (int k = 0; k < dim; k++) {
      double q = floor((x[3 * i + k] - lo[k]) * ((double)(1u << M) / len[k]));
      uint64_t iq = q < 0 ? 0 : (q >= (double)(1u << M) ? (1u << M) - 1 : (uint64_t)q);
      c |= spread_bits(iq, dim) << k;
    }
    code[i] = c;
  }
  qsort(code, n, sizeof *code, agglo_cmp_u64);
  agglo_line_fit fit = {0};
  int np = 0;
  for (int m = 1; m <= M; m++) {
    double eps = L / (double)(1u << m);
    if (eps < eps_min * (1 - 1e-9)) break;
    if (eps > L / 2 * (1 + 1e-9)) continue;
    int shift = dim * (M - m);
    size_t occupied = 1;
    for (size_t i = 1; i < n; i++) occupied += (code[i] >> shift) != (code[i - 1] >> shift);
    if (eps_out) eps_out[np] = eps;
    if (counts_out) counts_out[np] = (double)occupied;
    agglo_line_fit_add(&fit, log(eps), log((double)occupied));
    np++;
  }
  free(code);
  if (npoints) *npoints = np;
  double slope = agglo_line_fit_slope(&fit);
  return isnan(slope) ? NAN : -slope; /* NAN (not -NAN) with fewer than two levels */
}

double agglo_box_counting(const double *x, size_t n, int dim, double eps_min, double *eps_out,
                          double *counts_out, int *npoints) {
  if (npoints) *npoints = 0;
  if (n == 0) return NAN;
  /* the grid covers the smallest square (cube) holding the points, anchored at their corner */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, L = 0;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dim; k++) lo[k] = fmin(lo[k], x[3 * i + k]);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dim; k++) L = fmax(L, x[3 * i + k] - lo[k]);
  if (!(L > 0)) return NAN;
  L *= 1 + 1e-9; /* the farthest point falls inside the last cell */
  const double len[3] = {L, L, L};
  return agglo_box_counting_grid(x, n, dim, lo, len, eps_min, eps_out, counts_out, npoints);
}

double agglo_mass_radius_dimension(const agglo_cluster_info *c, size_t n, size_t min_size,
                                   double a, double *kf) {
  if (kf) *kf = NAN;
  agglo_line_fit fit = {0};
  size_t smin = SIZE_MAX, smax = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].size >= min_size && c[i].size >= 2 && c[i].rg > 0) {
      agglo_line_fit_add(&fit, log((double)c[i].size), log(c[i].rg));
      if (c[i].size < smin) smin = c[i].size;
      if (c[i].size > smax) smax = c[i].size;
    }
  double d = NAN;
  /* at least 3 clusters spanning a factor 3 in size, else the fit means nothing */
  if (fit.n >= 3 && smax >= 3 * smin) {
    double slope = agglo_line_fit_slope(&fit);
    d = slope > 0 ? 1.0 / slope : NAN;
    /* log R_g = icept + log(s)/D  <=>  s = k_f (R_g/a)^D with log k_f = D (log a - icept) */
    if (kf && isfinite(d) && a > 0)
      *kf = exp(d * (log(a) - agglo_line_fit_intercept(&fit, slope)));
  }
  return d;
}

double agglo_mass_radius_fracval(const agglo_cluster_info *c, size_t n, size_t min_size, double *kf) {
  if (kf) *kf = NAN;
  agglo_line_fit fit = {0};
  size_t smin = SIZE_MAX, smax = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].size >= min_size && c[i].size >= 2 && c[i].rg_volume > 0) {
      agglo_line_fit_add(&fit, log((double)c[i].size), log(c[i].rg_volume) - c[i].log_radius);
      if (c[i].size < smin) smin = c[i].size;
      if (c[i].size > smax) smax = c[i].size;
    }
  double d = NAN;
  if (fit.n >= 3 && smax >= 3 * smin) { /* as agglo_mass_radius_dimension */
    double slope = agglo_line_fit_slope(&fit);
    d = slope > 0 ? 1.0 / slope : NAN;
    /* log (R_g / a_geo) = icept + log(s) / D  <=>  log k_f = -D icept */
    if (kf && isfinite(d)) *kf = exp(-d * agglo_line_fit_intercept(&fit, slope));
  }
  return d;
}

/* ---------- pair statistics ---------- */

double agglo_contacts_per_sphere(const agglo_system *s, double dist) {
  if (s->n == 0) return NAN;
  agglo_neighbors nb = {0};
  double rmin = agglo_min_radius(s);
  if (agglo_neighbors_build(&nb, s, fmax(dist - 2 * rmin, 0) + 1e-12 * dist, 0) != 0) return NAN;
  size_t pairs = 0;
  for (size_t i = 0; i < s->n; i++)
    for (size_t p = nb.start[i]; p < nb.start[i + 1]; p++) {
      double d[3];
      agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * (size_t)nb.nbr[p], d);
      pairs += d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= dist * dist;
    }
  agglo_neighbors_free(&nb);
  double k = s->dim == 2 ? 6.0 : 12.0;
  return ((double)s->n + 2.0 * (double)pairs) / (k * (double)s->n);
}

int agglo_pair_distribution(const agglo_system *s, const double *r, size_t nr, size_t max_ref,
                            double *p) {
  size_t n = s->n;
  memset(p, 0, nr * sizeof *p);
  if (n < 2 || nr == 0) return 0;
  double rmax = r[nr - 1];
  for (size_t k = 0; k < nr; k++) rmax = fmax(rmax, r[k]);
  /* a cell grid of side >= rmax over the box */
  int nc[3]; /* an axis of fewer than 3 cells is one column: scan it once */
  size_t ncells = agglo_grid_counts(s->dim, s->box.len, NULL, rmax, 3, n, nc);
  size_t *first = calloc(ncells + 1, sizeof *first);
  int32_t *cell = malloc(n * sizeof *cell), *members = malloc(n * sizeof *members);
  size_t *hist = calloc(nr, sizeof *hist);
  if (!first || !cell || !members || !hist) {
    free(first); free(cell); free(members); free(hist);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    int c[3] = {0, 0, 0};
    for (int k = 0; k < s->dim; k++) {
      c[k] = (int)floor((s->x[3 * i + k] - s->box.lo[k]) / s->box.len[k] * nc[k]);
      if (c[k] < 0) c[k] = 0;
      if (c[k] >= nc[k]) c[k] = nc[k] - 1;
    }
    cell[i] = (int32_t)(((size_t)c[2] * nc[1] + c[1]) * nc[0] + c[0]);
    first[cell[i] + 1]++;
  }
  for (size_t q = 0; q < ncells; q++) first[q + 1] += first[q];
  {
    size_t *fill = malloc((ncells + 1) * sizeof *fill);
    if (!fill) {
      free(first); free(cell); free(members); free(hist);
      return -1;
    }
    memcpy(fill, first, (ncells + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++) members[fill[cell[i]]++] = (int32_t)i;
    free(fill);
  }
  size_t nref = max_ref && max_ref < n ? max_ref : n;
  for (size_t a = 0; a < nref; a++) {
    size_t i = nref == n ? a : (size_t)((double)a * (double)n / (double)nref);
    int c[3] = {(int)(cell[i] % nc[0]), (int)((cell[i] / nc[0]) % nc[1]), (int)(cell[i] / (nc[0] * nc[1]))};
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int cc[3] = {c[0] + dx, c[1] + dy, c[2] + dz}, skip = 0, off[3] = {dx, dy, dz};
          for (int k = 0; k < 3; k++) {
            if (nc[k] == 1) {
              if (off[k] != 0) skip = 1;
              continue;
            }
            if (cc[k] < 0 || cc[k] >= nc[k]) {
              if (!s->box.periodic[k]) skip = 1;
              else cc[k] = (cc[k] + nc[k]) % nc[k];
            }
          }
          if (skip) continue;
          size_t q = ((size_t)cc[2] * nc[1] + cc[1]) * nc[0] + cc[0];
          for (size_t t = first[q]; t < first[q + 1]; t++) {
            size_t j = (size_t)members[t];
            if (j == i) continue;
            double d[3];
            agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
            double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (size_t k = 0; k < nr; k++)
              if (dist <= r[k]) hist[k]++;
          }
        }
  }
  for (size_t k = 0; k < nr; k++) p[k] = (double)hist[k] / (double)nref;
  free(first); free(cell); free(members); free(hist);
  return 0;
}

int agglo_ellipsoid_class(const double semi[3], double tol) {
  double a = semi[0], b = semi[1], c = semi[2]; /* descending */
  int ab = fabs(a - b) <= tol * a, bc = fabs(b - c) <= tol * a;
  if (ab && bc) return AGGLO_SPHERE;
  if (bc) return AGGLO_PROLATE;
  if (ab) return AGGLO_OBLATE;
  return AGGLO_SCALENE;
}
