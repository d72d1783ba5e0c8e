#include "projection.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic parallel sum: fixed blocks, summed in order, whatever the thread count. */
#define SUM_BLOCK 4096
static double det_sum(const double *a, size_t n, double *blocks) {
  size_t nb = (n + SUM_BLOCK - 1) / SUM_BLOCK;
#pragma omp parallel for schedule(static)
  for (size_t b = 0; b < nb; b++) {
    size_t end = (b + 1) * SUM_BLOCK < n ? (b + 1) * SUM_BLOCK : n;
    double t = 0;
    for (size_t k = b * SUM_BLOCK; k < end; k++) t += a[k];
    blocks[b] = t;
  }
  double t = 0;
  for (size_t b = 0; b < nb; b++) t += blocks[b];
  return t;
}

/* v = v* + M^-1 sum_c lam_c G_c, gathered per particle so that threads never write the same entry. */
static void velocities(const agglo_system *s, const agglo_constraints *c, const double *vstar,
                       const double *lam, double *v) {
  size_t n = s->n;
#pragma omp parallel for schedule(static)
  for (size_t p = 0; p < n; p++) {
    double a0 = 0, a1 = 0, a2 = 0;
    for (size_t q = c->inc_start[p]; q < c->inc_start[p + 1]; q++) {
      uint32_t code = c->inc[q];
      size_t k = code >> 1;
      /* pair: G = -e on i, +e on j; wall: G = n on i */
      double sgn = (code & 1) || c->j[k] < 0 ? 1.0 : -1.0;
      double l = sgn * lam[k];
      a0 += l * c->e[3 * k];
      a1 += l * c->e[3 * k + 1];
      a2 += l * c->e[3 * k + 2];
    }
    double w = s->inv_m[p];
    v[3 * p] = vstar[3 * p] + w * a0;
    v[3 * p + 1] = vstar[3 * p + 1] + w * a1;
    v[3 * p + 2] = vstar[3 * p + 2] + w * a2;
  }
}

double agglo_constraint_gap_after(const agglo_constraints *c, size_t k, double h, const double *v) {
  const double *e = c->e + 3 * k;
  const double *vi = v + 3 * (size_t)c->i[k];
  double gv;
  if (c->j[k] < 0) {
    gv = e[0] * vi[0] + e[1] * vi[1] + e[2] * vi[2];
  } else {
    const double *vj = v + 3 * (size_t)c->j[k];
    gv = e[0] * (vj[0] - vi[0]) + e[1] * (vj[1] - vi[1]) + e[2] * (vj[2] - vi[2]);
  }
  return c->gap[k] + h * gv;
}

/* KKT residual of one constraint in length units: overlap left, or a push (lambda > 0) on a
   contact that ends open. lam_len = h * lambda * (1/m_i + 1/m_j) is the displacement it causes. */
static inline double kkt_residual(double gap, double lam_len, int equality) {
  if (equality) return fabs(gap);
  double r = gap < 0 ? -gap : 0.0;
  if (lam_len < 0) r = fmax(r, -lam_len);
  else r = fmax(r, fmin(fmax(gap, 0.0), lam_len));
  return r;
}

static double pair_weight(const agglo_system *s, const agglo_constraints *c, size_t k) {
  return s->inv_m[c->i[k]] + (c->j[k] >= 0 ? s->inv_m[c->j[k]] : 0.0);
}

