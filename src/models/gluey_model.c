/* Gluey particles (Lefebvre 2007, Algorithm 3.3; docs/gluey.md).

   Every pair and particle-obstacle contact carries an adhesion memory gamma <= 0. Per step:
   v* = v + h f; the projection of v* onto { D + h G.v >= 0 where gamma = 0, = 0 where gamma < 0 }
   (the shared agglo_project, equality rows for glued contacts) gives v and the impulses lambda;
   gamma <- max(gamma - w lambda, gamma_min), set to 0 where positive (w = 1, or (1/r_i + 1/r_j)^2
   with radius weighting; lambda is the impulse, the paper's h lambda); x += h v.

   The constraint set is built here, not by agglo_constraints_collect: rows are the pairs of the
   neighbour list and the obstacle elements (walls j < 0, j = -1 - element, with the obstacle where
   it is at t^{n+1}), in the order (i, j). gamma and lambda are carried from the previous step by
   merging the two ordered sets, so they survive any rebuild of the neighbour list. */
#include "models/gluey_model.h"
#include "core/cells.h"
#include "solvers/constraints.h"
#include "core/model.h"
#include "models/gluey_obstacles.h"
#include "solvers/projection.h"
#include "core/rng.h"
#include "core/error.h"
#include "core/files.h"
#include "core/compare.h"
#include "models/gluey_config.h"
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ particle against a plane */

void agglo_gluey_plane_step(agglo_gluey_plane *p, double h, double f, double m, double w,
                            double gamma_min) {
  double ustar = p->u + h * f;                             /* 1 */
  double ubar = p->gamma == 0 ? fmax(ustar, -p->q / h) : -p->q / h; /* 2 */
  p->lambda = m * (ubar - ustar) / h;
  double gbar = p->gamma - h * w * p->lambda;              /* 3 */
  if (gbar <= 0) {                                         /* 4 */
    p->u = ubar;
    p->gamma = gbar;
  } else { /* take-off within the step: m u - gamma / w is continuous */
    p->u = gbar / (m * w);
    p->gamma = 0;
  }
  if (p->gamma < gamma_min) p->gamma = gamma_min;          /* 5 */
  p->q += h * p->u;                                        /* 6 */
}

double agglo_gluey_force_mean(const agglo_config *c, int k, double t0, double t1) {
  const agglo_list *T = &agglo_gluey_of(c)->force_times, *F = &agglo_gluey_of(c)->force;
  int d = c->dim;
  if (T->n == 0 || !(t1 > t0)) return 0;
  double acc = 0;
  for (int q = 0; q < T->n; q++) {
    double a = T->v[q], b = q + 1 < T->n ? T->v[q + 1] : INFINITY;
    double lo = fmax(a, t0), hi = fmin(b, t1);
    if (hi > lo && d * q + k < F->n) acc += (hi - lo) * F->v[d * q + k];
  }
  return acc / (t1 - t0);
}

/* ------------------------------------------------------------ state */

typedef struct {
  agglo_config cfg;
  agglo_obstacles ob;
  agglo_neighbors nb;
  agglo_constraints con;
  agglo_solver_settings solver;
  double *w;        /* per row: weight of lambda in the gamma update */
  uint8_t *twin;    /* per row: 1 = the upper-bound row of the glued contact before it */
  size_t wcap;
  /* memory of the last step, ordered by (i, j) */
  int32_t *pi, *pj;
  double *pgamma, *plambda;
  size_t pn, pcap;
  double *vstar, *gap_after, *vtry;
  uint8_t *mark;
  double r_mean, margin, gmin;
  agglo_gluey_stats st;
  int32_t *li, *lj; /* glued links for pictures */
  double *ls;
  size_t ln;
  double *oseg, *odisc; /* obstacles for pictures */
} gluey;

