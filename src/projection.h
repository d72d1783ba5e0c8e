/* Velocity projection onto the feasible set of one step:
     v = argmin 1/2 |v - v*|^2_M  subject to  D_c + h G_c.v >= 0 (or = 0 for equalities).
   Solved in the dual: v = v* + M^-1 sum_c lambda_c G_c, lambda_c >= 0 the contact impulses.
   Shared by the contact (Maury) and gluey (Lefebvre) models. */
#ifndef AGGLO_PROJECTION_H
#define AGGLO_PROJECTION_H
#include "constraints.h"

typedef enum { AGGLO_SOLVER_APGD = 0, AGGLO_SOLVER_UZAWA = 1 } agglo_solver_method;

typedef struct {
  agglo_solver_method method;
  double tol;      /* stop when every constraint is met and complementary within tol (length) */
  int max_iter;
  double rho_factor; /* step = rho_factor / (Gershgorin bound); 1 is safe, < 2 required */
} agglo_solver_settings;

typedef struct {
  int iterations;
  int converged;
  double max_violation; /* largest overlap the step will leave, max(0, -(D + h G.v)) */
  double residual;      /* largest KKT residual at the end (length) */
} agglo_solver_stats;

/* v may alias nothing; vstar and v are 3n arrays. Uses and updates c->lambda (warm start). */
int agglo_project(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                  double *v, const agglo_solver_settings *set, agglo_solver_stats *st);

/* Gap after the step of constraint k for velocities v: D_k + h G_k.v. */
double agglo_constraint_gap_after(const agglo_constraints *c, size_t k, double h, const double *v);

#endif
