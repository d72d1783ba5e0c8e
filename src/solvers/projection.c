/* Velocity projection, solved in the dual (multipliers lambda >= 0), one connected component of the
   contact graph at a time.

   The dual problem min_l 1/2 l.A l + l.q (A = G M^-1 G^T) is block diagonal over the connected
   components of the constraint graph (particles linked by pair constraints), so each component is
   solved on its own, with its own iteration count: small components (most of them) stop after a
   few iterations instead of running as long as the slowest clump. Components are independent, so
   threads take whole components; each is solved serially in a fixed order, which makes the result
   independent of the thread count. A component of solver.team_rows rows or more (a gel) is
   shared by all threads instead (a team, below), in fixed blocks: the same bits again.

   Variables are scaled by the diagonal of A (y_k = sqrt(A_kk) lambda_k, Jacobi preconditioning;
   the bound lambda >= 0 is y >= 0). Methods:
   - MPRGP (Dostal's modified proportioning with reduced gradient projections): conjugate gradients
     on the current face, proportioning steps to release constraints, expansion steps (projected
     gradient with fixed step) to add them. Finite termination, rate bound in terms of the condition
     number of A instead of its square root of APGD's Nesterov rate, and in practice several times
     fewer matrix-vector products than APGD on clumps.
   - APGD: Nesterov/FISTA with per-constraint Gershgorin steps and gradient restart.
   - Uzawa: plain projected gradient with the safe scalar rho (the paper's algorithm).
   Iterations are counted in products by A, the unit of cost of all three. */
#include "solvers/projection.h"
#include "solvers/active_set.h"
#include "core/union_find.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { F_EQ = AGGLO_ROW_EQ, F_FIXED = AGGLO_ROW_FIXED }; /* equality; both bodies immovable */

typedef struct agglo_proj_ws {
  size_t cap_m, cap_n, cap_p, cap_c;
  /* per constraint, in component order */
  size_t *corder;    /* position -> constraint index */
  int32_t *a, *b;    /* particle positions of i and j (b < 0: wall) */
  double *e;         /* dim per constraint: e_k / sqrt(w_k), walls negated (G_k v = e.(v_b - v_a)) */
  double *sw, *q;    /* sqrt(A_kk); gradient at y = 0 */
  double *einf, *mov; /* +inf on equalities, else 0; 0 when both bodies are immovable, else 1 */
  double eps;         /* compliance: the scaled dual matrix is A + eps I */
  double *y, *g, *p, *ap, *t;
  double *z, *gz; /* a trial point and its gradient (the projected conjugate gradient step) */
  uint32_t *clip; /* the rows that step clipped (row - first row), each thread's in its rows' range */
  uint8_t *flag;
  /* per particle in a constraint, in component order */
  size_t *porder;
  double *im, *u, *ps;
  uint8_t *touch; /* particles of a clipped row (the sparse update of the expansion) */
  size_t *istart; /* per particle: its rows in inc, ascending (a component solved by a team) */
  uint32_t *inc;  /* 2 per constraint: 2 (row - first row of the component) + (particle is b) */
  /* the same by slices of 8 particles, each padded to its longest list (a zero e): entry j of
     the 8 lists side by side, so that a product is branch free and vectorised */
  size_t *sbeg;   /* per slice: its first entry (8 per column) */
  uint32_t *sidx; /* per entry: row - first row of the component */
  double *ses;    /* per column of a slice: D x 8 signed directions */
  size_t cap_sell;
  /* team size (threads of a team or one): the last cost of each (s per product and row), which
     one is in use, and the solves left before the other is tried again */
  double team_cost[2];
  int team_all, team_countdown, team_backoff;
  /* per particle of the system */
  int32_t *parent, *pos, *croot, *rt;
  /* per component */
  size_t *cbeg, *pbeg, *sched, *cfill, *pfill;
  int *iters;
  uint8_t *conv;
} proj_ws;

#define GROW(ptr, count)                                            \
  do {                                                              \
    void *nw_ = realloc((ptr), ((count) + 1) * sizeof *(ptr)); \
    if (!nw_) return -1;                                            \
    (ptr) = nw_;                                                    \
  } while (0)

static int ws_reserve(proj_ws *w, size_t m, size_t np, size_t nsys, size_t ncomp_max) {
  if (m > w->cap_m) {
    size_t c = m + m / 4 + 64;
    GROW(w->corder, c); GROW(w->a, c); GROW(w->b, c); GROW(w->e, 3 * c); GROW(w->sw, c);
    GROW(w->q, c); GROW(w->y, c); GROW(w->z, c); GROW(w->gz, c); GROW(w->g, c); GROW(w->p, c); GROW(w->ap, c); GROW(w->t, c);
    GROW(w->flag, c); GROW(w->clip, c); GROW(w->einf, c); GROW(w->mov, c); GROW(w->inc, 2 * c);
    w->cap_m = c;
  }
  if (np > w->cap_p) {
    size_t c = np + np / 4 + 64;
    GROW(w->porder, c); GROW(w->im, c); GROW(w->u, 3 * c); GROW(w->ps, c); GROW(w->istart, c); GROW(w->sbeg, c); GROW(w->touch, c);
    w->cap_p = c;
  }
  if (nsys > w->cap_n) {
    size_t c = nsys + 1;
    GROW(w->parent, c); GROW(w->pos, c); GROW(w->croot, c); GROW(w->rt, c);
    w->cap_n = c;
  }
  if (ncomp_max + 1 > w->cap_c) {
    size_t c = ncomp_max + ncomp_max / 4 + 64;
    GROW(w->cbeg, c); GROW(w->pbeg, c); GROW(w->sched, c); GROW(w->cfill, c); GROW(w->pfill, c);
    GROW(w->iters, c); GROW(w->conv, c);
    w->cap_c = c;
  }
  return 0;
}

void agglo_projection_workspace_free(struct agglo_proj_ws *w) {
  if (!w) return;
  free(w->corder); free(w->a); free(w->b); free(w->e); free(w->sw); free(w->q); free(w->y); free(w->z); free(w->gz);
  free(w->g); free(w->p); free(w->ap); free(w->t); free(w->flag); free(w->clip); free(w->touch); free(w->einf); free(w->mov);
  free(w->porder); free(w->im); free(w->u); free(w->ps); free(w->istart); free(w->inc);
  free(w->sbeg); free(w->sidx); free(w->ses);
  free(w->parent); free(w->pos); free(w->croot); free(w->rt);
  free(w->cbeg); free(w->pbeg); free(w->sched); free(w->cfill); free(w->pfill); free(w->iters);
  free(w->conv);
  free(w);
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
  if (lam_len < 0) r = r > -lam_len ? r : -lam_len;
  else {
    double o = gap > 0 ? gap : 0.0;
    o = o < lam_len ? o : lam_len;
    r = r > o ? r : o;
  }
  return r;
}

/* ------------------------------------------------------------------ one component */

typedef struct {
  size_t c0, c1, p0, p1; /* constraint and particle ranges */
} comp_range;

/* Threads inside one large component (a gel: one component holds every contact). The threads of
   an omp parallel region all run the same solve, like the processes of agglo_project_part: each
   takes a contiguous share of fixed blocks of rows and a share of the particles, and every sum is
   taken per block and added in block order, so the answer does not depend on the number of
   threads. The particles' sums M^-1 G^T x are gathered particle by particle from their rows in
   ascending order (w->istart, w->inc; by slices of 8 particles, w->sbeg, w->sidx, w->ses).
   Outside a team (on = 0) there is one block of every row: the serial loops as they were. */
