/* The mobility law of aggregates from the continuum to the free molecular regime (docs/dlca.md):
   the dlca model's friction (models/dlca_model.c) and the Fuchs kernel of the Smoluchowski
   solver (smoluchowski.c) share it, and `agglo analyze --mobility` (agglo/scattering.h). */
#ifndef AGGLO_ANALYSIS_MOBILITY_H
#define AGGLO_ANALYSIS_MOBILITY_H

enum { AGGLO_MOBILITY_ADJUSTED_SPHERE = 0, AGGLO_MOBILITY_SPHERE = 1 };

/* The Cunningham slip correction of a sphere at Knudsen number lambda_g / R (Kim et al. 2005). */
double agglo_cunningham(double kn);
/* The friction of n particles over 6 pi mu, a length, by the mobility law (AGGLO_MOBILITY_*),
   from their volume-equivalent mean radius a, the mobility fractal dimension df, the
   projected-area exponent gamma (0: 0.92) and the gas's mean free path mfp (0: continuum): the law
   of agglo_mobility_friction_length (agglo/scattering.h) at R_m = a n^(1/df), R_p = a n^(gamma/2). */
double agglo_friction_length(int law, double df, double gamma, double n, double a, double mfp);

#endif
