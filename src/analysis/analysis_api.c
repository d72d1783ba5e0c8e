/* The public analysis toolkit over plain arrays (include/agglo/analysis.h): argument checks, then
   the internal indicators (analysis.c, clusters.c) run on a shallow agglo_system whose pointers
   are the caller's arrays. docs/analysis.md ("Library functions") gives every formula. */
#include "analysis/temperature.h"
#include "agglo/analysis.h"
#include "analysis/agglomerates.h"
#include "analysis/analysis.h"
#include "core/cells.h"
#include "analysis/clusters.h"
#include "core/error.h"
#include "core/compare.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- argument checks: each returns AGGLO_OK or sets the message "fn: ..." ---------- */

static agglo_status bad(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static agglo_status bad(const char *fn, const char *fmt, ...) {
  char msg[AGGLO_ERROR_LEN - 128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return agglo_error(AGGLO_ERROR_INPUT, "%s: %s", fn, msg);
}

static agglo_status oom(const char *fn) {
  return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
}

static agglo_status check_dim(const char *fn, int dim) {
  if (dim != 2 && dim != 3) return bad(fn, "dim = %d (must be 2 or 3)", dim);
  return AGGLO_OK;
}

static agglo_status check_ptr(const char *fn, const void *p, const char *name) {
  if (!p) return bad(fn, "%s is NULL", name);
  return AGGLO_OK;
}

/* Centres: n x 3, finite; in 2D every z must be 0 (dim = 0: any finite z). */
static agglo_status check_positions(const char *fn, const double *x, size_t n, int dim) {
  if (!x) return bad(fn, "x is NULL (positions, n x 3)");
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double v = x[3 * i + k];
      if (!isfinite(v))
        return bad(fn, "x[%zu] = %g (particle %zu, axis %c) is not finite", 3 * i + k, v, i, "xyz"[k]);
      if (dim == 2 && k == 2 && v != 0)
        return bad(fn, "x[%zu] = %g: the z coordinate of particle %zu must be 0 in 2D", 3 * i + 2, v, i);
    }
  return AGGLO_OK;
}

/* n values, finite and >= 0 (radii, masses, radii of gyration, distances). */
static agglo_status check_nonneg(const char *fn, const double *a, size_t n, const char *name) {
  if (!a) return bad(fn, "%s is NULL", name);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(a[i]) || a[i] < 0)
      return bad(fn, "%s[%zu] = %g (must be finite and >= 0)", name, i, a[i]);
  return AGGLO_OK;
}

/* Particle counts indexed by int32 (labels, neighbour lists). */
static agglo_status check_count32(const char *fn, size_t n) {
  if (n > (size_t)INT32_MAX) return bad(fn, "n = %zu (at most %d particles)", n, INT32_MAX);
  return AGGLO_OK;
}

/* A box: per axis of the dimension, lo < hi finite, len = hi - lo, periodic 0 or 1; in 2D the z
   axis is not periodic. */
static agglo_status check_box(const char *fn, const agglo_box *b, int dim) {
  if (!b) return AGGLO_OK;
  for (int k = 0; k < 3; k++) {
    char ax = "xyz"[k];
    if (b->periodic[k] != AGGLO_WALL && b->periodic[k] != AGGLO_PERIODIC)
      return bad(fn, "box->periodic[%d] = %d (AGGLO_WALL = 0 or AGGLO_PERIODIC = 1)", k, b->periodic[k]);
    if (k >= dim) {
      if (b->periodic[k]) return bad(fn, "box->periodic[2] = 1 in 2D (the z axis has no images)");
      continue;
    }
    if (!isfinite(b->lo[k]) || !isfinite(b->hi[k]) || !(b->hi[k] > b->lo[k]))
      return bad(fn, "box axis %c: lo = %g, hi = %g (must be finite with lo < hi)", ax, b->lo[k], b->hi[k]);
    double len = b->hi[k] - b->lo[k];
    if (!isfinite(b->len[k]) || fabs(b->len[k] - len) > 1e-9 * len)
      return bad(fn, "box axis %c: len = %g but hi - lo = %g (len must be hi - lo)", ax, b->len[k], len);
  }
  if (!isfinite(b->shear_x) || (b->shear_x != 0 && !(b->periodic[0] && b->periodic[1])))
    return bad(fn, "box->shear_x = %g (the Lees-Edwards offset: finite, and 0 unless the box is "
               "periodic along x and y)", b->shear_x);
  return AGGLO_OK;
}

/* ---------- the shallow system ---------- */

