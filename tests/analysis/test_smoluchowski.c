/* Smoluchowski's equation against its exact solutions (monodisperse start n_1(0) = 1), and the
   growth exponent fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include "agglo/analysis.h"

static agglo_smoluchowski_options options(int kernel, size_t kmax) {
  return (agglo_smoluchowski_options){kernel, 3, 0, kmax, 1000000};
}

/* K = 1: n_k = (1 + T)^-2 (T / (1 + T))^(k-1), T = t/2. */
static void constant_kernel_is_exact(void **st) {
  (void)st;
  agglo_smoluchowski_options o = options(AGGLO_KERNEL_CONSTANT, 200);
  double *n = calloc(o.kmax, sizeof *n), lost, worst = 0;
  n[0] = 1;
  int64_t steps;
  double t = 8, T = t / 2;
  assert_int_equal(agglo_smoluchowski_solve(&o, t, n, &lost, &steps), AGGLO_OK);
  for (size_t k = 1; k <= 40; k++) {
    double exact = pow(1 + T, -2) * pow(T / (1 + T), (double)k - 1);
    worst = fmax(worst, fabs(n[k - 1] - exact) / exact);
  }
  print_message("constant kernel, t = %g: largest relative error of n_1..n_40 %.2e, %lld steps, "
                "mass lost %.1e\n", t, worst, (long long)steps, lost);
  assert_true(worst < 1e-6);
  assert_true(lost < 1e-12);
  free(n);
}

/* K = i + j: n_k = (1 - T) (k T)^(k-1) e^(-k T) / k!, T = 1 - e^-t (the mass is 1). */
static void additive_kernel_is_exact(void **st) {
  (void)st;
  agglo_smoluchowski_options o = options(AGGLO_KERNEL_ADDITIVE, 300);
  double *n = calloc(o.kmax, sizeof *n), lost, worst = 0, worst_number = 0;
  n[0] = 1;
  double t = 1, T = 1 - exp(-t), number = 0;
  assert_int_equal(agglo_smoluchowski_solve(&o, t, n, &lost, NULL), AGGLO_OK);
  for (size_t k = 1; k <= 40; k++) {
    double exact = exp(log(1 - T) + ((double)k - 1) * log((double)k * T) - (double)k * T - lgamma((double)k + 1));
    worst = fmax(worst, fabs(n[k - 1] - exact) / exact);
  }
  for (size_t k = 0; k < o.kmax; k++) number += n[k];
  worst_number = fabs(number - exp(-t)) / exp(-t); /* N(t) = e^-t */
  print_message("additive kernel, t = %g: largest relative error of n_1..n_40 %.2e, of N %.2e, "
                "mass lost %.1e\n", t, worst, worst_number, lost);
  assert_true(worst < 1e-6 && worst_number < 1e-6);
  assert_true(lost < 1e-6);
  free(n);
}

/* The fit recovers the time scale of a solution sampled at t = tau / 4, and a power law's
   exponent and its error. */
static void fits_recover_scale_and_exponent(void **st) {
  (void)st;
  agglo_smoluchowski_options o = options(AGGLO_KERNEL_CONSTANT, 400);
  double t[20], s[20];
  for (int a = 0; a < 20; a++) t[a] = 4.0 * (a + 1), s[a] = 1 + t[a] / 4 / 2; /* K = 1: S = 1 + tau/2 */
  agglo_smoluchowski_fit_result r;
  assert_int_equal(agglo_smoluchowski_fit(&o, t, s, 20, &r, NULL, NULL, NULL, 0), AGGLO_OK);
  print_message("time scale %.6f (exact 0.25), deviation %.1e over %zu points\n", r.scale,
                r.max_deviation, r.compared);
  assert_true(fabs(r.scale - 0.25) < 1e-3 && r.max_deviation < 1e-3 && r.points == 20);
  for (int a = 0; a < 20; a++) s[a] = 3 * pow(t[a], 0.8) * (a % 2 ? 1.01 : 0.99);
  double se;
  size_t used;
  double z = agglo_growth_exponent(t, s, 20, 0, INFINITY, &se, &used);
  print_message("z = %.4f +- %.4f (0.8 with 1%% noise)\n", z, se);
  assert_true(used == 20 && fabs(z - 0.8) < 3 * se && se > 0 && se < 0.02);
  /* a window keeps its points; fewer than two give NAN */
  z = agglo_growth_exponent(t, s, 20, 10, 30, &se, &used);
  assert_true(used == 5 && isfinite(z));
  assert_true(isnan(agglo_growth_exponent(t, s, 20, 5, 7, &se, &used)) && used == 0);
  /* bad options are refused */
  o.kmax = 1;
  assert_int_equal(agglo_smoluchowski_fit(&o, t, s, 20, &r, NULL, NULL, NULL, 0), AGGLO_ERROR_INPUT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(constant_kernel_is_exact),
      cmocka_unit_test(additive_kernel_is_exact),
      cmocka_unit_test(fits_recover_scale_and_exponent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