static int rows_reserve(gluey *m, size_t need) {
  agglo_constraints *c = &m->con;
  if (need > c->cap) {
    size_t cap = need + need / 2 + 64;
#define GROW(p, k)                                          \
  do {                                                      \
    void *q = realloc(c->p, cap * (k) * sizeof *c->p);      \
    if (!q) return -1;                                      \
    c->p = q;                                               \
  } while (0)
    GROW(i, 1); GROW(j, 1); GROW(e, 3); GROW(gap, 1); GROW(lambda, 1); GROW(gamma, 1);
    GROW(equality, 1);
#undef GROW
    c->cap = cap;
  }
  if (need > m->wcap) {
    size_t cap = need + need / 2 + 64;
    double *a = realloc(m->w, cap * sizeof *a);
    if (!a) return -1;
    m->w = a;
    double *b = realloc(m->gap_after, cap * sizeof *b);
    if (!b) return -1;
    m->gap_after = b;
    uint8_t *t = realloc(m->twin, cap * sizeof *t);
    if (!t) return -1;
    m->twin = t;
    m->wcap = cap;
  }
  return 0;
}

static int memory_reserve(gluey *m, size_t need) {
  if (need <= m->pcap) return 0;
  size_t cap = need + need / 2 + 64;
  int32_t *a = realloc(m->pi, cap * sizeof *a);
  if (!a) return -1;
  m->pi = a;
  int32_t *b = realloc(m->pj, cap * sizeof *b);
  if (!b) return -1;
  m->pj = b;
  double *g = realloc(m->pgamma, cap * sizeof *g);
  if (!g) return -1;
  m->pgamma = g;
  double *l = realloc(m->plambda, cap * sizeof *l);
  if (!l) return -1;
  m->plambda = l;
  m->pcap = cap;
  return 0;
}

static void gluey_destroy(void *state) {
  gluey *m = state;
  if (!m) return;
  agglo_obstacles_free(&m->ob);
  agglo_neighbors_free(&m->nb);
  agglo_constraints_free(&m->con);
  free(m->w); free(m->gap_after); free(m->twin); free(m->pi); free(m->pj); free(m->pgamma); free(m->plambda);
  free(m->vstar); free(m->vtry); free(m->mark); free(m->li); free(m->lj); free(m->ls);
  free(m->oseg); free(m->odisc);
  free(m);
}

static int gluey_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                      size_t errlen) {
  gluey *m = calloc(1, sizeof *m);
  if (!m) return agglo_fail(err, errlen, "out of memory");
  m->cfg = *c;
  if (agglo_obstacles_build(&m->ob, s, c, err, errlen) != 0) {
    free(m);
    return -1;
  }
  double rs = 0;
  for (size_t i = 0; i < s->n; i++) rs += s->r[i];
  m->r_mean = s->n ? rs / (double)s->n : c->radius;
  m->margin = 0.5 * m->r_mean;
  m->gmin = agglo_gluey_of(c)->gamma_min;
  m->solver.method = (agglo_solver_method)c->solver; /* same order as solver.method's names */
  m->solver.tol = c->solver_tol * m->r_mean;
  m->solver.max_iter = (int)c->max_iter;
  m->solver.team_rows = (size_t)c->team_rows;
  m->solver.expansion = (agglo_expansion)c->solver_expansion; /* same order as the names */
  m->solver.rho_factor = c->rho_factor;
  m->solver.compliance = c->compliance;
  m->vstar = calloc(3 * (s->n ? s->n : 1), sizeof *m->vstar);
  m->mark = calloc(s->n ? s->n : 1, 1);
  if (!m->vstar || !m->mark) {
    gluey_destroy(m);
    return agglo_fail(err, errlen, "out of memory");
  }
  *state = m;
  return 0;
}

/* ------------------------------------------------------------ the constraint set */

static inline int key_less(int32_t i1, int32_t j1, int32_t i2, int32_t j2) {
  return i1 < i2 || (i1 == i2 && j1 < j2);
}

/* Looks (i, j) up in the memory, advancing *q (calls come in (i, j) order). */
static inline long carried(const gluey *m, size_t *q, int32_t i, int32_t j) {
  while (*q < m->pn && key_less(m->pi[*q], m->pj[*q], i, j)) (*q)++;
  return *q < m->pn && m->pi[*q] == i && m->pj[*q] == j ? (long)*q : -1;
}

static inline double row_weight(const gluey *m, double ri, double inv_rj) {
  if (!agglo_gluey_of(&m->cfg)->radius_weighting) return 1.0;
  double a = 1.0 / ri + inv_rj;
  return a * a;
}

