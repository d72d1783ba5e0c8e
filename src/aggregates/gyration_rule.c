/* The rule every joining obeys: the union of two clusters has the radius of gyration the fractal
   law prescribes for its monomers, N = k_f (R_g / a)^D_f, with a the geometric mean radius of its
   monomers (FracVAL's generalisation to polydisperse monomers, Moran et al. 2019) and R_g that of
   the centres weighted by mass a^3 (docs/aggregates.md). Parallel axes give the distance between
   the two centres of mass that makes it so (Filippov et al. 2000, eq. for Gamma). */
#include "aggregates/cluster.h"
#include <math.h>

double agg_rg_target(size_t n, double log_a, double df, double kf) {
  return exp(log_a / (double)n) * pow((double)n / kf, 1.0 / df);
}

double agg_gamma(double m1, double rg1, double m2, double rg2, double rg) {
  double m = m1 + m2;
  double g2 = m / (m1 * m2) * (m * rg * rg - m1 * rg1 * rg1 - m2 * rg2 * rg2);
  return g2 < 0 ? -1.0 : sqrt(g2);
}

void agg_cluster_measure(const agg_state *s, size_t first, size_t n, agg_cluster *c) {
  double mass = 0, cm[3] = {0, 0, 0}, la = 0;
  for (size_t i = first; i < first + n; i++) {
    mass += s->m[i], la += log(s->r[i]);
    for (int k = 0; k < 3; k++) cm[k] += s->m[i] * s->x[3 * i + k];
  }
  for (int k = 0; k < 3; k++) cm[k] /= mass;
  double q = 0;
  for (size_t i = first; i < first + n; i++)
    for (int k = 0; k < 3; k++) {
      double d = s->x[3 * i + k] - cm[k];
      q += s->m[i] * d * d;
    }
  *c = (agg_cluster){.first = first, .n = n, .mass = mass, .c = {cm[0], cm[1], cm[2]},
                     .rg = sqrt(q / mass), .log_a = la};
}
