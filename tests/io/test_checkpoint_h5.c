/* Restart points in HDF5 (output.checkpoint_format = hdf5): one file state.h5, from which a run
   stopped halfway goes on bit for bit like the uninterrupted run (contact multipliers, gluey
   memory, ballistic links); a damaged state.h5 is refused with its name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agglo/agglo.h"
#include "io/checkpoint.h"
#include "io/checkpoint_h5.h"
#include "config/config.h"
#include "restart_scenarios.h"
#include "support.h"

#define OUT "ckh5_tests"

static void sh(const char *cmd) {
  if (system(cmd) != 0) fail_msg("failed: %s", cmd);
}

static int has(const char *dir, const char *name) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0;
}

static void run_into(const agglo_config *c, const char *dir, const char *restart) {
  agglo_sim *sim = NULL;
  agglo_status rc = restart ? agglo_sim_create_from_restart(c, restart, &sim) : agglo_sim_create(c, &sim);
  if (rc == AGGLO_OK)
    rc = agglo_sim_attach_outputs(sim, dir, AGGLO_OUTPUT_ALL | (restart ? 0 : AGGLO_OUTPUT_OVERWRITE));
  if (rc == AGGLO_OK) rc = agglo_sim_run(sim);
  if (rc == AGGLO_OK) rc = agglo_sim_close_outputs(sim);
  agglo_sim_destroy(sim);
  if (rc != AGGLO_OK) fail_msg("run into %s: status %d: %s", dir, rc, agglo_last_error());
}

static void same_file(const char *d1, const char *d2, const char *name) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cmp '%s/%s' '%s/%s'", d1, name, d2, name);
  sh(cmd);
}

/* The two state.h5 hold the same numbers and model bytes, bit for bit, and are the same file. */
static void same_state(const char *d1, const char *d2) {
  char p1[512], p2[512], err[1024];
  snprintf(p1, sizeof p1, "%s/state.h5", d1);
  snprintf(p2, sizeof p2, "%s/state.h5", d2);
  agglo_system a, b;
  char *ma, *mb;
  size_t la, lb;
  if (agglo_checkpoint_h5_read(p1, &a, &ma, &la, err, sizeof err) != 0) fail_msg("%s", err);
  if (agglo_checkpoint_h5_read(p2, &b, &mb, &lb, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(a.n, b.n);
  assert_int_equal(a.step, b.step);
  assert_memory_equal(&a.t, &b.t, sizeof a.t);
  assert_memory_equal(a.x, b.x, 3 * a.n * sizeof *a.x);
  assert_memory_equal(a.v, b.v, 3 * a.n * sizeof *a.v);
  assert_memory_equal(a.id, b.id, a.n * sizeof *a.id);
  assert_memory_equal(a.cluster, b.cluster, a.n * sizeof *a.cluster);
  assert_int_equal(la, lb);
  if (la) assert_memory_equal(ma, mb, la);
  agglo_system_free(&a), agglo_system_free(&b);
  free(ma), free(mb);
  same_file(d1, d2, "state.h5"); /* and the file itself: no modification times are stored */
}

/* C: the whole run; D: stopped at t_half, then restarted in place from its state.h5 to t_full.
   D's trajectory and stats equal C's byte for byte, and so does the final state. */
static void case_h5(const char *ini, const char *tag, const char *t_half, const char *t_full) {
  char dC[128], dD[128], oh[64], of[64];
  snprintf(dC, sizeof dC, OUT "/%s_C", tag);
  snprintf(dD, sizeof dD, OUT "/%s_D", tag);
  snprintf(oh, sizeof oh, "run.t_end=%s", t_half);
  snprintf(of, sizeof of, "run.t_end=%s", t_full);
  const char *h[] = {oh, "output.checkpoint_format=hdf5", NULL};
  const char *f[] = {of, "output.checkpoint_format=hdf5", NULL};
  agglo_config *ch = load_config(ini, h), *cf = load_config(ini, f);
  run_into(cf, dC, NULL);
  run_into(ch, dD, NULL);
  assert_true(has(dD, "state.h5"));
  assert_false(has(dD, "state.xyz") || has(dD, "contacts.txt") || has(dD, "state.h5.new"));
  /* a leftover of a write killed before its rename is removed, the restart point stands */
  char cmd[512];
  snprintf(cmd, sizeof cmd, "echo junk > %s/state.h5.new", dD);
  sh(cmd);
  agglo_config *cb = restart_config(dD, of);
  assert_int_equal(cb->checkpoint_format, AGGLO_CHECKPOINT_HDF5);
  run_into(cb, dD, dD);
  assert_false(has(dD, "state.h5.new"));
  same_file(dD, dC, "trajectory.xyz");
  same_file(dD, dC, "stats.csv");
  same_state(dD, dC);
  agglo_config_destroy(ch), agglo_config_destroy(cf), agglo_config_destroy(cb);
}

/* the scenarios of restart_scenarios.h, without pictures */
static const char *brownian_2d = SCENARIO_BROWNIAN_2D "\n";
static const char *gluey_funnel = SCENARIO_GLUEY_FUNNEL "\n";
static const char *ballistic_2d = SCENARIO_BALLISTIC_2D "\n";
static const char *dpd_capillary = SCENARIO_DPD_CAPILLARY "\n";

static void test_contact(void **st) {
  (void)st;
  case_h5(brownian_2d, "contact", "1", "2");
  /* the format of the restart point changes no other output */
  const char *t[] = {"run.t_end=2", NULL};
  agglo_config *c = load_config(brownian_2d, t);
  run_into(c, OUT "/contact_text", NULL);
  assert_true(has(OUT "/contact_text", "state.xyz") && !has(OUT "/contact_text", "state.h5"));
  same_file(OUT "/contact_text", OUT "/contact_C", "trajectory.xyz");
  same_file(OUT "/contact_text", OUT "/contact_C", "stats.csv");
  agglo_config_destroy(c);
}

static void test_gluey(void **st) {
  (void)st;
  case_h5(gluey_funnel, "gluey", "0.15", "0.3");
  case_h5(dpd_capillary, "dpd", "0.1", "0.2");
}

/* Ballistic time stepping chooses its steps: stop at one of the uninterrupted run's frames. */
static void test_ballistic(void **st) {
  (void)st;
  const char *f[] = {"output.checkpoint_format=hdf5", NULL};
  agglo_config *cc = load_config(ballistic_2d, f);
  run_into(cc, OUT "/ball_C", NULL);
  FILE *tr = fopen(OUT "/ball_C/trajectory.xyz", "r");
  assert_non_null(tr);
  char line[65536], t_mid[64] = "";
  int frame = 0;
  while (fgets(line, sizeof line, tr)) {
    const char *p = strstr(line, "Time=");
    if (p && frame++ == 5) {
      size_t n = strcspn(p + 5, " \n");
      memcpy(t_mid, p + 5, n), t_mid[n] = 0;
      break;
    }
  }
  fclose(tr);
  assert_true(t_mid[0]);
  char oh[96];
  snprintf(oh, sizeof oh, "run.t_end=%s", t_mid);
  const char *h[] = {oh, "output.checkpoint_format=hdf5", NULL};
  agglo_config *ch = load_config(ballistic_2d, h);
  run_into(ch, OUT "/ball_D", NULL);
  agglo_config *cb = restart_config(OUT "/ball_D", "run.t_end=400");
  run_into(cb, OUT "/ball_D", OUT "/ball_D");
  same_file(OUT "/ball_D", OUT "/ball_C", "trajectory.xyz");
  same_file(OUT "/ball_D", OUT "/ball_C", "stats.csv");
  same_state(OUT "/ball_D", OUT "/ball_C");
  agglo_config_destroy(cc), agglo_config_destroy(ch), agglo_config_destroy(cb);
}

/* A truncated state.h5 (a copy cut short) is refused, naming the file; so is a missing dataset. */
static void test_corrupt(void **st) {
  (void)st;
  const char *h[] = {"run.t_end=0.2", "output.checkpoint_format=hdf5", NULL};
  agglo_config *c = load_config(brownian_2d, h);
  run_into(c, OUT "/bad", NULL);
  struct stat sb;
  assert_int_equal(stat(OUT "/bad/state.h5", &sb), 0);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "truncate -s %lld " OUT "/bad/state.h5", (long long)sb.st_size / 2);
  sh(cmd);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create_from_restart(c, OUT "/bad", &sim), AGGLO_ERROR_INPUT);
  assert_null(sim);
  printf("truncated: %s\n", agglo_last_error());
  assert_non_null(strstr(agglo_last_error(), OUT "/bad/state.h5"));
  /* not HDF5 at all */
  sh("echo garbage > " OUT "/bad/state.h5");
  assert_int_equal(agglo_sim_create_from_restart(c, OUT "/bad", &sim), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "state.h5"));
  /* a dataset missing: tests/h5md/test_checkpoint.py (h5py deletes it) */
  agglo_config_destroy(c);
}