enum { team_block = 4096, team_width = 6 }; /* rows per block; values per block at most */
typedef struct {
  int on;
  size_t bs, nb;         /* rows per block, blocks */
  size_t b0, b1, q0, q1; /* this thread's blocks and particles */
  double *part;          /* on: 2 nb x team_width per-block values, two buffers used in turn */
  double one[team_width]; /* off: the one block's values */
  int flip;
  size_t nt, id;         /* threads, this one */
  size_t *nclip;         /* on: per thread, the rows its last projected step clipped */
} team;

/* One thread on the whole component: one block of every row. */
static inline team team_alone(const comp_range *r) {
  team tm = {0, r->c1 - r->c0, 1, 0, 1, r->p0, r->p1, NULL, {0}, 0, 1, 0, NULL};
  return tm;
}

static inline void team_sync(const team *tm) {
  if (tm->on) {
#pragma omp barrier
  }
}

/* rows [*k0, *k1) of block b */
static inline void team_rows(const team *tm, const comp_range *r, size_t b, size_t *k0,
                             size_t *k1) {
  *k0 = r->c0 + b * tm->bs;
  *k1 = *k0 + tm->bs < r->c1 ? *k0 + tm->bs : r->c1;
}

/* Block b's values x[0..n). */
static inline void team_put(team *tm, size_t b, const double *x, int n) {
  double *dst = tm->on ? tm->part + team_width * (tm->flip * tm->nb + b) : tm->one;
  for (int i = 0; i < n; i++) dst[i] = x[i];
}

/* The totals over the blocks of the values put: x[0..nsum) added in block order, the rest
   maxima; every thread of a team gets the same. */
static inline void team_total(team *tm, double *x, int nsum, int n) {
  if (!tm->on) {
    for (int i = 0; i < n; i++) x[i] = tm->one[i];
    return;
  }
#pragma omp barrier
  const double *src = tm->part + team_width * tm->flip * tm->nb;
  for (int i = 0; i < n; i++) x[i] = i < nsum ? 0.0 : -INFINITY;
  for (size_t b = 0; b < tm->nb; b++)
    for (int i = 0; i < n; i++) {
      double v = src[team_width * b + i];
      x[i] = i < nsum ? x[i] + v : (v > x[i] ? v : x[i]);
    }
  tm->flip ^= 1; /* the next values go to the other buffer: no thread may still read this one */
}

/* Row k's impulse x onto its two particles: -x e_k on a, +x e_k on b (none for a wall). */
static inline void scatter_row(const proj_ws *w, double *u, size_t k, double x, int D) {
  const double *ek = w->e + D * k;
  double *ua = u + D * (size_t)w->a[k];
  for (int d = 0; d < D; d++) ua[d] -= x * ek[d];
  if (w->b[k] >= 0) {
    double *ub = u + D * (size_t)w->b[k];
    for (int d = 0; d < D; d++) ub[d] += x * ek[d];
  }
}

/* u = M^-1 G^T x on the component's particles (this thread's; fixed order: constraints
   ascending). In a team, x must be complete (a barrier since it was written). */
static inline __attribute__((always_inline)) void spread(const proj_ws *w, const comp_range *r,
                                                          const double *x, int D, const team *tm) {
  double *u = w->u;
  if (tm->on) {
    for (size_t sl = (tm->q0 - r->p0) / 8; sl < (tm->q1 - r->p0 + 7) / 8; sl++) {
      size_t base = w->sbeg[sl], width = (w->sbeg[sl + 1] - base) / 8;
      double acc[3][8] = {{0}};
      for (size_t j = 0; j < width; j++) {
        const uint32_t *ix = w->sidx + base + 8 * j;
        const double *es = w->ses + D * (base + 8 * j);
        double xs[8];
        for (int l = 0; l < 8; l++) xs[l] = x[r->c0 + ix[l]];
        for (int d = 0; d < D; d++)
          for (int l = 0; l < 8; l++) acc[d][l] += xs[l] * es[8 * d + l];
      }
      for (int l = 0; l < 8; l++) {
        size_t p = r->p0 + 8 * sl + l;
        if (p < r->p1)
          for (int d = 0; d < D; d++) u[D * p + d] = acc[d][l] * w->im[p];
      }
    }
    return;
  }
  for (size_t p = r->p0; p < r->p1; p++)
    for (int d = 0; d < D; d++) u[D * p + d] = 0;
  for (size_t k = r->c0; k < r->c1; k++) scatter_row(w, u, k, x[k], D);
  for (size_t p = r->p0; p < r->p1; p++)
    for (int d = 0; d < D; d++) u[D * p + d] *= w->im[p];
}

/* out_k = G_k u (scaled) for the u left by spread(). */
static inline __attribute__((always_inline)) double gather1(const proj_ws *w, size_t k, int D) {
  const double *ek = w->e + D * k, *ua = w->u + D * (size_t)w->a[k];
  double s = 0;
  if (w->b[k] >= 0) {
    const double *ub = w->u + D * (size_t)w->b[k];
    for (int d = 0; d < D; d++) s += ek[d] * (ub[d] - ua[d]);
  } else {
    for (int d = 0; d < D; d++) s -= ek[d] * ua[d];
  }
  return s;
}

/* A problem spread over processes (agglo_project_part): the sums that need the others. */
static inline void share(const agglo_projection_part *cm, double *f, int width) {
  if (cm) cm->sum_shared(cm->ctx, f, width);
}
static inline void reduce(const agglo_projection_part *cm, double *sums, int nsum, double *maxs,
                          int nmax) {
  if (cm) cm->reduce(cm->ctx, sums, nsum, maxs, nmax);
}

/* u = M^-1 G^T x, complete on every particle (after the exchanges). */
static inline __attribute__((always_inline)) void spread_all(const proj_ws *w, const comp_range *r,
                                                              const double *x, int D,
                                                              const agglo_projection_part *cm,
                                                              const team *tm) {
  team_sync(tm);
  spread(w, r, x, D, tm);
  share(cm, w->u, D);
  team_sync(tm);
}

/* out = A x (+ q when add_q), this thread's rows. */
static inline __attribute__((always_inline)) void apply_A(const proj_ws *w, const comp_range *r,
                                                           const double *x, double *out, int add_q,
                                                           int D, const agglo_projection_part *cm,
                                                           const team *tm) {
  spread_all(w, r, x, D, cm, tm);
  for (size_t b = tm->b0; b < tm->b1; b++) {
    size_t k0, k1;
    team_rows(tm, r, b, &k0, &k1);
    for (size_t k = k0; k < k1; k++)
      out[k] = gather1(w, k, D) + w->eps * x[k] * w->mov[k] + (add_q ? w->q[k] : 0.0);
  }
}

/* MPRGP state of one pass over the constraints: the KKT residual (length), |beta|^2 (chopped
   gradient), phi~.phi (reduced free gradient), and phi.ap. The free gradient goes to t. Branch
   free: einf is +inf on equalities (never bound), 0 otherwise; fixed constraints have y = 0 and
   mov = 0 (no chopped gradient). */
typedef struct {
  double res, bb, ff, tap;
} classify_out;

/* plain: the component has neither equalities nor fixed constraints (einf = 0, mov = 1), the
   common case, compiled apart */
