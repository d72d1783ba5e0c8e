/* Direct solver for one connected component of the projection's dual (projection.c): a
   primal-dual active set method whose linear systems are solved by a sparse Cholesky (LDL^T)
   factorisation (CHOLMOD). */
#ifndef AGGLO_ACTIVE_SET_H
#define AGGLO_ACTIVE_SET_H
#include <stddef.h>
#include <stdint.h>

enum { AGGLO_ROW_EQ = 1, AGGLO_ROW_FIXED = 2 }; /* free-sign row; both bodies immovable */

/* The scaled dual of one component, min 1/2 y.(A + compliance I) y + q.y with y_k >= 0 unless the row is an
   equality, A = S^-1 G M^-1 G^T S^-1 (S = diag sw). Row k acts on particles a[k] and b[k]
   (b[k] < 0: a wall) of the component, numbered p0 .. p0+np-1; G_k u = e_k.(u_b - u_a), or
   -e_k.u_a for a wall, with e already divided by sw_k; im is indexed from 0 (particle p0). */
typedef struct {
  size_t m, np, p0;
  int dim;                  /* components of e per row (2 or 3) */
  const int32_t *a, *b;
  const double *e, *im, *q, *sw;
  const uint8_t *flag;      /* AGGLO_ROW_* */
  double compliance;        /* the matrix is A + compliance I (on rows that are not fixed) */
  double *y;                /* in: warm start; out: the answer */
} agglo_dual_view;

/* Solves to the projection's tolerance (tol, length; h the step) in at most max_steps active-set
   steps (one factorisation each). Returns the number of steps; *conv = 1 when the KKT residual is
   at most tol. Otherwise y is given back as it came, for an iterative solver to finish from;
   returns -1 when out of memory. */
int agglo_active_set_solve(const agglo_dual_view *v, double h, double tol, int max_steps,
                           int *conv);

#endif