/* One contact: an inequality row (gamma = 0); a glued contact is one equality row (the paper's
   D + h G.v = 0), or with gluey.glued_rows = bounded two inequality rows 0 <= D + h G.v <= max(D, 0)
   (the second with the normal reversed), whose net impulse is the glued multiplier, or with
   gluey.glued_rows = keep one equality row D + h G.v = max(D0, 0), D0 the gap at the start of the
   step (with a moving obstacle where it was then: the particle follows it), stored as the gap
   D - max(D0, 0). */
static int add_row(gluey *m, int32_t i, int32_t j, const double e[3], double g, double g0,
                   double lam, double gam, double w) {
  agglo_constraints *c = &m->con;
  int two = gam < 0 && agglo_gluey_of(&m->cfg)->glued_rows == GLUEY_ROWS_BOUNDED;
  if (rows_reserve(m, c->n + 2) != 0) return -1;
  size_t k = c->n++;
  c->i[k] = i, c->j[k] = j;
  memcpy(c->e + 3 * k, e, 3 * sizeof *e);
  c->gap[k] = gam < 0 && agglo_gluey_of(&m->cfg)->glued_rows == GLUEY_ROWS_KEEP ? g - fmax(g0, 0) : g;
  c->lambda[k] = two ? fmax(lam, 0) : lam;
  c->gamma[k] = gam;
  c->equality[k] = gam < 0 && !two;
  m->w[k] = w;
  m->twin[k] = 0;
  if (two) {
    k = c->n++;
    c->i[k] = i, c->j[k] = j;
    for (int d = 0; d < 3; d++) c->e[3 * k + d] = -e[d];
    c->gap[k] = fmax(-g, 0);
    c->lambda[k] = fmax(-lam, 0);
    c->gamma[k] = gam;
    c->equality[k] = 0;
    m->w[k] = w;
    m->twin[k] = 1;
  }
  return 0;
}

/* Rows: every listed pair and obstacle element with gap < reach, or glued, or (vtry) closing at
   the velocities vtry of an earlier attempt. With vcheck, nothing is written: returns the number
   of candidates outside that rule that close at vcheck, and in *gmax the largest gap of those. */
static long build_set(gluey *m, const agglo_system *s, double h, double t_next, double reach,
                      const double *vtry, const double *vcheck, double *gmax) {
  agglo_constraints *c = &m->con;
  if (!vcheck) c->n = 0;
  long missed = 0;
  size_t q = 0, nob = m->ob.n;
  for (size_t i = 0; i < s->n; i++) {
    const double *xi = s->x + 3 * i, *vi = vtry ? vtry + 3 * i : NULL;
    const double *wi = vcheck ? vcheck + 3 * i : NULL;
    double ri = s->r[i];
    for (size_t kk = nob; kk-- > 0;) {
      const agglo_obstacle *o = &m->ob.o[kk];
      double e[3];
      double g = agglo_obstacle_gap(o, t_next, xi, ri, e);
      int32_t j = -1 - (int32_t)kk;
      long p = carried(m, &q, (int32_t)i, j);
      double gam = p >= 0 ? m->pgamma[p] : 0;
      int in = g < reach || gam < 0 ||
               (vi && g + h * (e[0] * vi[0] + e[1] * vi[1] + e[2] * vi[2]) < 0);
      if (wi) {
        if (!in && g + h * (e[0] * wi[0] + e[1] * wi[1] + e[2] * wi[2]) < 0) {
          missed++;
          if (g > *gmax) *gmax = g;
        }
        continue;
      }
      if (!in) continue;
      double g0 = g, e0[3];
      if (gam < 0 && agglo_gluey_of(&m->cfg)->glued_rows == GLUEY_ROWS_KEEP) g0 = agglo_obstacle_gap(o, t_next - h, xi, ri, e0);
      if (add_row(m, (int32_t)i, j, e, g, g0, p >= 0 ? m->plambda[p] : 0, gam,
                  row_weight(m, ri, agglo_obstacle_inv_radius(o))) != 0)
        return -1;
    }
    for (size_t pp = m->nb.start[i]; pp < m->nb.start[i + 1]; pp++) {
      int32_t j = m->nb.nbr[pp];
      double d[3];
      agglo_box_delta(&s->box, xi, s->x + 3 * (size_t)j, d);
      double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      double g = dist - ri - s->r[j];
      long p = carried(m, &q, (int32_t)i, j);
      double gam = p >= 0 ? m->pgamma[p] : 0;
      double e[3] = {1, 0, 0};
      if (dist > 0) e[0] = d[0] / dist, e[1] = d[1] / dist, e[2] = d[2] / dist;
      int in = g < reach || gam < 0;
      if (!in && vi) {
        const double *vj = vtry + 3 * (size_t)j;
        in = g + h * (e[0] * (vj[0] - vi[0]) + e[1] * (vj[1] - vi[1]) + e[2] * (vj[2] - vi[2])) < 0;
      }
      if (wi) {
        const double *vj = vcheck + 3 * (size_t)j;
        if (!in &&
            g + h * (e[0] * (vj[0] - wi[0]) + e[1] * (vj[1] - wi[1]) + e[2] * (vj[2] - wi[2])) < 0) {
          missed++;
          if (g > *gmax) *gmax = g;
        }
        continue;
      }
      if (!in) continue;
      if (add_row(m, (int32_t)i, j, e, g, g, p >= 0 ? m->plambda[p] : 0, gam,
                  row_weight(m, ri, 1.0 / s->r[j])) != 0)
        return -1;
    }
  }
  if (vcheck) return missed;
  return agglo_constraints_index(c, s->n);
}