#define EINF(k) (plain ? 0.0 : w->einf[k])
#define MOV(k) (plain ? 1.0 : w->mov[k])
static inline __attribute__((always_inline)) void classify_at(const proj_ws *w, size_t k,
                                                              double h, double ia, double tapk,
                                                              classify_out *o, int plain,
                                                              double gk, double yk) {
  double hs = h * w->sw[k], ei = EINF(k);
  double G = hs * gk, L = hs * yk + ei;
  double mn = G < L ? G : L;
  double rk = -G > mn ? -G : mn;
  o->res = rk > o->res ? rk : o->res;
  int fr = (yk > 0) | (ei > 0);
  double phi = fr ? gk : 0.0;
  double red = (yk + ei) * ia;
  red = red < phi ? red : phi;
  o->ff += red * phi;
  double beta = fr ? 0.0 : (gk < 0 ? gk : 0.0) * MOV(k);
  o->bb += beta * beta;
  w->t[k] = phi;
  o->tap += phi * tapk;
}
/* at the current point: y, g */
static inline __attribute__((always_inline)) void classify_one(const proj_ws *w, size_t k,
                                                               double h, double ia, double tapk,
                                                               classify_out *o, int plain) {
  classify_at(w, k, h, ia, tapk, o, plain, w->g[k], w->y[k]);
}

/* One block's classify_out put; the totals over the blocks (and processes). */
static inline void put_classified(team *tm, size_t b, const classify_out *o) {
  double x[4] = {o->bb, o->ff, o->tap, o->res};
  team_put(tm, b, x, 4);
}
static inline classify_out total_classified(team *tm, const agglo_projection_part *cm) {
  double x[4];
  team_total(tm, x, 3, 4);
  classify_out o = {x[3], x[0], x[1], x[2]};
  if (cm) {
    double sums[3] = {o.bb, o.ff, o.tap};
    reduce(cm, sums, 3, &o.res, 1);
    o.bb = sums[0], o.ff = sums[1], o.tap = sums[2];
  }
  return o;
}

/* classify over this thread's rows, totals over all (cm: also over the processes). */
static inline __attribute__((always_inline)) classify_out classify(const proj_ws *w,
                                                                   const comp_range *r, double h,
                                                                   double ia, int plain,
                                                                   const agglo_projection_part *cm,
                                                                   team *tm) {
  for (size_t b = tm->b0; b < tm->b1; b++) {
    size_t k0, k1;
    team_rows(tm, r, b, &k0, &k1);
    classify_out o = {0, 0, 0, 0};
    for (size_t k = k0; k < k1; k++) classify_one(w, k, h, ia, 0.0, &o, plain);
    put_classified(tm, b, &o);
  }
  return total_classified(tm, cm);
}

/* The trial point of the projected conjugate gradient expansion, z = max(y - acg p, 0), and its
   gradient gz = A z + q without a full product: A (y - acg p) + q = g - acg Ap is known, and
   z differs from y - acg p by dz on the clipped rows only, so gz = g - acg Ap + A dz, where
   A dz is non-zero on the rows that share a particle with a clipped row. In a team each thread
   lists its clipped rows, sums M^-1 G^T dz on its particles that such a row touches (their
   rows ascending: the same bits for any number of threads) and updates its rows; alone or
   over processes the clipped rows are scattered in order and the ghosts' shares exchanged. */
static inline double clip_delta(const proj_ws *w, size_t k, double acg) {
  return w->z[k] - (w->y[k] - acg * w->p[k]); /* exactly 0 on a row left as it was */
}
static inline __attribute__((always_inline)) void expansion_update(
    proj_ws *w, const comp_range *r, double acg, int D, int plain,
    const agglo_projection_part *cm, team *tm) {
  double *y = w->y, *p = w->p, *z = w->z, *u = w->u;
  size_t c0 = r->c0, nc = 0, first = c0 + tm->b0 * tm->bs; /* this thread's list starts there */
  for (size_t b = tm->b0, k0, k1; b < tm->b1 && (team_rows(tm, r, b, &k0, &k1), 1); b++)
    for (size_t k = k0; k < k1; k++) {
      double yk = y[k] - acg * p[k];
      int cut = yk < 0 && !(EINF(k) > 0);
      z[k] = cut ? 0.0 : yk;
      w->clip[first + nc] = (uint32_t)(k - c0);
      nc += (size_t)cut;
    }
  if (tm->on) {
    tm->nclip[tm->id] = nc;
    for (size_t q = tm->q0; q < tm->q1; q++) {
      w->touch[q] = 0;
      for (int d = 0; d < D; d++) u[D * q + d] = 0;
    }
#pragma omp barrier
    for (size_t th = 0; th < tm->nt; th++) {
      const uint32_t *cl = w->clip + c0 + (tm->nb * th / tm->nt) * tm->bs;
      for (size_t i = 0; i < tm->nclip[th]; i++) {
        size_t k = c0 + cl[i];
        for (int side = 0; side < 2; side++) {
          int32_t pp = side ? w->b[k] : w->a[k];
          if (pp < 0 || (size_t)pp < tm->q0 || (size_t)pp >= tm->q1 || w->touch[pp]) continue;
          w->touch[pp] = 1;
          double acc[3] = {0, 0, 0};
          for (size_t e = w->istart[pp]; e < w->istart[pp + 1]; e++) {
            uint32_t in = w->inc[e];
            size_t kk = c0 + (in >> 1);
            double x = clip_delta(w, kk, acg);
            if (x == 0) continue;
            x = (in & 1) ? x : -x;
            for (int d = 0; d < D; d++) acc[d] += x * w->e[D * kk + d];
          }
          for (int d = 0; d < D; d++) u[D * pp + d] = acc[d] * w->im[pp];
        }
      }
    }
#pragma omp barrier
  } else {
    for (size_t q = r->p0; q < r->p1; q++)
      for (int d = 0; d < D; d++) u[D * q + d] = 0;
    for (size_t i = 0; i < nc; i++) {
      size_t k = c0 + w->clip[first + i];
      scatter_row(w, u, k, clip_delta(w, k, acg), D);
    }
    for (size_t q = r->p0; q < r->p1; q++)
      for (int d = 0; d < D; d++) u[D * q + d] *= w->im[q];
    share(cm, u, D);
  }
  for (size_t b = tm->b0, k0, k1; b < tm->b1 && (team_rows(tm, r, b, &k0, &k1), 1); b++)
    for (size_t k = k0; k < k1; k++) {
      double s = w->g[k] - acg * w->ap[k];
      int near = !tm->on || w->touch[w->a[k]] || (w->b[k] >= 0 && w->touch[w->b[k]]);
      if (near) s += gather1(w, k, D) + w->eps * clip_delta(w, k, acg) * MOV(k);
      w->gz[k] = s;
    }
}

/* cm: the component is part of a problem spread over processes (agglo_project_part); every
   process (and every thread of a team) takes the same branches, on reduced scalars. */
