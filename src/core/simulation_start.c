/* A user's own start: positions, velocities, radii and masses written before the first step (or
   between steps, for a model whose memory a new state does not invalidate: new_state_refused),
   checked (finite, positive, inside walls, no overlap beyond the model's tolerance) and applied
   only when every value passes; the model is then rebuilt over the new state. */
#include "core/compare.h"
#include "core/cells.h"
#include "core/error.h"
#include "io/h5md_read.h"
#include "core/setup.h"
#include "core/simulation.h"
#include "io/xyz_read.h"
#include "models/ballistic_config.h" /* ballistic.stop: does a restart read run.t_end */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ids distinct and >= 0 (the random numbers are keyed by them). */
static agglo_status check_ids(const int64_t *id, size_t n, const char *where) {
  int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
  if (!ids) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  memcpy(ids, id, n * sizeof *ids);
  qsort(ids, n, sizeof *ids, agglo_cmp_i64);
  agglo_status st = AGGLO_OK;
  for (size_t i = 0; i < n && st == AGGLO_OK; i++)
    if (ids[i] < 0 || (i && ids[i] == ids[i - 1]))
      st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle id %lld is %s (allowed: distinct, >= 0)",
                       where, (long long)ids[i], ids[i] < 0 ? "negative" : "repeated");
  free(ids);
  return st;
}

static agglo_status writable(agglo_sim *sim, const void *data, size_t n, const char *fn) {
  if (!sim) return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation handle is NULL", fn);
  if (sim->started || sim->restarted) { /* between steps: if the model can go on from it */
    const char *why = sim->model->new_state_refused ? sim->model->new_state_refused(sim->state)
                      : "its memory of the run (contacts, links, adhesion) would not fit the new state";
    if (why)
      return agglo_error(AGGLO_ERROR_USAGE, "%s: the %s model takes a new state only before the "
                         "first step of a new simulation (this one is at step %lld%s): %s", fn,
                         sim->model->name, (long long)sim->sys.step,
                         sim->restarted ? ", restarted" : "", why);
    if (sim->failed || sim->finished)
      return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation %s at step %lld", fn,
                         sim->failed ? "failed" : "is finished", (long long)sim->sys.step);
  }
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
  agglo_model_box(sim->model, sim->state, &sim->sys);
  return AGGLO_OK;
}

/* Overlap allowed by the model (DPD particles are soft: any). */
static double overlap_tolerance(const agglo_sim *sim) {
  const agglo_config *c = &sim->cfg;
  double rmin = agglo_min_radius(&sim->sys);
  return c->model->overlap_tolerance ? c->model->overlap_tolerance(c) * rmin : INFINITY;
}

/* Every pair of x (3n) overlapping by more than scale times the tolerance, reported for the first. */
static agglo_status check_overlaps_scaled(agglo_sim *sim, const double *x, const double *r,
                                         double scale, const char *fn) {
  double tol = scale * overlap_tolerance(sim);
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
                         "at most %.3g for the %s model, ten solver tolerances)", fn, i, j, -gap, tol,
                         sim->model->name);
        break;
      }
    }
  agglo_neighbors_free(&nb);
  return st;
}

/* A start may overlap as much as a step of the run may leave (ten solver tolerances, the run's
   own guard, and a restart's), so that any state the program wrote is a valid start. */
static agglo_status check_overlaps(agglo_sim *sim, const double *x, const double *r, const char *fn) {
  return check_overlaps_scaled(sim, x, r, 10, fn);
}

/* Positions x (stride values a particle) copied into y (3n) if finite, z = 0 in 2D, wrapped into
   periodic axes, clear of the walls with radii r and without overlaps beyond the tolerance. */
static agglo_status check_positions(agglo_sim *sim, const double *x, size_t n, int stride,
                                    const double *r, double *y, const char *fn) {
  const agglo_system *s = &sim->sys;
  agglo_status st = AGGLO_OK;
  for (size_t i = 0; i < n && st == AGGLO_OK; i++)
    for (int k = 0; k < 3; k++) {
      double v = k < stride ? x[(size_t)stride * i + (size_t)k] : 0;
      if (!isfinite(v)) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: coordinate %d is %g (allowed: finite)", fn, i, k, v);
        break;
      }
      double off = v - s->box.lo[k], L = s->box.len[k];
      if (k < s->dim && s->box.periodic[k] && !(off >= -AGGLO_WRAP_MAX_SIDES * L && off <= (AGGLO_WRAP_MAX_SIDES + 1) * L)) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: %c = %g, more than %g box lengths from the "
                         "periodic box [%g, %g) (wrapping it would keep none of its digits)", fn, i,
                         "xyz"[k], v, AGGLO_WRAP_MAX_SIDES, s->box.lo[k], s->box.hi[k]);
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
      if (!s->box.periodic[k] && (y[3 * i + k] - r[i] < s->box.lo[k] - 1e-12 * s->box.len[k] ||
                                  y[3 * i + k] + r[i] > s->box.hi[k] + 1e-12 * s->box.len[k])) {
        st = agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu (radius %g) at %c = %g crosses the "
                         "wall (allowed: %g to %g)", fn, i, r[i], "xyz"[k], y[3 * i + k],
                         s->box.lo[k] + r[i], s->box.hi[k] - r[i]);
        break;
      }
  }
  if (st == AGGLO_OK) st = check_overlaps(sim, y, r, fn);
  return st;
}