/* ------------------------------------------------------------ one step */

static int gluey_step(void *state, agglo_system *s, agglo_step_info *info, char *err,
                      size_t errlen) {
  gluey *m = state;
  const agglo_config *c = &m->cfg;
  double h = c->dt, t0 = s->t, t1 = (double)(s->step + 1) * h;
  size_t n = s->n;
  int d = s->dim;
  /* 1. a priori velocity */
  double f[3] = {0, 0, 0};
  for (int k = 0; k < d; k++) {
    const agglo_list *g = &c->gravity;
    f[k] = (g->n == 0 ? 0 : g->n == 1 ? g->v[0] : g->v[k]) + agglo_gluey_force_mean(c, k, t0, t1);
  }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      m->vstar[3 * i + k] = s->inv_m[i] > 0 && k < d ? s->v[3 * i + k] + h * f[k] : 0.0;
  /* 2. neighbours: every pair that can close within the step is listed */
  double reach = fmax(m->margin, 2.5 * h * agglo_max_speed(m->vstar, n));
  double skin = agglo_gluey_of(c)->skin * m->r_mean;
  if (!m->nb.start || reach > m->nb.cutoff || agglo_neighbors_stale(&m->nb, s))
    if (agglo_neighbors_build(&m->nb, s, fmax(reach, m->nb.start ? m->nb.cutoff : 0), skin) != 0)
      return agglo_fail(err, errlen, "out of memory building the neighbour list");
  /* 3. projection; rows missed by the selection (closing at the answer) are added and the step
     solved again; so is a list too short for the answer's speeds */
  agglo_solver_stats st = {0};
  double *vtry = NULL;
  int rounds = 0;
  for (;;) {
    if (build_set(m, s, h, t1, reach, vtry, NULL, NULL) != 0)
      return agglo_fail(err, errlen, "out of memory (contacts)");
    agglo_solver_stats st1 = {0};
    if (agglo_project(s, &m->con, h, m->vstar, s->v, &m->solver, &st1) != 0)
      return agglo_fail(err, errlen, "out of memory in the projection");
    if (rounds == 0) st = st1;
    else {
      if (st1.iterations > st.iterations) st.iterations = st1.iterations;
      st.converged &= st1.converged;
      st.max_violation = st1.max_violation;
    }
    /* a failed solve (e.g. a jam: no velocities meet every row) can leave huge velocities:
       widening the list for them would only list every pair; report the failure instead */
    if (++rounds >= 20 || !st1.converged) break;
    double vout = agglo_max_speed(s->v, n);
    if (2 * h * vout >= m->nb.cutoff) { /* a pair beyond the list could close */
      if (agglo_neighbors_build(&m->nb, s, 2.5 * h * vout, skin) != 0)
        return agglo_fail(err, errlen, "out of memory building the neighbour list");
    } else {
      double gmax = -INFINITY;
      if (build_set(m, s, h, t1, reach, vtry, s->v, &gmax) == 0) break;
      reach = fmax(reach, gmax * 1.0001 + 1e-300);
    }
    if (!m->vtry) m->vtry = malloc(3 * (n ? n : 1) * sizeof *m->vtry);
    if (!m->vtry) return agglo_fail(err, errlen, "out of memory");
    memcpy(m->vtry, s->v, 3 * n * sizeof *m->vtry);
    vtry = m->vtry;
  }
  /* a failed solve whose velocities are far beyond anything the forces give is a jam (no
     velocities meet every row): going on would move particles by huge steps */
  {
    double vin = agglo_max_speed(m->vstar, n), vout = agglo_max_speed(s->v, n);
    /* checked before the memory is updated, so that the saved gamma stay those of a good step */
    int finite = 1;
    for (size_t i = 0; i < 3 * n; i++) finite &= isfinite(s->v[i]) != 0;
    if (!finite)
      return agglo_fail(err, errlen, "step %lld: the projection gave non-finite velocities",
                        (long long)s->step + 1);
    if (!st.converged && !(vout <= 100 * vin + 10 * m->r_mean / h))
      return agglo_fail(err, errlen,
                        "step %lld: the projection failed with speeds up to %.3g (before it: %.3g): "
                        "a jam, no velocities meet every contact (e.g. a glued clump caught "
                        "between obstacles); set solver.compliance (e.g. 1e-4) to let contacts "
                        "give way slightly",
                        (long long)s->step + 1, vout, vin);
  }
  /* 4. adhesion memory, then the move */
  agglo_constraints *con = &m->con;
  double tol = m->solver.tol;
  if (memory_reserve(m, con->n) != 0) return agglo_fail(err, errlen, "out of memory");
  memset(m->mark, 0, n);
  size_t gp = 0, go = 0, ng = 0;
  double gsum = 0, gmost = 0;
  size_t pn = 0;
  for (size_t k = 0; k < con->n; k++) {
    if (m->twin[k]) continue;
    int two = k + 1 < con->n && m->twin[k + 1];
    double lam = two ? con->lambda[k] - con->lambda[k + 1] : con->lambda[k];
    double ga = agglo_constraint_gap_after(con, k, h, s->v);
    m->gap_after[k] = ga;
    double g = con->gamma[k];
    /* an open contact keeps gamma = 0 whatever a loose solve left in lambda [choice] */
    if (con->gamma[k] < 0 || ga <= tol) g -= m->w[k] * lam;
    if (g < m->gmin) g = m->gmin;
    if (g > 0) g = 0;
    m->pi[pn] = con->i[k], m->pj[pn] = con->j[k];
    m->pgamma[pn] = g;
    m->plambda[pn] = lam;
    pn++;
    if (g < 0) {
      ng++;
      gsum += g;
      if (g < gmost) gmost = g;
      if (con->j[k] >= 0) gp++;
      else go++;
    }
    if (con->j[k] < 0 && (g < 0 || (lam > 0 && ga <= tol))) m->mark[con->i[k]] = 1;
  }
  m->pn = pn;
  size_t att = 0;
  for (size_t i = 0; i < n; i++) att += m->mark[i];
  m->st.glued_pairs = gp, m->st.glued_obstacle = go;
  m->st.gamma_most_negative = gmost;
  m->st.gamma_mean = ng ? gsum / (double)ng : 0;
  m->st.gamma_median = 0;
  if (ng) {
    double *buf = malloc(ng * sizeof *buf);
    if (buf) {
      size_t a = 0;
      for (size_t k = 0; k < pn; k++)
        if (m->pgamma[k] < 0) buf[a++] = m->pgamma[k];
      qsort(buf, ng, sizeof *buf, agglo_cmp_double);
      m->st.gamma_median = ng % 2 ? buf[ng / 2] : 0.5 * (buf[ng / 2 - 1] + buf[ng / 2]);
      free(buf);
    }
  }
  m->st.attached_fraction = n ? (double)att / (double)n : 0;
  m->st.builds = (size_t)m->nb.builds;
  size_t bad = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    for (int k = 0; k < d; k++) x[k] += h * v[k];
    agglo_box_wrap(&s->box, x);
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) &&
          isfinite(v[1]) && isfinite(v[2])) && bad == SIZE_MAX)
      bad = i;
  }
  s->step++;
  s->t = (double)s->step * h;
  /* health: smallest gap among the rows after the move (obstacles where they are now) */
  double min_gap = INFINITY;
  for (size_t k = 0; k < con->n; k++) {
    size_t i = (size_t)con->i[k];
    double g, e[3];
    if (con->j[k] < 0) {
      g = agglo_obstacle_gap(&m->ob.o[-1 - con->j[k]], s->t, s->x + 3 * i, s->r[i], e);
    } else {
      double dd[3];
      agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * (size_t)con->j[k], dd);
      g = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]) - s->r[i] - s->r[con->j[k]];
    }
    if (g < min_gap) min_gap = g;
  }
  info->iterations = st.iterations;
  info->converged = st.converged;
  info->max_violation = st.max_violation;
  info->min_gap = min_gap;
  /* a correct solve leaves at most tol of overlap; ten times that means a missed contact */
  info->overlap_limit = 10 * m->solver.tol;
  info->n_contacts = con->n;
  info->bad_particle = bad;
  return 0;
}

