/* Contact dynamics with aggregation (Maury 2004): explicit drift, attraction, noise and gravity
   give v*, a global projection onto the non-overlap cone gives v^{n+1}, then x += h v. */
#include "core/model.h"
#include "models/contact_state.h"
#include "core/rng.h"
#include "core/error.h"
#include "core/files.h"
#include "models/contact_config.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Verlet skin in mean radii, used when the list can last several steps (the fastest pair closes
   by less than SKIN_SLOW of it per step); otherwise the list is rebuilt every step anyway, and a
   skin would only lengthen it */
#define SKIN 1.0
#define SKIN_SLOW 0.125

void agglo_contact_set_scale(contact *m, double r_mean) {
  m->r_mean = r_mean;
  m->contact_margin = 0.5 * r_mean;
  m->solver.tol = m->cfg.solver_tol * r_mean;
}

/* A step must not carry a particle across a diameter by the noise or the attraction, whose
   velocities go as 1/m (the settings' guard, contact_config.c, sees no masses): the noise's
   stationary speed sigma sqrt(tau_i) / m_i, the attraction's impulse of one contact at its
   strongest, scale kappa / epsilon / m_i. */
static int check_masses(const agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  const agglo_contact_settings *k = agglo_contact_of(c);
  double h = c->dt, rmax = 0, scale = k->attraction_scaling == ATTR_SQRT_H ? sqrt(h) : h;
  for (size_t i = 0; i < s->n; i++) rmax = fmax(rmax, s->r[i]);
  for (size_t i = 0; i < s->n; i++) {
    double w = s->inv_m[i];
    if (!(w > 0)) continue; /* immovable */
    double tau = k->viscosity > 0 ? 1 / (6 * M_PI * k->viscosity * s->r[i] * w) : k->tau > 0 ? k->tau : 1;
    double noise = h * k->sigma * sqrt(tau) * w, pull = h * scale * (k->kappa > 0 ? k->kappa / k->epsilon : 0) * w;
    if (!(noise <= 2 * rmax) || !(pull <= 2 * rmax))
      return agglo_fail(err, errlen, "particle %lld of mass %g (particles.mass = %g): a step of run.dt "
                        "= %g would carry it %.3g by the %s, more than a diameter (%g); raise "
                        "particles.mass, or lower %s or run.dt", (long long)s->id[i], s->m[i],
                        c->mass, h, noise > pull ? noise : pull,
                        noise > pull ? "noise (brownian.sigma)" : "attraction (attraction.kappa / attraction.epsilon)",
                        2 * rmax, noise > pull ? "brownian.sigma" : "attraction.kappa");
  }
  return 0;
}

static int contact_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                        size_t errlen) {
  if (check_masses(s, c, err, errlen) != 0) return -1;
  contact *m = calloc(1, sizeof *m);
  if (!m) return agglo_fail(err, errlen, "out of memory");
  m->cfg = *c;
  double rsum = 0;
  for (size_t i = 0; i < s->n; i++) rsum += s->r[i];
  agglo_contact_set_scale(m, s->n ? rsum / (double)s->n : c->radius);
  const agglo_contact_settings *ct = agglo_contact_of(c);
  m->att_reach = ct->kappa > 0 ? ct->attraction_cutoff * ct->epsilon : 0;
  m->solver.method = (agglo_solver_method)c->solver; /* same order as solver.method's names */
  m->solver.max_iter = (int)c->max_iter;
  m->solver.team_rows = (size_t)c->team_rows;
  m->solver.expansion = (agglo_expansion)c->solver_expansion; /* same order as the names */
  m->solver.rho_factor = c->rho_factor;
  m->solver.compliance = c->compliance;
  m->flow.type = ct->flow;
  m->flow.rate = ct->flow_rate;
  m->flow.omega = ct->flow_omega;
  for (int k = 0; k < 3; k++) m->flow.velocity[k] = k < c->dim ? agglo_list_component(&ct->flow_velocity, k) : 0;
  m->vstar = malloc(3 * (s->n ? s->n : 1) * sizeof *m->vstar);
  if (!m->vstar) {
    free(m);
    return agglo_fail(err, errlen, "out of memory");
  }
  m->bricks[0] = m->bricks[1] = m->bricks[2] = 1;
  *state = m;
  return 0;
}

