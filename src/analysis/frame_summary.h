/* The indicators of one frame, as written to stats.csv and analysis.csv. */
#ifndef AGGLO_FRAME_SUMMARY_H
#define AGGLO_FRAME_SUMMARY_H
#include "analysis/analysis.h"
#include <stdio.h>

/* How the fractal dimensions are measured (docs/analysis.md). */
typedef struct {
  int box_counting;     /* AGGLO_BOX_COUNTING_BOX (Degond et al.'s grid over the box) or _BOUNDING */
  size_t mass_min_size; /* smallest cluster in the mass-radius fit */
} agglo_indicator_settings;
/* The defaults: the paper's grid, clusters of 3 or more. */
#define AGGLO_INDICATORS_DEFAULT ((agglo_indicator_settings){AGGLO_BOX_COUNTING_BOX, 3})

typedef struct {
  double time;
  size_t n_particles, n_clusters, max_cluster_size;
  double mean_cluster_size;       /* number average */
  double weight_avg_cluster_size; /* sum s^2 / sum s */
  double fractal_dimension_box;   /* box counting of the largest cluster, eps in [3 r, L/2] */
  int box_levels;                 /* grid levels in the fit, and their smallest and largest eps */
  double box_eps_min, box_eps_max;
  double fractal_dimension_mass;  /* Rg ~ s^(1/D) over the clusters of size >= mass_min_size */
  double mass_prefactor;          /* k_f of s = k_f (R_g/r)^D */
  size_t mass_min_size;
  double fractal_dimension_fracval, prefactor_fracval; /* agglo_mass_radius_fracval's fit */
  double contacts_per_sphere;     /* N_c with centre distance <= 2.1 r */
  double aspect_ratio;            /* of the largest cluster */
  double rg_largest;
  double contact_gap, r_mean;
} agglo_frame_summary;

/* Label clusters (pairs with gap < contact_gap) and compute every indicator as `how` says. If
   infos is not NULL it receives the per-cluster table (free it). */
int agglo_frame_summarize(agglo_system *s, double contact_gap, const agglo_indicator_settings *how,
                          agglo_frame_summary *out,
                          agglo_cluster_info **infos, size_t *n_infos);

/* CSV columns shared by analysis.csv and stats.csv. */
void agglo_frame_summary_header(FILE *f);
void agglo_frame_summary_row(FILE *f, const agglo_frame_summary *a);

#endif