/* A state.h5 that cannot be written (a full disk: /dev/full) names the file and the reason, and
   the restart point before it stays. */
static void test_disk_full(void **st) {
  (void)st;
  const char *h[] = {"run.t_end=0.2", "output.checkpoint_format=hdf5", NULL};
  agglo_config *c = load_config(brownian_2d, h);
  run_into(c, OUT "/full", NULL);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create_from_restart(c, OUT "/full", &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_OK);
  sh("cp " OUT "/full/state.h5 " OUT "/full_before.h5 && ln -s /dev/full " OUT "/full/state.h5.new");
  assert_int_equal(agglo_sim_save_state(sim, OUT "/full"), AGGLO_ERROR_IO);
  printf("%s\n", agglo_last_error());
  assert_non_null(strstr(agglo_last_error(), OUT "/full/state.h5.new: write failed: No space left on device"));
  sh("cmp " OUT "/full/state.h5 " OUT "/full_before.h5");
  assert_int_equal(agglo_sim_save_state(sim, OUT "/full"), AGGLO_OK);
  assert_int_equal(agglo_checkpoint_step(OUT "/full", AGGLO_CHECKPOINT_HDF5), 11);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* The format changed between runs: a text run stopped halfway goes on with hdf5 (from its
   state.xyz), and a later restart with text reads state.h5, the later step; the outputs stay
   those of the uninterrupted run. */
static void test_switch(void **st) {
  (void)st;
  const char *h[] = {"run.t_end=1", NULL};
  agglo_config *ch = load_config(brownian_2d, h);
  run_into(ch, OUT "/switch", NULL);
  assert_int_equal(agglo_checkpoint_uses_h5(OUT "/switch", AGGLO_CHECKPOINT_HDF5), 0);
  agglo_config *c1 = restart_config(OUT "/switch", "run.t_end=1.5");
  char err[1024];
  assert_int_equal(agglo_config_read_assignment(c1, "output.checkpoint_format=hdf5", err, sizeof err), 0);
  run_into(c1, OUT "/switch", OUT "/switch");
  assert_true(has(OUT "/switch", "state.h5") && has(OUT "/switch", "state.xyz"));
  assert_int_equal(agglo_checkpoint_uses_h5(OUT "/switch", AGGLO_CHECKPOINT_TEXT), 1);
  assert_int_equal(agglo_checkpoint_step(OUT "/switch", AGGLO_CHECKPOINT_TEXT), 75);
  agglo_config *c2 = restart_config(OUT "/switch", "run.t_end=2");
  assert_int_equal(agglo_config_read_assignment(c2, "output.checkpoint_format=text", err, sizeof err), 0);
  run_into(c2, OUT "/switch", OUT "/switch");
  same_file(OUT "/switch", OUT "/contact_C", "trajectory.xyz");
  same_file(OUT "/switch", OUT "/contact_C", "stats.csv");
  same_file(OUT "/switch", OUT "/contact_text", "state.xyz");
  same_file(OUT "/switch", OUT "/contact_text", "contacts.txt");
  agglo_config_destroy(ch), agglo_config_destroy(c1), agglo_config_destroy(c2);
}

/* agglo run --resume DIR continues from a state.h5 (instead of starting afresh). */
static void test_cli_resume(void **st) {
  (void)st;
  if (access("../agglo", X_OK) != 0) skip();
  FILE *f = fopen(OUT "/brownian.ini", "w");
  assert_non_null(f);
  fputs(brownian_2d, f);
  fclose(f);
  sh("../agglo run " OUT "/brownian.ini -o " OUT "/cli --overwrite --quiet -s run.t_end=1 "
     "-s output.checkpoint_format=hdf5");
  sh("../agglo run --resume " OUT "/cli --quiet -s run.t_end=2");
  same_file(OUT "/cli", OUT "/contact_C", "trajectory.xyz");
  same_file(OUT "/cli", OUT "/contact_C", "stats.csv");
  same_state(OUT "/cli", OUT "/contact_C");
}

int main(void) {
  mkdir(OUT, 0777);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contact),
      cmocka_unit_test(test_gluey),
      cmocka_unit_test(test_ballistic),
      cmocka_unit_test(test_corrupt),
      cmocka_unit_test(test_disk_full),
      cmocka_unit_test(test_switch),
      cmocka_unit_test(test_cli_resume),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