/* The box the internal functions see: the caller's periodic axes as given; every other axis of
   the dimension (and every axis when box is NULL) walled around the points' extent. */
static void inner_box(const agglo_box *user, const double *x, size_t n, int dim, agglo_box *b) {
  memset(b, 0, sizeof *b);
  for (int k = 0; k < dim; k++) {
    if (user && user->periodic[k]) {
      b->lo[k] = user->lo[k], b->hi[k] = user->hi[k], b->len[k] = user->len[k];
      b->periodic[k] = AGGLO_PERIODIC;
      continue;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, x[3 * i + k]), hi = fmax(hi, x[3 * i + k]);
    b->lo[k] = lo, b->hi[k] = hi, b->len[k] = hi - lo;
  }
  if (user && b->periodic[0] && b->periodic[1]) b->shear_x = user->shear_x; /* (Lees-Edwards) */
}

/* Positions for the internal functions: the caller's array, or, when an axis is periodic, a copy
   put back into the primary image (so that one minimum-image shift suffices). *copy is to be
   freed; NULL return = out of memory. */
static const double *inner_positions(const agglo_box *b, const double *x, size_t n, double **copy) {
  *copy = NULL;
  if (!(b->periodic[0] || b->periodic[1] || b->periodic[2])) return x;
  double *u = malloc(3 * (n ? n : 1) * sizeof *u);
  if (!u) return NULL;
  memcpy(u, x, 3 * n * sizeof *u);
  for (size_t i = 0; i < n; i++) agglo_box_wrap(b, u + 3 * i);
  *copy = u;
  return u;
}

/* A width w >= base (and > 0) for the cell grids of the internal functions such that the grid
   over b has at most `cap` cells and at most `axis_max` per axis: scattered points in open space
   (or a large periodic box with few points) would otherwise ask for more cells than memory
   holds. Wider cells change only the work, never a result (every pair within w is examined). */
static double grid_width(const agglo_box *b, int dim, double base, double cap, double axis_max) {
  double lmax = 0;
  for (int k = 0; k < dim; k++) lmax = fmax(lmax, b->len[k]);
  double w = fmax(base, lmax / axis_max);
  if (!(w > 0)) w = 1; /* every point at one place, and base 0 */
  for (;;) {
    double cells = 1;
    for (int k = 0; k < dim; k++) cells *= fmax(1.0, floor(b->len[k] / w));
    if (cells <= cap) return w;
    w *= 1.5;
  }
}

static double grid_cap(size_t n) { return 4.0 * (double)n + 4096.0; }

static agglo_system shallow(int dim, size_t n, const double *x, const double *r, int64_t *id,
                            int32_t *cluster, const agglo_box *b) {
  agglo_system s;
  memset(&s, 0, sizeof s);
  s.dim = dim;
  s.n = n;
  s.x = (double *)x; /* read only: the internal functions never write positions or radii */
  s.r = (double *)r;
  s.id = id;
  s.cluster = cluster;
  s.box = *b;
  return s;
}

/* ---------- clusters ---------- */

agglo_status agglo_analysis_cluster_labels(const double *x, const double *r, size_t n, int dim,
                                           const agglo_box *box, double contact_gap,
                                           int32_t *labels, size_t *n_clusters) {
  static const char fn[] = "agglo_analysis_cluster_labels";
  agglo_status st;
  if ((st = check_dim(fn, dim)) || (st = check_count32(fn, n)) || (st = check_box(fn, box, dim)))
    return st;
  if (!isfinite(contact_gap) || contact_gap < 0)
    return bad(fn, "contact_gap = %g (must be finite and >= 0)", contact_gap);
  if (n == 0) {
    if (n_clusters) *n_clusters = 0;
    return AGGLO_OK;
  }
  if ((st = check_positions(fn, x, n, dim)) || (st = check_nonneg(fn, r, n, "r")) ||
      (st = check_ptr(fn, labels, "labels")))
    return st;
  agglo_box b;
  inner_box(box, x, n, dim, &b);
  double *copy;
  const double *u = inner_positions(&b, x, n, &copy);
  int64_t *id = malloc(n * sizeof *id);
  if (!u || !id) {
    free(copy); free(id);
    return oom(fn);
  }
  for (size_t i = 0; i < n; i++) id[i] = (int64_t)i; /* labels = smallest index */
  agglo_system s = shallow(dim, n, u, r, id, labels, &b);
  /* the neighbour list's cells are 2 r_max + gap + skin wide: the skin widens them when the
     points are too scattered for a grid of that width */
  double need = 2 * agglo_max_radius(&s) + contact_gap;
  double w = grid_width(&b, dim, need, grid_cap(n), 1 << 20);
  agglo_neighbors nb = {0};
  agglo_cluster_stats cs;
  int rc = agglo_neighbors_build(&nb, &s, contact_gap, fmax(w - need, 0)) != 0 ||
           agglo_clusters_label(&s, &nb, contact_gap, &cs) != 0;
  agglo_neighbors_free(&nb);
  free(copy); free(id);
  if (rc) return oom(fn);
  if (n_clusters) *n_clusters = cs.n_clusters;
  return AGGLO_OK;
}

