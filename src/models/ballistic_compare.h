/* Ensembles of ballistic runs, time stepping against event driven (the indicators of Degond et al.
   2024; docs/ballistic.md). */
#ifndef AGGLO_BALLISTIC_COMPARE_H
#define AGGLO_BALLISTIC_COMPARE_H
#include "config/config.h"

#define AGGLO_BALL_NPR 6 /* P(r) at r/r_mean = 2.5, 4, 6, 10, 15, 20 */
extern const double agglo_ball_pr_radii[AGGLO_BALL_NPR];

typedef struct {
  double t_final;      /* time to one cluster (or the stop time) */
  double cpu;          /* CPU seconds of the simulation (setup and analysis excluded) */
  double steps;        /* steps (time stepping) or windows (event driven) */
  double iterations;   /* minimiser iterations (time stepping) or events (event driven) */
  double n_clusters;   /* clusters left */
  double nc;           /* relative contacts per sphere, distance <= 2.1 r_mean */
  double df;           /* box-counting dimension of the largest cluster */
  double ar;           /* aspect ratio of the largest cluster */
  double max_overlap;  /* largest overlap of a step (time stepping), in units of r_mean */
  double pr[AGGLO_BALL_NPR];
} agglo_ball_result;

/* Run the scenario to its end (no files written) and measure the final state. */
int agglo_ballistic_simulate(const agglo_config *c, agglo_ball_result *res, char *err,
                             size_t errlen);

#endif
