/* An aggregate's spheres as the scattering, projected-area, optics and scatterer-file functions
   take them (centres n x 3, radii n): checked in one place. */
#ifndef AGGLO_ANALYSIS_SPHERES_H
#define AGGLO_ANALYSIS_SPHERES_H
#include "agglo/agglo.h"
#include <stddef.h>

/* Every radius finite and > 0 (r may be NULL: not checked), every coordinate finite; fn names the
   public function in the message. */
agglo_status agglo_check_spheres(const char *fn, const double *x, const double *r, size_t n);

#endif