int agglo_contact_keep_bricks(contact *m, const int dims[3], double *const cut[3]) {
  size_t n = 0;
  for (int k = 0; k < 3; k++) n += (size_t)dims[k] - 1;
  double *c = realloc(m->cuts, (n + 1) * sizeof *c);
  if (!c) return -1;
  m->cuts = c;
  for (int k = 0; k < 3; k++) {
    m->bricks[k] = dims[k];
    for (int q = 1; q < dims[k]; q++) *c++ = cut[k][q];
  }
  return 0;
}

static void contact_destroy(void *state) {
  contact *m = state;
  if (!m) return;
  agglo_neighbors_free(&m->nb);
  agglo_constraints_free(&m->con);
  free(m->vstar);
  free(m->pair_force);
  free(m->mark);
  free(m->kept_i), free(m->kept_j), free(m->kept_lambda), free(m->kept_gamma);
  free(m->cuts);
  free(m);
}

/* Impulse of the attraction over one step, per unit time: (kappa/eps) sech^2(D/eps), with
   sech^2 x = 4 e^-2|x| / (1 + e^-2|x|)^2 (one exponential, no overflow). */
static inline double attraction(double gap, double k_over_e, double eps) {
  double q = exp(-2.0 * fabs(gap) / eps), d = 1.0 + q;
  return k_over_e * 4.0 * q / (d * d);
}

/* The impulses of the pairs of particles [a, b) (over the distance, and times d: D per pair in
   fd). first[] gets, per range of the split of n particles into nt, the lowest i < a paired
   with a particle of that range (nothing lower: where its accumulation may start). */
static inline __attribute__((always_inline)) void pair_impulses(const contact *m,
                                                                const agglo_system *s, double scale,
                                                                size_t a, size_t b, double *pf,
                                                                double *fd, size_t nt,
                                                                size_t *first, int D) {
  const agglo_config *c = &m->cfg;
  size_t n = s->n;
  const agglo_contact_settings *ct = agglo_contact_of(c);
  double ke = ct->kappa / ct->epsilon, eps = ct->epsilon, reach = m->att_reach;
  agglo_image img = agglo_box_image(&s->box);
  for (size_t i = a; i < b; i++) {
    const double *xi = s->x + 3 * i;
    double ri = s->r[i];
    for (size_t p = m->nb.start[i]; p < m->nb.start[i + 1]; p++) {
      size_t j = (size_t)m->nb.nbr[p];
      double d[3];
      agglo_image_delta(&img, xi, s->x + 3 * j, d, D);
      double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], lim = reach + ri + s->r[j];
      double f = 0;
      if (d2 < lim * lim && d2 > 0) {
        double dist = sqrt(d2);
        f = scale * attraction(dist - ri - s->r[j], ke, eps) / dist;
      }
      pf[p] = f;
      fd[D * p] = f * d[0], fd[D * p + 1] = f * d[1];
      if (D == 3) fd[D * p + 2] = f * d[2];
      if (j >= b) /* (a partner in a later range: i is the lowest so far of the ranges up to j's) */
        for (size_t t = nt - 1; t > 0 && n * t / nt > i; t--)
          if (n * t / nt <= j && i < first[t]) first[t] = i;
    }
  }
}

/* Adds to dv[a, b) the impulses of the pairs of particles below b that touch [a, b), in the
   order of the serial loop over the pairs (i ascending, then the partners); no i below `from`
   has a partner in [a, b). */