static int cmp_size_desc(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x < y) - (x > y);
}

agglo_status agglo_analysis_cluster_sizes(const int32_t *labels, size_t n, size_t *sizes,
                                          size_t *n_clusters) {
  static const char fn[] = "agglo_analysis_cluster_sizes";
  agglo_status st;
  if ((st = check_ptr(fn, n_clusters, "n_clusters"))) return st;
  if (n == 0) {
    *n_clusters = 0;
    return AGGLO_OK;
  }
  if ((st = check_ptr(fn, labels, "labels")) || (st = check_ptr(fn, sizes, "sizes"))) return st;
  int32_t *lab = malloc(n * sizeof *lab);
  if (!lab) return oom(fn);
  memcpy(lab, labels, n * sizeof *lab);
  qsort(lab, n, sizeof *lab, agglo_cmp_i32);
  size_t nc = 0;
  for (size_t a = 0; a < n;) {
    size_t b = a;
    while (b < n && lab[b] == lab[a]) b++;
    sizes[nc++] = b - a;
    a = b;
  }
  free(lab);
  qsort(sizes, nc, sizeof *sizes, cmp_size_desc);
  for (size_t c = nc; c < n; c++) sizes[c] = 0;
  *n_clusters = nc;
  return AGGLO_OK;
}

/* ---------- geometry ---------- */

agglo_status agglo_analysis_gyration(const double *x, const double *m, size_t n, double tensor[9],
                                     double *rg) {
  static const char fn[] = "agglo_analysis_gyration";
  agglo_status st;
  if (n == 0) return bad(fn, "n = 0 (the gyration tensor of no points is undefined)");
  if ((st = check_positions(fn, x, n, 0)) || (m && (st = check_nonneg(fn, m, n, "m"))) ||
      (st = check_ptr(fn, tensor, "tensor")) || (st = check_ptr(fn, rg, "rg")))
    return st;
  double mt = 0, c[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    double w = m ? m[i] : 1.0;
    mt += w;
    for (int k = 0; k < 3; k++) c[k] += w * x[3 * i + k];
  }
  if (!(mt > 0) || !isfinite(mt)) return bad(fn, "m: the masses sum to %g (must be > 0 and finite)", mt);
  for (int k = 0; k < 3; k++) c[k] /= mt;
  double G[9] = {0};
  for (size_t i = 0; i < n; i++) {
    double w = m ? m[i] : 1.0, y[3];
    for (int k = 0; k < 3; k++) y[k] = x[3 * i + k] - c[k];
    for (int k = 0; k < 3; k++)
      for (int l = k; l < 3; l++) G[3 * k + l] += w * y[k] * y[l];
  }
  for (int k = 0; k < 3; k++)
    for (int l = k; l < 3; l++) G[3 * l + k] = G[3 * k + l] = G[3 * k + l] / mt;
  memcpy(tensor, G, sizeof G);
  *rg = sqrt(G[0] + G[4] + G[8]);
  return AGGLO_OK;
}

/* ---------- fractal dimensions ---------- */

agglo_status agglo_analysis_box_counting(const double *x, size_t n, int dim, double eps_min,
                                         double *dimension, double *eps, double *counts,
                                         int *npoints) {
  static const char fn[] = "agglo_analysis_box_counting";
  agglo_status st;
  if ((st = check_dim(fn, dim))) return st;
  if (n == 0) return bad(fn, "n = 0 (no points)");
  if ((st = check_positions(fn, x, n, dim)) || (st = check_ptr(fn, dimension, "dimension")))
    return st;
  if (!isfinite(eps_min) || eps_min < 0) return bad(fn, "eps_min = %g (must be finite and >= 0)", eps_min);
  int np = 0;
  double d = agglo_box_counting(x, n, dim, eps_min, eps, counts, &np);
  if (npoints) *npoints = np;
  /* NAN with no scale although the points span L > 0 and eps_min <= L/2: the allocation failed
     (with L > 0 the first level, L/2, is always in range) */
  double L = 0;
  for (int k = 0; k < dim; k++) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, x[3 * i + k]), hi = fmax(hi, x[3 * i + k]);
    L = fmax(L, hi - lo);
  }
  if (isnan(d) && np == 0 && L > 0 && eps_min <= L / 2) return oom(fn);
  *dimension = d; /* NAN: fewer than two scales (coincident points, or eps_min too large) */
  return AGGLO_OK;
}

