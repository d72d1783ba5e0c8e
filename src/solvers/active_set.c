/* Primal-dual active set method (Hintermüller, Ito and Kunisch 2003) for one component of the
   projection's dual, each step an exact solve with a sparse LDL^T factorisation (CHOLMOD).

   Why: a glued heap (gluey model) is a stiff, redundant network whose dual matrix is as badly
   conditioned as a graph Laplacian; conjugate-gradient methods need thousands of products by A
   per step there, while its active set barely changes from one step to the next. Starting from
   the last step's multipliers, a few factorisations give the exact answer.

   Rows in the active set C are solved as equalities (A_CC y_C = -q_C), the others have y = 0.
   C = equalities + inequality rows with y > 0 + rows whose gap after the step would be short by
   more than tol/4. The tol/4 margin and the strict y > 0 keep rows that are just touching from
   flipping in and out. Redundant rows (loops of a packing, the twin rows of a bounded glued
   pair) make A_CC singular: it is factorised with a tiny shift delta I (or the compliance, when
   larger) and the solution refined against A_CC + compliance I, which converges whenever the
   system is consistent. With a compliance (solver.compliance) a jam stays finite. */
#include "solvers/active_set.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cholmod.h>

static const double shift = 1e-10; /* relative to the unit diagonal of the scaled A */

/* g = (A + c I) y + q with A symmetric, its upper triangle stored by columns. */
static void apply(const cholmod_sparse *A, double c, const double *y, const double *q, double *g) {
  const int *Ap = A->p, *Ai = A->i;
  const double *Ax = A->x;
  size_t n = A->ncol;
  for (size_t k = 0; k < n; k++) g[k] = (q ? q[k] : 0.0) + c * y[k];
  for (size_t j = 0; j < n; j++)
    for (int p = Ap[j]; p < Ap[j + 1]; p++) {
      size_t i = (size_t)Ai[p];
      g[i] += Ax[p] * y[j];
      if (i != j) g[j] += Ax[p] * y[i];
    }
}

/* The scaled dual matrix of the component, upper triangle: A_kl = sum over a shared particle p of
   im_p (s_kp e_k).(s_lp e_l), s = -1 for a, +1 for b. */
static cholmod_sparse *assemble(const agglo_dual_view *v, cholmod_common *cc) {
  size_t m = v->m, np = v->np;
  int D = v->dim;
  size_t *start = calloc(np + 1, sizeof *start);
  int32_t *inc = malloc((2 * m + 1) * sizeof *inc); /* 2k: row k as a, 2k+1: as b */
  if (!start || !inc) {
    free(start), free(inc);
    return NULL;
  }
  for (size_t k = 0; k < m; k++) {
    start[v->a[k] - v->p0 + 1]++;
    if (v->b[k] >= 0) start[v->b[k] - v->p0 + 1]++;
  }
  size_t nnz = 0;
  for (size_t p = 0; p < np; p++) {
    size_t d = start[p + 1];
    nnz += d * (d + 1) / 2;
    start[p + 1] += start[p];
  }
  for (size_t k = 0; k < m; k++) {
    inc[start[v->a[k] - v->p0]++] = (int32_t)(2 * k);
    if (v->b[k] >= 0) inc[start[v->b[k] - v->p0]++] = (int32_t)(2 * k + 1);
  }
  for (size_t p = np; p > 0; p--) start[p] = start[p - 1];
  start[0] = 0;
  cholmod_triplet *T = cholmod_allocate_triplet(m, m, nnz + m, 1, CHOLMOD_REAL, cc);
  cholmod_sparse *A = NULL;
  if (T) {
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    size_t t = 0;
    for (size_t k = 0; k < m; k++) Ti[t] = Tj[t] = (int)k, Tx[t++] = 0.0; /* every diagonal */
    for (size_t p = 0; p < np; p++)
      for (size_t x = start[p]; x < start[p + 1]; x++)
        for (size_t z = x; z < start[p + 1]; z++) {
          int32_t k = inc[x] >> 1, l = inc[z] >> 1;
          double s = ((inc[x] ^ inc[z]) & 1) ? -v->im[p] : v->im[p], dot = 0;
          for (int d = 0; d < D; d++) dot += v->e[D * (size_t)k + d] * v->e[D * (size_t)l + d];
          Ti[t] = k < l ? k : l, Tj[t] = k < l ? l : k, Tx[t++] = s * dot;
        }
    T->nnz = t;
    A = cholmod_triplet_to_sparse(T, t, cc);
    cholmod_free_triplet(&T, cc);
  }
  free(start), free(inc);
  return A;
}

/* KKT residual in length units (as the projection measures it), for y as it is. */
static double residual(const agglo_dual_view *v, const double *g, double h) {
  double res = 0;
  for (size_t k = 0; k < v->m; k++) {
    if (v->flag[k] & AGGLO_ROW_FIXED) continue;
    double G = h * v->sw[k] * g[k], L = h * v->sw[k] * v->y[k], r;
    if (v->flag[k] & AGGLO_ROW_EQ) r = fabs(G);
    else r = fmax(fmax(-G, fmin(G, L)), -L);
    if (!(r <= res)) res = isnan(r) ? INFINITY : r;
  }
  return res;
}

