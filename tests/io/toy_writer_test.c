/* The toy writer (tests/io/toy_writer.c), added by one file and one line, writes at every
   stats.csv row: the same steps and times as stats.csv, and the total mass of the particles,
   which the dynamics conserve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agglo/agglo.h"
#include "support.h"

#define SCENARIO                                                                                   \
  "[run]\ndim = 2\nseed = 5\ndt = 0.02\nt_end = 0.3\n"                                            \
  "[particles]\nn = 40\nradius = 0.02\nradius_spread = 0.2\n"                                     \
  "[box]\nsize = 0.8\nboundary = periodic\n"                                                      \
  "[drag]\ntau = 0.2\n[brownian]\nsigma = 1\n"                                                    \
  "[output]\ntrajectory_interval = 0.1\nstats_interval = 0.06\n"

static void toy_rows_follow_stats(void **st) {
  (void)st;
  agglo_config *c = make_config(SCENARIO, NULL);
  assert_int_equal(system("rm -rf toy_run"), 0);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  double mass = 0;
  const double *m = agglo_sim_masses(sim);
  for (size_t i = 0; i < agglo_sim_count(sim); i++) mass += m[i];
  assert_int_equal(agglo_sim_attach_outputs(sim, "toy_run", AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_run(sim), AGGLO_OK);
  assert_int_equal(agglo_sim_close_outputs(sim), AGGLO_OK);
  agglo_sim_destroy(sim);
  FILE *toy = fopen("toy_run/toy.csv", "r"), *stats = fopen("toy_run/stats.csv", "r");
  assert_non_null(toy);
  assert_non_null(stats);
  char a[4096], b[4096];
  assert_non_null(fgets(a, sizeof a, toy));
  assert_string_equal(a, "step,time,mass\n");
  assert_non_null(fgets(b, sizeof b, stats));
  int rows = 0;
  while (fgets(b, sizeof b, stats)) {
    assert_non_null(fgets(a, sizeof a, toy));
    long long ts, ss;
    double tt, st_, tm;
    assert_int_equal(sscanf(a, "%lld,%lg,%lg", &ts, &tt, &tm), 3);
    assert_int_equal(sscanf(b, "%lg,%lld", &st_, &ss), 2);
    assert_int_equal(ts, ss);
    assert_true(tt == st_);
    assert_true(fabs(tm - mass) <= 1e-12 * mass);
    rows++;
  }
  assert_null(fgets(a, sizeof a, toy));
  assert_int_equal(rows, 6); /* steps 0, 3, ..., 15 (the end) */
  fclose(toy), fclose(stats);
  /* its file is one of agglo's own: another run's is refused (another run would mix with it) */
  assert_int_equal(system("rm toy_run/stats.csv toy_run/sizes.csv toy_run/trajectory.xyz "
                          "toy_run/state.xyz toy_run/contacts.txt toy_run/scenario.ini toy_run/snapshot_*.png"), 0);
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, "toy_run", AGGLO_OUTPUT_ALL), AGGLO_ERROR_IO);
  assert_non_null(strstr(agglo_last_error(), "(toy.csv)"));
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(toy_rows_follow_stats)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
