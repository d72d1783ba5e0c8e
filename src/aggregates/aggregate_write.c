/* Aggregates written as one trajectory frame by the writers of agglo convert (io/xyz_write.h,
   io/h5md_write.h): in a box that particles.from accepts as a start for every model. */
#include "agglo/aggregates.h"
#include "core/error.h"
#include "core/system.h"
#include "io/frame_extras.h"
#include "io/h5md_write.h"
#include "io/xyz_write.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *tail) {
  size_t l = strlen(s), t = strlen(tail);
  return l >= t && !strcmp(s + l - t, tail);
}

/* The system of the frame: aggregate k in cell k of a g^dim grid of cells of side w. */
static agglo_status lay_out(const agglo_aggregate *a, size_t count, double radius, double box,
                            int periodic, agglo_system *s) {
  int dim = a[0].dim;
  size_t n = 0;
  double extent = 0, rmax = 0;
  for (size_t k = 0; k < count; k++) {
    if (!a[k].x || !a[k].r || a[k].n < 1 || a[k].dim != dim)
      return agglo_error(AGGLO_ERROR_USAGE, "agglo_aggregates_write: aggregate %zu is empty or of "
                         "another dimension than the first (%d)", k, dim);
    n += (size_t)a[k].n;
    for (int64_t i = 0; i < a[k].n; i++) {
      const double *x = a[k].x + 3 * i;
      double d = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) + a[k].r[i];
      if (d > extent) extent = d;
      if (a[k].r[i] > rmax) rmax = a[k].r[i];
    }
  }
  size_t g = 1;
  while ((dim == 2 ? g * g : g * g * g) < count) g++;
  double need = (double)g * (2 * extent + 4 * rmax); /* a gap of two largest diameters around each */
  if (box <= 0) box = need;
  else if (box < need)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: a box of side %g is too small for %zu aggregate%s "
                       "of reach %.6g from their centre (allowed: a side of at least %.6g)", box, count,
                       count > 1 ? "s" : "", extent, need);
  if (agglo_system_alloc(s, dim, n) != 0) return agglo_error(AGGLO_ERROR_MEMORY, "aggregate: out of memory");
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = k < dim ? 0 : -rmax;
    s->box.len[k] = k < dim ? box : 2 * rmax;
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
    s->box.periodic[k] = k < dim && periodic;
  }
  double w = box / (double)g;
  size_t p = 0;
  for (size_t k = 0; k < count; k++) {
    size_t cell[3] = {k % g, (k / g) % g, dim == 3 ? k / (g * g) : 0};
    for (int64_t i = 0; i < a[k].n; i++, p++) {
      for (int q = 0; q < 3; q++)
        s->x[3 * p + q] = q < dim ? ((double)cell[q] + 0.5) * w + a[k].x[3 * i + q] : 0;
      s->r[p] = a[k].r[i];
      double ratio = a[k].r[i] / radius;
      s->m[p] = ratio * ratio * ratio;
      s->inv_m[p] = 1 / s->m[p];
      s->id[p] = (int64_t)p;
      s->cluster[p] = (int32_t)(p - (size_t)i); /* the smallest id of its aggregate */
    }
  }
  return AGGLO_OK;
}

/* The observables of a frame: the count of aggregates in it, D_f, k_f. */
static void observables(agglo_frame_extras *x, double values[3]) {
  const char *names[3] = {"n_aggregates", "fractal_dimension", "prefactor"};
  *x = (agglo_frame_extras){.units = AGGLO_UNITS_REDUCED, .nobs = 3};
  for (int k = 0; k < 3; k++) snprintf(x->names[k], sizeof x->names[k], "%s", names[k]), x->values[k] = values[k];
}

/* The arguments both writers take, checked in one place. */
static agglo_status check_write(const char *fn, const char *path, const agglo_aggregate *a, size_t count,
                                double radius, double box) {
  if (!path || !a || count == 0) return agglo_error(AGGLO_ERROR_USAGE, "%s: NULL path or no aggregate", fn);
  if (!(radius > 0) || !isfinite(radius))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: radius = %g (allowed: positive and finite)", radius);
  if (!isfinite(box))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: box = %g (allowed: finite; <= 0 for the fitted box)", box);
  return AGGLO_OK;
}

