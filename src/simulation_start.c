/* A user's own start: positions, velocities, radii and masses written before the first step,
   checked (finite, positive, inside walls, no overlap beyond the model's tolerance) and applied
   only when every value passes; the model is then rebuilt over the new state. */
#include "cells.h"
#include "error.h"
#include "simulation.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static agglo_status writable(agglo_sim *sim, const void *data, size_t n, const char *fn) {
  if (!sim) return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation handle is NULL", fn);
  if (sim->started || sim->restarted)
    return agglo_error(AGGLO_ERROR_USAGE, "%s: only before the first step of a new simulation "
                       "(this one is at step %lld%s)", fn, (long long)sim->sys.step,
                       sim->restarted ? ", restarted" : "");
  if (!data) return agglo_error(AGGLO_ERROR_INPUT, "%s: the array is NULL", fn);
  if (n != sim->sys.n)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: %zu particles given, the simulation has %zu", fn, n,
                       sim->sys.n);
  return AGGLO_OK;
}

/* The model's state depends on the particles (neighbour lists, masses): make it again. */
static agglo_status rebuild(agglo_sim *sim) {
  if (sim->state) sim->model->destroy(sim->state);
  sim->state = NULL;
  sim->labelled_step = -1;
  if (sim->model->init(&sim->state, &sim->sys, &sim->cfg, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    return AGGLO_ERROR_INPUT;
  return AGGLO_OK;
}

/* Overlap allowed by the model (DPD particles are soft: any). */
static double overlap_tolerance(const agglo_sim *sim) {
  const agglo_config *c = &sim->cfg;
  double rmin = agglo_min_radius(&sim->sys);
  if (c->model == MODEL_DPD) return INFINITY;
  if (c->model == MODEL_BALLISTIC) return c->ball_tol * rmin;
  return c->solver_tol * rmin;
}

/* Every pair of x (3n) overlapping by more than tol, reported for the first one. */
static agglo_status check_overlaps(agglo_sim *sim, const double *x, const double *r, const char *fn) {
  double tol = overlap_tolerance(sim);
  if (isinf(tol) || sim->sys.n < 2) return AGGLO_OK;
  agglo_system t = sim->sys; /* the same particles at the proposed positions and radii */
  t.x = (double *)x, t.r = (double *)r;
  agglo_neighbors nb = {0};
  if (agglo_neighbors_build(&nb, &t, 0, 0) != 0) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  agglo_status st = AGGLO_OK;
  for (size_t i = 0; i < t.n && st == AGGLO_OK; i++)
    for (size_t k = nb.start[i]; k < nb.start[i + 1]; k++) {
      size_t j = (size_t)nb.nbr[k];
      double d[3];
      agglo_box_delta(&t.box, &x[3 * i], &x[3 * j], d);
      double gap = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - r[i] - r[j];
      if (gap < -tol) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particles %zu and %zu overlap by %.6g (allowed: "
                         "at most %.3g for the %s model)", fn, i, j, -gap, tol, sim->model->name);
        break;
      }
    }
  agglo_neighbors_free(&nb);
  return st;
}

agglo_status agglo_sim_set_positions(agglo_sim *sim, const double *x, size_t n, int stride) {
  const char *fn = __func__;
  agglo_status st = writable(sim, x, n, fn);
  if (st != AGGLO_OK) return st;
  const agglo_system *s = &sim->sys;
  if (stride != 3 && !(stride == 2 && s->dim == 2))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: stride %d (allowed: 3, or 2 in 2D)", fn, stride);
  double *y = malloc((n ? 3 * n : 1) * sizeof *y);
  if (!y) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  for (size_t i = 0; i < n && st == AGGLO_OK; i++)
    for (int k = 0; k < 3; k++) {
      double v = k < stride ? x[(size_t)stride * i + (size_t)k] : 0;
      if (!isfinite(v)) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: coordinate %d is %g (allowed: finite)", fn, i, k, v);
        break;
      }
      if (k == 2 && s->dim == 2 && v != 0) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: z = %g in a 2D simulation (allowed: 0)", fn, i, v);
        break;
      }
      y[3 * i + k] = v;
    }
  for (size_t i = 0; i < n && st == AGGLO_OK; i++) {
    agglo_box_wrap(&s->box, &y[3 * i]);
    for (int k = 0; k < s->dim; k++)
      if (!s->box.periodic[k] && (y[3 * i + k] - s->r[i] < s->box.lo[k] - 1e-12 * s->box.len[k] ||
                                  y[3 * i + k] + s->r[i] > s->box.hi[k] + 1e-12 * s->box.len[k])) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu (radius %g) at %c = %g crosses the "
                         "wall (allowed: %g to %g)", fn, i, s->r[i], "xyz"[k], y[3 * i + k],
                         s->box.lo[k] + s->r[i], s->box.hi[k] - s->r[i]);
        break;
      }
  }
  if (st == AGGLO_OK) st = check_overlaps(sim, y, s->r, fn);
  if (st == AGGLO_OK) {
    memcpy(sim->sys.x, y, 3 * n * sizeof *y);
    st = rebuild(sim);
  }
  free(y);
  return st;
}