/* Under Lees-Edwards shear (box.shear_rate) a particle given a new y without a new velocity keeps
   its peculiar velocity v - u(y): the streaming part u_x = rate (y - y_c) follows it (the start
   drew it at the old y). */
static void carry_the_flow(agglo_system *s, const double *y) {
  const double rate = s->box.shear_rate;
  for (size_t i = 0; rate != 0 && i < s->n; i++) s->v[3 * i] += rate * (y[3 * i + 1] - s->x[3 * i + 1]);
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
  st = check_positions(sim, x, n, stride, s->r, y, fn);
  if (st == AGGLO_OK) {
    carry_the_flow(&sim->sys, y);
    memcpy(sim->sys.x, y, 3 * n * sizeof *y);
    st = rebuild(sim);
  }
  free(y);
  return st;
}

/* The fastest a particle may start: a fixed step must not carry it across the box (such a step
   is no dynamics, and its neighbour search would span everything: minutes a step); a model that
   chooses its steps needs its squared speeds finite. */
static double speed_limit(const agglo_sim *sim, char *why, size_t len) {
  const agglo_system *s = &sim->sys;
  if (sim->model->variable_step) {
    snprintf(why, len, "at most 1e100");
    return 1e100;
  }
  double L = 0;
  for (int k = 0; k < s->dim; k++) L = fmax(L, s->box.len[k]);
  snprintf(why, len, "at most the box's largest side %g per step of run.dt = %g, %g", L,
           sim->cfg.dt, L / sim->cfg.dt);
  return L / sim->cfg.dt;
}