static inline __attribute__((always_inline)) void accumulate(const contact *m, const agglo_system *s,
                                                             size_t from, size_t a, size_t b,
                                                             const double *pf, const double *fd,
                                                             double *dv, int D) {
  for (size_t i = from; i < b; i++) {
    double wi = s->inv_m[i], *dvi = dv + 3 * i;
    for (size_t p = m->nb.start[i]; p < m->nb.start[i + 1]; p++) {
      size_t j = (size_t)m->nb.nbr[p];
      if (pf[p] == 0 || (i < a && (j < a || j >= b))) continue;
      const double *fk = fd + D * p;
      if (i >= a) {
        dvi[0] += fk[0] * wi, dvi[1] += fk[1] * wi;
        if (D == 3) dvi[2] += fk[2] * wi;
      }
      if (j >= a && j < b) {
        double wj = s->inv_m[j], *dvj = dv + 3 * j;
        dvj[0] -= fk[0] * wj, dvj[1] -= fk[1] * wj;
        if (D == 3) dvj[2] -= fk[2] * wj;
      }
    }
  }
}

/* Adds the attraction impulses (scale = h or sqrt h) of the listed pairs m->nb to dv. One
   parallel region; a thread owns the particles [a, b): it computes the impulses of their pairs,
   then (after the barrier) adds, first, the partner halves of the pairs of particles below a,
   then the pairs of its own particles; so each particle receives its terms in the same order
   whatever the thread count (deterministic). The particles are in cell order, so only those
   near a's cells have partners in [a, b): a thread's additions start at the lowest of them. */
static int add_attraction(contact *m, const agglo_system *s, double scale, double *dv) {
  if (agglo_contact_of(&m->cfg)->kappa <= 0) return 0;
  size_t n = s->n, np = m->nb.npairs, cap = 1;
#ifdef _OPENMP
  cap = (size_t)omp_get_max_threads();
#endif
  int D = s->dim;
  double *pf = realloc(m->pair_force, (np ? np : 1) * (1 + (size_t)D) * sizeof(double));
  size_t *first = malloc(cap * cap * sizeof *first); /* per thread, per range */
  if (!pf || !first) {
    if (pf) m->pair_force = pf;
    free(first);
    return -1;
  }
  m->pair_force = pf;
  double *fd = pf + np;
#pragma omp parallel if (n > AGGLO_PAR_MIN_PAIRS)
  {
    size_t nt = 1, t = 0;
#ifdef _OPENMP
    nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
#endif
    size_t a = n * t / nt, b = n * (t + 1) / nt, *mine = first + cap * t;
    for (size_t q = 0; q < nt; q++) mine[q] = n * q / nt;
    if (D == 2) pair_impulses(m, s, scale, a, b, pf, fd, nt, mine, 2);
    else pair_impulses(m, s, scale, a, b, pf, fd, nt, mine, 3);
#pragma omp barrier
    size_t from = a;
    for (size_t q = 0; q < t; q++) from = first[cap * q + t] < from ? first[cap * q + t] : from;
    if (D == 2) accumulate(m, s, from, a, b, pf, fd, dv, 2);
    else accumulate(m, s, from, a, b, pf, fd, dv, 3);
  }
  free(first);
  return 0;
}

/* A priori velocities vs of particles 0..s->n-1: drift toward the flow, drag, noise (keyed by
   seed, step and id) and gravity; the attraction comes after. */
