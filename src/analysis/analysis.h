/* Aggregate indicators (Degond et al. 2024, Mokkapati 2006; docs/analysis.md): per-cluster
   geometry, box-counting and mass-radius fractal dimensions, contacts per sphere, cumulative pair
   distribution, ellipsoid classes. */
#ifndef AGGLO_ANALYSIS_H
#define AGGLO_ANALYSIS_H
#include "agglo/analysis.h" /* AGGLO_SPHERE ... */
#include "core/system.h"

typedef struct {
  int64_t label;     /* cluster label (smallest id) */
  size_t size;       /* particles */
  double mass;
  double com[3];     /* centre of mass (unwrapped, then put back in the box) */
  double rg;         /* radius of gyration of the member centres */
  double rg_volume;  /* ... weighted by the members' volumes r^3 (FracVAL's, docs/aggregates.md) */
  double log_radius; /* mean of log r: the log of the members' geometric mean radius */
  double eig[3];     /* eigenvalues of the gyration tensor, descending */
  double axis[3];    /* leading eigenvector (orientation) */
  double aspect;     /* agglo_aspect_ratio(eig) */
} agglo_cluster_info;

/* The aspect ratio A_r = eig[0]/eig[1] of a cluster (2D: lambda1/lambda2): 1 for a single
   particle, NAN (undefined) when the centres are collinear (eig[1] <= 1e-10 eig[0]: a dimer, a
   straight chain), which stats.csv writes as nan and every average leaves out. */
double agglo_aspect_ratio(const double eig[3]);

/* Eigenvalues (descending, negatives from round-off set to 0) and, if V is not NULL, unit
   eigenvectors (columns of V) of a symmetric positive semi-definite 3x3 matrix (Jacobi). */
void agglo_sym3_eigen(const double A[9], double eig[3], double V[9]);

/* Positions u (3n) with every cluster made whole: members placed at the minimum image of the
   member they touch (gap < contact_gap), so clusters that wrap around periodic faces unfold. */
int agglo_unwrap_clusters(const agglo_system *s, double contact_gap, double *u);

/* Per-cluster geometry from the labels in s->cluster; clusters that wrap around periodic
   boundaries are unwrapped through their contacts (pairs with gap < contact_gap).
   *out is allocated (free it), sorted by decreasing size. */
int agglo_cluster_infos(const agglo_system *s, double contact_gap, agglo_cluster_info **out,
                        size_t *n_out);

/* Box counting (Degond et al. 2024, eq. 4.15; docs/analysis.md): occupied cells of the grid of
   2^m cells per axis over [lo, lo + len) (cells len[k]/2^m along axis k; points outside are put
   in the nearest cell), eps_m = L/2^m with L the largest len; fit log N = log a - D log eps over
   eps_m in [eps_min, L/2]. eps/counts (if not NULL, room for 64) receive the curve and *npoints
   its length; returns D (NAN with fewer than 2 levels). */
double agglo_box_counting_grid(const double *x, size_t n, int dim, const double lo[3],
                               const double len[3], double eps_min, double *eps, double *counts,
                               int *npoints);

/* The same on the grid over the smallest square (cube) holding the points (the bounding
   variant, docs/analysis.md). */
double agglo_box_counting(const double *x, size_t n, int dim, double eps_min, double *eps,
                          double *counts, int *npoints);

/* Mass-radius dimension: fit log Rg = c + (1/D) log s over the clusters with size >= min_size
   (and >= 2); *kf (if not NULL) receives the prefactor of s = k_f (R_g/a)^D. NAN unless three
   clusters span a factor three in size. */
/* The mass-radius fit with the definitions of tunable aggregates (FracVAL, Moran et al. 2019;
   docs/aggregates.md): each cluster's volume-weighted R_g over its own geometric mean radius,
   s = k_f (R_g / a_geo)^D, fitted as agglo_mass_radius_dimension fits. */
double agglo_mass_radius_fracval(const agglo_cluster_info *c, size_t n, size_t min_size, double *kf);
double agglo_mass_radius_dimension(const agglo_cluster_info *c, size_t n, size_t min_size,
                                   double a, double *kf);

/* Relative contacts per sphere (Degond et al. 2024): (1/(k N)) sum_{i,j} 1{|x_i - x_j| <= dist}, double sum
   including i = j, k = 6 in 2D and 12 in 3D. */
double agglo_contacts_per_sphere(const agglo_system *s, double dist);

/* Cumulative pair distribution P(r) = (1/N) sum_{i,j != i} 1{|x_i - x_j| <= r} at nr radii
   r[k]; uses at most max_ref reference particles (subsampled evenly, then rescaled). */
int agglo_pair_distribution(const agglo_system *s, const double *r, size_t nr, size_t max_ref,
                            double *p);

/* Ellipsoid classification of agglomerates (Mokkapati): semi-axes from the eigenvalues of the
   inertia tensor of member centres (+1 each, in diameters); class by relative tolerance tol. */
int agglo_ellipsoid_class(const double semi[3], double tol);

#endif