agglo_status agglo_analysis_box_counting_box(const double *x, size_t n, int dim,
                                             const agglo_box *box, double eps_min,
                                             double *dimension, double *eps, double *counts,
                                             int *npoints) {
  static const char fn[] = "agglo_analysis_box_counting_box";
  agglo_status st;
  if ((st = check_dim(fn, dim))) return st;
  if (n == 0) return bad(fn, "n = 0 (no points)");
  if ((st = check_positions(fn, x, n, dim)) || (st = check_ptr(fn, box, "box")) ||
      (st = check_box(fn, box, dim)) || (st = check_ptr(fn, dimension, "dimension")))
    return st;
  if (!isfinite(eps_min) || eps_min < 0) return bad(fn, "eps_min = %g (must be finite and >= 0)", eps_min);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dim; k++)
      if (!box->periodic[k] && (x[3 * i + k] < box->lo[k] || x[3 * i + k] > box->hi[k]))
        return bad(fn, "x[%zu] = %g: particle %zu lies outside the box on the walled axis %c "
                   "[%g, %g]", 3 * i + k, x[3 * i + k], i, "xyz"[k], box->lo[k], box->hi[k]);
  double *copy;
  const double *u = inner_positions(box, x, n, &copy); /* periodic axes: the primary image */
  if (!u) return oom(fn);
  int np = 0;
  double d = agglo_box_counting_grid(u, n, dim, box->lo, box->len, eps_min, eps, counts, &np);
  free(copy);
  if (npoints) *npoints = np;
  double L = 0;
  for (int k = 0; k < dim; k++) L = fmax(L, box->len[k]);
  if (isnan(d) && np == 0 && eps_min <= L / 2) return oom(fn); /* L/2 is always a level */
  *dimension = d; /* NAN: fewer than two levels (eps_min above L/4) */
  return AGGLO_OK;
}

agglo_status agglo_analysis_mass_radius_prefactor(const size_t *sizes, const double *rg,
                                                  size_t n_clusters, size_t min_size, double a,
                                                  double *dimension, double *kf) {
  static const char fn[] = "agglo_analysis_mass_radius";
  agglo_status st;
  if ((st = check_ptr(fn, dimension, "dimension"))) return st;
  if (n_clusters > 0 &&
      ((st = check_ptr(fn, sizes, "sizes")) || (st = check_nonneg(fn, rg, n_clusters, "rg"))))
    return st;
  if (kf && !(a > 0 && isfinite(a))) return bad(fn, "a = %g (the particle radius: finite and > 0)", a);
  agglo_cluster_info *c = calloc(n_clusters ? n_clusters : 1, sizeof *c);
  if (!c) return oom(fn);
  for (size_t i = 0; i < n_clusters; i++) c[i].size = sizes[i], c[i].rg = rg[i];
  /* NAN: fewer than 3 clusters of >= max(2, min_size) members with R_g > 0, or a size range
     under a factor 3 */
  *dimension = agglo_mass_radius_dimension(c, n_clusters, min_size, kf ? a : 1, kf);
  free(c);
  return AGGLO_OK;
}

agglo_status agglo_analysis_mass_radius(const size_t *sizes, const double *rg, size_t n_clusters,
                                        size_t min_size, double *dimension) {
  return agglo_analysis_mass_radius_prefactor(sizes, rg, n_clusters, min_size, 1, dimension, NULL);
}

/* ---------- pair statistics ---------- */