int agglo_project(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                  double *v, const agglo_solver_settings *set, agglo_solver_stats *st) {
  size_t m = c->n, n = s->n;
  memset(st, 0, sizeof *st);
  st->converged = 1;
  if (m == 0) {
    memcpy(v, vstar, 3 * n * sizeof *v);
    return 0;
  }
  /* Step per constraint from the Gershgorin bound of its row of A = G M^-1 G^T:
     |row c| <= z_i/m_i + z_j/m_j. Uzawa uses the smallest (one scalar rho), APGD each its own. */
  double *step = malloc(m * sizeof *step);
  double *y = malloc(m * sizeof *y);        /* extrapolated point (APGD) */
  double *prev = malloc(m * sizeof *prev);  /* previous iterate */
  double *work = malloc(m * sizeof *work);
  double *blocks = malloc((m / SUM_BLOCK + 2) * sizeof *blocks);
  if (!step || !y || !prev || !work || !blocks) {
    free(step); free(y); free(prev); free(work); free(blocks);
    return -1;
  }
  double *lam = c->lambda;
  double hinv = 1.0 / h;
  double min_step = INFINITY;
  for (size_t k = 0; k < m; k++) {
    size_t i = c->i[k];
    double L = (double)(c->inc_start[i + 1] - c->inc_start[i]) * s->inv_m[i];
    if (c->j[k] >= 0) {
      size_t j = c->j[k];
      L += (double)(c->inc_start[j + 1] - c->inc_start[j]) * s->inv_m[j];
    }
    step[k] = L > 0 ? set->rho_factor / L : 0.0;
    if (step[k] > 0 && step[k] < min_step) min_step = step[k];
  }
  if (set->method == AGGLO_SOLVER_UZAWA)
    for (size_t k = 0; k < m; k++) step[k] = min_step;
  for (size_t k = 0; k < m; k++) {
    if (!c->equality[k] && lam[k] < 0) lam[k] = 0;
    y[k] = prev[k] = lam[k];
  }
  double theta = 1.0;
  int it = 0, done = 0;
  double res = INFINITY;
  int accelerate = set->method == AGGLO_SOLVER_APGD;
  while (!done) {
    velocities(s, c, vstar, y, v);
    /* residual at y, then a projected gradient step from y */
    res = 0;
#pragma omp parallel for schedule(static) reduction(max : res)
    for (size_t k = 0; k < m; k++) {
      double gap = agglo_constraint_gap_after(c, k, h, v);
      double r = kkt_residual(gap, h * y[k] * pair_weight(s, c, k), c->equality[k]);
      if (r > res) res = r;
      double nl = y[k] - step[k] * gap * hinv;
      if (!c->equality[k] && nl < 0) nl = 0;
      work[k] = nl; /* new iterate */
    }
    if (res <= set->tol) {
      done = 1;
      break;
    }
    if (++it > set->max_iter) {
      st->converged = 0;
      it--;
      break;
    }
    if (!accelerate) {
      memcpy(y, work, m * sizeof *y);
      continue;
    }
    /* FISTA momentum with gradient restart (O'Donoghue & Candes): restart when the step
       climbs the objective, i.e. (y - new).(new - prev) > 0. */
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < m; k++) prev[k] = (y[k] - work[k]) * (work[k] - lam[k]);
    double dir = det_sum(prev, m, blocks);
    double tnext = 0.5 * (1.0 + sqrt(1.0 + 4.0 * theta * theta));
    double beta = (theta - 1.0) / tnext;
    if (dir > 0) {
      theta = 1.0;
      beta = 0.0;
    } else {
      theta = tnext;
    }
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < m; k++) {
      double nl = work[k];
      y[k] = nl + beta * (nl - lam[k]);
      lam[k] = nl;
    }
  }
  /* the answer: multipliers projected onto their cone, and the velocities they give */
  for (size_t k = 0; k < m; k++) lam[k] = (!c->equality[k] && y[k] < 0) ? 0.0 : y[k];
  velocities(s, c, vstar, lam, v);
  double viol = 0, fres = 0;
#pragma omp parallel for schedule(static) reduction(max : viol, fres)
  for (size_t k = 0; k < m; k++) {
    double gap = agglo_constraint_gap_after(c, k, h, v);
    double r = kkt_residual(gap, h * lam[k] * pair_weight(s, c, k), c->equality[k]);
    if (r > fres) fres = r;
    double o = c->equality[k] ? fabs(gap) : -gap;
    if (o > viol) viol = o;
  }
  st->iterations = it;
  st->max_violation = viol;
  st->residual = fres;
  free(step); free(y); free(prev); free(work); free(blocks);
  return 0;
}