static void a_priori(const contact *m, const agglo_system *s, double *vs) {
  const agglo_config *c = &m->cfg;
  const agglo_contact_settings *ct = agglo_contact_of(c);
  double h = c->dt, sqh = sqrt(h);
  size_t n = s->n;
  int d = s->dim;
  double g[3];
  for (int k = 0; k < 3; k++) g[k] = k < d ? agglo_list_component(&c->gravity, k) : 0;
  /* blocks of 8 particles: their noise words come from one vectorised Philox call (the same
     numbers as agglo_rng_normal2/4 per particle) */
  size_t nblk = (n + 7) / 8;
#pragma omp parallel for schedule(static) if (n > AGGLO_PAR_MIN)
  for (size_t blk = 0; blk < nblk; blk++) {
    size_t i0 = 8 * blk, i1 = i0 + 8 < n ? i0 + 8 : n;
    uint32_t w[4][8];
    if (ct->sigma > 0) {
      uint64_t ids[8], steps[8];
      for (size_t l = 0; l < 8; l++)
        ids[l] = (uint64_t)s->id[i0 + l < i1 ? i0 + l : i0], steps[l] = (uint64_t)s->step;
      agglo_rng_philox8((uint64_t)c->seed, AGGLO_STREAM_BROWNIAN, steps, ids, w);
    }
    for (size_t i = i0; i < i1; i++) {
      double *vi = s->v + 3 * i, u[3] = {0, 0, 0};
      if (ct->flow) agglo_flow_velocity(&m->flow, &s->box, s->x + 3 * i, s->t, u);
      double rate = 0;
      if (ct->viscosity > 0) rate = 6 * M_PI * ct->viscosity * s->r[i] * s->inv_m[i];
      else if (ct->tau > 0) rate = 1.0 / ct->tau;
      double z[4] = {0, 0, 0, 0};
      if (ct->sigma > 0) {
        uint32_t r[4] = {w[0][i - i0], w[1][i - i0], w[2][i - i0], w[3][i - i0]};
        agglo_rng_normal_words(r, d == 2 ? 2 : 4, z);
      }
      for (int k = 0; k < 3; k++)
        vs[3 * i + k] = k < d ? vi[k] - h * rate * (vi[k] - u[k]) + h * g[k] +
                                    ct->sigma * sqh * z[k] * s->inv_m[i]
                              : 0.0;
    }
  }
}

/* Gap of constraint k at positions x (3n; walls of s->box). */
static double gap_at(const agglo_system *s, const agglo_constraints *c, size_t k, const double *x) {
  size_t i = (size_t)c->i[k];
  if (c->j[k] < 0) {
    agglo_system at = *s; /* (the wall's gap at x) */
    at.x = (double *)x;
    return agglo_wall_gap(&at, -1 - c->j[k], i);
  }
  size_t j = (size_t)c->j[k];
  double dd[3];
  agglo_box_delta(&s->box, x + 3 * i, x + 3 * j, dd);
  return sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]) - s->r[i] - s->r[j];
}

/* Reach of the constraints for a priori speeds up to vmax, and the list's cut-off: the list must
   reach the attraction range and any gap that can close. */
static void reach_of(const contact *m, double vmax, double *reach, double *cutoff) {
  *reach = fmax(m->contact_margin, 2.5 * m->cfg.dt * vmax);
  *cutoff = fmax(m->att_reach, *reach);
}

/* ---- what differs between one process and a rank of the decomposition (r != NULL) ---------- */

/* sums then maxima over the ranks, in place */
static void reduce(const agglo_contact_ranks *r, double *sums, int nsum, double *maxs, int nmax) {
  if (r) r->reduce(r->ctx, sums, nsum, maxs, nmax);
}

/* rc agreed over the ranks: -1 (memory) where any rank's is, else 1 where any is, else 0 */
static int agree(const agglo_contact_ranks *r, int rc) {
  double worst[2] = {rc < 0, rc > 0};
  reduce(r, NULL, 0, worst, 2);
  return worst[0] != 0 ? -1 : worst[1] != 0;
}

/* The neighbour list for `cutoff`. One process keeps its Verlet list (skin) while it holds,
   unless the step widens it (again); a rank makes its ghosts again and lists them. */
static int list_for(contact *m, agglo_system *s, const agglo_contact_ranks *r, double cutoff,
                    double skin, int again) {
  if (r) return r->reach_out(r->ctx, cutoff);
  /* (a list without a skin is stale once anything moved: built again without looking; were
     nothing to have moved, the same list) */
  if (again || !m->nb.start || cutoff > m->nb.cutoff || !(m->nb.skin > 0) ||
      agglo_neighbors_stale(&m->nb, s))
    return agglo_neighbors_build(&m->nb, s, fmax(cutoff, m->nb.cutoff), skin) != 0 ? -1 : 0;
  return 0;
}

/* The ghosts' copy of f (3 per particle) from their owners. */
static int share(const agglo_contact_ranks *r, double *f) { return r ? r->share(r->ctx, f) : 0; }