agglo_status agglo_analysis_contacts_per_sphere(const double *x, size_t n, int dim,
                                                const agglo_box *box, double dist, double *nc) {
  static const char fn[] = "agglo_analysis_contacts_per_sphere";
  agglo_status st;
  if ((st = check_dim(fn, dim)) || (st = check_count32(fn, n)) || (st = check_box(fn, box, dim)))
    return st;
  if (n == 0) return bad(fn, "n = 0 (N_c divides by N)");
  if ((st = check_positions(fn, x, n, dim)) || (st = check_ptr(fn, nc, "nc"))) return st;
  if (!isfinite(dist) || !(dist > 0)) return bad(fn, "dist = %g (must be finite and > 0)", dist);
  agglo_box b;
  inner_box(box, x, n, dim, &b);
  double *copy;
  const double *u = inner_positions(&b, x, n, &copy);
  double *r = malloc(n * sizeof *r);
  if (!u || !r) {
    free(copy); free(r);
    return oom(fn);
  }
  /* agglo_contacts_per_sphere lists the pairs with |x_i - x_j| < max(dist, 2R) for particles of
     radius R, then counts those within dist: equal radii R = w/2 set the cell width w >= dist */
  double R = 0.5 * grid_width(&b, dim, dist, grid_cap(n), 1 << 20);
  for (size_t i = 0; i < n; i++) r[i] = R;
  agglo_system s = shallow(dim, n, u, r, NULL, NULL, &b);
  double v = agglo_contacts_per_sphere(&s, dist);
  free(copy); free(r);
  if (isnan(v)) return oom(fn); /* n > 0: only the neighbour list can fail */
  *nc = v;
  return AGGLO_OK;
}

agglo_status agglo_analysis_pair_distribution(const double *x, size_t n, int dim,
                                              const agglo_box *box, const double *radii_r,
                                              size_t n_r, double *p) {
  static const char fn[] = "agglo_analysis_pair_distribution";
  agglo_status st;
  if ((st = check_dim(fn, dim)) || (st = check_count32(fn, n)) || (st = check_box(fn, box, dim)))
    return st;
  if (n == 0) return bad(fn, "n = 0 (P(r) divides by N)");
  if ((st = check_positions(fn, x, n, dim))) return st;
  if (n_r == 0) return AGGLO_OK;
  if ((st = check_nonneg(fn, radii_r, n_r, "radii_r")) || (st = check_ptr(fn, p, "p"))) return st;
  agglo_box b;
  inner_box(box, x, n, dim, &b);
  for (int k = 0; k < dim; k++) /* the internal grid divides by the side */
    if (!b.periodic[k] && !(b.len[k] > 0)) b.len[k] = 1, b.hi[k] = b.lo[k] + 1;
  double *copy;
  const double *u = inner_positions(&b, x, n, &copy);
  double *r2 = malloc((n_r + 1) * sizeof *r2), *p2 = malloc((n_r + 1) * sizeof *p2);
  if (!u || !r2 || !p2) {
    free(copy); free(r2); free(p2);
    return oom(fn);
  }
  /* agglo_pair_distribution's cells are as wide as the largest radius: one more radius, whose
     count is dropped, keeps the grid within memory (and > 0 wide) */
  double rmax = 0;
  for (size_t k = 0; k < n_r; k++) rmax = fmax(rmax, radii_r[k]);
  memcpy(r2, radii_r, n_r * sizeof *r2);
  r2[n_r] = grid_width(&b, dim, rmax, grid_cap(n), 1024);
  agglo_system s = shallow(dim, n, u, NULL, NULL, NULL, &b);
  int rc = agglo_pair_distribution(&s, r2, n_r + 1, 0, p2);
  if (rc == 0) memcpy(p, p2, n_r * sizeof *p);
  free(copy); free(r2); free(p2);
  return rc == 0 ? AGGLO_OK : oom(fn);
}

/* ---------- ellipsoids ---------- */

/* The ellipsoid with the second moments of the member spheres (each sphere weighs the same):
   G = (1/n) sum_i [y_i y_i^T + (r_i^2/5) I], y_i = x_i - (1/n) sum_j x_j (a solid sphere of
   radius r has second moment r^2/5 along every axis, a solid ellipsoid a_k^2/5 along its axis k),
   semi-axes a_k = sqrt(5 lambda_k) in descending order, directions the eigenvectors of G. */
agglo_status agglo_analysis_ellipsoid(const double *x, const double *r, size_t n, double semi[3],
                                      double axes[9]) {
  static const char fn[] = "agglo_analysis_ellipsoid";
  agglo_status st;
  if (n == 0) return bad(fn, "n = 0 (no spheres)");
  if ((st = check_positions(fn, x, n, 0)) || (st = check_nonneg(fn, r, n, "r")) ||
      (st = check_ptr(fn, semi, "semi")))
    return st;
  double V[9];
  if (agglo_equivalent_ellipsoid(x, r, n, semi, V) != 0) return bad(fn, "non-finite values");
  for (int a = 0; a < 3; a++) {
    /* a reproducible sign: the largest component of each direction is positive */
    int big = 0;
    for (int k = 1; k < 3; k++)
      if (fabs(V[3 * k + a]) > fabs(V[3 * big + a])) big = k;
    if (V[3 * big + a] < 0)
      for (int k = 0; k < 3; k++) V[3 * k + a] = -V[3 * k + a];
  }
  if (axes) memcpy(axes, V, sizeof V);
  return AGGLO_OK;
}

