/* The agglomerate report of the DPD thesis (Mokkapati 2006, ch. IV.D; SPEC §4): agglomerates are
   the connected components (two or more particles) of the pairs whose surface gap is below a
   threshold (0: centres closer than one diameter); each is enclosed in an ellipsoid whose
   semi-axes are the eigenvalues of the inertia tensor of the member centres, in diameters, plus
   one diameter; ellipsoids are classed sphere / prolate / oblate / scalene. */
#ifndef AGGLO_AGGLOMERATES_H
#define AGGLO_AGGLOMERATES_H
#include "system.h"
#include <stdio.h>

typedef struct {
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

/* Label clusters (s->cluster is overwritten) and measure the agglomerates. tol: relative
   tolerance of the axis equalities (agglo_ellipsoid_class). Returns 0 or -1 (memory). */
int agglo_agglomerates_measure(agglo_system *s, double gap, double tol, agglo_agglomerates *a);
void agglo_agglomerates_free(agglo_agglomerates *a);

/* Human-readable report with a histogram of the ellipsoid volumes (nbins bins). */
void agglo_agglomerates_print(FILE *f, const agglo_agglomerates *a, int nbins);
/* One line: prolate oblate sphere scalene n_ellipsoids n_particles ratio_thesis ratio_true
   largest (the columns of the thesis's Tables 3 and 5, then 4 and 6). */
void agglo_agglomerates_row(FILE *f, const agglo_agglomerates *a);

#endif
