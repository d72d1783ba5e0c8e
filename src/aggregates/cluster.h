/* The working state of a tunable aggregate (include/agglo/aggregates.h): monomers in arrays, a
   cluster a contiguous range of them, random numbers drawn in order from the counter-based
   generator (core/rng.h), and the steps shared by the particle-cluster and cluster-cluster
   builds. */
#ifndef AGGLO_AGGREGATES_CLUSTER_H
#define AGGLO_AGGREGATES_CLUSTER_H
#include "agglo/aggregates.h"
#include "core/rng.h"
#include <stddef.h>
#include <stdint.h>

/* Draws of one aggregate: uniform4(seed, AGGLO_STREAM_AGGREGATE, draw, index), four at a time,
   so that an aggregate depends only on (seed, index), never on threads or the others built. */
typedef struct {
  uint64_t seed, index, draw;
  double u[4];
  int left;
} agg_rng;

static inline double agg_uniform(agg_rng *g) {
  if (g->left == 0) {
    agglo_rng_uniform4(g->seed, AGGLO_STREAM_AGGREGATE, g->draw++, g->index, g->u);
    g->left = 4;
  }
  return g->u[4 - g->left--];
}

/* A cluster: monomers first .. first + n - 1 of the arrays; its mass (sum of a^3), centre of
   mass, R_g (mass-weighted, of the centres) and the sum of log a (the geometric mean radius). */
typedef struct {
  size_t first, n;
  double mass, c[3], rg, log_a;
} agg_cluster;

typedef struct {
  const agglo_aggregate_options *o;
  int dim;
  size_t n;
  double *x, *r, *m; /* 3n centres, n radii, n masses a^3 */
  double r_max;      /* the largest radius (the cell side of the contact grid) */
  agg_rng rng;
  int64_t trials;    /* placements tried (all joinings) */
  int exhausted;     /* the last joining that failed ran through its search's lists (no restart) */
} agg_state;

/* ---- gyration_rule.c: the prescribed R_g and the distance it asks between two clusters ----- */
/* a (n / k_f)^(1/D_f), a = exp(log_a / n) the geometric mean radius. */
double agg_rg_target(size_t n, double log_a, double df, double kf);
/* The distance Gamma between the centres of mass of clusters 1 and 2 that gives their union
   (mass M = M1 + M2) the radius of gyration R (parallel axes: M R^2 = M1 R1^2 + M2 R2^2 +
   (M1 M2 / M) Gamma^2); a negative value when no distance does (R too small). */
double agg_gamma(double m1, double rg1, double m2, double rg2, double rg);
/* The cluster of monomers first .. first + n - 1: mass, centre and R_g from the arrays. */
void agg_cluster_measure(const agg_state *s, size_t first, size_t n, agg_cluster *c);

/* ---- join.c: place cluster b touching cluster a with their centres of mass gamma apart ----- */
/* b's monomers are rotated and moved; a stays. grid: a's monomers (NULL: built here). 0 on
   success (*joined: the union, its centre and R_g by parallel axes; b's monomers must follow a's
   in the arrays for joined to be one range), -1 with a message in err when max_trials placements
   found none (what names the step for the message), -2 when out of memory, -3 when the options'
   stop flag was set. */
int agg_join(agg_state *s, const agg_cluster *a, const agg_cluster *b, double gamma,
             const void *grid, agg_cluster *joined, const char *what, char *err, size_t errlen);
/* The overlap tolerance of a placement, relative to the sum of two radii: rounding only. */
#define AGG_OVERLAP_TOL 1e-10

/* ---- particle_cluster.c, cluster_cluster.c: the two builds over s (radii set) ------------- */
int agg_build_particle_cluster(agg_state *s, char *err, size_t errlen);
int agg_build_cluster_cluster(agg_state *s, char *err, size_t errlen);

/* ---- monomer_radii.c ----------------------------------------------------------------------- */
/* Radius of monomer i of the options' aggregate (as agglo_particle_radius for [particles], with
   the aggregate's index as the generator's step). */
double agg_monomer_radius(const agglo_aggregate_options *o, size_t i);

#endif
