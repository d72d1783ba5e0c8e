/* The growth exponent of the mean cluster size, S(t) ~ t^z (docs/analysis.md, "Kinetics"). */
#include "agglo/analysis.h"
#include <math.h>

double agglo_growth_exponent(const double *t, const double *size, size_t m, double t_lo,
                             double t_hi, double *se, size_t *used) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  size_t n = 0;
  for (size_t a = 0; a < m; a++) {
    if (!(t[a] > 0) || !(size[a] > 0) || t[a] < t_lo || t[a] > t_hi) continue;
    double x = log(t[a]), y = log(size[a]);
    sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y, n++;
  }
  if (used) *used = n;
  if (se) *se = NAN;
  double N = (double)n, den = N * sxx - sx * sx;
  if (n < 2 || !(den > 0)) return NAN;
  double z = (N * sxy - sx * sy) / den;
  if (se && n > 2) { /* residual variance / sum of squared deviations of log t */
    double a = (sy - z * sx) / N, rss = syy - 2 * a * sy - 2 * z * sxy + N * a * a + 2 * a * z * sx + z * z * sxx;
    *se = sqrt(fmax(rss, 0) / (N - 2) / (sxx - sx * sx / N));
  }
  return z;
}