static inline __attribute__((always_inline)) int solve_mprgp(proj_ws *w, const comp_range *r,
                                                             double h,
                                                             const agglo_solver_settings *set,
                                                             int *conv, int D, int plain,
                                                             const agglo_projection_part *cm,
                                                             team *tm) {
  double *y = w->y, *g = w->g, *p = w->p, *ap = w->ap, *t = w->t, *z = w->z, *gz = w->gz;
  double tol = set->tol;
  int max_iter = set->max_iter, projected_cg = set->expansion == AGGLO_EXPANSION_PROJECTED_CG;
  /* a team or a problem over processes (a gel) updates the projected step's gradient sparsely;
     the components of one thread keep the full product (their bytes as before) */
  int sparse = projected_cg && (tm->on || cm);
  size_t c0 = r->c0, c1 = r->c1;
  *conv = 1;
  if (c1 - c0 == 1 && !cm && !tm->on) {
    /* one constraint: the scaled A is 1, the answer is explicit */
    size_t k = c0;
    if (MOV(k) == 0) {
      y[k] = 0;
      *conv = -h * w->sw[k] * w->q[k] <= tol;
      return 0;
    }
    y[k] = (EINF(k) > 0 ? -w->q[k] : (w->q[k] < 0 ? -w->q[k] : 0.0)) / (1 + w->eps);
    return 1;
  }
  /* this thread's rows of block b: for (ROWS(b)) ... */
#define BLOCKS for (size_t b = tm->b0, k0, k1; b < tm->b1 && (team_rows(tm, r, b, &k0, &k1), 1); b++)
  /* Gershgorin bound of the scaled A: |A_kl| <= im_p / (sw_k sw_l) for a shared particle p */
  double x4[4];
  if (tm->on) {
    for (size_t q = tm->q0; q < tm->q1; q++) {
      double s = 0;
      for (size_t i = w->istart[q]; i < w->istart[q + 1]; i++) {
        size_t k = c0 + (w->inc[i] >> 1);
        s += MOV(k) / w->sw[k];
      }
      w->ps[q] = s;
    }
    team_sync(tm);
  } else {
    for (size_t q = r->p0; q < r->p1; q++) w->ps[q] = 0;
    for (size_t k = c0; k < c1; k++) {
      double s = MOV(k) / w->sw[k];
      w->ps[w->a[k]] += s;
      if (w->b[k] >= 0) w->ps[w->b[k]] += s;
    }
  }
  share(cm, w->ps, 1);
  BLOCKS {
    double norm = 0, any = 0;
    for (size_t k = k0; k < k1; k++) {
      double L = w->im[w->a[k]] * w->ps[w->a[k]];
      if (w->b[k] >= 0) L += w->im[w->b[k]] * w->ps[w->b[k]];
      L *= MOV(k) / w->sw[k];
      norm = L > norm ? L : norm;
      any = y[k] != 0 ? 1.0 : any;
    }
    x4[0] = norm, x4[1] = any;
    team_put(tm, b, x4, 2);
  }
  team_total(tm, x4, 0, 2);
  reduce(cm, NULL, 0, x4, 2);
  double norm = x4[0];
  int any = x4[1] != 0;
  norm += w->eps;
  double abar = norm > 0 ? 1.9 / norm : 1.0, ia = 1.0 / abar;
  int it = 0;
  if (any) {
    apply_A(w, r, y, g, 1, D, cm, tm);
    it++;
  } else {
    BLOCKS for (size_t k = k0; k < k1; k++) g[k] = w->q[k];
  }
  classify_out cl = classify(w, r, h, ia, plain, cm, tm);
  double beta = 0; /* next direction: t - beta p (beta = 0: restart on the free gradient) */
  int fresh = 1;   /* g was just computed from y, not by the recurrence */
  for (;;) {
    if (cl.res <= tol) {
      /* confirm on a freshly computed gradient (the recurrence drifts by rounding) */
      if (fresh) break;
      apply_A(w, r, y, g, 1, D, cm, tm);
      it++;
      fresh = 1;
      cl = classify(w, r, h, ia, plain, cm, tm);
      beta = 0;
      if (cl.res <= tol) break;
    }
    /* (a stop request: one thread's components only, every thread of a team must agree) */
    if (it >= max_iter || (!tm->on && !cm && set->stop && atomic_load_explicit(set->stop, memory_order_relaxed))) {
      *conv = 0;
      break;
    }
    if (cl.bb <= cl.ff) {
      /* proportional: conjugate gradient step on the face, unless it leaves the feasible set */
      BLOCKS for (size_t k = k0; k < k1; k++) {
        /* beta = 0: a restart, p may hold anything (not multiplied: 0 * inf is not 0) */
        p[k] = beta != 0 ? t[k] - beta * p[k] : t[k];
      }
      spread_all(w, r, p, D, cm, tm);
      it++;
      BLOCKS {
        double pap = 0, gp = 0, af = INFINITY;
        for (size_t k = k0; k < k1; k++) {
          double pk = p[k], apk = gather1(w, k, D) + w->eps * pk * MOV(k);
          ap[k] = apk;
          pap += pk * apk;
          gp += g[k] * pk;
          double s = (pk > 0 && !(EINF(k) > 0)) ? y[k] / pk : INFINITY;
          af = s < af ? s : af;
        }
        x4[0] = pap, x4[1] = gp, x4[2] = -af;
        team_put(tm, b, x4, 3);
      }
      team_total(tm, x4, 2, 3);
      reduce(cm, x4, 2, x4 + 2, 1);
      double pap = x4[0], gp = x4[1], af = -x4[2];
      double acg = pap > 0 ? gp / pap : INFINITY;
      if (acg <= af && acg < INFINITY) { /* acg infinite: p.Ap = 0, a flat direction */
        BLOCKS {
          classify_out o = {0, 0, 0, 0};
          for (size_t k = k0; k < k1; k++) {
            y[k] -= acg * p[k];
            g[k] -= acg * ap[k];
            classify_one(w, k, h, ia, ap[k], &o, plain);
          }
          put_classified(tm, b, &o);
        }
        cl = total_classified(tm, cm);
        fresh = 0;
        beta = cl.tap / pap;
      } else {
        if (!isfinite(af)) { /* unbounded dual: the primal is infeasible */
          *conv = 0;
          break;
        }
        if (projected_cg && acg < INFINITY) {
          /* expansion by the whole conjugate gradient step projected on y >= 0 (Kruzik et al.
             2020's "projcg"; it adds at once every constraint the step crosses), kept if it
             lowers the cost 1/2 y.Ay + q.y = 1/2 y.(g + q), else the gradient expansion below */
          if (sparse) {
            expansion_update(w, r, acg, D, plain, cm, tm);
          } else {
            BLOCKS for (size_t k = k0; k < k1; k++) {
              double yk = y[k] - acg * p[k];
              z[k] = (yk < 0 && !(EINF(k) > 0)) ? 0.0 : yk;
            }
            apply_A(w, r, z, gz, 1, D, cm, tm);
            it++;
          }
          /* the costs, and the classification at z in the same pass (one reduction): its
             free gradient goes to t, which the gradient expansion recomputes before use */
          BLOCKS {
            classify_out o = {0, 0, 0, 0};
            double f[6] = {0, 0};
            for (size_t k = k0; k < k1; k++) {
              f[0] += z[k] * (gz[k] + w->q[k]);
              f[1] += y[k] * (g[k] + w->q[k]);
              classify_at(w, k, h, ia, 0.0, &o, plain, gz[k], z[k]);
            }
            f[2] = o.bb, f[3] = o.ff, f[4] = o.tap, f[5] = o.res;
            team_put(tm, b, f, 6);
          }
          double f[6];
          team_total(tm, f, 5, 6);
          reduce(cm, f, 5, f + 5, 1);
          if (f[0] <= f[1]) {
            BLOCKS for (size_t k = k0; k < k1; k++) y[k] = z[k], g[k] = gz[k];
            fresh = !sparse; /* (the update's gradient is a recurrence: confirmed at the end) */
            cl = (classify_out){f[5], f[2], f[3], f[4]};
            beta = 0;
            continue;
          }
        }
        /* expansion: to the boundary, then a projected gradient step of fixed length (row by
           row: the free gradient in t is the row's own) */
        BLOCKS {
          classify_out o = {0, 0, 0, 0};
          for (size_t k = k0; k < k1; k++) {
            double pk = p[k];
            int block = pk > 0 && !(EINF(k) > 0) && y[k] / pk == af;
            double yk = block ? 0.0 : y[k] - af * pk;
            y[k] = (yk < 0 && !(EINF(k) > 0)) ? 0.0 : yk;
            g[k] -= af * ap[k];
            classify_one(w, k, h, ia, 0.0, &o, plain); /* (for the free gradient in t only) */
            yk = y[k] - abar * t[k];
            y[k] = (yk < 0 && !(EINF(k) > 0)) ? 0.0 : yk;
          }
        }
        apply_A(w, r, y, g, 1, D, cm, tm);
        it++;
        fresh = 1;
        cl = classify(w, r, h, ia, plain, cm, tm);
        beta = 0;
      }
    } else {
      /* proportioning: release the constraints whose multipliers want to grow */
      BLOCKS for (size_t k = k0; k < k1; k++) {
        int fr = (y[k] > 0) | (EINF(k) > 0);
        p[k] = fr ? 0.0 : (g[k] < 0 ? g[k] : 0.0) * MOV(k);
      }
      apply_A(w, r, p, ap, 0, D, cm, tm);
      it++;
      BLOCKS {
        double dad = 0;
        for (size_t k = k0; k < k1; k++) dad += p[k] * ap[k];
        team_put(tm, b, &dad, 1);
      }
      double dad;
      team_total(tm, &dad, 1, 1);
      reduce(cm, &dad, 1, NULL, 0);
      if (!(dad > 0)) {
        *conv = 0;
        break;
      }
      double a = cl.bb / dad;
      BLOCKS {
        classify_out o = {0, 0, 0, 0};
        for (size_t k = k0; k < k1; k++) {
          y[k] -= a * p[k];
          g[k] -= a * ap[k];
          classify_one(w, k, h, ia, 0.0, &o, plain);
        }
        put_classified(tm, b, &o);
      }
      cl = total_classified(tm, cm);
      fresh = 0;
      beta = 0;
    }
  }
#undef BLOCKS
  return it;
}

