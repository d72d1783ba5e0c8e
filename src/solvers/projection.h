/* Velocity projection onto the feasible set of one step:
     v = argmin 1/2 |v - v*|^2_M  subject to  D_c + h G_c.v >= 0 (or = 0 for equalities).
   Solved in the dual: v = v* + M^-1 sum_c lambda_c G_c, lambda_c >= 0 the contact impulses.
   Shared by the contact (Maury) and gluey (Lefebvre) models. */
#ifndef AGGLO_PROJECTION_H
#define AGGLO_PROJECTION_H
#include "solvers/constraints.h"

typedef enum {
  AGGLO_SOLVER_APGD = 0,  /* accelerated projected gradient, per-contact steps, restart */
  AGGLO_SOLVER_UZAWA = 1, /* the paper's Uzawa: projected gradient with the safe scalar rho */
  AGGLO_SOLVER_MPRGP = 2, /* conjugate gradients on the active face with proportioning */
  AGGLO_SOLVER_ACTIVE_SET = 3 /* primal-dual active set, sparse LDL^T solves (active_set.c) */
} agglo_solver_method;

/* MPRGP's expansion step (it adds constraints to the active set when a conjugate gradient step
   would leave y >= 0): the whole step projected on y >= 0, kept when it lowers the cost (else
   the gradient one); or the gradient one: to the boundary, then a projected gradient step of
   the fixed length 1.9 / (Gershgorin bound of A) (Dostal 2009, the solver before issue 29) */
typedef enum { AGGLO_EXPANSION_PROJECTED_CG = 0, AGGLO_EXPANSION_GRADIENT = 1 } agglo_expansion;

typedef struct {
  agglo_solver_method method;
  agglo_expansion expansion; /* MPRGP (and the team, and a problem spread over processes) */
  double tol;      /* stop when every constraint is met and complementary within tol (length) */
  int max_iter;
  size_t team_rows; /* MPRGP components of at least this many rows: all threads together (0: none) */
  double rho_factor; /* step = rho_factor / (Gershgorin bound); 1 is safe, < 2 required */
  double compliance; /* every row gives way by this times the displacement its impulse causes:
                        the dual matrix becomes A + compliance I (0: rigid) */
  const _Atomic int *stop; /* not NULL: polled at each iteration of a component solved by one
                              thread (APGD, Uzawa, MPRGP); when set, the solve ends as at its cap
                              (the caller gives the step up) */
} agglo_solver_settings;

typedef struct {
  int iterations;
  int converged;
  double max_violation; /* largest overlap the step will leave, max(0, -(D + h G.v)) */
  double residual;      /* largest KKT residual at the end (length) */
  /* the problem splits into connected components of the contact graph, solved one by one:
     iterations above is the most any component needed (products by A, the unit of cost) */
  size_t components, largest_component; /* count; constraints in the largest */
  double mean_iterations;               /* constraint-weighted mean of the components' iterations */
} agglo_solver_stats;

/* v may alias nothing; vstar and v are 3n arrays. Uses and updates c->lambda (warm start). */
int agglo_project(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                  double *v, const agglo_solver_settings *set, agglo_solver_stats *st);

/* The same, solving only the components of the contact graph that hold a particle p with
   only[p] != 0; v and lambda of the other components are left as they are (e.g. from an earlier
   solve of the same components). only == NULL solves everything (agglo_project). */
int agglo_project_some(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                       double *v, const agglo_solver_settings *set, agglo_solver_stats *st,
                       const uint8_t *only);

/* A problem spread over processes (src/mpi/contact_domain.c): each holds some of its rows and
   copies of their particles; a particle may have copies on several processes. */
typedef struct {
  const uint8_t *rows;      /* per constraint: this process's row of the problem */
  const uint8_t *particles; /* per particle: the problem's, its velocity is set (every copy) */
  void *ctx;
  /* f (width per particle of the system): every copy of a particle given the sum over its
     copies */
  void (*sum_shared)(void *ctx, double *f, int width);
  /* sums and maxima of scalars over the processes, in place (the same on every process) */
  void (*reduce)(void *ctx, double *sums, int nsum, double *maxs, int nmax);
} agglo_projection_part;

/* This process's part of one projection problem, solved together with the other processes by
   MPRGP (collective: every process takes the same steps). Sets lambda of the rows and v of the
   problem's particles. */
int agglo_project_part(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                       double *v, const agglo_solver_settings *set, agglo_solver_stats *st,
                       const agglo_projection_part *part);

/* Releases the solver's scratch memory kept in agglo_constraints (called by its free). */
struct agglo_proj_ws;
void agglo_projection_workspace_free(struct agglo_proj_ws *w);

/* Gap after the step of constraint k for velocities v: D_k + h G_k.v. */
double agglo_constraint_gap_after(const agglo_constraints *c, size_t k, double h, const double *v);

#endif
