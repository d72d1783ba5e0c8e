/* The contact model's state and step (contact_model.c), shared with its domain decomposition
   (mpi/contact_domain.c), which runs the same step over a rank's particles and ghosts. */
#ifndef AGGLO_MODEL_CONTACT_STATE_H
#define AGGLO_MODEL_CONTACT_STATE_H
#include "core/cells.h"
#include "core/model.h"
#include "config/config.h"
#include "solvers/constraints.h"
#include "models/contact_fields.h"
#include "solvers/projection.h"

/* a pair is a constraint when its gap is below the margin or would close within the step at
   CLOSING_SAFETY times its a priori relative speed, beyond the margin */
#define AGGLO_CONTACT_CLOSING_SAFETY 1.0
/* rounds of a step: added missed pairs or a widened list, before the step gives up */
#define AGGLO_CONTACT_MAX_ROUNDS 50

typedef struct agglo_contact_state {
  agglo_config cfg;
  agglo_neighbors nb;
  agglo_constraints con;
  agglo_solver_settings solver;
  agglo_flow flow;
  double *vstar, *pair_force; /* vstar: a priori velocities (3 per particle) */
  uint8_t *mark; /* particles of pairs missed by the constraint selection */
  size_t mark_cap;
  /* the constraints before the step (keep/undo: a step given up at a stop request) */
  int32_t *kept_i, *kept_j;
  double *kept_lambda, *kept_gamma;
  size_t kept_n, kept_cap;
  double r_mean, att_reach, contact_margin;
  /* The bricks of MPI ranks (mpi/contact_domain.c) where their load balance left them, part of
     the restart point so that a run resumed on the same grid starts on them: per axis the count
     and its count - 1 inner cuts (cuts, axis after axis). All counts 1: none (one process). */
  int bricks[3];
  double *cuts;
} contact;

/* The most bricks along an axis a restart point may name (its count is bounded before use). */
enum { AGGLO_MAX_BRICKS = 1 << 16 };
/* The bricks of a run on ranks, dims[k] per axis between the faces cut[k][0 .. dims[k]], kept for
   its restart points (all dims 1: none). 0, or -1 (memory). */
int agglo_contact_keep_bricks(contact *m, const int dims[3], double *const cut[3]);

/* The lengths that scale with the mean radius (solver tolerance, contact margin): a rank sets
   the whole system's, not its own particles'. */
void agglo_contact_set_scale(contact *m, double r_mean);

/* What a rank of the domain decomposition (mpi/contact_domain.c) brings to the step: its system
   holds its own particles 0..own-1, then ghosts (copies of other ranks' particles); between the
   phases it reduces over the ranks and sends the ghosts their owners' values. One process
   passes none (NULL). Failures: 0 or -1 (memory); collective calls fail on every rank. */
typedef struct {
  void *ctx;
  size_t own;
  agglo_box box;  /* the scenario's (the flow's): the system's is the rank's region */
  agglo_box wrap; /* the move wraps these axes (the others: migration carries the period) */
  /* sums then maxima over the ranks, in place (collective) */
  void (*reduce)(void *ctx, double *sums, int nsum, double *maxs, int nmax);
  /* ghosts within cutoff (and two radii) of the brick, and the neighbour list m->nb over the
     region for cutoff: 0, -1 or 1 (the reach outgrew a brick); collective */
  int (*reach_out)(void *ctx, double cutoff);
  /* the ghosts' copy of f (3 per particle) from their owners (collective) */
  int (*share)(void *ctx, double *f);
  /* a round's solve of the components that lie on this rank (first: of the step; full: all of
     them, else those holding a particle of m->mark); then of those across ranks (collective) */
  int (*solve_here)(void *ctx, int first, int full, agglo_solver_stats *st);
  int (*solve_across)(void *ctx, agglo_solver_stats *st);
} agglo_contact_ranks;

/* One step of the contact model (Maury 2004) of s, the a priori velocities in m->vstar (3 s->n),
   on one process (r = NULL) or a rank (r). The phases: a priori velocities; the neighbour list
   (a rank's ghosts); the attraction; rounds of constraints and projection; the move and the
   health of the new state. info is the step's report over all ranks but for bad_particle
   (this process's first). Returns 0, -1 (message in err) or 1 (r: the reach outgrew a brick). */
int agglo_contact_step(contact *m, agglo_system *s, const agglo_contact_ranks *r,
                       agglo_step_info *info, char *err, size_t errlen);

#endif