/* Classes of semi-axes a1 >= a2 >= a3 (sorted here, so any order is accepted), "x ~ y" meaning
   x <= (1 + tol) y for x >= y:
     sphere   a1 ~ a3 (all three within tol);
     prolate  a2 ~ a3 and not a1 ~ a2 (one long axis);
     oblate   a1 ~ a2 and not a2 ~ a3 (one short axis);
     scalene  otherwise: no two axes equal, or a1 ~ a2 ~ a3 pairwise but a1 not ~ a3 (no one
              axis stands out).
   The classes exclude each other. Misuse (semi NULL, a negative or non-finite axis, tol < 0)
   returns -1 with the message in agglo_last_error(). (The agglomerate report of the thesis keeps
   its own rule, agglo_ellipsoid_class.) */
int agglo_analysis_ellipsoid_class(const double semi[3], double tol) {
  static const char fn[] = "agglo_analysis_ellipsoid_class";
  if (!semi) return bad(fn, "semi is NULL"), -1;
  if (!isfinite(tol) || tol < 0) return bad(fn, "tol = %g (must be finite and >= 0)", tol), -1;
  double a[3];
  for (int k = 0; k < 3; k++) {
    if (!isfinite(semi[k]) || semi[k] < 0)
      return bad(fn, "semi[%d] = %g (must be finite and >= 0)", k, semi[k]), -1;
    a[k] = semi[k];
  }
  for (int p = 0; p < 2; p++) /* descending */
    for (int q = p + 1; q < 3; q++)
      if (a[q] > a[p]) {
        double t = a[p];
        a[p] = a[q];
        a[q] = t;
      }
  return agglo_ellipsoid_class_ratio(a, tol); /* the rule of `agglo agglomerates` */
}

/* k_B T of v - u: u_x(y) = rate (y - y_mid) when rate != 0 (x then read), else u = 0: the sums
   and the peculiar velocity of analysis/temperature.h, as the DPD model's `temperature` column. */
static agglo_status temperature_of(const char *fn, const double *x, const double *v, const double *m,
                                   size_t n, int dim, double rate, double y_mid, double *kT) {
  agglo_status st = check_dim(fn, dim);
  if (st == AGGLO_OK) st = check_ptr(fn, v, "v");
  if (st == AGGLO_OK) st = check_ptr(fn, m, "m");
  if (st == AGGLO_OK) st = check_ptr(fn, kT, "kT");
  if (st == AGGLO_OK && rate != 0) st = check_ptr(fn, x, "x");
  if (st == AGGLO_OK && n < 2) st = bad(fn, "n = %zu (at least 2 particles)", n);
  if (st != AGGLO_OK) return st;
  double sums[AGGLO_KT_SUMS] = {0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (!(m[i] > 0) || !isfinite(m[i])) return bad(fn, "m[%zu] = %g (must be positive)", i, m[i]);
    const double u[3] = {rate != 0 ? agglo_peculiar_vx(v[3 * i], x[3 * i + 1], rate, y_mid) : v[3 * i],
                         v[3 * i + 1], v[3 * i + 2]};
    agglo_kinetic_add(sums, m[i], u, dim);
  }
  *kT = agglo_temperature_of_sums(dim, sums);
  if (!isfinite(*kT)) return bad(fn, "non-finite velocities");
  return AGGLO_OK;
}

agglo_status agglo_analysis_temperature(const double *v, const double *m, size_t n, int dim,
                                        double *kT) {
  return temperature_of(__func__, NULL, v, m, n, dim, 0, 0, kT);
}

agglo_status agglo_analysis_peculiar_temperature(const double *x, const double *v, const double *m,
                                                 size_t n, int dim, const agglo_box *box, double *kT) {
  const double rate = box ? box->shear_rate : 0;
  if (box && !isfinite(rate)) return bad(__func__, "box->shear_rate = %g (must be finite)", rate);
  return temperature_of(__func__, x, v, m, n, dim, rate, box ? box->lo[1] + 0.5 * box->len[1] : 0, kT);
}
