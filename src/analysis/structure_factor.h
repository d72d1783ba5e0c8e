/* Debye's pair sum behind agglo_structure_factor (docs/scattering.md), with the choice of the
   monomers' amplitudes that the optics needs too. */
#ifndef AGGLO_ANALYSIS_STRUCTURE_FACTOR_H
#define AGGLO_ANALYSIS_STRUCTURE_FACTOR_H
#include "agglo/scattering.h"

/* The amplitude of monomer i in I: volume weight times the sphere's (disc's) form factor, or the
   volume weight alone (Rayleigh monomers: the RDG optics). */
enum { AGGLO_AMPLITUDE_SPHERE = 0, AGGLO_AMPLITUDE_VOLUME = 1 };

/* agglo_structure_factor with the amplitude and the kernel's dimension (kernel_dim 3: sinc, 2:
   J0) apart from the radii's (disc or sphere volumes: dim). Arguments already checked by the
   caller except the pair and bin bounds; fn names the public function in messages. */
agglo_status agglo_debye_sum(const char *fn, const double *x, const double *r, size_t n, int dim,
                             int kernel_dim, int amplitude, const double *q, size_t nq,
                             const agglo_sq_options *o, double *S, double *intensity, double *error,
                             agglo_sq_info *info);

/* The sphere's form-factor amplitude 3 (sin x - x cos x) / x^3 and the disc's 2 J1(x) / x. */
double agglo_sphere_amplitude(double x);
double agglo_disc_amplitude(double x);

#endif
