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

/* The standard error by blocking: 2048 values (blocks of 4 after two merges), the last half
   (256 blocks) in 16 runs of 64 equal values 0..15. Batches of 1..16 blocks see 16 or more
   batches; 32 blocks, 8 batches of means 0.5, 2.5, .., 14.5 (SE sqrt(3)); 64 blocks, 4 batches of
   means 1.5, 5.5, 9.5, 13.5: sd = sqrt(80/3), SE = sd / 2, the largest. Fewer than 4 blocks in
   the last half: NAN. */
static void standard_error_of_batches(void **st) {
  (void)st;
  agglo_half_mean h;
  agglo_half_mean_init(&h);
  for (int i = 0; i < 6; i++) agglo_half_mean_add(&h, i); /* 3 in the last half */
  assert_true(isnan(agglo_half_mean_stderr(&h)));
  agglo_half_mean_add(&h, 6); /* 4: values 3..6 */
  assert_true(fabs(agglo_half_mean_stderr(&h) - sqrt(5.0 / 12)) < 1e-14);
  agglo_half_mean_init(&h);
  for (int i = 0; i < 2048; i++) agglo_half_mean_add(&h, i < 1024 ? 100.0 : (double)((i - 1024) / 64));
  assert_true(fabs(agglo_half_mean_value(&h, NULL) - 7.5) < 1e-15);
  assert_true(fabs(agglo_half_mean_stderr(&h) - sqrt(80.0 / 3) / 2) < 1e-13);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exact_then_blocks),
      cmocka_unit_test(save_and_load),
      cmocka_unit_test(standard_error_of_batches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