agglo_status agglo_aggregates_write_frames(const char *path, const agglo_aggregate *a, size_t count,
                                           double fractal_dimension, double prefactor, double radius,
                                           double box, int periodic) {
  agglo_status bad = check_write("agglo_aggregates_write_frames", path, a, count, radius, box);
  if (bad) return bad;
  /* one box for every frame: the largest any aggregate needs, or the one given */
  double side = 0;
  for (size_t k = 0; k < count; k++) {
    agglo_system t = {0};
    agglo_status st = lay_out(&a[k], 1, radius, box, periodic, &t);
    if (st != AGGLO_OK) return st;
    if (t.box.len[0] > side) side = t.box.len[0];
    agglo_system_free(&t);
  }
  char *err = agglo_error_buffer();
  int h5 = ends_with(path, ".h5md") || ends_with(path, ".h5");
  double values[3] = {1, fractal_dimension, prefactor};
  agglo_frame_extras x;
  observables(&x, values);
  agglo_h5md *h = NULL;
  FILE *f = NULL;
  agglo_status st = AGGLO_OK;
  if (!h5 && !(f = fopen(path, "w"))) st = agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
  for (size_t k = 0; k < count && st == AGGLO_OK; k++) {
    agglo_system s = {0};
    st = lay_out(&a[k], 1, radius, side, periodic, &s);
    if (st != AGGLO_OK) break;
    s.step = (int64_t)k, s.t = (double)k; /* frame k: aggregate k */
    if (h5) {
      agglo_h5md_options ho = {.precision64 = 1, .units = AGGLO_UNITS_REDUCED,
                               .observables = "n_aggregates,fractal_dimension,prefactor"};
      if (!h && !(h = agglo_h5md_open(path, &s, 0, &ho, err, AGGLO_ERROR_LEN))) st = AGGLO_ERROR_IO;
      else if (agglo_h5md_frame(h, &s, err, AGGLO_ERROR_LEN) != 0 ||
               agglo_h5md_observables(h, s.step, values, err, AGGLO_ERROR_LEN) != 0)
        st = AGGLO_ERROR_IO;
    } else if (agglo_xyz_write_frame_exact(f, &s, &x) != 0) {
      st = agglo_error(AGGLO_ERROR_IO, "%s: write failed (disk full?)", path);
    }
    agglo_system_free(&s);
  }
  if (h && agglo_h5md_close(h) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
  if (f && fclose(f) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
  if (st != AGGLO_OK && (f || h)) {
    remove(path);
    char xd[4200];
    if (h5 && agglo_h5md_xdmf_path(path, xd, sizeof xd) == 0) remove(xd);
  }
  return st;
}

agglo_status agglo_aggregates_write(const char *path, const agglo_aggregate *a, size_t count,
                                    double fractal_dimension, double prefactor, double radius,
                                    double box, int periodic) {
  agglo_status bad = check_write("agglo_aggregates_write", path, a, count, radius, box);
  if (bad) return bad;
  agglo_system s = {0};
  agglo_status st = lay_out(a, count, radius, box, periodic, &s);
  if (st != AGGLO_OK) return st;
  double values[3] = {(double)count, fractal_dimension, prefactor};
  agglo_frame_extras x;
  observables(&x, values);
  char *err = agglo_error_buffer();
  if (ends_with(path, ".h5md") || ends_with(path, ".h5")) {
    agglo_h5md_options ho = {.precision64 = 1, .units = AGGLO_UNITS_REDUCED,
                             .observables = "n_aggregates,fractal_dimension,prefactor"};
    agglo_h5md *h = agglo_h5md_open(path, &s, 0, &ho, err, AGGLO_ERROR_LEN);
    if (!h) st = AGGLO_ERROR_IO;
    else {
      if (agglo_h5md_frame(h, &s, err, AGGLO_ERROR_LEN) != 0 ||
          agglo_h5md_observables(h, 0, values, err, AGGLO_ERROR_LEN) != 0)
        st = AGGLO_ERROR_IO;
      if (agglo_h5md_close(h) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
    }
  } else {
    FILE *f = fopen(path, "w");
    if (!f) st = agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
    else {
      if (agglo_xyz_write_frame_exact(f, &s, &x) != 0) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed (disk full?)", path);
      if (fclose(f) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
    }
  }
  if (st != AGGLO_OK) { /* no half file passes for an aggregate */
    remove(path);
    char xd[4200];
    if (agglo_h5md_xdmf_path(path, xd, sizeof xd) == 0 && (ends_with(path, ".h5md") || ends_with(path, ".h5")))
      remove(xd);
  }
  agglo_system_free(&s);
  return st;
}
