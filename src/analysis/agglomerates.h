/* The agglomerate report of the DPD thesis (Mokkapati 2006, ch. IV.D; docs/dpd.md): agglomerates are
   the connected components (two or more particles) of the pairs whose surface gap is below a
   threshold (0: centres closer than one diameter, touching included to 1e-9 d); each is enclosed in an ellipsoid, classed
   sphere / prolate / oblate / scalene. Two ellipsoids (docs/dpd.md):
   - moments (default): the solid ellipsoid with the same second moments as the member spheres,
     a_k = sqrt(5 lambda_k) of their gyration tensor (agglo_equivalent_ellipsoid); classes by the
     axis ratios b/a, c/b against 1 - tol;
   - thesis: the thesis's construction read literally, semi-axes = eigenvalues of the inertia
     tensor of the member centres (in diameters, length^2 read as length) plus one diameter;
     classes by axis differences against tol * a. Kept to compare with its Tables 3-6. */
#ifndef AGGLO_AGGLOMERATES_H
#define AGGLO_AGGLOMERATES_H
#include "agglo/analysis.h" /* AGGLO_ELLIPSOID_* */
#include "core/system.h"
#include <stdio.h>


typedef struct {
  int definition;         /* AGGLO_ELLIPSOID_* */
  size_t n_agglomerates;  /* components of >= 2 particles */
  size_t n_particles;     /* particles in them */
  size_t largest;
  size_t by_class[4];     /* AGGLO_SPHERE, AGGLO_PROLATE, AGGLO_OBLATE, AGGLO_SCALENE */
  double ratio_thesis;    /* mean over agglomerates of V_ellipsoid / (n (4/3) pi d^3), % */
  double ratio_true;      /* mean over agglomerates of V_ellipsoid / sum (4/3) pi r_i^3, % */
  double diameter;        /* d: mean particle diameter (the length unit of the ellipsoids) */
  double *volume;         /* n_agglomerates ellipsoid volumes, in d^3 */
  double (*semi)[3];      /* n_agglomerates semi-axes, descending, in d */
  size_t *size;           /* members of each */
  int *cls;               /* class of each */
} agglo_agglomerates;

/* The ellipsoid with the second moments of n spheres (centres x, 3n, unwrapped; radii r): the
   gyration tensor G = (1/n) sum [(x_i - c)(x_i - c)^T + (r_i^2/5) 1] about the centroid c of the
   centres (each sphere counts once, its own second moment r^2/5 per axis included: the inertia
   tensor's (2/5) r^2), and a_k = sqrt(5 lambda_k), since a solid ellipsoid of semi-axes a_k has
   G = diag(a_k^2/5). One sphere gives a = b = c = r. semi: descending; axes (if not NULL): the
   unit axes as columns (axes[3k + q] = component k of axis q). Returns 0, or -1 if n = 0 or a
   value is not finite. */
int agglo_equivalent_ellipsoid(const double *x, const double *r, size_t n, double semi[3],
                               double axes[9]);

/* Class of an ellipsoid by its axis ratios: a ~ b when b/a >= 1 - tol, b ~ c when c/b >= 1 - tol
   (semi descending); sphere, prolate (a > b ~ c), oblate (a ~ b > c) or scalene. */
int agglo_ellipsoid_class_ratio(const double semi[3], double tol);

/* Label clusters (s->cluster is overwritten) and measure the agglomerates with the ellipsoid
   `definition` (AGGLO_ELLIPSOID_*). Members: surface gap below gap + AGGLO_AGGLOMERATE_TOUCH d
   (d the mean diameter), so that touching spheres (gap 0 to round-off) are one agglomerate.
   tol: relative tolerance of the axis equalities. Returns 0 or -1 (memory). */
#define AGGLO_AGGLOMERATE_TOUCH 1e-9
int agglo_agglomerates_measure(agglo_system *s, double gap, double tol, int definition,
                               agglo_agglomerates *a);
void agglo_agglomerates_free(agglo_agglomerates *a);

/* Human-readable report with a histogram of the ellipsoid volumes (nbins bins). */
void agglo_agglomerates_print(FILE *f, const agglo_agglomerates *a, int nbins);
/* One line: prolate oblate sphere scalene n_ellipsoids n_particles ratio_thesis ratio_true
   largest (the columns of the thesis's Tables 3 and 5, then 4 and 6). */
void agglo_agglomerates_row(FILE *f, const agglo_agglomerates *a);

#endif