int agglo_contact_step(contact *m, agglo_system *s, const agglo_contact_ranks *r,
                       agglo_step_info *info, char *err, size_t errlen) {
  const agglo_config *c = &m->cfg;
  double h = c->dt;
  size_t own = r ? r->own : s->n;
  /* 1. a priori velocity of the own particles: drift toward U (in the scenario's box), noise,
     gravity; the attraction comes in 2 */
  agglo_system mine = *s;
  mine.n = own;
  if (r) mine.box = r->box;
  a_priori(m, &mine, m->vstar);
  /* the list (and a rank's ghosts) must reach the attraction range and any gap that can close */
  double vmax = agglo_max_speed(m->vstar, own);
  reduce(r, NULL, 0, &vmax, 1);
  double reach, cutoff;
  reach_of(m, vmax, &reach, &cutoff);
  double skin = 2 * h * vmax < SKIN_SLOW * SKIN * m->r_mean ? SKIN * m->r_mean : 0.0;
  int rc = agree(r, list_for(m, s, r, cutoff, skin, 0));
  if (rc != 0) return rc > 0 ? 1 : agglo_fail(err, errlen, "out of memory building the neighbour list");
  /* 2. the attraction (a pair with a ghost on both ranks; the ghosts get theirs from their
     owners) */
  rc = add_attraction(m, s, agglo_contact_of(c)->attraction_scaling == ATTR_SQRT_H ? sqrt(h) : h, m->vstar);
  if (share(r, m->vstar) != 0) rc = -1;
  if (agree(r, rc) != 0) return agglo_fail(err, errlen, "out of memory in the attraction");
  /* 3. contacts and the projection. Constraints: pairs within the margin plus the distance the
     pair could travel at its a priori relative speed (capped at the contact reach, within the list
     cutoff, so that the set does not depend on when the list was built). After the solve, every
     listed pair that the answer would make overlap is added and the components it touches are
     solved again (warm-started); and if the answer is so fast that an unlisted pair could close,
     the list is widened and the step solved again. So the selection saves work, never accuracy.
     Over ranks, the counts that decide the rounds are reduced, so every rank takes the same. */
  agglo_solver_stats st = {.converged = 1};
  const double *vtry = NULL;
  int rounds = 0, add_only = 0, full = 1;
  for (;;) {
    rc = add_only ? agglo_constraints_add_missed(&m->con, s, &m->nb) : 1;
    if (rc == 1)
      rc = agglo_constraints_collect_moving(&m->con, s, &m->nb, m->contact_margin, h,
                                            AGGLO_CONTACT_CLOSING_SAFETY, reach, m->vstar, vtry);
    /* every component (full) or those with a particle in m->mark; a rank solves those that lie
       on it, then (together) those across ranks */
    const char *what = rc ? "collecting contacts" : "in the projection";
    agglo_solver_stats here = {.converged = 1}, across = {.converged = 1};
    m->solver.stop = r ? NULL : s->stop; /* (the ranks would have to agree) */
    if (rc == 0)
      rc = r ? r->solve_here(r->ctx, rounds == 0, full, &here)
             : agglo_project_some(s, &m->con, h, m->vstar, s->v, &m->solver, &here,
                                  full ? NULL : m->mark);
    if (rc == 0 && !r && agglo_stop_requested(s)) return AGGLO_STEP_STOPPED;
    if (agree(r, rc) != 0)
      return agglo_fail(err, errlen, "out of memory %s", rc ? what : "on another rank");
    if (r && r->solve_across(r->ctx, &across) != 0)
      return agglo_fail(err, errlen, "out of memory solving the components across ranks");
    st.iterations = here.iterations > st.iterations ? here.iterations : st.iterations;
    st.iterations = across.iterations > st.iterations ? across.iterations : st.iterations;
    st.converged &= here.converged && across.converged;
    st.max_violation = here.max_violation; /* (one process: over every constraint) */
    rounds++;
    /* the listed pairs that the answer would make overlap (the ghosts' velocities first) */
    rc = share(r, s->v);
    if (s->n > m->mark_cap) {
      uint8_t *mk = realloc(m->mark, s->n + s->n / 2 + 1);
      if (mk) m->mark = mk, m->mark_cap = s->n + s->n / 2 + 1;
      else rc = -1;
    }
    double missed = 0, failed = rc != 0;
    if (!failed) {
      memset(m->mark, 0, s->n);
      missed = (double)agglo_constraints_count_missed(&m->con, s, &m->nb, h, s->v, m->mark);
    }
    reduce(r, &missed, 1, &failed, 1);
    if (failed != 0) return agglo_fail(err, errlen, "out of memory");
    vtry = s->v;
    if (missed > 0 && rounds < AGGLO_CONTACT_MAX_ROUNDS) {
      add_only = 1, full = 0;
      continue;
    }
    add_only = 0;
    /* can a pair beyond the list close at these velocities? */
    double vout = agglo_max_speed(s->v, own);
    reduce(r, NULL, 0, &vout, 1);
    if (2 * h * vout < cutoff || rounds >= AGGLO_CONTACT_MAX_ROUNDS) break;
    cutoff = 2.5 * h * vout;
    rc = agree(r, list_for(m, s, r, cutoff, skin, 1));
    if (rc != 0) return rc > 0 ? 1 : agglo_fail(err, errlen, "out of memory building the neighbour list");
    vtry = s->v; /* (a rank's arrays may have moved) */
    full = 1;
  }
  /* 4. move; 2D keeps z = 0; a rank's ghosts move with their owners, and it wraps only the
     axes of one brick (migration carries the period along the others) */
  const agglo_box *wrap = r ? &r->wrap : &s->box;
  size_t n = s->n, bad = SIZE_MAX;
  int d = s->dim;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n > AGGLO_PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    for (int k = 0; k < d; k++) x[k] += h * v[k];
    agglo_box_wrap(wrap, x);
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) && isfinite(v[1]) &&
          isfinite(v[2])) && i < own && i < bad)
      bad = i;
  }
  s->step++;
  s->t = (double)s->step * h;
  /* health of the new state, over the constraints that touch an own particle (they include
     every pair that could have closed): the smallest gap and the largest overlap the answer
     leaves (one process: the last solve measured it over every constraint; a rank's solves
     cover other sets); a pair with a ghost counts once over the ranks, on the owner of its
     lower id */
  const agglo_constraints *cs = &m->con;
  double min_gap = INFINITY, violation = r ? 0 : st.max_violation, contacts = 0;
