/* The orientation-averaged projected area of an aggregate of spheres by Monte Carlo
   (docs/scattering.md): random orientations, random rays through the bounding rectangle of each
   projection; the mean and its standard error over the orientations. */
#include "analysis/spheres.h"
#include "agglo/scattering.h"
#include "core/error.h"
#include "analysis/stop.h"
#include "core/rng.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The discs of one projection on a grid of square cells of side h (at least the largest
   diameter, so a disc meets at most 4 cells): each disc listed in every cell it meets. */
typedef struct {
  double lo[2], h;
  size_t nx, ny, *start, *item;
} disc_grid;

static int grid_build(disc_grid *g, const double *u, const double *r, size_t n, double rmax,
                      const double lo[2], const double hi[2]) {
  double h = 2 * rmax;
  /* at most 4n + 4096 cells: widen them for a sparse projection (a long chain) */
  while (((hi[0] - lo[0]) / h + 1) * ((hi[1] - lo[1]) / h + 1) > 4.0 * (double)n + 4096) h *= 1.5;
  g->lo[0] = lo[0], g->lo[1] = lo[1], g->h = h;
  g->nx = (size_t)((hi[0] - lo[0]) / h) + 1, g->ny = (size_t)((hi[1] - lo[1]) / h) + 1;
  size_t nc = g->nx * g->ny;
  g->start = calloc(nc + 2, sizeof *g->start);
  g->item = malloc((4 * n + 1) * sizeof *g->item);
  if (!g->start || !g->item) return -1;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      size_t a0 = (size_t)((u[2 * i] - r[i] - lo[0]) / h), a1 = (size_t)((u[2 * i] + r[i] - lo[0]) / h);
      size_t b0 = (size_t)((u[2 * i + 1] - r[i] - lo[1]) / h), b1 = (size_t)((u[2 * i + 1] + r[i] - lo[1]) / h);
      if (a1 >= g->nx) a1 = g->nx - 1;
      if (b1 >= g->ny) b1 = g->ny - 1;
      for (size_t b = b0; b <= b1; b++)
        for (size_t a = a0; a <= a1; a++) {
          size_t c = b * g->nx + a;
          if (pass == 0) g->start[c + 2]++;
          else g->item[g->start[c + 1]++] = i;
        }
    }
    if (pass == 0)
      for (size_t c = 0; c < nc; c++) g->start[c + 2] += g->start[c + 1];
  }
  return 0; /* start[c] .. start[c + 1]: the discs of cell c */
}

static int covered(const disc_grid *g, const double *u, const double *r, double px, double py) {
  size_t a = (size_t)((px - g->lo[0]) / g->h), b = (size_t)((py - g->lo[1]) / g->h);
  if (a >= g->nx) a = g->nx - 1;
  if (b >= g->ny) b = g->ny - 1;
  size_t c = b * g->nx + a;
  for (size_t s = g->start[c]; s < g->start[c + 1]; s++) {
    size_t i = g->item[s];
    double dx = px - u[2 * i], dy = py - u[2 * i + 1];
    if (dx * dx + dy * dy <= r[i] * r[i]) return 1;
  }
  return 0;
}