agglo_status agglo_sim_set_velocities(agglo_sim *sim, const double *v, size_t n, int stride) {
  const char *fn = __func__;
  agglo_status st = writable(sim, v, n, fn);
  if (st != AGGLO_OK) return st;
  agglo_system *s = &sim->sys;
  if (stride != 3 && !(stride == 2 && s->dim == 2))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: stride %d (allowed: 3, or 2 in 2D)", fn, stride);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double u = k < stride ? v[(size_t)stride * i + (size_t)k] : 0;
      if (!isfinite(u) || (k == 2 && s->dim == 2 && u != 0))
        return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: component %d is %g (allowed: "
                           "finite%s)", fn, i, k, u, s->dim == 2 ? ", z = 0 in 2D" : "");
    }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) s->v[3 * i + k] = k < stride ? v[(size_t)stride * i + (size_t)k] : 0;
  return rebuild(sim);
}

/* Radii (masses follow particles.mass_rule, as at set-up) or masses. */
static agglo_status set_positive(agglo_sim *sim, const double *a, size_t n, int radii, const char *fn) {
  agglo_status st = writable(sim, a, n, fn);
  if (st != AGGLO_OK) return st;
  for (size_t i = 0; i < n; i++)
    if (!(a[i] > 0) || !isfinite(a[i]))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: %g (allowed: positive and finite)", fn, i, a[i]);
  agglo_system *s = &sim->sys;
  if (radii) {
    st = check_overlaps(sim, s->x, a, fn);
    for (size_t i = 0; i < n && st == AGGLO_OK; i++)
      for (int k = 0; k < s->dim; k++)
        if (!s->box.periodic[k] && (s->x[3 * i + k] - a[i] < s->box.lo[k] || s->x[3 * i + k] + a[i] > s->box.hi[k])) {
          st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu of radius %g at %c = %g crosses the wall",
                           fn, i, a[i], "xyz"[k], s->x[3 * i + k]);
          break;
        }
    if (st != AGGLO_OK) return st;
  }
  const agglo_config *c = &sim->cfg;
  for (size_t i = 0; i < n; i++) {
    if (radii) {
      double q = a[i] / c->radius;
      s->r[i] = a[i];
      s->m[i] = c->mass_rule == MASS_VOLUME ? c->mass * q * q * q : c->mass;
    } else {
      s->m[i] = a[i];
    }
    s->inv_m[i] = 1.0 / s->m[i];
  }
  return rebuild(sim);
}

agglo_status agglo_sim_set_radii(agglo_sim *sim, const double *r, size_t n) {
  return set_positive(sim, r, n, 1, __func__);
}

agglo_status agglo_sim_set_masses(agglo_sim *sim, const double *m, size_t n) {
  return set_positive(sim, m, n, 0, __func__);
}