#pragma omp parallel for reduction(min : min_gap) reduction(max : violation) \
    reduction(+ : contacts) if (cs->n > AGGLO_PAR_MIN)
  for (size_t k = 0; k < cs->n; k++) {
    size_t i = (size_t)cs->i[k];
    int32_t j = cs->j[k];
    int own_i = i < own, own_j = j >= 0 && (size_t)j < own;
    if (!own_i && !own_j) continue;
    contacts += j < 0 || (own_i && own_j) || (own_i ? s->id[i] < s->id[j] : s->id[j] < s->id[i]);
    double gap = gap_at(s, cs, k, s->x);
    if (gap < min_gap) min_gap = gap;
    double over = r ? -agglo_constraint_gap_after(cs, k, h, s->v) : 0;
    if (over > violation) violation = over;
  }
  double sums[1] = {contacts}, maxs[4] = {st.iterations, !st.converged, violation, -min_gap};
  reduce(r, sums, 1, maxs, 4);
  info->iterations = (int)maxs[0];
  info->converged = maxs[1] == 0;
  info->max_violation = maxs[2];
  info->min_gap = -maxs[3];
  /* a correct solve leaves at most tol of overlap; ten times that means a missed contact */
  info->overlap_limit = 10 * m->solver.tol;
  info->n_contacts = (size_t)sums[0];
  info->bad_particle = bad;
  return 0;
}

static int contact_step(void *state, agglo_system *s, agglo_step_info *info, char *err,
                        size_t errlen) {
  contact *m = state;
  m->bricks[0] = m->bricks[1] = m->bricks[2] = 1; /* one process: the ranks' bricks are gone */
  return agglo_contact_step(m, s, NULL, info, err, errlen);
}

