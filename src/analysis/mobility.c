/* The mobility law of aggregates (docs/dlca.md, "The mobility of a cluster"). */
#include "analysis/mobility.h"
#include <math.h>

double agglo_cunningham(double kn) { return kn > 0 ? 1 + kn * (1.165 + 0.483 * exp(-0.997 / kn)) : 1; }

/* [choice] The adjusted sphere (Dahneke 1973; Zhang et al. 2012): R_m / C_c(Kn_adj),
   Kn_adj = lambda_g R_m / R_p^2, R_m = a n^(1/df) the continuum mobility radius and R_p = a
   n^(gamma/2) the radius of the sphere of the cluster's orientation-averaged projected area
   (gamma 0.92: Meakin, Donn & Mulholland 1989; Sorensen 2011). As Kn -> 0 the continuum's
   6 pi mu R_m; as Kn -> infinity the free molecular friction of its projected area, a monomer's
   times n^gamma <= n. The mobility sphere (the former law): R_m / C_c(lambda_g / R_m), whose
   free molecular friction grows like n^(2/df), above n monomers'. */
double agglo_friction_length(int law, double df, double gamma, double n, double a, double mfp) {
  double Rm = a * pow(n, 1 / df);
  if (!(mfp > 0)) return Rm;
  if (law == AGGLO_MOBILITY_SPHERE) return Rm / agglo_cunningham(mfp / Rm);
  return Rm / agglo_cunningham(mfp * Rm / (a * a * pow(n, gamma > 0 ? gamma : 0.92)));
}
