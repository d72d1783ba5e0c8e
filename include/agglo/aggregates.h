/* Tunable aggregates (docs/aggregates.md): N monomers joined into one aggregate whose radius of
   gyration follows N = k_f (R_g / a)^D_f for a prescribed fractal dimension D_f and prefactor
   k_f, by the tunable particle-cluster (Filippov, Zurita & Rosner, J. Colloid Interface Sci. 229,
   261, 2000) and hierarchical cluster-cluster (FracVAL: Moran et al., Comput. Phys. Commun. 239,
   225, 2019) algorithms. Every cluster of 3 or more monomers the algorithm makes has exactly the
   prescribed R_g: R_g of the monomer centres weighted by mass m = a^3 (equal weights when the
   radii are), a = the geometric mean radius of its monomers (FracVAL's generalisation). No two
   monomers overlap, each touches another. Errors as in agglo.h: an agglo_status and
   agglo_last_error(), whose message names the value refused and what is allowed. */
#ifndef AGGLO_AGGREGATES_PUBLIC_H
#define AGGLO_AGGREGATES_PUBLIC_H
#include "agglo.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum { AGGLO_AGGREGATE_PC = 0, AGGLO_AGGREGATE_CC = 1 };          /* method */
enum { AGGLO_RADII_UNIFORM = 0, AGGLO_RADII_LOGNORMAL = 1 };      /* radius_distribution */

typedef struct {
  int64_t n;                 /* monomers (1 .. 10^8) */
  double fractal_dimension;  /* D_f (1 .. dim) */
  double prefactor;          /* k_f (> 0) */
  int method;                /* AGGLO_AGGREGATE_PC or _CC */
  int dim;                   /* 2 or 3 (2: every z = 0) */
  /* the monomers' radii, as the keys of [particles]: radius r; radius_distribution uniform
     (radii in [r(1 - s), r(1 + s)], s = radius_spread; 0: all equal) or lognormal (geometric
     mean r, geometric standard deviation radius_sigma) */
  double radius;
  int radius_distribution;
  double radius_spread;      /* 0 .. 0.99 */
  double radius_sigma;       /* 1 .. 10 */
  uint64_t seed;             /* every random number is a function of (seed, index, draw) */
  int64_t index;             /* which aggregate of an ensemble (0, 1, ...): its own numbers */
  int64_t max_trials;        /* placements tried for one joining before it fails (1 .. 10^9) */
  int max_restarts;          /* whole aggregates begun again after a joining that found no place
                                within max_trials (0 .. 1000; not when its search ran through its
                                lists: "no feasible contact") */
  /* NULL, or a flag that a signal handler or another thread sets to stop the build: polled at
     every placement, it returns AGGLO_STOPPED (nothing built) within milliseconds */
  const volatile int *stop;
} agglo_aggregate_options;

/* The defaults: n 100, D_f 1.8, k_f 1.3, cc, 3D, radius 1 monodisperse (spread 0, sigma 1.25),
   seed 1, index 0, max_trials 100000 (per pass of the search), max_restarts 3, stop NULL. */
void agglo_aggregate_defaults(agglo_aggregate_options *o);

/* Bytes of memory per monomer at the peak of a build (measured; agglo_aggregate_check refuses an n
   that would take more than 80 % of the machine's memory). */
#define AGGLO_AGGREGATE_BYTES 300

/* The options checked without building: ranges, and the (D_f, k_f) that the first joinings cannot
   reach for equal radii (the message gives the k_f allowed at that D_f). */
agglo_status agglo_aggregate_check(const agglo_aggregate_options *o);

typedef struct {
  int64_t n;
  int dim;
  double *x;          /* n x 3 centres (z = 0 in 2D), centre of mass at the origin */
  double *r;          /* n radii */
  double rg;          /* R_g measured on the centres (mass-weighted) */
  double rg_target;   /* the prescribed a (n / k_f)^(1/D_f) (n >= 3; else the measured one) */
  double radius_geo;  /* a: the geometric mean radius */
  int64_t trials;     /* placements tried, over every joining */
  int restarts;       /* aggregates begun again */
} agglo_aggregate;

/* Build one aggregate into *out (its arrays freed by agglo_aggregate_free). AGGLO_ERROR_INPUT for
   refused options, AGGLO_ERROR_RUN when a joining found no place within max_trials after
   max_restarts (the message names the step, the distance asked and the reachable range),
   AGGLO_STOPPED when *stop was set (out empty). */
agglo_status agglo_aggregate_build(const agglo_aggregate_options *o, agglo_aggregate *out);
void agglo_aggregate_free(agglo_aggregate *a);

/* Write count aggregates as one frame of path (H5MD when it ends in .h5md or .h5, with its .xdmf;
   else extended XYZ), as agglo convert writes them, readable by particles.from: side by side on a
   grid of cells (count = 1: its centre of mass at the box's centre), ids 0.., each aggregate's
   cluster label its smallest id, masses (r / radius)^3 (particles.mass 1 at particles.radius,
   mass_rule volume), velocities 0, the observables n_aggregates, fractal_dimension and prefactor
   in the frame. box: the side of the box [0, box]^dim (<= 0: the smallest that holds the
   aggregates with a gap of two largest diameters around each); periodic: box.boundary periodic
   (1) or wall (0). A box too small for them is refused, naming the side they need. */
agglo_status agglo_aggregates_write(const char *path, const agglo_aggregate *a, size_t count,
                                    double fractal_dimension, double prefactor, double radius,
                                    double box, int periodic);

/* The same with aggregate k as frame k + 1 of path (step and time k), each alone at the centre of
   one box for all (box <= 0: the smallest that holds the largest): an ensemble in one trajectory
   (particles.frame picks one). H5MD keeps one set of radii for every frame (docs/formats.md): its
   frames must have the same monomers and radii (equal radii and the same n), else it is refused. */
agglo_status agglo_aggregates_write_frames(const char *path, const agglo_aggregate *a, size_t count,
                                           double fractal_dimension, double prefactor, double radius,
                                           double box, int periodic);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