static agglo_status check_speed(const agglo_sim *sim, const double *v, size_t i, const char *fn) {
  double u = hypot(hypot(v[0], v[1]), v[2]);
  char why[160];
  double lim = speed_limit(sim, why, sizeof why);
  if (!(u <= lim))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: speed %g (allowed: %s)", fn, i, u, why);
  return AGGLO_OK;
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
  for (size_t i = 0; i < n; i++) {
    double u[3] = {v[(size_t)stride * i], v[(size_t)stride * i + 1], stride == 3 ? v[3 * i + 2] : 0};
    if ((st = check_speed(sim, u, i, fn)) != AGGLO_OK) return st;
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

/* Everything at once (a snapshot): each array checked, positions against the new radii, and
   nothing applied unless all pass. */
agglo_status agglo_sim_set_state(agglo_sim *sim, size_t n, const double *x, const double *v,
                                 const double *r, const double *m) {
  const char *fn = __func__;
  agglo_status st = writable(sim, fn, n, fn); /* (fn: any non-NULL data; the arrays may be NULL) */
  if (st != AGGLO_OK) return st;
  agglo_system *s = &sim->sys;
  for (size_t i = 0; i < n; i++) {
    if (r && (!(r[i] > 0) || !isfinite(r[i])))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: radius %g (allowed: positive and finite)", fn, i, r[i]);
    if (m && (!(m[i] > 0) || !isfinite(m[i])))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: mass %g (allowed: positive and finite)", fn, i, m[i]);
    for (int k = 0; v && k < 3; k++)
      if (!isfinite(v[3 * i + k]) || (k == 2 && s->dim == 2 && v[3 * i + k] != 0))
        return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: velocity component %d is %g (allowed: "
                           "finite%s)", fn, i, k, v[3 * i + k], s->dim == 2 ? ", z = 0 in 2D" : "");
    if (v && (st = check_speed(sim, v + 3 * i, i, fn)) != AGGLO_OK) return st;
  }
  double *y = malloc((n ? 3 * n : 1) * sizeof *y);
  if (!y) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  st = check_positions(sim, x ? x : s->x, n, 3, r ? r : s->r, y, fn);
  if (st == AGGLO_OK) {
    const agglo_config *c = &sim->cfg;
    if (!v) carry_the_flow(s, y);
    memcpy(s->x, y, 3 * n * sizeof *y);
    if (v) memcpy(s->v, v, 3 * n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
      if (r) {
        double q = r[i] / c->radius;
        s->r[i] = r[i];
        s->m[i] = c->mass_rule == MASS_VOLUME ? c->mass * q * q * q : c->mass;
      }
      if (m) s->m[i] = m[i];
      s->inv_m[i] = 1.0 / s->m[i];
    }
    st = rebuild(sim);
  }
  free(y);
  return st;
}

/* ---- particles.from: the particles of a file ------------------------------------------------ */

/* A file's box (got) against the scenario's (want), to 1e-9 of its length (a file's rounding). */
static agglo_status check_box(const agglo_box *got, const agglo_box *want, int dim, const char *fn) {
  for (int k = 0; k < dim; k++) {
    if (fabs(got->len[k] - want->len[k]) > 1e-9 * want->len[k] ||
        fabs(got->lo[k] - want->lo[k]) > 1e-9 * want->len[k])
      return agglo_error(AGGLO_ERROR_INPUT, "%s: the box along %c is [%.10g, %.10g], the scenario's "
                         "[%.10g, %.10g] (box.size, particles.fraction)", fn, "xyz"[k], got->lo[k],
                         got->lo[k] + got->len[k], want->lo[k], want->lo[k] + want->len[k]);
    if (got->periodic[k] != want->periodic[k])
      return agglo_error(AGGLO_ERROR_INPUT, "%s: the box is %s along %c, the scenario's %s (box.boundary)",
                         fn, got->periodic[k] ? "periodic" : "walled", "xyz"[k],
                         want->periodic[k] ? "periodic" : "walled");
  }
  return AGGLO_OK;
}

agglo_status agglo_start_read(agglo_sim *sim, agglo_system *t, agglo_start_columns *has) {
  agglo_config *c = &sim->cfg;
  char *err = agglo_error_buffer();
  agglo_xyz_reader rd;
  memset(has, 0, sizeof *has);
  if (c->from_also[0])
    return agglo_error(AGGLO_ERROR_INPUT, "particles.from = %s is two different files: %s from the "
                       "working directory and %s beside the scenario file; give the one you mean "
                       "as an absolute path", c->from, c->from, c->from_also);
  if (agglo_xyz_open(&rd, c->from, c->radius, err, AGGLO_ERROR_LEN) != 0) return AGGLO_ERROR_INPUT;
  int64_t want = c->from_frame, got = 0;
  int r = 1;
  if (rd.h5) { /* random access: go straight to the frame */
    int64_t frames = (int64_t)agglo_h5md_read_frames(rd.h5);
    if (want > frames) r = 0, got = frames;
    else rd.frame = (int)((want ? want : frames) - 1), got = rd.frame;
  }
  while (r == 1 && (want == 0 || got < want)) {
    agglo_system next = {0};
    r = agglo_xyz_next(&rd, &next, err, AGGLO_ERROR_LEN);
    if (r == 1) {
      agglo_system_free(t);
      *t = next;
      got++;
      *has = (agglo_start_columns){rd.has_velocity, rd.has_radius, rd.has_mass, rd.has_id, rd.has_box,
                                   rd.has_cluster, rd.has_time};
    } else {
      agglo_system_free(&next); /* what a failed read allocated */
    }
  }
  agglo_xyz_close(&rd);
  if (r < 0) return AGGLO_ERROR_INPUT;
  if (got == 0 || (want && got < want))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: particles.frame = %lld, but the file has %lld frames",
                       c->from, (long long)want, (long long)got);
  if (t->n == 0) return agglo_error(AGGLO_ERROR_INPUT, "%s: frame %lld has no particle", c->from, (long long)got);
  c->from_frame = got; /* the frame read, for messages and the resolved scenario */
  c->n = (int64_t)t->n;
  return AGGLO_OK;
}

agglo_status agglo_start_apply(agglo_sim *sim, agglo_system *t, const agglo_start_columns *has) {
  agglo_system *s = &sim->sys;
  const agglo_config *c = &sim->cfg;
  char fn[AGGLO_PATH_MAX + 64];
  snprintf(fn, sizeof fn, "%s: frame %lld", c->from, (long long)c->from_frame);
  size_t n = s->n;
  /* the box: the file's (if any) must be the scenario's */
  if (has->box) {
    agglo_status st = check_box(&t->box, &s->box, s->dim, fn);
    if (st != AGGLO_OK) return st;
  }
  /* radii and masses from the file, else the scenario's (masses follow radii by mass_rule) */
  for (size_t i = 0; i < n; i++) {
    if (has->radius) {
      if (!(t->r[i] > 0) || !isfinite(t->r[i]))
        return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: radius %g (allowed: positive and finite)", fn, i, t->r[i]);
      double q = t->r[i] / c->radius;
      s->m[i] = c->mass_rule == MASS_VOLUME ? c->mass * q * q * q : c->mass;
      s->r[i] = t->r[i];
    }
    if (has->mass) {
      if (!(t->m[i] > 0) || !isfinite(t->m[i]))
        return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: mass %g (allowed: positive and finite)", fn, i, t->m[i]);
      s->m[i] = t->m[i];
    }
    s->inv_m[i] = 1 / s->m[i];
    for (int k = 0; has->velocity && k < 3; k++) {
      double u = t->v[3 * i + k];
      if (!isfinite(u) || (k == 2 && s->dim == 2 && u != 0))
        return agglo_error(AGGLO_ERROR_INPUT, "%s: particle %zu: velocity component %c is %g (allowed: "
                           "finite%s)", fn, i, "xyz"[k], u, s->dim == 2 ? ", z = 0 in 2D" : "");
      s->v[3 * i + k] = u;
    }
    agglo_status sp = has->velocity ? check_speed(sim, s->v + 3 * i, i, fn) : AGGLO_OK;
    if (sp != AGGLO_OK) return sp;
  }
  /* a model that chooses its own steps goes on from the file's time */
  if (has->time && sim->model->variable_step) {
    if (!(t->t >= 0) || !isfinite(t->t))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: time %g (allowed: finite and >= 0)", fn, t->t);
    s->t = t->t;
  }
  /* a model whose clusters stick for ever starts from the file's clusters (agglo_start_join) */
  if (sim->model->join) {
    if (!has->cluster)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: no cluster column (extended XYZ: cluster:I:1 in "
                         "Properties=; H5MD: particles/trajectory/cluster): the %s model's clusters stick "
                         "for ever, so it starts from a file only with them (agglo's trajectory.xyz, "
                         "state.xyz and trajectory.h5md have them)", fn, sim->model->name);
    memcpy(s->cluster, t->cluster, n * sizeof *s->cluster);
  }
  if (has->id) { /* ids must be unique: the random numbers are keyed by them */
    agglo_status st = check_ids(t->id, n, fn);
    if (st != AGGLO_OK) return st;
    memcpy(s->id, t->id, n * sizeof *s->id);
  }
  /* centres outside a wall by less than the rounding of a file (XYZ frames 9 digits, H5MD single
     precision): back onto the wall */
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < s->dim; k++) {
      double *x = &t->x[3 * i + k], lo = s->box.lo[k] + s->r[i], hi = s->box.hi[k] - s->r[i];
      double slack = 1e-6 * s->box.len[k];
      if (!s->box.periodic[k] && *x < lo && *x >= lo - slack) *x = lo;
      if (!s->box.periodic[k] && *x > hi && *x <= hi + slack) *x = hi;
    }
  agglo_status st = check_positions(sim, t->x, n, 3, s->r, s->x, fn);
  if (st != AGGLO_OK) return st;
  /* the model's start (DPD: Maxwell velocities keyed by id, from the masses, with the streaming
     velocity of the shear at y) of the file's particles, after their positions, ids and masses
     are read; the file's velocities, where it has them, replace its velocities */
  if (c->model->start && c->model->start(s, c, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    return AGGLO_ERROR_INPUT;
  if (has->velocity) memcpy(s->v, t->v, 3 * n * sizeof *s->v);
  return AGGLO_OK;
}

agglo_status agglo_start_join(agglo_sim *sim) {
  agglo_system *s = &sim->sys;
  double gap = sim->model->contact_gap(sim->state);
  size_t n = s->n;
  int64_t *order = malloc((n ? n : 1) * sizeof *order); /* label * 2^32 + index */
  agglo_neighbors nb = {0};
  if (!order || agglo_neighbors_build(&nb, s, gap, 0) != 0) {
    free(order);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  int rc = 0;
  /* the contacts first (they place the members of a cluster across periodic faces) */
  for (size_t i = 0; i < n && rc == 0; i++)
    for (size_t p = nb.start[i]; p < nb.start[i + 1] && rc == 0; p++) {
      int32_t j = nb.nbr[p];
      double d[3];
      agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * (size_t)j, d);
      if (s->cluster[i] == s->cluster[j] &&
          sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s->r[i] - s->r[j] < gap)
        rc = sim->model->join(sim->state, s, (int32_t)i, j, 1);
    }
  agglo_neighbors_free(&nb);
  /* then every member with the first of its label: the file's clusters, whole */
  for (size_t i = 0; i < n; i++) order[i] = (int64_t)s->cluster[i] * ((int64_t)1 << 32) + (int64_t)i;
  qsort(order, n, sizeof *order, agglo_cmp_i64);
  int32_t first = n ? (int32_t)(order[0] & 0xffffffff) : 0;
  for (size_t a = 1; a < n && rc == 0; a++) {
    int32_t i = (int32_t)(order[a] & 0xffffffff);
    if (s->cluster[i] != s->cluster[first]) first = i;
    else rc = sim->model->join(sim->state, s, first, i, 0);
  }
  free(order);
  return rc == 0 ? AGGLO_OK : agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
}

/* ---- a restart point: checked before anything runs ------------------------------------------ */

agglo_status agglo_start_check_scenario(const agglo_sim *sim, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  agglo_config *run = malloc(sizeof *run);
  if (!run) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  agglo_config_defaults(run);
  char *err = agglo_error_buffer();
  agglo_status st = AGGLO_OK;
  if (agglo_config_read_file(run, path, err, AGGLO_ERROR_LEN) != 0 ||
      agglo_config_check_restart(run, &sim->cfg, path, err, AGGLO_ERROR_LEN) != 0)
    st = AGGLO_ERROR_INPUT;
  free(run);
  return st;
}

agglo_status agglo_start_check_restart(agglo_sim *sim, const char *path) {
  const agglo_system *s = &sim->sys;
  const agglo_config *c = &sim->cfg;
  if (s->step < 0 || s->step > AGGLO_MAX_STEPS)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: Step=%lld (allowed: 0 to 2^53); nothing was run",
                       path, (long long)s->step);
  if (s->dim != c->dim)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: a %dD state, the scenario's run.dim = %d (fixed by the "
                       "restart point); nothing was run", path, s->dim, c->dim);
  if (s->n != (size_t)c->n)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: %zu particles, the scenario's particles.n = %lld "
                       "(fixed by the restart point); nothing was run", path, s->n, (long long)c->n);
  if (!sim->model->variable_step && fabs(s->t - (double)s->step * c->dt) > 1e-9 * fmax(fabs(s->t), c->dt))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: Time=%.17g at Step=%lld is not Step x run.dt (%g): "
                       "the run had another run.dt (fixed by the restart point); nothing was run",
                       path, s->t, (long long)s->step, c->dt);
  int t_end_read = !sim->model->variable_step || agglo_ballistic_of(c)->stop == BALL_STOP_T_END;
  if (t_end_read && (sim->model->variable_step ? c->t_end < s->t : sim->last_step < s->step))
    return agglo_error(AGGLO_ERROR_INPUT, "run.t_end = %g is before the time of the restart point, "
                       "%.15g (%s, step %lld) (allowed: >= %.15g); nothing was run", c->t_end, s->t,
                       path, (long long)s->step, s->t);
  agglo_system scenario = *s; /* the box the scenario makes for these particles */
  agglo_setup_box(&scenario, c);
  agglo_status st = check_box(&s->box, &scenario.box, s->dim, path);
  if (st != AGGLO_OK) return st;
  /* the reader refused non-finite values, non-positive radii and masses, missing columns; a run
     that only warned may have left up to ten tolerances of overlap (with walls too): accept those */
  double tol = 10 * overlap_tolerance(sim);
  for (size_t i = 0; i < s->n; i++) /* particle i is on line i + 3 (two header lines) */
    for (int k = 0; k < s->dim; k++) {
      double slack = (isinf(tol) ? s->r[i] : tol) + 1e-9 * s->box.len[k]; /* DPD: centres inside */
      if (!s->box.periodic[k] && (s->x[3 * i + k] - s->r[i] < s->box.lo[k] - slack ||
                                  s->x[3 * i + k] + s->r[i] > s->box.hi[k] + slack))
        return agglo_error(AGGLO_ERROR_INPUT, "%s:%zu: particle %lld (radius %g) at %c = %.17g crosses "
                           "the wall (allowed: %g to %g); nothing was run", path, i + 3,
                           (long long)s->id[i], s->r[i], "xyz"[k], s->x[3 * i + k],
                           s->box.lo[k] + s->r[i], s->box.hi[k] - s->r[i]);
    }
  char where[4200];
  snprintf(where, sizeof where, "%s: nothing was run", path);
  st = check_ids(s->id, s->n, where);
  if (st != AGGLO_OK) return st;
  return check_overlaps_scaled(sim, s->x, s->r, 10, where);
}