/* APGD (accelerate = 1) or Uzawa (0): projected gradient steps from the extrapolated point. */
static inline __attribute__((always_inline)) int solve_gradient(proj_ws *w, const comp_range *r,
                                                                double h, double tol, int max_iter,
                                                                double rho, int accelerate,
                                                                const _Atomic int *stop,
                                                                int *conv, int D) {
  double *lam = w->y, *yy = w->p, *g = w->g, *nw = w->t, *step = w->ap; /* ap: unused here */
  /* Gershgorin rows of the unscaled A: L_k = z_a/m_a + z_b/m_b; step in y = sw^2 rho / L */
  for (size_t q = r->p0; q < r->p1; q++) w->ps[q] = 0;
  for (size_t k = r->c0; k < r->c1; k++) {
    w->ps[w->a[k]] += 1;
    if (w->b[k] >= 0) w->ps[w->b[k]] += 1;
  }
  double min_inv = INFINITY;
  for (size_t k = r->c0; k < r->c1; k++) {
    double L = w->ps[w->a[k]] * w->im[w->a[k]];
    if (w->b[k] >= 0) L += w->ps[w->b[k]] * w->im[w->b[k]];
    L += w->eps * w->sw[k] * w->sw[k];
    double s = (L > 0 && !(w->flag[k] & F_FIXED)) ? rho / L : 0.0;
    step[k] = s;
    if (s > 0 && s < min_inv) min_inv = s;
  }
  for (size_t k = r->c0; k < r->c1; k++) {
    double s = accelerate ? step[k] : (step[k] > 0 ? min_inv : 0.0);
    step[k] = s * w->sw[k] * w->sw[k];
    yy[k] = lam[k];
  }
  double theta = 1.0;
  int it = 0;
  *conv = 1;
  for (;;) {
    team alone = team_alone(r);
    apply_A(w, r, yy, g, 1, D, NULL, &alone);
    double res = 0;
    for (size_t k = r->c0; k < r->c1; k++) {
      double s = h * w->sw[k];
      uint8_t f = w->flag[k];
      double rk = kkt_residual(s * g[k], s * yy[k], f & F_EQ);
      if (rk > res) res = rk;
      double nl = yy[k] - step[k] * g[k];
      if (!(f & F_EQ) && nl < 0) nl = 0;
      nw[k] = nl;
    }
    if (res <= tol) break;
    if (++it > max_iter || (stop && atomic_load_explicit(stop, memory_order_relaxed))) {
      *conv = 0;
      it--;
      break;
    }
    if (!accelerate) {
      memcpy(yy + r->c0, nw + r->c0, (r->c1 - r->c0) * sizeof *yy);
      continue;
    }
    double dir = 0;
    for (size_t k = r->c0; k < r->c1; k++) dir += (yy[k] - nw[k]) * (nw[k] - lam[k]);
    double tnext = 0.5 * (1.0 + sqrt(1.0 + 4.0 * theta * theta));
    double beta = (theta - 1.0) / tnext;
    if (dir > 0) {
      theta = 1.0;
      beta = 0.0;
    } else {
      theta = tnext;
    }
    for (size_t k = r->c0; k < r->c1; k++) {
      double nl = nw[k];
      yy[k] = nl + beta * (nl - lam[k]);
      lam[k] = nl;
    }
  }
  /* the answer: the multipliers at the point that met the tolerance, projected on their cone */
  for (size_t k = r->c0; k < r->c1; k++)
    lam[k] = (!(w->flag[k] & F_EQ) && yy[k] < 0) ? 0.0 : yy[k];
  return it;
}

/* Active set: components below this size go to MPRGP (a few products are cheaper than an
   analysis and a factorisation); past this many steps MPRGP finishes from the best point. */
enum { active_set_min_rows = 64, active_set_max_steps = 30 };

static inline __attribute__((always_inline)) int solve_component(
    proj_ws *w, const comp_range *r, double h, const agglo_solver_settings *set,
    const double *vstar, const size_t *porder, double *v, int *conv, int D) {
  int it = 0;
  *conv = 0;
  team alone = team_alone(r);
  if (set->method == AGGLO_SOLVER_ACTIVE_SET && r->c1 - r->c0 >= active_set_min_rows) {
    agglo_dual_view dv = {r->c1 - r->c0, r->p1 - r->p0, r->p0, D, w->a + r->c0, w->b + r->c0,
                          w->e + (size_t)D * r->c0, w->im + r->p0, w->q + r->c0,
                          w->sw + r->c0, w->flag + r->c0, w->eps, w->y + r->c0};
    it = agglo_active_set_solve(&dv, h, set->tol, active_set_max_steps, conv);
    if (it < 0) it = 0, *conv = 0;
  }
  if (set->method == AGGLO_SOLVER_ACTIVE_SET && *conv) {
    /* solved */
  } else if (set->method == AGGLO_SOLVER_MPRGP || set->method == AGGLO_SOLVER_ACTIVE_SET) {
    int plain = 1;
    for (size_t k = r->c0; k < r->c1 && plain; k++) plain = w->flag[k] == 0;
    it += plain ? solve_mprgp(w, r, h, set, conv, D, 1, NULL, &alone)
                : solve_mprgp(w, r, h, set, conv, D, 0, NULL, &alone);
  } else
    it = solve_gradient(w, r, h, set->tol, set->max_iter, set->rho_factor,
                        set->method == AGGLO_SOLVER_APGD, set->stop, conv, D);
  /* velocities of the component's particles */
  spread(w, r, w->y, D, &alone);
  for (size_t q = r->p0; q < r->p1; q++) {
    size_t p = porder[q];
    for (int d = 0; d < D; d++) v[3 * p + d] = vstar[3 * p + d] + w->u[D * q + d];
    for (int d = D; d < 3; d++) v[3 * p + d] = vstar[3 * p + d];
  }
  return it;
}