/* ------------------------------------------------------------ outputs */

void agglo_gluey_get_stats(const void *state, agglo_gluey_stats *st) { *st = ((const gluey *)state)->st; }

double agglo_gluey_gamma(const void *state, int32_t i, int32_t j) {
  const gluey *m = state;
  for (size_t k = 0; k < m->pn; k++)
    if (m->pi[k] == i && m->pj[k] == j) return m->pgamma[k];
  return 0;
}

static const char *const gluey_stats_formats[] = {"%.0f", "%.0f", "%.6g", "%.6g", "%.6g", "%.6g"};

static void gluey_stats_numbers(const void *state, double *v, int *has) {
  const gluey *m = state;
  const agglo_gluey_stats *s = &m->st;
  double x[6] = {(double)s->glued_pairs, (double)s->glued_obstacle, s->gamma_most_negative,
                 s->gamma_mean, s->gamma_median, s->attached_fraction};
  for (int k = 0; k < 6; k++) v[k] = x[k], has[k] = 1;
}

static int gluey_links(void *state, agglo_link_lines *out) {
  gluey *m = state;
  size_t cnt = 0;
  for (size_t k = 0; k < m->pn; k++) cnt += m->pj[k] >= 0 && m->pgamma[k] < 0;
  free(m->li); free(m->lj); free(m->ls);
  m->li = malloc((cnt + 1) * sizeof *m->li);
  m->lj = malloc((cnt + 1) * sizeof *m->lj);
  m->ls = malloc((cnt + 1) * sizeof *m->ls);
  if (!m->li || !m->lj || !m->ls) return -1;
  /* darker for more negative gamma: relative to gamma_min when finite, else to the most
     negative link */
  double scale = 0;
  if (isfinite(m->gmin) && m->gmin < 0) scale = -m->gmin;
  else
    for (size_t k = 0; k < m->pn; k++)
      if (m->pj[k] >= 0 && -m->pgamma[k] > scale) scale = -m->pgamma[k];
  size_t a = 0;
  for (size_t k = 0; k < m->pn; k++)
    if (m->pj[k] >= 0 && m->pgamma[k] < 0) {
      m->li[a] = m->pi[k], m->lj[a] = m->pj[k];
      m->ls[a] = scale > 0 ? -m->pgamma[k] / scale : 1.0;
      a++;
    }
  m->ln = a;
  out->i = m->li, out->j = m->lj, out->strength = m->ls, out->n = a;
  return 0;
}