static double contact_gap(const void *state) {
  const contact *m = state;
  /* touching = within a tenth of a radius [choice, docs/models.md] */
  return 0.1 * m->r_mean;
}

static const void *contact_neighbors(const void *state) {
  const contact *m = state;
  return m->nb.start && m->nb.cutoff + m->nb.skin >= contact_gap(state) ? &m->nb : NULL;
}

/* Multipliers of the last step, so that a restart warm-starts exactly as the run would have; after
   a run on ranks, their bricks. */
static const char bricks_header[] = "# bricks of the MPI ranks: per axis the count, then the inner cuts\n";

static int contact_save(const void *state, FILE *f) {
  const contact *m = state;
  fprintf(f, "# i j lambda gamma (storage indices; j < 0: wall -1-j)\n%zu\n", m->con.n);
  for (size_t k = 0; k < m->con.n; k++)
    fprintf(f, "%d %d %.17g %.17g\n", m->con.i[k], m->con.j[k], m->con.lambda[k], m->con.gamma[k]);
  if (m->bricks[0] > 1 || m->bricks[1] > 1 || m->bricks[2] > 1) {
    fputs(bricks_header, f);
    const double *c = m->cuts;
    for (int k = 0; k < 3; k++) {
      fprintf(f, "%d", m->bricks[k]);
      for (int q = 1; q < m->bricks[k]; q++) fprintf(f, " %.17g", *c++);
      fputc('\n', f);
    }
  }
  return ferror(f) ? -1 : 0;
}

/* The ranks' bricks after the records (bricks_header read; line: the number of the next line):
   per axis (within s's box, one brick along an axis beyond its dimension) a count, then the
   inner cuts, increasing strictly inside the box. 0 or -1. */
static int load_bricks(contact *m, const agglo_system *s, FILE *f, size_t line, char *err,
                       size_t errlen) {
  int dims[3];
  double *cut[3] = {NULL, NULL, NULL};
  int rc = 0;
  for (int k = 0; k < 3 && rc == 0; k++, line++) {
    if (fscanf(f, "%d", &dims[k]) != 1 || dims[k] < 1 || dims[k] > AGGLO_MAX_BRICKS ||
        (k >= s->dim && dims[k] != 1)) {
      rc = agglo_fail(err, errlen, "line %zu: not a count of bricks along %c (allowed: 1 to %d, 1 "
                      "along an axis beyond run.dim)", line, "xyz"[k], AGGLO_MAX_BRICKS);
      break;
    }
    if (!(cut[k] = malloc(((size_t)dims[k] + 1) * sizeof *cut[k]))) {
      rc = agglo_fail(err, errlen, "out of memory");
      break;
    }
    cut[k][0] = s->box.lo[k], cut[k][dims[k]] = s->box.lo[k] + s->box.len[k];
    for (int q = 1; q < dims[k] && rc == 0; q++)
      if (fscanf(f, "%lf", &cut[k][q]) != 1 || !(cut[k][q] > cut[k][q - 1]) ||
          !(cut[k][q] < cut[k][dims[k]]))
        rc = agglo_fail(err, errlen, "line %zu: cut %d of %d along %c is not a number between the "
                        "previous cut (or the box's side) and the box's other side", line, q,
                        dims[k] - 1, "xyz"[k]);
  }
  if (rc == 0 && agglo_contact_keep_bricks(m, dims, cut) != 0) rc = agglo_fail(err, errlen, "out of memory");
  for (int k = 0; k < 3; k++) free(cut[k]);
  return rc;
}

