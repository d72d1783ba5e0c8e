/* The mean over the last half of a series in block sums (src/models/dpd_half_mean.c): exact below 1024
   values, block-aligned beyond, and the same after a save/load at any point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/dpd_half_mean.h"

static void exact_then_blocks(void **st) {
  (void)st;
  agglo_half_mean h;
  agglo_half_mean_init(&h);
  int64_t n;
  assert_true(isnan(agglo_half_mean_value(&h, &n)) && n == 0);
  for (int k = 1; k <= 5000; k++) {
    agglo_half_mean_add(&h, k);
    if (k == 7) { /* values 4..7 (indices 3..6: 7/2 = 3) */
      assert_true(agglo_half_mean_value(&h, &n) == 5.5 && n == 4);
    }
    if (k == 1000) assert_true(agglo_half_mean_value(&h, &n) == 750.5 && n == 500);
  }
  /* 5000 values: blocks of 8 after three merges (at 1024, 2048, 4096), 625 of them; the first
     block starting in the second half starts at index 2504 */
  assert_int_equal(h.block, 8);
  assert_int_equal(h.nb, 625);
  assert_true(agglo_half_mean_value(&h, &n) == 3752.5 && n == 2496);
}

static void save_and_load(void **st) {
  (void)st;
  agglo_half_mean a, b;
  agglo_half_mean_init(&a);
  for (int k = 0; k < 3001; k++) agglo_half_mean_add(&a, sin(k) + 1.0 / 3);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(agglo_half_mean_save(&a, f), 0);
  rewind(f);
  assert_int_equal(agglo_half_mean_load(&b, f), 0);
  fclose(f);
  for (int k = 3001; k < 7000; k++) agglo_half_mean_add(&a, sin(k)), agglo_half_mean_add(&b, sin(k));
  assert_true(memcmp(&a, &b, sizeof a) == 0);
  assert_true(agglo_half_mean_value(&a, NULL) == agglo_half_mean_value(&b, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exact_then_blocks),
      cmocka_unit_test(save_and_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