/* Clip the line p + s u to the xy rectangle of the box (Liang-Barsky); 0 if it misses. */
static int clip_line(const agglo_box *b, const double p[2], const double u[2], double *s0, double *s1) {
  *s0 = -HUGE_VAL, *s1 = HUGE_VAL;
  for (int k = 0; k < 2; k++) {
    if (u[k] == 0) {
      if (p[k] < b->lo[k] || p[k] > b->hi[k]) return 0;
      continue;
    }
    double a = (b->lo[k] - p[k]) / u[k], c = (b->hi[k] - p[k]) / u[k];
    if (a > c) { double q = a; a = c; c = q; }
    if (a > *s0) *s0 = a;
    if (c < *s1) *s1 = c;
  }
  return *s1 > *s0;
}

/* Obstacles where they are at s->t: a plane as its line clipped to the box (a plane of the
   rotating box as its face, of length the side), a segment as itself, a sphere as a disc. The
   system box walls are drawn by the picture itself. */
static int gluey_obstacles(void *state, const agglo_system *s, agglo_obstacle_shapes *out) {
  gluey *m = state;
  const agglo_obstacles *ob = &m->ob;
  free(m->oseg); free(m->odisc);
  m->oseg = malloc((4 * ob->n + 1) * sizeof *m->oseg);
  m->odisc = malloc((3 * ob->n + 1) * sizeof *m->odisc);
  if (!m->oseg || !m->odisc) return -1;
  size_t ns = 0, nd = 0;
  double t = s->t;
  for (size_t k = 0; k < ob->n; k++) {
    const agglo_obstacle *o = &ob->o[k];
    if (o->group == AGGLO_OBS_BOXWALL) continue;
    double *g = m->oseg + 4 * ns;
    if (o->kind == AGGLO_OBS_SPHERE) {
      double p[3];
      agglo_obstacle_place(o, t, o->a, p);
      double *d = m->odisc + 3 * nd++;
      d[0] = p[0], d[1] = p[1], d[2] = o->radius;
    } else if (o->kind == AGGLO_OBS_SEGMENT) {
      double a[3], b[3];
      agglo_obstacle_place(o, t, o->a, a);
      agglo_obstacle_place(o, t, o->b, b);
      g[0] = a[0], g[1] = a[1], g[2] = b[0], g[3] = b[1];
      ns++;
    } else {
      /* the line n.(x - c) = radius at angle 0: point c + radius n, direction (-n_y, n_x) */
      double p0[3] = {o->c[0] + o->radius * o->a[0], o->c[1] + o->radius * o->a[1], 0};
      double q0[3] = {p0[0] - o->a[1], p0[1] + o->a[0], 0}, p[3], q[3];
      agglo_obstacle_place(o, t, p0, p);
      agglo_obstacle_place(o, t, q0, q);
      double u[2] = {q[0] - p[0], q[1] - p[1]}, s0, s1;
      if (o->group == AGGLO_OBS_ROTATING_BOX) s0 = -fabs(o->radius), s1 = fabs(o->radius);
      else if (!clip_line(&s->box, p, u, &s0, &s1)) continue;
      g[0] = p[0] + s0 * u[0], g[1] = p[1] + s0 * u[1];
      g[2] = p[0] + s1 * u[0], g[3] = p[1] + s1 * u[1];
      ns++;
    }
  }
  out->seg = m->oseg, out->nseg = ns, out->disc = m->odisc, out->ndisc = nd;
  return 0;
}

