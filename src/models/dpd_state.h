/* The DPD model's state (dpd_model.c), shared with the domain decomposition (dpd_domain.c),
   which moves particles between ranks and adds ghosts: copies of other ranks' particles within
   the cut-off of the brick, flagged in parts.gh. Reduced units throughout. */
#ifndef AGGLO_MODEL_DPD_STATE_H
#define AGGLO_MODEL_DPD_STATE_H
#include "models/dpd_bonds.h"
#include "config/config.h"
#include "models/dpd_half_mean.h"
#include "models/dpd_model.h"
#include "models/dpd_pair_forces.h"
#include "models/dpd_shear.h"
#include <stddef.h>
#include <stdint.h>

/* Per-particle arrays, sorted by cell; two copies (current and scratch) swapped at each sort. */
enum { AGGLO_DPD_DROP = 2 };

typedef struct agglo_dpd_parts {
  double *x[3], *v[3], *t[3]; /* position, velocity, predicted velocity v~ */
  double *r, *im;             /* radius, 1/mass */
  uint32_t *id;
  uint8_t *spec;
  size_t *perm;               /* system index */
  uint8_t *gh;                /* 1: a ghost (a copy of another rank's particle, dpd_domain.c);
                                 AGGLO_DPD_DROP: left out by the next sort */
} parts;

typedef struct agglo_dpd_state {
  agglo_config cfg;
  agglo_dpd_units u;
  int dim, kind, nspec, gw, gaussian, thermo;
  size_t n, nghosts;      /* particles, of which ghosts (counted by the sort) */
  double dt, lambda, rc, inv_sqrt_dt;
  double len[3], lo[3], plen[3], pinv[3]; /* plen/pinv: L and 1/L on periodic axes, else 0 */
  int periodic[3];
  /* Lees-Edwards shear (dpd.shear_rate != 0; dpd_shear.h): its offset is that of the positions
     of the last sort, a function of the step (so a restart continues it bit for bit). shear:
     this model makes the images across the y faces itself; 0 on an MPI brick that cuts y, whose
     ghosts arrive as images (mpi/dpd_domain.c). The peculiar velocities (friction, temperature)
     follow le.rate, the same on every rank. */
  int shear;
  agglo_shear le;
  int wall[3];            /* walls reflect at wlo + r and whi - r (the scenario's box) */
  double wlo[3], whi[3];
  size_t cap;             /* particles the arrays hold */
  uint64_t seed;
  agglo_pair_params *pp;  /* nspec^2 */
  double *a, *gam, *sig;  /* nspec^2: GW a, gamma, sigma = sqrt(2 gamma kT) */
  double *gam_t, *sig_t;  /* nspec^2: transverse gamma_p, sigma_p (transverse thermostat) */
  double *rcp, *inv_rcp;  /* nspec^2: cut-off per species pair (rc = the largest) and 1/it */
  uint8_t *pgw;           /* nspec^2: the pair's force is groot_warren or none (a w) */
  double xi, sig_l;       /* langevin: friction, noise force amplitude sqrt(2 xi kT / dt) */
  double kT;              /* target, reduced units */
  /* temperature: of the last step, and its mean over the steps of the last half of the run
     so far, for the end-of-run check (agglo_dpd_temperature_report) */
  double T_last;
  agglo_half_mean T_half;
  /* capillary bridges with memory: the set after the last force evaluation, per-thread lists of
     the pairs found bridged during one, and their concatenation */
  int bridges, multi_rc;        /* multi_rc: the species pairs have different cut-offs */
  double *rupt_k;               /* nspec^2: D_rupt = rupt_k * 2 ri rj / (ri + rj) */
  double core_gamma;            /* the hard core's dashpot is core_gamma sqrt(mu) (dpd.core_damping) */
  agglo_bond_set bonds, next;   /* next: scratch, the set being built */
  /* formed: the pairs of the evaluation bridged and not in its set before; *bb per thread */
  struct bond_buf { uint64_t *k; size_t n, cap, formed; int oom; } *bb;
  /* bridges formed and broken at the last force evaluation (by a rank of a domain decomposition:
     those of the pairs whose lower id is its own, so that the ranks' sums count each once), and
     since the last stats row (dpd.bridge_counts; restart state) */
  uint64_t formed_now, broken_now, formed_row, broken_row;
  int bridge_counts;            /* the stats.csv columns bridges_formed and bridges_broken */
  uint32_t *own_ids;            /* scratch: the ids of the particles that are not ghosts, sorted */
  int nbb;
  uint64_t *bond_all;
  size_t bond_all_cap;
  parts p, q;             /* current, scratch */
  double *f[3];
  int32_t *cell_of;
  size_t *order;
  /* grid: cells at least rc wide, z-major; column (cy, cz) = cells [col nc0, (col+1) nc0) */
  int nc[3];
  size_t ncells, *cell_start, *fill;
  int32_t *columns;       /* column ids grouped by colour */
  size_t *colour_start;
  int ncolours;
  double contact_gap_sys;
  uint64_t force_step;    /* the step whose random numbers the last force evaluation drew */
  int stress_cols;        /* stats.csv columns of the pressure tensor (dpd_stress.h), or 0 */
} dpd;


