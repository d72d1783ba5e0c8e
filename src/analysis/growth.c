/* The growth exponent of the mean cluster size, S(t) ~ t^z (docs/analysis.md, "Kinetics"). */
#include "agglo/analysis.h"
#include "analysis/line_fit.h"
#include <math.h>

double agglo_growth_exponent(const double *t, const double *size, size_t m, double t_lo,
                             double t_hi, double *se, size_t *used) {
  agglo_line_fit f = {0};
  for (size_t a = 0; a < m; a++)
    if (t[a] > 0 && size[a] > 0 && t[a] >= t_lo && t[a] <= t_hi)
      agglo_line_fit_add(&f, log(t[a]), log(size[a]));
  if (used) *used = (size_t)f.n;
  double z = agglo_line_fit_slope(&f);
  if (se) *se = isnan(z) ? NAN : agglo_line_fit_slope_se(&f, z);
  return z;
}
