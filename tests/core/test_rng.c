/* The vectorised Philox of the contact model's noise (agglo_rng_philox8, normals from its words)
   gives the bits of the one-id functions: the noise of a run must not depend on which is used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/rng.h"

static void philox8_matches_one_by_one(void **st) {
  (void)st;
  /* ids and steps across the 32-bit halves, seeds with both halves set */
  const uint64_t seeds[3] = {1, 0x123456789abcdefULL, UINT64_MAX};
  const uint64_t steps[3] = {0, 77, (1ULL << 40) + 5};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      /* many ids at one step (the contact noise), then one id at many steps (DLCA flights) */
      for (int mode = 0; mode < 2; mode++) {
        uint64_t ids[8], st[8];
        for (int l = 0; l < 8; l++) {
          ids[l] = mode ? 0x9e3779b97f4a7c15ULL + (uint64_t)a : (uint64_t)l * 0x9e3779b97f4a7c15ULL + (uint64_t)a;
          st[l] = mode ? steps[b] + (uint64_t)l * 0xffffffffULL : steps[b];
        }
        uint32_t w[4][8];
        agglo_rng_philox8(seeds[a], 3, st, ids, w);
        for (int l = 0; l < 8; l++) {
          double u[4], v[4], z2[2], z4[4], y[4];
          agglo_rng_uniform4(seeds[a], 3, st[l], ids[l], u);
          uint32_t r[4] = {w[0][l], w[1][l], w[2][l], w[3][l]};
          agglo_rng_uniform_words(r, v);
          assert_memory_equal(u, v, sizeof u);
          agglo_rng_normal2(seeds[a], 3, st[l], ids[l], z2);
          agglo_rng_normal_words(r, 2, y);
          assert_memory_equal(z2, y, sizeof z2);
          agglo_rng_normal4(seeds[a], 3, st[l], ids[l], z4);
          agglo_rng_normal_words(r, 4, y);
          assert_memory_equal(z4, y, sizeof z4);
        }
      }
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(philox8_matches_one_by_one)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
