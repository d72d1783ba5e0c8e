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
  return (agglo_smoluchowski_options){.kernel = kernel, .dim = 3, .kmax = kmax, .max_steps = 1000000};
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

/* Fuchs's kernel: the continuum's 4 pi (D_i + D_j)(r_i + r_j) when the persistence lengths
   8 D / (pi c) are short, kinetic theory's pi (r_i + r_j)^2 sqrt(c_i^2 + c_j^2) when long; in the
   solver's units the Brownian kernel as the persistence goes to 0 (the aggregates' friction then
   Stokes's of i^(1/df)); a 2D Fuchs kernel refused. */
static void fuchs_kernel_limits(void **st) {
  (void)st;
  double b = agglo_fuchs_kernel(1, 2, 3, 0.5, 1e9, 2e9), want = 4 * M_PI * 3.5 * 3;
  assert_true(fabs(b / want - 1) < 1e-6);
  b = agglo_fuchs_kernel(1, 2, 3e9, 0.5e9, 1, 2), want = M_PI * 9 * sqrt(5);
  assert_true(fabs(b / want - 1) < 1e-6);
  agglo_smoluchowski_options o = {AGGLO_KERNEL_FUCHS, 3, 1.8, 16, 1000, 1e-7, 0, 0, 0};
  for (int i = 1; i <= 16; i += 5)
    for (int j = 1; j <= 16; j += 3) {
      double k = agglo_smoluchowski_kernel_of(&o, i, j), br = agglo_smoluchowski_kernel(AGGLO_KERNEL_BROWNIAN, 3, 1.8, i, j);
      assert_true(fabs(k / br - 1) < 1e-5); /* the continuum to 3e-7 at persistence 1e-7 */
    }
  double n[16] = {1};
  o.dim = 2;
  assert_int_equal(agglo_smoluchowski_solve(&o, 1, n, NULL, NULL), AGGLO_ERROR_INPUT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(constant_kernel_is_exact),
      cmocka_unit_test(additive_kernel_is_exact),
      cmocka_unit_test(fits_recover_scale_and_exponent),
      cmocka_unit_test(fuchs_kernel_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
