/* The contact model's state (contact_model.c), shared with its domain decomposition
   (mpi/contact_domain.c), which runs the same phases over a rank's particles and ghosts. */
#ifndef AGGLO_MODEL_CONTACT_STATE_H
#define AGGLO_MODEL_CONTACT_STATE_H
#include "core/cells.h"
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
  double *vstar, *pair_force;
  uint8_t *mark; /* particles of pairs missed by the constraint selection */
  double r_mean, att_reach, contact_margin;
} contact;

/* The lengths that scale with the mean radius (solver tolerance, contact margin): a rank sets
   the whole system's, not its own particles'. */
void agglo_contact_set_scale(contact *m, double r_mean);
/* A priori velocities vs of particles 0..s->n-1: drift toward the flow, drag, noise (keyed by
   seed, step and id) and gravity; the attraction comes after. */
void agglo_contact_vstar(const contact *m, const agglo_system *s, double *vs);
/* Adds the attraction impulses (scale = h or sqrt h) of the listed pairs m->nb to dv. */
int agglo_contact_attraction(contact *m, const agglo_system *s, double scale, double *dv);
/* Reach of the constraints for a priori speeds up to vmax, and the list's cut-off. */
void agglo_contact_reach(const contact *m, double vmax, double *reach, double *cutoff);
/* Gap of constraint k at positions x (3n; walls of s->box). */
double agglo_contact_gap_at(const agglo_system *s, const agglo_constraints *c, size_t k,
                            const double *x);

#endif