int agglo_active_set_solve(const agglo_dual_view *v, double h, double tol, int max_steps,
                           int *conv) {
  size_t m = v->m;
  double *y = v->y;
  *conv = 0;
  cholmod_common cc;
  cholmod_start(&cc);
  cc.print = 0;
  cc.error_handler = NULL;
  cc.supernodal = CHOLMOD_SIMPLICIAL; /* LDL^T: no square roots of tiny pivots */
  cc.final_ll = 0;
  cc.nmethods = 1; /* AMD only: deterministic and enough for contact graphs */
  cc.method[0].ordering = CHOLMOD_AMD;
  cc.postorder = 1;
  int steps = 0, status = 0;
  cholmod_sparse *A = assemble(v, &cc), *K = NULL;
  cholmod_factor *L = NULL;
  cholmod_dense *B = cholmod_zeros(m, 1, CHOLMOD_REAL, &cc), *X = NULL, *R = NULL;
  uint8_t *act = malloc(m + 1);
  double *g = malloc((m + 1) * sizeof *g), *y0 = malloc((m + 1) * sizeof *y0);
  if (y0) memcpy(y0, y, m * sizeof *y);
  if (!A || !B || !act || !g || !y0 || !(K = cholmod_copy_sparse(A, &cc)) ||
      !(L = cholmod_analyze(A, &cc))) {
    status = -1;
    goto done;
  }
  double *b = B->x;
  /* the warm start's set */
  apply(A, v->compliance, y, v->q, g);
  for (size_t k = 0; k < m; k++) {
    uint8_t f = v->flag[k];
    act[k] = !(f & AGGLO_ROW_FIXED) &&
             ((f & AGGLO_ROW_EQ) || y[k] > 0 || h * v->sw[k] * g[k] < -0.25 * tol);
  }
  const int *Kp = K->p, *Ki = K->i;
  const double *Ax = A->x;
  double *Kx = K->x, beta[2] = {fmax(v->compliance, shift), 0};
  while (steps < max_steps) {
    steps++;
    /* A restricted to C, identity elsewhere */
    for (size_t j = 0; j < m; j++)
      for (int p = Kp[j]; p < Kp[j + 1]; p++) {
        size_t i = (size_t)Ki[p];
        Kx[p] = act[i] && act[j] ? Ax[p] : (i == j ? 1.0 : 0.0);
      }
    /* a zero pivot stops the factorisation short (L->minor < m) */
    if (!cholmod_factorize_p(K, beta, NULL, 0, L, &cc) || cc.status < CHOLMOD_OK ||
        L->minor < m)
      break;
    for (size_t k = 0; k < m; k++) b[k] = act[k] ? -v->q[k] : 0.0;
    cholmod_free_dense(&X, &cc);
    if (!(X = cholmod_solve(CHOLMOD_A, L, B, &cc))) {
      status = -1;
      goto done;
    }
    /* refinement against K + compliance I, without the tiny shift (consistent singular
       systems converge) */
    double *x = X->x;
    for (int it = 0; it < 3; it++) {
      apply(K, v->compliance, x, NULL, g);
      double rmax = 0;
      for (size_t k = 0; k < m; k++) g[k] = b[k] - g[k], rmax = fmax(rmax, fabs(g[k]));
      if (!(rmax > 1e-14)) break;
      memcpy(B->x, g, m * sizeof *g);
      cholmod_free_dense(&R, &cc);
      if (!(R = cholmod_solve(CHOLMOD_A, L, B, &cc))) {
        status = -1;
        goto done;
      }
      const double *dx = R->x;
      for (size_t k = 0; k < m; k++) x[k] += dx[k];
      for (size_t k = 0; k < m; k++) b[k] = act[k] ? -v->q[k] : 0.0;
    }
    int finite = 1;
    for (size_t k = 0; k < m; k++) y[k] = act[k] ? x[k] : 0.0, finite &= isfinite(y[k]);
    if (!finite) break;
    apply(A, v->compliance, y, v->q, g);
    int changed = 0;
    for (size_t k = 0; k < m; k++) {
      uint8_t f = v->flag[k];
      if (f & (AGGLO_ROW_EQ | AGGLO_ROW_FIXED)) continue;
      uint8_t in = act[k] ? y[k] >= 0 : h * v->sw[k] * g[k] < -0.25 * tol;
      changed |= in != act[k];
      act[k] = in;
    }
    if (!changed) {
      *conv = residual(v, g, h) <= tol;
      break;
    }
  }
done:
  /* not converged: the warm start back, for an iterative solver to finish from (the last
     iterate can hold huge multipliers along the null space of a redundant set) */
  if (!*conv && y0) memcpy(y, y0, m * sizeof *y);
  free(act), free(g), free(y0);
  cholmod_free_dense(&B, &cc), cholmod_free_dense(&X, &cc), cholmod_free_dense(&R, &cc);
  cholmod_free_factor(&L, &cc);
  cholmod_free_sparse(&A, &cc), cholmod_free_sparse(&K, &cc);
  cholmod_finish(&cc);
  return status < 0 ? -1 : steps;
}
