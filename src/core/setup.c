#include "core/setup.h"
#include "core/cells.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/error.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

double agglo_particle_radius(const agglo_config *c, size_t i) {
  if (c->radii.n > 0) return c->radii.v[i % (size_t)c->radii.n];
  double u[4];
  if (c->radius_distribution == RADII_LOGNORMAL) {
    agglo_rng_normal4((uint64_t)c->seed, AGGLO_STREAM_RADIUS, 0, i, u);
    return c->radius * exp(log(c->radius_sigma) * u[0]);
  }
  agglo_rng_uniform4((uint64_t)c->seed, AGGLO_STREAM_RADIUS, 0, i, u);
  return c->radius * (1.0 + c->radius_spread * (2.0 * u[0] - 1.0));
}

static void set_radii_and_masses(agglo_system *s, const agglo_config *c) {
  for (size_t i = 0; i < s->n; i++) {
    double r = agglo_particle_radius(c, i);
    double m = agglo_particle_mass(c, r);
    if (c->model->radius_mass) c->model->radius_mass(c, i, s->n, &r, &m); /* e.g. DPD species */
    s->r[i] = r, s->m[i] = m;
    s->inv_m[i] = 1.0 / s->m[i];
  }
}

void agglo_setup_box(agglo_system *s, const agglo_config *c) {
  int d = c->dim;
  double side = 0;
  if (c->fraction > 0) {
    double vol = 0;
    for (size_t i = 0; i < s->n; i++)
      vol += d == 2 ? M_PI * s->r[i] * s->r[i] : 4.0 / 3.0 * M_PI * pow(s->r[i], 3);
    side = pow(vol / c->fraction, 1.0 / d);
  }
  double rmax = agglo_max_radius(s);
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = 0;
    if (k < d) {
      s->box.len[k] = c->fraction > 0 ? side : agglo_list_component(&c->size, k);
      s->box.periodic[k] = c->boundary.v[c->boundary.n == 1 ? 0 : k] == AGGLO_PERIODIC;
    } else {
      s->box.len[k] = 2 * rmax; /* a slab in 2D: z = 0 stays fixed */
      s->box.lo[k] = -rmax;
      s->box.periodic[k] = 0;
    }
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
  }
}

/* Random sequential addition on a grid of cells at least one diameter wide, in the whole box or,
   when region is given (low corner then high corner, dim values each), inside that region. */
static int place_random(agglo_system *s, const agglo_config *c, const double *region,
                        const agglo_placement_filter *filter, char *err, size_t errlen) {
  size_t n = s->n;
  int d = s->dim;
  double rmax = agglo_max_radius(s), cell = 2 * rmax;
  int nc[3];
  /* the shared capped grid: an (int) cast of len/cell overflowed, and a dilute box asked for
     ~1e11 cells; wider cells only lengthen the overlap test, never change its answer */
  size_t ncells = agglo_grid_counts(d, s->box.len, s->box.periodic, cell, 3, n, nc);
  int32_t *head = malloc(ncells * sizeof *head), *next = malloc(n * sizeof *next);
  if (!head || !next) {
    free(head); free(next);
    return agglo_fail(err, errlen, "out of memory placing %zu particles", n);
  }
  for (size_t q = 0; q < ncells; q++) head[q] = -1;
  const uint64_t max_attempts = 100000;
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i, r = s->r[i];
    uint64_t a, blocked = 0; /* attempts that fell on an obstacle */
    const char *what = NULL;
    for (a = 0; a < max_attempts; a++) {
      double u[4];
      agglo_rng_uniform4((uint64_t)c->seed, AGGLO_STREAM_PLACEMENT, a, i, u);
      for (int k = 0; k < 3; k++) {
        if (k >= d) x[k] = 0;
        else if (region) {
          double lo = region[k] + r, hi = region[d + k] - r;
          x[k] = lo + u[k] * (hi - lo);
        }
        else if (s->box.periodic[k]) x[k] = s->box.lo[k] + u[k] * s->box.len[k];
        else x[k] = s->box.lo[k] + r + u[k] * (s->box.len[k] - 2 * r);
      }
      int ci[3];
      for (int k = 0; k < 3; k++) {
        double q = k < d ? floor((x[k] - s->box.lo[k]) / s->box.len[k] * nc[k]) : 0;
        ci[k] = !(q >= 0) ? 0 : q >= nc[k] ? nc[k] - 1 : (int)q; /* clamped before the cast */
      }
      const char *on = filter ? filter->blocked(filter->ctx, x, r) : NULL;
      if (on) {
        blocked++, what = on;
        continue;
      }
      int ok = 1;
      for (int dz = (d == 3 ? -1 : 0); dz <= (d == 3 ? 1 : 0) && ok; dz++)
        for (int dy = -1; dy <= 1 && ok; dy++)
          for (int dx = -1; dx <= 1 && ok; dx++) {
            int cc[3] = {ci[0] + dx, ci[1] + dy, ci[2] + dz}, skip = 0;
            for (int k = 0; k < 3; k++) {
              if (cc[k] >= 0 && cc[k] < nc[k]) continue;
              if (!s->box.periodic[k] || nc[k] == 1) skip = 1;
              else cc[k] = (cc[k] + nc[k]) % nc[k];
            }
            /* with one cell along a periodic axis, only offset 0 is distinct */
            for (int k = 0; k < 3; k++)
              if (nc[k] == 1 && (k == 0 ? dx : k == 1 ? dy : dz) != 0) skip = 1;
            if (skip) continue;
            size_t q = ((size_t)cc[2] * nc[1] + cc[1]) * nc[0] + cc[0];
            for (int32_t j = head[q]; j >= 0; j = next[j]) {
              double dd[3];
              agglo_box_delta(&s->box, x, s->x + 3 * (size_t)j, dd);
              double lim = r + s->r[j];
              if (dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2] < lim * lim) {
                ok = 0;
                break;
              }
            }
          }
      if (ok) {
        size_t q = ((size_t)ci[2] * nc[1] + ci[1]) * nc[0] + ci[0];
        next[i] = head[q];
        head[q] = (int32_t)i;
        break;
      }
    }
    if (a == max_attempts) {
      free(head); free(next);
      char on[200] = "";
      if (blocked)
        snprintf(on, sizeof on, " (%llu of them overlapped %s)", (unsigned long long)blocked, what);
      return agglo_fail(err, errlen, "random placement failed: no room for particle %zu of %zu after %llu "
                  "attempts%s; lower particles.n or particles.fraction, or enlarge %s%s",
                  i + 1, n, (unsigned long long)max_attempts, on, region ? "gluey.region" : "box.size",
                  blocked ? ", or move the obstacles away from it" : "");
    }
  }
  free(head); free(next);
  return 0;
}