static int solve_component_2(proj_ws *w, const comp_range *r, double h,
                             const agglo_solver_settings *set, const double *vstar,
                             const size_t *porder, double *v, int *conv) {
  return solve_component(w, r, h, set, vstar, porder, v, conv, 2);
}
static int solve_component_3(proj_ws *w, const comp_range *r, double h,
                             const agglo_solver_settings *set, const double *vstar,
                             const size_t *porder, double *v, int *conv) {
  return solve_component(w, r, h, set, vstar, porder, v, conv, 3);
}

/* The rows of each of the component's particles, ascending (spread() in a team). */
static int build_incidence(proj_ws *w, const comp_range *r, int D) {
  size_t *st = w->istart;
  for (size_t q = r->p0; q <= r->p1; q++) st[q] = 0;
  for (size_t k = r->c0; k < r->c1; k++) {
    st[w->a[k] + 1]++;
    if (w->b[k] >= 0) st[w->b[k] + 1]++;
  }
  st[r->p0] = 2 * r->c0;
  for (size_t q = r->p0; q < r->p1; q++) st[q + 1] += st[q];
  for (size_t k = r->c0; k < r->c1; k++) {
    uint32_t rel = (uint32_t)(k - r->c0) << 1;
    w->inc[st[w->a[k]]++] = rel;
    if (w->b[k] >= 0) w->inc[st[w->b[k]]++] = rel | 1;
  }
  for (size_t q = r->p1; q > r->p0; q--) st[q] = st[q - 1];
  st[r->p0] = 2 * r->c0;
  /* by slices of 8 particles */
  size_t np = r->p1 - r->p0, ns = (np + 7) / 8, tot = 0;
  for (size_t sl = 0; sl < ns; sl++) {
    size_t width = 0;
    for (size_t q = r->p0 + 8 * sl; q < r->p0 + 8 * sl + 8 && q < r->p1; q++)
      width = st[q + 1] - st[q] > width ? st[q + 1] - st[q] : width;
    w->sbeg[sl] = tot;
    tot += 8 * width;
  }
  w->sbeg[ns] = tot;
  if (tot + 1 > w->cap_sell) {
    size_t c = tot + tot / 4 + 64;
    uint32_t *ix = realloc(w->sidx, c * sizeof *ix);
    if (ix) w->sidx = ix;
    double *es = realloc(w->ses, 3 * c * sizeof *es);
    if (es) w->ses = es;
    if (!ix || !es) return -1;
    w->cap_sell = c;
  }
  for (size_t sl = 0; sl < ns; sl++) {
    size_t base = w->sbeg[sl], width = (w->sbeg[sl + 1] - base) / 8;
    for (size_t j = 0; j < width; j++)
      for (size_t l = 0; l < 8; l++) {
        size_t q = r->p0 + 8 * sl + l, e = base + 8 * j;
        int real = q < r->p1 && j < st[q + 1] - st[q];
        uint32_t in = real ? w->inc[st[q] + j] : 0;
        size_t k = r->c0 + (in >> 1);
        double sg = real ? ((in & 1) ? 1.0 : -1.0) : 0.0; /* e of the row, negated for a */
        w->sidx[e + l] = in >> 1;
        for (int d = 0; d < D; d++) w->ses[D * e + 8 * d + l] = sg * w->e[D * k + d];
      }
  }
  return 0;
}

/* One large component by MPRGP, every thread of a new parallel region taking its share. MPRGP
   components of at least set->team_rows rows are solved so (solver.team_rows), the others by one
   thread each: in a gel one component holds nearly every contact, and threads would have nothing
   else to do. The rule depends on the component alone, so the answer does not depend on the
   number of threads. */
static int solve_team(proj_ws *w, const comp_range *r, double h, const agglo_solver_settings *set,
                      const double *vstar, const size_t *porder, double *v, int *conv, int D) {
  size_t nb = (r->c1 - r->c0 + team_block - 1) / team_block, np = r->p1 - r->p0;
  double *part = malloc(2 * team_width * nb * sizeof *part);
  size_t *nclip = malloc((size_t)omp_get_max_threads() * sizeof *nclip);
  if (!part || !nclip || build_incidence(w, r, D) != 0) {
    free(part), free(nclip);
    return -1;
  }
  int plain = 1, iters = 0;
  for (size_t k = r->c0; k < r->c1 && plain; k++) plain = w->flag[k] == 0;
  /* How many threads: all, unless one alone was faster at the last try (other jobs on the cores
     keep a team waiting at each of its 3-4 barriers per iteration, and a team can then be several
     times slower than one thread). One thread is tried at the second solve, then the other choice
     again after 8, 16, ... 256 solves.
     The answer is the same bits either way: only the time depends on this. */
  if (!w->team_backoff) w->team_all = 1, w->team_backoff = 8, w->team_countdown = 1;
  int probe = w->team_countdown == 0, all = probe ? !w->team_all : w->team_all;
  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(all ? omp_get_max_threads() : 1)
  {
    size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
    /* particles by whole slices of 8 */
    size_t ns = (np + 7) / 8, q0 = r->p0 + 8 * (ns * id / nt), q1 = r->p0 + 8 * (ns * (id + 1) / nt);
    team tm = {1, team_block, nb, nb * id / nt, nb * (id + 1) / nt, q0 < r->p1 ? q0 : r->p1,
               q1 < r->p1 ? q1 : r->p1, part, {0}, 0, nt, id, nclip};
    int cv, it;
    if (D == 2)
      it = plain ? solve_mprgp(w, r, h, set, &cv, 2, 1, NULL, &tm)
                 : solve_mprgp(w, r, h, set, &cv, 2, 0, NULL, &tm);
    else
      it = plain ? solve_mprgp(w, r, h, set, &cv, 3, 1, NULL, &tm)
                 : solve_mprgp(w, r, h, set, &cv, 3, 0, NULL, &tm);
    /* velocities of this thread's particles */
    spread_all(w, r, w->y, D, NULL, &tm);
    for (size_t q = tm.q0; q < tm.q1; q++) {
      size_t pp = porder[q];
      for (int d = 0; d < D; d++) v[3 * pp + d] = vstar[3 * pp + d] + w->u[D * q + d];
      for (int d = D; d < 3; d++) v[3 * pp + d] = vstar[3 * pp + d];
    }
    if (id == 0) iters = it, *conv = cv;
  }
  free(part), free(nclip);
  w->team_cost[all] = (omp_get_wtime() - t0) / ((double)(iters + 1) * (double)(r->c1 - r->c0));
  if (!probe) {
    w->team_countdown--;
  } else {
    int better = w->team_cost[all] < w->team_cost[!all];
    if (better) w->team_all = all;
    w->team_backoff = better ? 8 : (w->team_backoff < 256 ? 2 * w->team_backoff : 256);
    w->team_countdown = w->team_backoff;
  }
  return iters;
}

/* ------------------------------------------------------------------ components */

/* Row kk of the workspace from constraint k: scaled direction, gradient offset, warm start
   (w->pos: the particles' places in the workspace). */