/* Room for n particles in every per-particle array (contents kept; the first call allocates
   exactly n, later ones a quarter more). 0 or -1 (memory). */
int agglo_dpd_reserve(dpd *m, size_t n);
/* The step's phases. drift: positions, predicted velocities and the first half kick of every
   particle, walls reflecting. sort: wrap periodic axes and sort by cell. forces: f = F(x, v~) of
   step `step` (pairs of two ghosts skipped); *in_range pairs within the cut-off, *min_gap the
   smallest surface gap. kick: the second half kick; returns the position in storage of the
   first non-ghost particle with a non-finite value, or SIZE_MAX. */
void agglo_dpd_drift(dpd *m);
void agglo_dpd_sort(dpd *m); /* (also drops the particles flagged AGGLO_DPD_DROP) */
/* Lees-Edwards: particle i (storage order), if it left the box [lo_y, lo_y + le.len[1]) through
   a y face, comes back through the other, shifted along x, its velocity and predicted velocity
   by gamma_dot L_y (agglo_shear_wrap_y): the sort's wrap, and an MPI migrant's. */
void agglo_dpd_wrap_y(dpd *m, size_t i, double lo_y);
int agglo_dpd_forces(dpd *m, uint64_t step, size_t *in_range, double *min_gap);
size_t agglo_dpd_kick(dpd *m);
/* Sums over the particles that are not ghosts: mass, momentum (3), twice the kinetic energy, count. */
void agglo_dpd_kinetic_sums(const dpd *m, double out[6]);
/* kT from sums of agglo_dpd_kinetic_sums (added over ranks). */
double agglo_dpd_temperature_of(int dim, const double sums[6]);
/* Positions and velocities xv (6n by system index, reduced units; NULL: the system's divided by
   the units) and forces f (3n, the same) into the model, then sorted: a gathered state, the
   model's own numbers of a restart point. */
void agglo_dpd_refresh(dpd *m, const agglo_system *s, const double *xv, const double *f);
/* The temperature of a step computed elsewhere (summed over ranks): stats and the final check. */
void agglo_dpd_record_temperature(dpd *m, double T);
/* The bridges formed and broken at a step (summed over ranks) into the counts since the last
   stats row. */
void agglo_dpd_record_bridges(dpd *m, uint64_t formed, uint64_t broken);
/* The predicted velocities tv (3n by system index, reduced units) and the step of the forces
   into the model, after agglo_dpd_refresh: the thermostat's part of the pressure tensor of a
   gathered state (dpd_stress.h). */
void agglo_dpd_refresh_thermostat(dpd *m, const double *tv, uint64_t step);

#endif
