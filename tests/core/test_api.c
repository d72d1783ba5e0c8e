/* The public C API as a user drives it (only include/agglo): a run cut into pieces equals one run
   byte for byte, a user's own start, callbacks that stop, and every misuse answered by a status
   and a message (never a crash). */
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

static const char *brownian =
    "[run]\ndim = 2\nseed = 3\ndt = 0.02\nt_end = 0.6\n"
    "[particles]\nn = 200\nradius = 0.01\nradius_spread = 0.1\n"
    "[box]\nsize = 0.6\nboundary = periodic\n"
    "[drag]\ntau = 0.2\n[brownian]\nsigma = 1\n"
    "[attraction]\nkappa = 0.003\nepsilon = 0.003\n"
    "[output]\ntrajectory_interval = 0.1\nstats_interval = 0\nsnapshots = 0.2, 0.5\npng_width = 120\n";

static agglo_config *config(const char *ini) {
  agglo_config *c = agglo_config_new();
  if (agglo_config_load_string(c, ini, "test.ini") != AGGLO_OK) fail_msg("%s", agglo_last_error());
  return c;
}

static void ok(agglo_status st) {
  if (st != AGGLO_OK) fail_msg("status %d: %s", st, agglo_last_error());
}

static char *slurp(const char *dir, const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("%s: cannot open", path);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  rewind(f);
  char *b = malloc(*len + 1);
  assert_int_equal(fread(b, 1, *len, f), *len);
  fclose(f);
  return b;
}

static void same_file(const char *a, const char *b, const char *name) {
  size_t la, lb;
  char *x = slurp(a, name, &la), *y = slurp(b, name, &lb);
  if (la != lb || memcmp(x, y, la)) fail_msg("%s differs between %s and %s", name, a, b);
  free(x);
  free(y);
}

/* One run, and the same run cut into step(7), step(6), run_until(0.31), run(): the same files. */
static void test_pieces_equal_one_run(void **st) {
  (void)st;
  agglo_config *c = config(brownian);
  agglo_sim *a, *b;
  ok(agglo_sim_create(c, &a));
  ok(agglo_sim_attach_outputs(a, "api_whole", AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE));
  ok(agglo_sim_run(a));
  ok(agglo_sim_create(c, &b));
  ok(agglo_sim_attach_outputs(b, "api_pieces", AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE));
  ok(agglo_sim_step(b, 7));
  assert_int_equal(agglo_sim_step_count(b), 7);
  ok(agglo_sim_step(b, 6));
  ok(agglo_sim_run_until(b, 0.31));
  assert_int_equal(agglo_sim_step_count(b), 16); /* the first step at t >= 0.31 */
  ok(agglo_sim_run(b));
  assert_int_equal(agglo_sim_step_count(b), 30);
  assert_memory_equal(agglo_sim_positions(a), agglo_sim_positions(b), 3 * 200 * sizeof(double));
  ok(agglo_sim_close_outputs(a));
  ok(agglo_sim_close_outputs(b));
  const char *files[] = {"trajectory.xyz", "stats.csv", "state.xyz", "contacts.txt",
                         "scenario.ini", "snapshot_000000010.png", "snapshot_000000025.png"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) same_file("api_whole", "api_pieces", files[k]);
  /* the views: time, box, labels */
  assert_float_equal(agglo_sim_time(b), 0.6, 1e-12);
  agglo_box box;
  ok(agglo_sim_box(b, &box));
  assert_float_equal(box.len[0], 0.6, 1e-12);
  assert_int_equal(box.periodic[0], AGGLO_PERIODIC);
  const int32_t *cl = agglo_sim_clusters(b);
  const int64_t *id = agglo_sim_ids(b);
  size_t roots = 0;
  for (size_t i = 0; i < 200; i++) roots += cl[i] == id[i];
  assert_int_equal(roots, agglo_sim_cluster_count(b)); /* each cluster labelled by its smallest id */
  agglo_sim_destroy(a);
  agglo_sim_destroy(b);
  agglo_config_destroy(c);
}

/* Two spheres of radius 0.1 sent at each other from x = -1 and 1 at speed 1 (event driven):
   they meet at t = (2 - 0.2) / 2 = 0.9, after which the model is finished. */