static inline __attribute__((always_inline)) void load_row(proj_ws *w, const agglo_system *s,
                                                           const agglo_constraints *c, size_t k,
                                                           size_t kk, double h,
                                                           const double *vstar, int D) {
  int32_t i = c->i[k], j = c->j[k];
  w->a[kk] = w->pos[i];
  w->b[kk] = j >= 0 ? w->pos[j] : -1;
  double wk = s->inv_m[i] + (j >= 0 ? s->inv_m[j] : 0.0);
  uint8_t f = c->equality[k] ? F_EQ : 0;
  if (!(wk > 0)) f = F_FIXED, wk = 1.0;
  double sw = sqrt(wk), inv = 1.0 / sw;
  const double *e = c->e + 3 * k;
  double sg = j >= 0 ? inv : -inv, gv = 0;
  for (int d = 0; d < D; d++) {
    w->e[D * kk + d] = sg * e[d];
    gv += j >= 0 ? e[d] * (vstar[3 * (size_t)j + d] - vstar[3 * (size_t)i + d])
                 : e[d] * vstar[3 * (size_t)i + d];
  }
  w->sw[kk] = sw;
  w->einf[kk] = (f & F_EQ) ? INFINITY : 0.0;
  w->mov[kk] = (f & F_FIXED) ? 0.0 : 1.0;
  w->flag[kk] = f;
  w->q[kk] = (c->gap[k] / h + gv) * inv;
  double l = c->lambda[k];
  if (!(f & F_EQ) && l < 0) l = 0;
  if (f & F_FIXED) l = 0;
  w->y[kk] = l * sw;
}

/* The multiplier of row kk back into constraint k. */
static void store_row(const proj_ws *w, agglo_constraints *c, size_t k, size_t kk) {
  double y = w->y[kk];
  if (!(w->flag[kk] & F_EQ) && y < 0) y = 0;
  c->lambda[k] = y / w->sw[kk];
}

typedef struct {
  size_t size, index;
} comp_key;
static int cmp_comp_size(const void *x, const void *y) {
  const comp_key *a = x, *b = y;
  if (a->size != b->size) return a->size < b->size ? 1 : -1;
  return (a->index > b->index) - (a->index < b->index);
}

int agglo_project(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                  double *v, const agglo_solver_settings *set, agglo_solver_stats *st) {
  return agglo_project_some(s, c, h, vstar, v, set, st, NULL);
}