static int contact_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  contact *m = state;
  char line[256];
  size_t cnt;
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1)
    return agglo_fail(err, errlen, "line 2: expected the number of contacts");
  if (!agglo_load_count_fits(f, cnt, 4))
    return agglo_fail(err, errlen, "line 2: announces %zu contacts, more than the file holds", cnt);
  agglo_constraints *c = &m->con;
  agglo_constraints_free(c);
  if (agglo_constraints_reserve(c, cnt + 1) != 0) return agglo_fail(err, errlen, "out of memory");
  for (size_t k = 0; k < cnt; k++) {
    int i, j;
    double l, g;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lg %lg", &i, &j, &l, &g) != 4)
      return agglo_fail(err, errlen, "line %zu: not 'i j lambda gamma'", k + 3);
    /* walls 2 axis + side, of the walled axes only */
    if (agglo_constraints_check_loaded(s->n, 2 * (size_t)s->dim, "wall", i, j, k ? c->i[k - 1] : -1,
                                       k ? c->j[k - 1] : 0, l, g, k + 3, err, errlen) != 0)
      return -1;
    if (j < 0 && s->box.periodic[(-1 - j) / 2])
      return agglo_fail(err, errlen, "line %zu: contact %d %d: wall %d, but the box is periodic "
                        "along %c (allowed: the walls of walled axes)", k + 3, i, j, -1 - j,
                        "xyz"[(-1 - j) / 2]);
    c->i[k] = i, c->j[k] = j, c->lambda[k] = l, c->gamma[k] = g;
  }
  c->n = cnt;
  m->bricks[0] = m->bricks[1] = m->bricks[2] = 1;
  if (!fgets(line, sizeof line, f)) return 0; /* (no bricks: written by one process) */
  if (strcmp(line, bricks_header) != 0)
    return agglo_fail(err, errlen, "line %zu: after the %zu contacts, not the header of the MPI "
                      "ranks' bricks (%.*s)", cnt + 3, cnt, (int)strcspn(bricks_header, "\n"),
                      bricks_header);
  return load_bricks(m, s, f, cnt + 4, err, errlen);
}

/* A step changes the constraints and their multipliers (what a restart reads back) and the
   neighbour list (made again as a restart makes it). */
static int contact_keep(void *state) {
  contact *m = state;
  size_t n = m->con.n;
  if (n > m->kept_cap) {
    size_t cap = n + n / 2 + 16;
    int32_t *i = realloc(m->kept_i, cap * sizeof *i);
    if (i) m->kept_i = i;
    int32_t *j = realloc(m->kept_j, cap * sizeof *j);
    if (j) m->kept_j = j;
    double *l = realloc(m->kept_lambda, cap * sizeof *l);
    if (l) m->kept_lambda = l;
    double *g = realloc(m->kept_gamma, cap * sizeof *g);
    if (g) m->kept_gamma = g;
    if (!i || !j || !l || !g) return -1;
    m->kept_cap = cap;
  }
  if (n) {
    memcpy(m->kept_i, m->con.i, n * sizeof *m->kept_i);
    memcpy(m->kept_j, m->con.j, n * sizeof *m->kept_j);
    memcpy(m->kept_lambda, m->con.lambda, n * sizeof *m->kept_lambda);
    memcpy(m->kept_gamma, m->con.gamma, n * sizeof *m->kept_gamma);
  }
  m->kept_n = n;
  return 0;
}

static void contact_undo(void *state) {
  contact *m = state;
  size_t n = m->kept_n; /* (the set's room only grows within a step: it holds them) */
  if (n > m->con.cap && agglo_constraints_reserve(&m->con, n) != 0) n = 0; /* a cold start */
  if (n) {
    memcpy(m->con.i, m->kept_i, n * sizeof *m->kept_i);
    memcpy(m->con.j, m->kept_j, n * sizeof *m->kept_j);
    memcpy(m->con.lambda, m->kept_lambda, n * sizeof *m->kept_lambda);
    memcpy(m->con.gamma, m->kept_gamma, n * sizeof *m->kept_gamma);
  }
  m->con.n = n;
  agglo_neighbors_free(&m->nb);
}

/* Its memory (the multipliers) is the projection's warm start: a new state starts it cold. */
static const char *contact_new_state_refused(const void *state) {
  (void)state;
  return NULL;
}

const agglo_model agglo_model_contact = {
    .name = "contact",
    .init = contact_init,
    .step = contact_step,
    .contact_gap = contact_gap,
    .neighbors = contact_neighbors,
    .save = contact_save,
    .load = contact_load,
    .destroy = contact_destroy,
    .new_state_refused = contact_new_state_refused,
    .keep = contact_keep,
    .undo = contact_undo,
};