/* Square or cubic lattice filled in order, one particle per cell centre. */
static int place_lattice(agglo_system *s, const agglo_placement_filter *filter, char *err,
                         size_t errlen) {
  int d = s->dim;
  size_t m = (size_t)ceil(pow((double)s->n, 1.0 / d) - 1e-9);
  while ((d == 2 ? m * m : m * m * m) < s->n) m++;
  double rmax = agglo_max_radius(s);
  for (int k = 0; k < d; k++)
    if (s->box.len[k] / (double)m < 2 * rmax)
      return agglo_fail(err, errlen, "lattice placement: %zu sites per axis of spacing %g cannot hold "
                  "particles of radius %g; enlarge box.size", m, s->box.len[k] / (double)m, rmax);
  for (size_t i = 0; i < s->n; i++) {
    size_t idx[3] = {i % m, (i / m) % m, i / (m * m)};
    for (int k = 0; k < 3; k++)
      s->x[3 * i + k] = k < d ? s->box.lo[k] + (idx[k] + 0.5) * s->box.len[k] / (double)m : 0;
    const char *on = filter ? filter->blocked(filter->ctx, s->x + 3 * i, s->r[i]) : NULL;
    if (on)
      return agglo_fail(err, errlen, "lattice placement: site %zu (%g, %g, %g) overlaps %s; use "
                        "particles.placement = random, or move the obstacle", i + 1, s->x[3 * i],
                        s->x[3 * i + 1], s->x[3 * i + 2], on);
  }
  return 0;
}

int agglo_setup(agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  if (agglo_system_alloc(s, c->dim, (size_t)c->n) != 0)
    return agglo_fail(err, errlen, "out of memory for %lld particles", (long long)c->n);
  set_radii_and_masses(s, c);
  agglo_setup_box(s, c);
  /* a model can confine the random placement to a region of the box (gluey.region) */
  const double *region = NULL;
  int rc = c->model->placement_region ? c->model->placement_region(c, s, &region, err, errlen) : 0;
  if (rc == 0 && c->from[0]) {
    /* particles.from: the file gives the positions (simulation_start.c) */
  } else if (rc == 0) {
    /* and keep out of its obstacles (gluey: spheres, planes, segments, rotating box, wheel) */
    agglo_placement_filter filter = {0}, *f = NULL;
    if (c->model->placement_filter) {
      rc = c->model->placement_filter(c, s, &filter, err, errlen);
      f = rc == 0 && filter.blocked ? &filter : NULL;
    }
    if (rc == 0)
      rc = c->placement == PLACE_LATTICE ? place_lattice(s, f, err, errlen)
                                         : place_random(s, c, region, f, err, errlen);
    if (filter.release) filter.release(filter.ctx);
  }
  if (rc != 0) {
    agglo_system_free(s);
    return -1;
  }
  /* (particles.from: the start follows the file's particles, agglo_start_apply) */
  if (c->model->start && !c->from[0] && c->model->start(s, c, err, errlen) != 0) {
    agglo_system_free(s);
    return -1;
  }
  return 0;
}