agglo_status agglo_projected_area(const double *x, const double *r, size_t n, uint64_t seed,
                                  int64_t orientations, int64_t rays, double *area, double *error) {
  const char *fn = "agglo_projected_area";
  if (!x || !r || !area) return agglo_error(AGGLO_ERROR_INPUT, "%s: x, r or area is NULL", fn);
  if (n == 0) return agglo_error(AGGLO_ERROR_INPUT, "%s: n = 0 (an aggregate needs a sphere)", fn);
  if (orientations < 1 || orientations > 10000000)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: orientations = %lld (allowed 1 .. 1e7; agglo analyze: "
                       "--orientations)", fn, (long long)orientations);
  if (rays < 1 || rays > 100000000)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: rays = %lld (allowed 1 .. 1e8; agglo analyze: --rays)",
                       fn, (long long)rays);
  if ((double)orientations * (double)rays > 1e10)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: orientations x rays = %.4g (allowed at most 1e10)", fn,
                       (double)orientations * (double)rays);
  /* each orientation projects every monomer and grids them: bounded as the rays are */
  if ((double)orientations * (double)n > 1e10)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: orientations x monomers = %lld x %zu = %.4g (allowed at "
                       "most 1e10; agglo analyze: --orientations)", fn, (long long)orientations, n,
                       (double)orientations * (double)n);
  if (agglo_check_spheres(fn, x, r, n) != AGGLO_OK) return AGGLO_ERROR_INPUT;
  double rmax = 0;
  for (size_t i = 0; i < n; i++) rmax = fmax(rmax, r[i]);
  double *u = malloc((2 * n + 1) * sizeof *u);
  if (!u) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  double mean = 0, m2 = 0; /* Welford's running mean and sum of squared deviations */
  agglo_status st = AGGLO_OK;
  for (int64_t k = 0; k < orientations; k++) {
    if (agglo_analysis_stopping()) { /* (an orientation: at most 1e10 / orientations rays) */
      st = agglo_analysis_stopped(fn);
      break;
    }
    /* the view direction uniform on the sphere, e1 and e2 spanning the image plane */
    double w[4], d[3], e1[3], e2[3];
    agglo_rng_uniform4(seed, AGGLO_STREAM_PROJECTION, (uint64_t)k, UINT64_MAX, w);
    agglo_rng_direction(3, w, 1, d);
    double t[3] = {fabs(d[0]) < 0.9 ? 1 : 0, fabs(d[0]) < 0.9 ? 0 : 1, 0};
    e1[0] = t[1] * d[2] - t[2] * d[1], e1[1] = t[2] * d[0] - t[0] * d[2], e1[2] = t[0] * d[1] - t[1] * d[0];
    double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int a = 0; a < 3; a++) e1[a] /= l;
    e2[0] = d[1] * e1[2] - d[2] * e1[1], e2[1] = d[2] * e1[0] - d[0] * e1[2], e2[2] = d[0] * e1[1] - d[1] * e1[0];
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
      const double *p = x + 3 * i;
      u[2 * i] = p[0] * e1[0] + p[1] * e1[1] + p[2] * e1[2];
      u[2 * i + 1] = p[0] * e2[0] + p[1] * e2[1] + p[2] * e2[2];
      for (int a = 0; a < 2; a++)
        lo[a] = fmin(lo[a], u[2 * i + a] - r[i]), hi[a] = fmax(hi[a], u[2 * i + a] + r[i]);
    }
    disc_grid g = {0};
    if (grid_build(&g, u, r, n, rmax, lo, hi) != 0) {
      free(g.start), free(g.item);
      st = agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
      break;
    }
    int64_t hits = 0;
    for (int64_t j = 0; j < rays; j += 2) { /* two rays per draw of four numbers */
      double v[4];
      agglo_rng_uniform4(seed, AGGLO_STREAM_PROJECTION, (uint64_t)k, (uint64_t)j / 2, v);
      hits += covered(&g, u, r, lo[0] + v[0] * (hi[0] - lo[0]), lo[1] + v[1] * (hi[1] - lo[1]));
      if (j + 1 < rays)
        hits += covered(&g, u, r, lo[0] + v[2] * (hi[0] - lo[0]), lo[1] + v[3] * (hi[1] - lo[1]));
    }
    free(g.start), free(g.item);
    double A = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (double)hits / (double)rays;
    double dA = A - mean;
    mean += dA / (double)(k + 1), m2 += dA * (A - mean);
  }
  free(u);
  if (st != AGGLO_OK) return st;
  double K = (double)orientations;
  *area = mean;
  if (error) *error = orientations > 1 ? sqrt(m2 / (K * (K - 1))) : NAN;
  return AGGLO_OK;
}