static double gluey_contact_gap(const void *state) {
  const gluey *m = state;
  return 0.1 * m->r_mean; /* as the contact model: touching = within a tenth of a radius */
}

static const void *gluey_neighbors(const void *state) {
  const gluey *m = state;
  return m->nb.start && m->nb.cutoff + m->nb.skin >= gluey_contact_gap(state) ? &m->nb : NULL;
}

static int gluey_save(const void *state, FILE *f) {
  const gluey *m = state;
  fprintf(f, "# i j lambda gamma (storage indices; j < 0: obstacle element -1-j)\n%zu\n", m->pn);
  for (size_t k = 0; k < m->pn; k++)
    fprintf(f, "%d %d %.17g %.17g\n", m->pi[k], m->pj[k], m->plambda[k], m->pgamma[k]);
  return ferror(f) ? -1 : 0;
}

static int gluey_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  gluey *m = state;
  char line[256];
  size_t cnt;
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1)
    return agglo_fail(err, errlen, "line 2: expected the number of contacts");
  if (!agglo_load_count_fits(f, cnt, 4))
    return agglo_fail(err, errlen, "line 2: announces %zu contacts, more than the file holds", cnt);
  if (memory_reserve(m, cnt) != 0) return agglo_fail(err, errlen, "out of memory");
  for (size_t k = 0; k < cnt; k++) {
    int i, j;
    double l, g;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lg %lg", &i, &j, &l, &g) != 4)
      return agglo_fail(err, errlen, "line %zu: not 'i j lambda gamma'", k + 3);
    if (agglo_constraints_check_loaded(s->n, m->ob.n, "obstacle element", i, j, k ? m->pi[k - 1] : -1,
                                       k ? m->pj[k - 1] : 0, l, g, k + 3, err, errlen) != 0)
      return -1;
    if (!(g <= 0)) /* (an adhesion memory is never positive: the step sets it to 0 there) */
      return agglo_fail(err, errlen, "line %zu: contact %d %d: memory gamma %g (allowed: <= 0)", k + 3, i, j, g);
    m->pi[k] = i, m->pj[k] = j, m->plambda[k] = l, m->pgamma[k] = g;
  }
  m->pn = cnt;
  return 0;
}

