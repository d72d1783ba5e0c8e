#include "analysis/spheres.h"
#include "core/error.h"
#include <math.h>

agglo_status agglo_check_spheres(const char *fn, const double *x, const double *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (r && (!(r[i] > 0) || !isfinite(r[i])))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: r[%zu] = %g (must be finite and > 0)", fn, i, r[i]);
    for (size_t k = 3 * i; k < 3 * i + 3; k++)
      if (!isfinite(x[k])) return agglo_error(AGGLO_ERROR_INPUT, "%s: x[%zu] = %g is not finite", fn, k, x[k]);
  }
  return AGGLO_OK;
}