int agglo_project_some(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                       double *v, const agglo_solver_settings *set, agglo_solver_stats *st,
                       const uint8_t *only) {
  size_t m = c->n, n = s->n;
  memset(st, 0, sizeof *st);
  st->converged = 1;
  if (!only) memcpy(v, vstar, 3 * n * sizeof *v);
  if (m == 0) return 0;
  if (!c->ws) {
    c->ws = calloc(1, sizeof *c->ws);
    if (!c->ws) return -1;
  }
  proj_ws *w = c->ws;
  if (ws_reserve(w, m, 0, n, 0) != 0) return -1;
  w->eps = set->compliance;
  /* connected components of the constraint graph (union-find, threads joining sets at once),
     numbered in order of their first constraint: the layout depends on the constraint list
     only. The component of each constraint and particle is noted once (w->clip, w->rt), so
     that the serial counting and filling read them in order. */
  int32_t *parent = w->parent, *pos = w->pos, *croot = w->croot, *rt = w->rt;
  uint32_t *ck = w->clip; /* (scratch until a solve: the component of each constraint) */
  uint8_t *first = w->flag; /* (scratch until the rows are loaded) */
  size_t ncomp = 0, np = 0;
#pragma omp parallel if (m > AGGLO_PAR_MIN)
  {
#pragma omp for schedule(static)
    for (size_t p = 0; p < n; p++) parent[p] = (int32_t)p, pos[p] = -1, croot[p] = -1;
#pragma omp for schedule(static)
    for (size_t k = 0; k < m; k++) {
      int32_t i = c->i[k], j = c->j[k];
      __atomic_store_n(pos + i, -2, __ATOMIC_RELAXED);
      if (j < 0) continue;
      __atomic_store_n(pos + j, -2, __ATOMIC_RELAXED);
      agglo_uf_union_shared(parent, i, j);
    }
#pragma omp for schedule(static) reduction(+ : np)
    for (size_t p = 0; p < n; p++) {
      int32_t a = (int32_t)p;
      if (pos[p] == -2) {
        while (parent[a] != a) a = parent[a];
        np++;
      }
      rt[p] = a;
    }
    /* each root's first constraint (in croot for now) */
#pragma omp for schedule(static)
    for (size_t k = 0; k < m; k++) {
      int32_t *at = croot + rt[c->i[k]], cur = __atomic_load_n(at, __ATOMIC_RELAXED);
      while ((cur < 0 || (int32_t)k < cur) &&
             !__atomic_compare_exchange_n(at, &cur, (int32_t)k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    }
#pragma omp for schedule(static)
    for (size_t k = 0; k < m; k++) first[k] = croot[rt[c->i[k]]] == (int32_t)k;
#pragma omp single
    for (size_t k = 0; k < m; k++)
      if (first[k]) croot[rt[c->i[k]]] = (int32_t)ncomp++;
#pragma omp for schedule(static)
    for (size_t k = 0; k < m; k++) ck[k] = (uint32_t)croot[rt[c->i[k]]];
    /* (after the barrier: rt[p] now becomes p's component) */
#pragma omp for schedule(static)
    for (size_t p = 0; p < n; p++) rt[p] = pos[p] == -2 ? croot[rt[p]] : -1;
  }
  if (ws_reserve(w, m, np, n, ncomp) != 0) return -1;
  ck = w->clip;
  size_t *cbeg = w->cbeg, *pbeg = w->pbeg;
  memset(cbeg, 0, (ncomp + 1) * sizeof *cbeg);
  memset(pbeg, 0, (ncomp + 1) * sizeof *pbeg);
  for (size_t k = 0; k < m; k++) cbeg[ck[k] + 1]++;
  for (size_t p = 0; p < n; p++)
    if (rt[p] >= 0) pbeg[rt[p] + 1]++;
  for (size_t q = 0; q < ncomp; q++) cbeg[q + 1] += cbeg[q], pbeg[q + 1] += pbeg[q];
  memcpy(w->cfill, cbeg, ncomp * sizeof *cbeg);
  memcpy(w->pfill, pbeg, ncomp * sizeof *pbeg);
  for (size_t p = 0; p < n; p++)
    if (rt[p] >= 0) {
      size_t q = w->pfill[rt[p]]++;
      pos[p] = (int32_t)q;
      w->porder[q] = p;
    }
  for (size_t k = 0; k < m; k++) w->corder[w->cfill[ck[k]]++] = k;
  int D = s->dim == 2 ? 2 : 3;
  /* which components to solve (w->conv bit 2); the large ones (above 1/64 of the constraints)
     first, by size, so that a big one does not start last; the rest in their order */
  size_t nsolve = 0, nbig = 0, big = m / 64 + 1;
  if (set->team_rows && big > set->team_rows) big = set->team_rows; /* (every team among them) */
  for (size_t q = 0; q < ncomp; q++) {
    int want = !only;
    for (size_t pp = pbeg[q]; pp < pbeg[q + 1] && !want; pp++) want = only[w->porder[pp]] != 0;
    w->iters[q] = 0;
    w->conv[q] = want ? 3 : 1;
    if (want) nbig += cbeg[q + 1] - cbeg[q] >= big, nsolve++;
  }
  /* local data of those: scaled directions, gradient offset, warm start (D a constant in each
     loop: its loops unrolled) */
#pragma omp parallel for schedule(static) if (np > AGGLO_PAR_MIN)
  for (size_t q = 0; q < np; q++) w->im[q] = s->inv_m[w->porder[q]];
  if (!only && D == 2) {
#pragma omp parallel for schedule(static) if (m > AGGLO_PAR_MIN)
    for (size_t kk = 0; kk < m; kk++) load_row(w, s, c, w->corder[kk], kk, h, vstar, 2);
  } else if (!only) {
#pragma omp parallel for schedule(static) if (m > AGGLO_PAR_MIN)
    for (size_t kk = 0; kk < m; kk++) load_row(w, s, c, w->corder[kk], kk, h, vstar, 3);
  } else {
#pragma omp parallel for schedule(dynamic, 64) if (m > AGGLO_PAR_MIN)
    for (size_t q = 0; q < ncomp; q++) {
      if (!(w->conv[q] & 2)) continue;
      for (size_t kk = cbeg[q]; kk < cbeg[q + 1]; kk++)
        if (D == 2) load_row(w, s, c, w->corder[kk], kk, h, vstar, 2);
        else load_row(w, s, c, w->corder[kk], kk, h, vstar, 3);
    }
  }
  comp_key *keys = malloc((nbig ? nbig : 1) * sizeof *keys);
  if (!keys) return -1;
  size_t kb = 0, ks = nbig;
  for (size_t q = 0; q < ncomp; q++) {
    if (!(w->conv[q] & 2)) continue;
    if (cbeg[q + 1] - cbeg[q] >= big) keys[kb].size = cbeg[q + 1] - cbeg[q], keys[kb++].index = q;
    else w->sched[ks++] = q;
  }
  qsort(keys, nbig, sizeof *keys, cmp_comp_size);
  for (size_t q = 0; q < nbig; q++) w->sched[q] = keys[q].index;
  free(keys);
  agglo_solver_settings local = *set;
  /* the largest (first in sched) by teams of threads, one by one; the rest a thread each */
  size_t nteam = 0;
  while (set->method == AGGLO_SOLVER_MPRGP && set->team_rows && nteam < nsolve &&
         cbeg[w->sched[nteam] + 1] - cbeg[w->sched[nteam]] >= set->team_rows)
    nteam++;
  for (size_t qq = 0; qq < nteam; qq++) {
    size_t q = w->sched[qq];
    comp_range r = {cbeg[q], cbeg[q + 1], pbeg[q], pbeg[q + 1]};
    int conv = 0;
    int it = solve_team(w, &r, h, &local, vstar, w->porder, v, &conv, D);
    if (it < 0) return -1;
    w->iters[q] = it;
    w->conv[q] = (uint8_t)(conv | 2);
  }
#pragma omp parallel for schedule(dynamic, 4) if (m > AGGLO_PAR_MIN)
  for (size_t qq = nteam; qq < nsolve; qq++) {
    size_t q = w->sched[qq];
    comp_range r = {cbeg[q], cbeg[q + 1], pbeg[q], pbeg[q + 1]};
    int conv;
    w->iters[q] = D == 2 ? solve_component_2(w, &r, h, &local, vstar, w->porder, v, &conv)
                         : solve_component_3(w, &r, h, &local, vstar, w->porder, v, &conv);
    w->conv[q] = (uint8_t)(conv | 2);
  }
  /* multipliers back in constraint order (those of the solved components) */
#pragma omp parallel for schedule(dynamic, 64) if (m > AGGLO_PAR_MIN)
  for (size_t q = 0; q < ncomp; q++) {
    if (!(w->conv[q] & 2)) continue;
    w->conv[q] &= 1;
    for (size_t kk = cbeg[q]; kk < cbeg[q + 1]; kk++) store_row(w, c, w->corder[kk], kk);
  }
  double work = 0;
  size_t largest = 0;
  for (size_t q = 0; q < ncomp; q++) {
    size_t mc = cbeg[q + 1] - cbeg[q];
    if (w->iters[q] > st->iterations) st->iterations = w->iters[q];
    if (!w->conv[q]) st->converged = 0;
    work += (double)w->iters[q] * (double)mc;
    if (mc > largest) largest = mc;
  }
  st->components = nsolve;
  st->largest_component = largest;
  st->mean_iterations = work / (double)m;
  /* the health of the answer, from the original data */
  double viol = 0, fres = 0;
#pragma omp parallel for schedule(static) reduction(max : viol, fres) if (m > AGGLO_PAR_MIN)
  for (size_t k = 0; k < m; k++) {
    double gap = agglo_constraint_gap_after(c, k, h, v);
    double wk = s->inv_m[c->i[k]] + (c->j[k] >= 0 ? s->inv_m[c->j[k]] : 0.0);
    double r = kkt_residual(gap, h * c->lambda[k] * wk, c->equality[k]);
    if (r > fres) fres = r;
    double o = c->equality[k] ? fabs(gap) : -gap;
    if (o > viol) viol = o;
  }
  st->max_violation = viol;
  st->residual = fres;
  return 0;
}

/* One problem over processes: the rows of this one, with the particles indexed as in s (the
   workspace's places are the system's indices, one component of all rows). MPRGP. */
static int solve_part_2(proj_ws *w, const comp_range *r, double h, const agglo_solver_settings *set,
                        int *conv, int plain, const agglo_projection_part *cm) {
  team alone = team_alone(r);
  return plain ? solve_mprgp(w, r, h, set, conv, 2, 1, cm, &alone)
               : solve_mprgp(w, r, h, set, conv, 2, 0, cm, &alone);
}
static int solve_part_3(proj_ws *w, const comp_range *r, double h, const agglo_solver_settings *set,
                        int *conv, int plain, const agglo_projection_part *cm) {
  team alone = team_alone(r);
  return plain ? solve_mprgp(w, r, h, set, conv, 3, 1, cm, &alone)
               : solve_mprgp(w, r, h, set, conv, 3, 0, cm, &alone);
}

int agglo_project_part(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                       double *v, const agglo_solver_settings *set, agglo_solver_stats *st,
                       const agglo_projection_part *part) {
  size_t n = s->n, m = 0;
  memset(st, 0, sizeof *st);
  for (size_t k = 0; k < c->n; k++) m += part->rows[k] != 0;
  if (!c->ws) c->ws = calloc(1, sizeof *c->ws);
  proj_ws *w = c->ws;
  double failed = !w || ws_reserve(w, m + 1, n + 1, n + 1, 1) != 0;
  part->reduce(part->ctx, NULL, 0, &failed, 1); /* (all stop, or none) */
  if (failed) return -1;
  w->eps = set->compliance;
  int D = s->dim == 2 ? 2 : 3;
  for (size_t p = 0; p < n; p++) w->pos[p] = (int32_t)p, w->porder[p] = p, w->im[p] = s->inv_m[p];
  size_t kk = 0;
  for (size_t k = 0; k < c->n; k++)
    if (part->rows[k]) w->corder[kk] = k, load_row(w, s, c, k, kk++, h, vstar, D);
  comp_range r = {0, m, 0, n};
  int conv = 1, plain = 1; /* (plain or not, the same numbers: each process may choose) */
  for (kk = 0; kk < m && plain; kk++) plain = w->flag[kk] == 0;
  st->iterations = D == 2 ? solve_part_2(w, &r, h, set, &conv, plain, part)
                          : solve_part_3(w, &r, h, set, &conv, plain, part);
  st->converged = conv;
  st->components = 1;
  st->largest_component = m;
  st->mean_iterations = st->iterations;
  for (kk = 0; kk < m; kk++) store_row(w, c, w->corder[kk], kk);
  /* the velocities of the problem's particles */
  team alone = team_alone(&r);
  spread(w, &r, w->y, D, &alone);
  share(part, w->u, D);
  for (size_t p = 0; p < n; p++) {
    if (!part->particles[p]) continue;
    for (int d = 0; d < D; d++) v[3 * p + d] = vstar[3 * p + d] + w->u[D * p + d];
    for (int d = D; d < 3; d++) v[3 * p + d] = vstar[3 * p + d];
  }
  return 0;
}