const agglo_model agglo_model_gluey = {
    .name = "gluey",
    .init = gluey_init,
    .step = gluey_step,
    .contact_gap = gluey_contact_gap,
    .neighbors = gluey_neighbors,
    .save = gluey_save,
    .load = gluey_load,
    .destroy = gluey_destroy,
    .links = gluey_links,
    .obstacles = gluey_obstacles,
    .stats_columns = ",glued_pairs,glued_obstacle,gamma_most_negative,gamma_mean,gamma_median,"
                     "attached_fraction",
    .stats_count = 6,
    .stats_formats = gluey_stats_formats,
    .stats_numbers = gluey_stats_numbers,
};

/* ------------------------------------------------------------ initial state */

int agglo_gluey_place(agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  const agglo_gluey_settings *gl = agglo_gluey_of(c);
  int d = s->dim;
  size_t n = s->n;
  const agglo_list *P = &gl->positions, *V = &gl->velocities;
  if (P->n) {
    if ((size_t)P->n != (size_t)d * n)
      return agglo_fail(err, errlen, "gluey.positions has %d values: %zu particles in %dD need %zu",
                  P->n, n, d, (size_t)d * n);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < d; k++) {
        double x = P->v[(size_t)d * i + k];
        if (!(x >= s->box.lo[k] && x <= s->box.hi[k]))
          return agglo_fail(err, errlen, "gluey.positions: particle %zu is outside the box", i + 1);
        s->x[3 * i + k] = x;
      }
    for (size_t i = 0; i < n; i++) /* a contact between coincident centres has no direction */
      for (size_t j = i + 1; j < n; j++) {
        double dx[3];
        agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, dx);
        if (dx[0] == 0 && dx[1] == 0 && dx[2] == 0) {
          const double *x = s->x + 3 * i;
          char at[96];
          if (d == 3) snprintf(at, sizeof at, "%g, %g, %g", x[0], x[1], x[2]);
          else snprintf(at, sizeof at, "%g, %g", x[0], x[1]);
          return agglo_fail(err, errlen, "gluey.positions: particles %zu and %zu have the same centre "
                            "(%s) (allowed: distinct centres)", i + 1, j + 1, at);
        }
      }
  }
  if (V->n % d || (size_t)V->n > (size_t)d * n)
    return agglo_fail(err, errlen, "gluey.velocities has %d values: give %d per particle, for at most "
                "%zu particles", V->n, d, n);
  for (int q = 0; q < V->n; q++) s->v[3 * (size_t)(q / d) + q % d] = V->v[q];
  if (gl->force_times.n * d != gl->force.n)
    return agglo_fail(err, errlen, "gluey.force has %d values: %d times need %d (run.dim per time)",
                gl->force.n, gl->force_times.n, gl->force_times.n * d);
  for (int q = 1; q < gl->force_times.n; q++)
    if (gl->force_times.v[q] < gl->force_times.v[q - 1])
      return agglo_fail(err, errlen, "gluey.force_times must be in increasing order");
  return 0;
}
