/* The mobility law of aggregates (docs/dlca.md, "The mobility of a cluster"). */
#include "analysis/mobility.h"
#include "agglo/scattering.h"
#include <math.h>

double agglo_cunningham(double kn) { return kn > 0 ? 1 + kn * (1.165 + 0.483 * exp(-0.997 / kn)) : 1; }

/* [choice] The adjusted sphere (Dahneke 1973; Zhang et al. 2012): R_m / C_c(Kn_adj),
   Kn_adj = lambda_g R_m / R_p^2, R_m the continuum mobility radius and R_p the radius of the
   sphere of the cluster's orientation-averaged projected area. As Kn -> 0 the continuum's
   6 pi mu R_m; as Kn -> infinity the free molecular friction of its projected area. The mobility
   sphere (the former law): R_m / C_c(lambda_g / R_m), whose free molecular friction grows like
   R_m^2, above n monomers' for a fractal. One formula for the dlca model (through
   agglo_friction_length) and for a measured aggregate (`agglo analyze --mobility`, whose R_p
   comes from its projected area). */
static double friction(int law, double Rm, double Rp2, double mfp) {
  if (!(mfp > 0)) return Rm;
  if (law == AGGLO_MOBILITY_SPHERE) return Rm / agglo_cunningham(mfp / Rm);
  return Rm / agglo_cunningham(mfp * Rm / Rp2);
}

double agglo_mobility_friction_length(int law, double Rm, double Rp, double mfp) {
  return friction(law, Rm, Rp * Rp, mfp);
}

/* The dlca model's radii of n particles: R_m = a n^(1/df), R_p^2 = a^2 n^gamma (gamma 0.92:
   Meakin, Donn & Mulholland 1989; Sorensen 2011). */
double agglo_friction_length(int law, double df, double gamma, double n, double a, double mfp) {
  return friction(law, a * pow(n, 1 / df), a * a * pow(n, gamma > 0 ? gamma : 0.92), mfp);
}

/* r / C_c(mfp / r) increases with r (from 0 to infinity): bisection finds it. */
double agglo_mobility_radius(double f, double mfp) {
  if (!(f > 0) || !isfinite(f)) return NAN;
  if (!(mfp > 0)) return f;
  double lo = f * 1e-12, hi = f; /* r / C_c <= r: the radius is at least f */
  for (int k = 0; k < 2100 && hi / agglo_cunningham(mfp / hi) < f; k++) hi *= 2;
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid / agglo_cunningham(mfp / mid) < f) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}
