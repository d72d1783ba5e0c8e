/* The user's writers (agglo_sim_add_writer): a file written by a callback on a trigger, cut back
   and continued by a resumed run so that it equals an uninterrupted run's byte for byte (a stop
   by SIGTERM and one by a callback, text and HDF5 restart points); a saved writer not added
   again refused, naming it; the checks of the call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agglo/agglo.h"
#include "support.h"

/* 2D Brownian aggregation, 25 steps of 0.02, with a restart point every stats row. */
#define SCENARIO                                                                                   \
  "[run]\ndim = 2\nseed = 5\ndt = 0.02\nt_end = 0.5\n"                                            \
  "[particles]\nn = 60\nradius = 0.02\n"                                                          \
  "[box]\nsize = 0.8\nboundary = periodic\n"                                                      \
  "[drag]\ntau = 0.2\n[brownian]\nsigma = 1\n"                                                    \
  "[attraction]\nkappa = 0.003\nepsilon = 0.003\n"                                                \
  "[output]\ntrajectory_interval = 0.1\nstats_interval = 0.04\n"

static void clean(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static char *slurp(const char *dir, const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("%s: cannot open", path);
  char *b = malloc(1 << 20);
  assert_non_null(b);
  *len = fread(b, 1, (1 << 20) - 1, f);
  b[*len] = 0;
  fclose(f);
  return b;
}

static void assert_same_file(const char *d1, const char *d2, const char *name) {
  size_t la, lb;
  char *a = slurp(d1, name, &la), *b = slurp(d2, name, &lb);
  if (la != lb || memcmp(a, b, la) != 0) fail_msg("%s/%s and %s/%s differ (%zu and %zu bytes)", d1, name, d2, name, la, lb);
  free(a), free(b);
}

/* A measurement of its own: the step, the time, the mean x of the particles and the clusters. */
static int measure(agglo_sim *sim, int64_t step, agglo_writer_output *out, void *user) {
  (void)user;
  const double *x = agglo_sim_positions(sim);
  size_t n = agglo_sim_count(sim);
  double mean = 0;
  for (size_t i = 0; i < n; i++) mean += x[3 * i] / (double)n;
  char line[160];
  int len = snprintf(line, sizeof line, "%lld,%.10g,%.17g,%zu\n", (long long)step, agglo_sim_time(sim),
                     mean, agglo_sim_cluster_count(sim));
  return agglo_writer_append(out, line, (size_t)len) != AGGLO_OK;
}

/* SIGTERM to this process at the step in *user (a step callback), whose handler asks the run
   to stop, as the command line's does. */
static agglo_sim *running;
static void on_sigterm(int sig) {
  (void)sig;
  agglo_sim_request_stop(running);
}
static int kill_at_step(agglo_sim *sim, void *user) {
  if (agglo_sim_step_count(sim) == *(int64_t *)user) raise(SIGTERM);
  return 0;
}

static const double times[] = {0.05, 0.13, 0.13, 0.31, 0.47};

/* Two writers: every 3 steps and at the end; at a list of times (two within one step). */
static void add_writers(agglo_sim *sim) {
  agglo_trigger_spec every3 = {.steps = 3, .at_end = 1};
  agglo_trigger_spec at = {.times = times, .n_times = 5};
  assert_int_equal(agglo_sim_add_writer(sim, "every3", "every3.csv", &every3, measure, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_add_writer(sim, "at_times", "at_times.csv", &at, measure, NULL), AGGLO_OK);
}

static void whole_run(const agglo_config *c, const char *dir) {
  clean(dir);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  add_writers(sim);
  assert_int_equal(agglo_sim_attach_outputs(sim, dir, AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_run(sim), AGGLO_OK);
  assert_int_equal(agglo_sim_close_outputs(sim), AGGLO_OK);
  agglo_sim_destroy(sim);
}

/* Stopped by SIGTERM at step kill_at (its handler asks for the stop), then resumed to the end:
   the writers are added before the outputs are attached in the first part, after in the second. */
static void stopped_and_resumed(const agglo_config *c, const char *dir, int64_t kill_at) {
  clean(dir);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  add_writers(sim);
  assert_int_equal(agglo_sim_attach_outputs(sim, dir, AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_set_callback(sim, 1, kill_at_step, &kill_at), AGGLO_OK);
  running = sim;
  void (*old)(int) = signal(SIGTERM, on_sigterm);
  assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
  signal(SIGTERM, old);
  assert_int_equal(agglo_sim_step_count(sim), kill_at);
  agglo_sim_destroy(sim); /* (closes the outputs: nothing off the schedule after a stop) */
  /* a kill after the restart point: the files hold more than it records */
  char path[512];
  snprintf(path, sizeof path, "%s/every3.csv", dir);
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fputs("999,written after the restart point\n", f);
  fclose(f);
  assert_int_equal(agglo_sim_create_from_restart(c, dir, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, dir, AGGLO_OUTPUT_ALL), AGGLO_OK);
  add_writers(sim);
  assert_int_equal(agglo_sim_run(sim), AGGLO_OK);
  assert_int_equal(agglo_sim_close_outputs(sim), AGGLO_OK);
  agglo_sim_destroy(sim);
}

static void check_resume(const char *format) {
  char over[64];
  snprintf(over, sizeof over, "output.checkpoint_format=%s", format);
  const char *const o[] = {over, NULL};
  agglo_config *c = make_config(SCENARIO, o);
  whole_run(c, "uw_whole");
  /* steps 7 (between records: a stop writes none) and 9 (at one of every3's) */
  int64_t stops[] = {7, 9};
  for (int k = 0; k < 2; k++) {
    stopped_and_resumed(c, "uw_resumed", stops[k]);
    assert_same_file("uw_whole", "uw_resumed", "every3.csv");
    assert_same_file("uw_whole", "uw_resumed", "at_times.csv");
    assert_same_file("uw_whole", "uw_resumed", "stats.csv");
  }
  /* the records: steps 0, 3, ..., 24 and the end (25); the times' steps 2 or 3 (0.05: 2.5 in
     decimal), 7 (0.13, twice: one record), 16 (0.31) and 23 (0.47: 23.5 in decimal, below in
     doubles) */
  size_t len;
  char *text = slurp("uw_whole", "every3.csv", &len);
  int lines = 0;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  assert_int_equal(lines, 10);
  assert_true(!strncmp(text, "0,0,", 4) && strstr(text, "\n24,") && strstr(text, "\n25,0.5,"));
  free(text);
  text = slurp("uw_whole", "at_times.csv", &len);
  assert_true(!strncmp(text, "2,0.04,", 7) || !strncmp(text, "3,0.06,", 7));
  lines = 0;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  assert_int_equal(lines, 4);
  free(text);
  agglo_config_destroy(c);
}

static void resumed_file_equals_whole_text(void **st) {
  (void)st;
  check_resume("text");
}

static void resumed_file_equals_whole_hdf5(void **st) {
  (void)st;
  check_resume("hdf5");
}

/* A model that chooses its steps (event-driven ballistic): a writer by time ends its steps at
   its times (every 7.5, and at 33 and 90), whose position (the next time) the restart point
   keeps. Stopped by a callback after 10 of its 32 steps, resumed: the same bytes. */
#define SCENARIO_EVENTS                                                                            \
  "[run]\nmodel = ballistic\ndim = 2\nseed = 3\nt_end = 120\n"                                    \
  "[particles]\nn = 100\nradius = 1\nradius_spread = 0\nplacement = lattice\nfraction = 0.2\n"   \
  "[box]\nsize =\nboundary = wall\n"                                                              \
  "[ballistic]\nmethod = event_driven\nvelocity = uniform\nstop = t_end\n"                        \
  "[output]\ntrajectory_interval = 40\nstats_interval = 10\nsnapshots = "

static const double event_times[] = {33, 90};

static void add_timed(agglo_sim *sim) {
  agglo_trigger_spec every = {.interval = 7.5, .at_end = 1}, at = {.times = event_times, .n_times = 2};
  assert_int_equal(agglo_sim_add_writer(sim, "every", "every.csv", &every, measure, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_add_writer(sim, "at", "at.csv", &at, measure, NULL), AGGLO_OK);
}

static int stop_after_10(agglo_sim *sim, void *user) {
  (void)user;
  return agglo_sim_step_count(sim) == 10;
}

static void variable_step_resumed_equals_whole(void **st) {
  (void)st;
  agglo_config *c = make_config(SCENARIO_EVENTS, NULL);
  const char *dirs[2] = {"uw_events_whole", "uw_events_resumed"};
  for (int k = 0; k < 2; k++) {
    clean(dirs[k]);
    agglo_sim *sim = NULL;
    assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
    add_timed(sim);
    assert_int_equal(agglo_sim_attach_outputs(sim, dirs[k], AGGLO_OUTPUT_ALL), AGGLO_OK);
    if (k == 1) {
      assert_int_equal(agglo_sim_set_callback(sim, 1, stop_after_10, NULL), AGGLO_OK);
      assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
      agglo_sim_destroy(sim);
      assert_int_equal(agglo_sim_create_from_restart(c, dirs[k], &sim), AGGLO_OK);
      add_timed(sim);
      assert_int_equal(agglo_sim_attach_outputs(sim, dirs[k], AGGLO_OUTPUT_ALL), AGGLO_OK);
    }
    assert_int_equal(agglo_sim_run(sim), AGGLO_OK);
    assert_int_equal(agglo_sim_close_outputs(sim), AGGLO_OK);
    agglo_sim_destroy(sim);
  }
  assert_same_file(dirs[0], dirs[1], "every.csv");
  assert_same_file(dirs[0], dirs[1], "at.csv");
  assert_same_file(dirs[0], dirs[1], "stats.csv");
  /* the records fall on their times exactly: 0, 7.5, ..., 120 (17), and 33, 90 */
  size_t len;
  char *text = slurp(dirs[0], "every.csv", &len);
  int lines = 0;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  assert_int_equal(lines, 17);
  assert_non_null(strstr(text, ",7.5,"));
  assert_non_null(strstr(text, ",120,"));
  free(text);
  text = slurp(dirs[0], "at.csv", &len);
  assert_true(strstr(text, ",33,") && strstr(text, ",90,"));
  free(text);
  agglo_config_destroy(c);
}

/* A restart point with user writers, resumed without adding them: the first step is refused,
   naming the writer; nothing is run. */
static void saved_writer_not_added_refused(void **st) {
  (void)st;
  agglo_config *c = make_config(SCENARIO, NULL);
  int64_t kill_at = 5;
  clean("uw_refused");
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  add_writers(sim);
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_refused", AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_set_callback(sim, 1, kill_at_step, &kill_at), AGGLO_OK);
  running = sim;
  void (*old)(int) = signal(SIGTERM, on_sigterm);
  assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
  signal(SIGTERM, old);
  agglo_sim_destroy(sim);
  assert_int_equal(agglo_sim_create_from_restart(c, "uw_refused", &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_refused", AGGLO_OUTPUT_ALL), AGGLO_OK);
  agglo_trigger_spec every3 = {.steps = 3, .at_end = 1};
  assert_int_equal(agglo_sim_add_writer(sim, "every3", "every3.csv", &every3, measure, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "user writer 'at_times' (file at_times.csv"));
  assert_int_equal(agglo_sim_step_count(sim), 5);
  /* the restart point written on closing keeps the writer not added (a later resume may) */
  agglo_sim_destroy(sim);
  assert_int_equal(agglo_sim_create_from_restart(c, "uw_refused", &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_ERROR_INPUT);
  if (!strstr(agglo_last_error(), "'every3'")) fail_msg("%s", agglo_last_error());
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

static int nothing(agglo_sim *sim, int64_t step, agglo_writer_output *out, void *user) {
  (void)sim, (void)step, (void)out, (void)user;
  return 0;
}

static int fails(agglo_sim *sim, int64_t step, agglo_writer_output *out, void *user) {
  (void)sim, (void)user;
  return step == 2 ? 7 : agglo_writer_append(out, "x\n", 2) != AGGLO_OK;
}

/* The checks of agglo_sim_add_writer, and a callback's failure ending the run. */
static void add_writer_checks(void **st) {
  (void)st;
  agglo_config *c = make_config(SCENARIO, NULL);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  agglo_trigger_spec ok = {.steps = 1}, never = {0}, both = {.steps = 2, .interval = 0.1};
  double down[] = {0.2, 0.1};
  agglo_trigger_spec unsorted = {.times = down, .n_times = 2};
  assert_int_equal(agglo_sim_add_writer(sim, "a/b", "x.csv", &ok, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "../x.csv", &ok, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "stats.csv", &ok, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "not one of agglo's own files"));
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &never, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "never fires"));
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &both, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &unsorted, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "times[1] = 0.1"));
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &ok, NULL, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &ok, fails, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "y.csv", &ok, nothing, NULL), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_sim_add_writer(sim, "v", "x.csv", &ok, nothing, NULL), AGGLO_ERROR_INPUT);
  clean("uw_checks");
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_checks", AGGLO_OUTPUT_STATS), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 5), AGGLO_ERROR_IO);
  assert_non_null(strstr(agglo_last_error(), "user writer 'w'"));
  assert_int_equal(agglo_sim_step_count(sim), 2);
  agglo_sim_destroy(sim);
  /* the file of another run is refused, replaced with AGGLO_OUTPUT_OVERWRITE */
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_add_writer(sim, "w", "x.csv", &ok, nothing, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_checks", AGGLO_OUTPUT_STATS), AGGLO_ERROR_IO);
  assert_non_null(strstr(agglo_last_error(), "holds the outputs of another run"));
  assert_int_equal(system("rm uw_checks/stats.csv uw_checks/sizes.csv uw_checks/scenario.ini"), 0);
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_checks", AGGLO_OUTPUT_STATS), AGGLO_ERROR_IO);
  if (!strstr(agglo_last_error(), "x.csv holds another")) fail_msg("%s", agglo_last_error());
  assert_int_equal(agglo_sim_attach_outputs(sim, "uw_checks", AGGLO_OUTPUT_STATS | AGGLO_OUTPUT_OVERWRITE),
                   AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 2), AGGLO_OK);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(resumed_file_equals_whole_text),
      cmocka_unit_test(resumed_file_equals_whole_hdf5),
      cmocka_unit_test(variable_step_resumed_equals_whole),
      cmocka_unit_test(saved_writer_not_added_refused),
      cmocka_unit_test(add_writer_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
