/* The neighbour list (src/core/cells.c) against every pair tested one by one: the cell scan (and
   its 4-lane path on AVX2 builds) must list exactly the pairs j > i whose gap is below
   cutoff + skin, ascending, whatever the box (periodic or walled, few or many cells) and the
   thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "support.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/cells.h"
#include "core/system.h"

/* n particles in [0, L)^dim, radii r (1 +- spread), positions from a fixed LCG (portable) */
static void make_system(agglo_system *s, int dim, size_t n, double L, int periodic, double r,
                        double spread, uint64_t seed) {
  assert_int_equal(agglo_system_alloc(s, dim, n), 0);
  cube_box(&s->box, dim, L, periodic);
  uint64_t q = seed;
  for (size_t i = 0; i < n; i++) {
    double u[4];
    for (int k = 0; k < 4; k++) {
      q = q * 6364136223846793005ULL + 1442695040888963407ULL;
      u[k] = (double)(q >> 11) * 0x1p-53;
    }
    for (int k = 0; k < 3; k++) s->x[3 * i + k] = k < dim ? L * u[k] : 0;
    s->r[i] = r * (1 + spread * (2 * u[3] - 1));
    s->m[i] = 1, s->inv_m[i] = 1;
  }
}

/* x_j - x_i by the minimum image (every axis, the list's own rounding) */
static double dist2(const agglo_system *s, size_t i, size_t j) {
  double q = 0;
  for (int k = 0; k < s->dim; k++) {
    double d = s->x[3 * j + k] - s->x[3 * i + k];
    if (s->box.periodic[k]) d -= s->box.len[k] * rint(d / s->box.len[k]);
    q += d * d;
  }
  return q;
}

/* the list equals the pairs found one by one; no pair sits within 1e-9 of the limit, where the
   two roundings could disagree */
static void check_list(const agglo_system *s, double cutoff, double skin, int threads) {
  omp_set_num_threads(threads);
  agglo_neighbors nb = {0};
  assert_int_equal(agglo_neighbors_build(&nb, s, cutoff, skin), 0);
  size_t total = 0;
  for (size_t i = 0; i < s->n; i++) {
    size_t p = nb.start[i];
    for (size_t j = i + 1; j < s->n; j++) {
      double lim = cutoff + skin + s->r[i] + s->r[j], q = dist2(s, i, j);
      assert_true(fabs(sqrt(q) - lim) > 1e-9);
      if (q < lim * lim) {
        assert_true(p < nb.start[i + 1]);
        assert_int_equal(nb.nbr[p], (int32_t)j);
        p++;
      }
    }
    assert_int_equal(p, nb.start[i + 1]);
    total += nb.start[i + 1] - nb.start[i];
  }
  assert_int_equal(total, nb.npairs);
  agglo_neighbors_free(&nb);
  omp_set_num_threads(1);
}

static void list_is_every_pair_within_reach(void **st) {
  (void)st;
  /* sizes around the 4-lane blocks, periodic and walled boxes, boxes of 1 to many cells */
  const size_t ns[] = {1, 2, 3, 5, 7, 64, 333, 2500};
  const double Ls[] = {0.05, 0.3, 1.0};
  for (int dim = 2; dim <= 3; dim++)
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (size_t b = 0; b < sizeof Ls / sizeof *Ls; b++)
        for (int per = 0; per < 2; per++) {
          size_t n = dim == 3 && ns[a] > 1000 ? 800 : ns[a];
          agglo_system s;
          make_system(&s, dim, n, Ls[b], per ? AGGLO_PERIODIC : AGGLO_WALL, 0.01, 0.2,
                      (uint64_t)(17 * a + 5 * b + per + 100 * dim));
          check_list(&s, 0.03, 0.0, 1);
          check_list(&s, 0.005, 0.01, 1);
          if (n > 2048) check_list(&s, 0.03, 0.0, 2); /* (the scan runs on a team from 2048) */
          agglo_system_free(&s);
        }
}

/* a dense periodic 2D packing as the contact bench's (area fraction 0.2, many partners per cell
   range): the case the 4-lane path is for */
static void list_of_the_contact_case(void **st) {
  (void)st;
  agglo_system s;
  size_t n = 4000;
  double L = sqrt((double)n * M_PI * 1e-4 / 0.2);
  make_system(&s, 2, n, L, AGGLO_PERIODIC, 0.01, 0.15, 7);
  check_list(&s, 0.035, 0.0, 1);
  check_list(&s, 0.035, 0.0, 2);
  agglo_system_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(list_is_every_pair_within_reach),
      cmocka_unit_test(list_of_the_contact_case),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