static void test_own_start_exact_collision(void **st) {
  (void)st;
  agglo_config *c = config("[run]\nmodel = ballistic\ndim = 2\nt_end = 100\n"
                           "[particles]\nn = 2\nradius = 0.1\nradius_spread = 0\n"
                           "[box]\nsize = 10\nboundary = periodic\n"
                           "[ballistic]\nmethod = event_driven\n");
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  double x[4] = {-1, 0, 1, 0}, v[6] = {1, 0, 0, -1, 0, 0};
  ok(agglo_sim_set_positions(sim, x, 2, 2));
  ok(agglo_sim_set_velocities(sim, v, 2, 3));
  assert_float_equal(agglo_sim_positions(sim)[3], 1, 0); /* stored as given (x of particle 1) */
  ok(agglo_sim_run(sim));
  assert_true(agglo_sim_finished(sim));
  assert_float_equal(agglo_sim_time(sim), 0.9, 1e-12);
  const double *p = agglo_sim_positions(sim);
  double d = p[3] - p[0];
  d -= 10 * round(d / 10); /* minimum image */
  double gap = fabs(d) - 0.2;
  assert_true(fabs(gap) < 1e-9);
  /* a finished simulation is not stepped */
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_ERROR_USAGE);
  assert_non_null(strstr(agglo_last_error(), "finished"));
  assert_int_equal(agglo_sim_run(sim), AGGLO_ERROR_USAGE);
  /* nor written after it started */
  assert_int_equal(agglo_sim_set_positions(sim, x, 2, 2), AGGLO_ERROR_USAGE);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* Two touching particles across the periodic face x = hi: unwrapped, the second stored sits one box
   length away (image count +-1), touching the first; the other axis is unchanged. */
static void test_unwrapped_positions(void **st) {
  (void)st;
  agglo_config *c = config("[run]\nmodel = contact\ndim = 2\n"
                           "[particles]\nn = 2\nradius = 0.1\nradius_spread = 0\n"
                           "[box]\nsize = 10\nboundary = periodic\n");
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  agglo_box b;
  ok(agglo_sim_box(sim, &b));
  double x[4] = {b.hi[0] - 0.1, 1, b.lo[0] + 0.1, 1}, u[6];
  ok(agglo_sim_set_positions(sim, x, 2, 2));
  ok(agglo_sim_unwrapped_positions(sim, u));
  const double *p = agglo_sim_positions(sim); /* the first one stored stays in the box */
  assert_float_equal(u[0], p[0], 0);
  assert_float_equal(fabs(u[3] - p[3]) / b.len[0], 1, 1e-12);
  assert_float_equal(fabs(u[3] - u[0]), 0.2, 1e-12);
  assert_float_equal(u[4], 1, 0);
  assert_int_equal(agglo_sim_unwrapped_positions(sim, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_unwrapped_positions(NULL, u), AGGLO_ERROR_USAGE);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* A snapshot's state at once: radii that grow while the particles move apart are accepted
   together (each alone would overlap), a bad value changes nothing; between steps where the
   model can go on from it. */
static void test_set_state_at_once(void **st) {
  (void)st;
  agglo_config *c = config("[run]\nmodel = contact\ndim = 2\n"
                           "[particles]\nn = 2\nradius = 0.1\nradius_spread = 0\n"
                           "[box]\nsize = 10\nboundary = periodic\n");
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  double x0[6] = {1, 1, 0, 1.3, 1, 0};
  ok(agglo_sim_set_state(sim, 2, x0, NULL, NULL, NULL));
  double x[6] = {1, 1, 0, 2, 1, 0}, v[6] = {1, 0, 0, -1, 0, 0}, r[2] = {0.4, 0.5};
  assert_int_equal(agglo_sim_set_radii(sim, r, 2), AGGLO_ERROR_INPUT); /* overlaps at x0 */
  double bad_m[2] = {1, -1};
  assert_int_equal(agglo_sim_set_state(sim, 2, x, v, r, bad_m), AGGLO_ERROR_INPUT);
  assert_float_equal(agglo_sim_positions(sim)[3], 1.3, 0); /* nothing changed */
  ok(agglo_sim_set_state(sim, 2, x, v, r, NULL));
  assert_float_equal(agglo_sim_positions(sim)[3], 2, 0);
  assert_float_equal(agglo_sim_radii(sim)[1], 0.5, 0);
  assert_float_equal(agglo_sim_masses(sim)[1], 125, 1e-12); /* mass_rule = volume: (0.5/0.1)^3 */
  assert_float_equal(agglo_sim_velocities(sim)[3], -1, 0);
  /* between steps: the contact model takes it (its memory is the solver's warm start) */
  ok(agglo_sim_step(sim, 1));
  ok(agglo_sim_set_state(sim, 2, x, NULL, NULL, NULL));
  assert_float_equal(agglo_sim_positions(sim)[3], 2, 0);
  ok(agglo_sim_step(sim, 1));
  assert_int_equal(agglo_sim_step_count(sim), 2);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  /* the ballistic model's links would not fit a new state: refused after the first step */
  c = config("[run]\nmodel = ballistic\ndim = 2\n[particles]\nn = 2\nradius = 0.1\n"
             "radius_spread = 0\n[box]\nsize = 10\nboundary = periodic\n");
  ok(agglo_sim_create(c, &sim));
  ok(agglo_sim_step(sim, 1));
  assert_int_equal(agglo_sim_set_state(sim, 2, x, NULL, NULL, NULL), AGGLO_ERROR_USAGE);
  assert_non_null(strstr(agglo_last_error(), "ballistic (time stepping) model takes a new state only before"));
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

typedef struct {
  int64_t stop_at;
  int calls;
} stopper;

static int stop_cb(agglo_sim *sim, void *user) {
  stopper *s = user;
  s->calls++;
  return agglo_sim_step_count(sim) >= s->stop_at;
}

static void test_callback_stops(void **st) {
  (void)st;
  agglo_config *c = config(brownian);
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  ok(agglo_sim_attach_outputs(sim, "api_stop", AGGLO_OUTPUT_STATS | AGGLO_OUTPUT_STATE | AGGLO_OUTPUT_OVERWRITE));
  stopper s = {12, 0};
  ok(agglo_sim_set_callback(sim, 3, stop_cb, &s));
  assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
  assert_int_equal(agglo_sim_step_count(sim), 12);
  assert_int_equal(s.calls, 4); /* steps 3, 6, 9, 12 */
  size_t len;
  char *state = slurp("api_stop", "state.xyz", &len);
  assert_non_null(strstr(state, "Step=12 "));
  free(state);
  /* the run goes on after a stop when asked, and ends as if never stopped */
  ok(agglo_sim_set_callback(sim, 1, NULL, NULL));
  ok(agglo_sim_run(sim));
  assert_int_equal(agglo_sim_step_count(sim), 30);
  agglo_sim_destroy(sim);
  agglo_sim *whole;
  ok(agglo_sim_create(c, &whole));
  ok(agglo_sim_attach_outputs(whole, "api_nostop", AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE));
  ok(agglo_sim_run(whole));
  agglo_sim_destroy(whole);
  ok(agglo_sim_create(c, &sim));
  ok(agglo_sim_attach_outputs(sim, "api_stop2", AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE));
  s.stop_at = 9; /* off the trajectory's schedule (every 5 steps) */
  ok(agglo_sim_set_callback(sim, 1, stop_cb, &s));
  assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
  s.stop_at = 1000;
  ok(agglo_sim_run(sim));
  agglo_sim_destroy(sim);
  same_file("api_nostop", "api_stop2", "trajectory.xyz");
  same_file("api_nostop", "api_stop2", "stats.csv");
  same_file("api_nostop", "api_stop2", "state.xyz");
  agglo_config_destroy(c);
}

static void test_misuse(void **st) {
  (void)st;
  /* NULL handles */
  assert_int_equal(agglo_sim_step(NULL, 1), AGGLO_ERROR_USAGE);
  assert_non_null(strstr(agglo_last_error(), "NULL"));
  assert_int_equal(agglo_sim_run(NULL), AGGLO_ERROR_USAGE);
  assert_null(agglo_sim_positions(NULL));
  assert_int_equal(agglo_sim_count(NULL), 0);
  assert_int_equal(agglo_config_load(NULL, "x.ini"), AGGLO_ERROR_USAGE);
  agglo_sim_destroy(NULL);
  /* settings: unknown key, bad value with its range, missing file */
  agglo_config *c = config(brownian);
  assert_int_equal(agglo_config_set(c, "particles.radiuss", "1"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "unknown key 'radiuss' in section [particles]"));
  assert_int_equal(agglo_config_set(c, "run.dt", "-1"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "allowed: > 0"));
  assert_int_equal(agglo_config_load(c, "no/such.ini"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "no/such.ini: cannot open"));
  assert_int_equal(agglo_config_load_string(c, "[run]\ndt = fast\n", "bad.ini"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "bad.ini:2: run.dt"));
  char buf[64];
  ok(agglo_config_set(c, "run.dt", "0.02"));
  ok(agglo_config_get(c, "run.dt", buf, sizeof buf));
  assert_string_equal(buf, "0.02");
  assert_int_equal(agglo_config_get(c, "run.dt", buf, 2), AGGLO_ERROR_INPUT);
  /* the user's start: wrong length, NaN, overlap, wall; nothing changes on failure */
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  size_t n = agglo_sim_count(sim);
  double *x = malloc(3 * n * sizeof *x);
  memcpy(x, agglo_sim_positions(sim), 3 * n * sizeof *x);
  assert_int_equal(agglo_sim_set_positions(sim, x, n - 1, 3), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "199 particles given, the simulation has 200"));
  assert_int_equal(agglo_sim_set_positions(sim, x, n, 4), AGGLO_ERROR_INPUT);
  x[7] = NAN;
  assert_int_equal(agglo_sim_set_positions(sim, x, n, 3), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "particle 2: coordinate 1 is nan"));
  x[7] = x[4];
  x[6] = x[3]; /* particle 2 onto particle 1 */
  assert_int_equal(agglo_sim_set_positions(sim, x, n, 3), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "overlap"));
  assert_true(agglo_sim_positions(sim)[6] != x[6] || agglo_sim_positions(sim)[7] != x[7]);
  double r[200];
  for (size_t i = 0; i < n; i++) r[i] = agglo_sim_radii(sim)[i];
  r[5] = -1;
  assert_int_equal(agglo_sim_set_radii(sim, r, n), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "particle 5: -1 (allowed: positive and finite)"));
  /* bad arguments of the verbs */
  assert_int_equal(agglo_sim_step(sim, -1), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_run_until(sim, NAN), AGGLO_ERROR_INPUT);
  /* a time already passed took no step and said OK */
  assert_int_equal(agglo_sim_run_until(sim, -1), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "t = -1 is before the simulation's time 0"));
  assert_int_equal(agglo_sim_set_callback(sim, 0, stop_cb, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_attach_outputs(sim, "/proc/no/such/dir", AGGLO_OUTPUT_STATS), AGGLO_ERROR_IO);
  assert_non_null(strstr(agglo_last_error(), "cannot create directory"));
  assert_int_equal(agglo_sim_attach_outputs(sim, "x", 64), AGGLO_ERROR_INPUT);
  free(x);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* A run whose solver may not finish (one iteration, solver.on_failure = stop) fails with a
   message, keeps its state finite and refuses to go on. */
static void test_failed_run_refuses_more_steps(void **st) {
  (void)st;
  agglo_config *c = config(brownian);
  ok(agglo_config_set(c, "solver.max_iter", "1"));
  ok(agglo_config_set(c, "solver.on_failure", "stop"));
  ok(agglo_config_set(c, "particles.n", "400"));
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  assert_int_equal(agglo_sim_run(sim), AGGLO_ERROR_RUN);
  assert_non_null(strstr(agglo_last_error(), "did not converge"));
  int64_t step = agglo_sim_step_count(sim);
  const double *x = agglo_sim_positions(sim);
  for (size_t i = 0; i < 3 * agglo_sim_count(sim); i++) assert_true(isfinite(x[i]));
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_ERROR_USAGE);
  assert_non_null(strstr(agglo_last_error(), "failed"));
  assert_int_equal(agglo_sim_step_count(sim), step);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* A stop request (issue 41) before a call: the call stops at once, nothing run, and the next
   one goes on; a NULL handle is a usage error without a message (signal handlers). */
static void test_request_stop(void **st) {
  (void)st;
  agglo_config *c = config(brownian);
  ok(agglo_config_set(c, "particles.n", "100"));
  agglo_sim *sim;
  ok(agglo_sim_create(c, &sim));
  assert_int_equal(agglo_sim_request_stop(NULL), AGGLO_ERROR_USAGE);
  ok(agglo_sim_request_stop(sim));
  assert_int_equal(agglo_sim_step(sim, 3), AGGLO_STOPPED);
  assert_non_null(strstr(agglo_last_error(), "stopped on request at step 0"));
  assert_int_equal(agglo_sim_step_count(sim), 0);
  ok(agglo_sim_step(sim, 3));
  assert_int_equal(agglo_sim_step_count(sim), 3);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_request_stop),
      cmocka_unit_test(test_pieces_equal_one_run),
      cmocka_unit_test(test_own_start_exact_collision),
      cmocka_unit_test(test_unwrapped_positions),
      cmocka_unit_test(test_set_state_at_once),
      cmocka_unit_test(test_callback_stops),
      cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_failed_run_refuses_more_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
