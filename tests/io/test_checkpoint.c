/* Restart points that survive a kill: each moment of an interrupted write leaves a usable pair
   (state.xyz, contacts.txt from one step), a pair that does not match its seal is never adopted,
   a failed write names its reason, and the outputs are cut after the restart step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agglo/agglo.h"
#include "io/checkpoint.h"

static const char *ini =
    "[run]\ndim = 2\nseed = 4\ndt = 0.02\nt_end = 1\n"
    "[particles]\nn = 100\nradius = 0.01\n[box]\nsize = 0.5\nboundary = periodic\n"
    "[drag]\ntau = 0.2\n[brownian]\nsigma = 1\n[attraction]\nkappa = 0.003\nepsilon = 0.003\n"
    "[output]\ntrajectory_interval = 0.04\nstats_interval = 0\nsnapshots =\n";

static void sh(const char *cmd) { assert_int_equal(system(cmd), 0); }

/* The step a restart from dir continues at. */
static int64_t restart_step(const char *dir) {
  agglo_config *c = agglo_config_new();
  char path[256];
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  assert_int_equal(agglo_config_load(c, path), AGGLO_OK);
  agglo_sim *sim;
  if (agglo_sim_create_from_restart(c, dir, &sim) != AGGLO_OK) fail_msg("%s", agglo_last_error());
  int64_t step = agglo_sim_step_count(sim);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  return step;
}

/* ck5: a run saved at step 5 (its outputs run on to step 10); ck10: the same run at step 10. */
static void make_runs(void) {
  sh("rm -rf ck5 ck10 ck");
  agglo_config *c = agglo_config_new();
  assert_int_equal(agglo_config_load_string(c, ini, "ck.ini"), AGGLO_OK);
  agglo_sim *sim;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, "ck5", AGGLO_OUTPUT_TRAJECTORY | AGGLO_OUTPUT_STATS), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 5), AGGLO_OK);
  assert_int_equal(agglo_sim_save_state(sim, "ck5"), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 5), AGGLO_OK);
  assert_int_equal(agglo_sim_save_state(sim, "ck10"), AGGLO_OK);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* Killed between the two renames: contacts.txt is new, state.xyz.new waits; recovery finishes. */
static void test_kill_between_renames(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck && cp ck10/contacts.txt ck/contacts.txt && cp ck10/state.xyz ck/state.xyz.new");
  assert_int_equal(restart_step("ck"), 10);
  sh("test ! -e ck/state.xyz.new");
}

/* Killed before the renames: both .new files complete (they match the seal) finish the write;
   a pair cut short (state.xyz.new partial, or contacts.txt.new alone) is discarded and the old
   pair stands. */
static void test_kill_before_renames(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck && cp ck10/contacts.txt ck/contacts.txt.new && cp ck10/state.xyz ck/state.xyz.new");
  assert_int_equal(restart_step("ck"), 10);
  sh("test ! -e ck/state.xyz.new && test ! -e ck/contacts.txt.new");
  sh("cmp ck/state.xyz ck10/state.xyz && cmp ck/contacts.txt ck10/contacts.txt");
  sh("rm -rf ck && cp -r ck5 ck && cp ck10/contacts.txt ck/contacts.txt.new && head -c 300 ck10/state.xyz > ck/state.xyz.new");
  assert_int_equal(restart_step("ck"), 5);
  sh("test ! -e ck/state.xyz.new && test ! -e ck/contacts.txt.new");
  sh("rm -rf ck && cp -r ck5 ck && head -c 10 ck10/contacts.txt > ck/contacts.txt.new");
  assert_int_equal(restart_step("ck"), 5);
}

/* The first restart point of a run killed before its renames: only the .new files hold it (no
   old pair to fall back on); the restart takes them, and --resume (which restarts when it sees
   state.xyz.new) finds a state.xyz. */
static void test_kill_before_first_renames(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck && mv ck/contacts.txt ck/contacts.txt.new && mv ck/state.xyz ck/state.xyz.new");
  assert_int_equal(restart_step("ck"), 5);
  sh("cmp ck/state.xyz ck5/state.xyz && cmp ck/contacts.txt ck5/contacts.txt && test ! -e ck/state.xyz.new");
}

/* A state.xyz.new left without contacts.txt.new that is not the state contacts.txt was sealed
   with (cut short, or of another step) is not adopted: the restart is refused naming it, and the
   restart point it would have replaced stays, byte for byte. */
static void test_new_not_adopted(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck && head -c 300 ck10/state.xyz > ck/state.xyz.new");
  agglo_config *c = agglo_config_new();
  assert_int_equal(agglo_config_load(c, "ck/scenario.ini"), AGGLO_OK);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create_from_restart(c, "ck", &sim), AGGLO_ERROR_INPUT);
  printf("refused: %s\n", agglo_last_error());
  assert_non_null(strstr(agglo_last_error(), "ck/state.xyz.new: left by an interrupted write of the "
                                             "restart point, but not the state ck/contacts.txt"));
  assert_non_null(strstr(agglo_last_error(), "Nothing was changed; state.xyz is"));
  sh("cmp ck/state.xyz ck5/state.xyz && cmp ck/contacts.txt ck5/contacts.txt && test -e ck/state.xyz.new");
  sh("cp ck10/state.xyz ck/state.xyz.new"); /* complete, but of step 10 */
  assert_int_equal(agglo_sim_create_from_restart(c, "ck", &sim), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "holds step 10 with 100 particles, but ck/contacts.txt "
                                             "was sealed with step 5"));
  sh("cmp ck/state.xyz ck5/state.xyz && rm ck/state.xyz.new");
  assert_int_equal(restart_step("ck"), 5);
  agglo_config_destroy(c);
}

/* A restart point that cannot be written (a full disk: /dev/full) names the file and the reason,
   and the one before stays. */
static void test_disk_full(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck");
  agglo_config *c = agglo_config_new();
  assert_int_equal(agglo_config_load(c, "ck/scenario.ini"), AGGLO_OK);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create_from_restart(c, "ck", &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_step(sim, 1), AGGLO_OK);
  sh("ln -s /dev/full ck/contacts.txt.new");
  assert_int_equal(agglo_sim_save_state(sim, "ck"), AGGLO_ERROR_IO);
  printf("%s\n", agglo_last_error());
  assert_non_null(strstr(agglo_last_error(), "ck/contacts.txt.new: write failed: No space left on device"));
  sh("cmp ck/state.xyz ck5/state.xyz && cmp ck/contacts.txt ck5/contacts.txt");
  sh("rm ck/contacts.txt.new && ln -s /dev/full ck/state.xyz.new.tmp");
  assert_int_equal(agglo_sim_save_state(sim, "ck"), AGGLO_ERROR_IO);
  printf("%s\n", agglo_last_error());
  assert_non_null(strstr(agglo_last_error(), "ck/state.xyz.new.tmp: write failed: No space left on device"));
  sh("cmp ck/state.xyz ck5/state.xyz && cmp ck/contacts.txt ck5/contacts.txt");
  sh("rm ck/state.xyz.new.tmp");
  assert_int_equal(agglo_sim_save_state(sim, "ck"), AGGLO_OK);
  assert_int_equal(restart_step("ck"), 6);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

/* The outputs after the restart step, and a frame and a row cut by the kill, are dropped. */
static void test_truncate(void **st) {
  (void)st;
  make_runs();
  sh("cp -r ck5 ck && head -c -7 ck5/trajectory.xyz > ck/trajectory.xyz && head -c -3 ck5/stats.csv > ck/stats.csv");
  char err[256];
  assert_int_equal(agglo_checkpoint_truncate("ck", 6, NULL, err, sizeof err), 0);
  /* frames at steps 0, 2, 4, 6 stay (every 0.04 = 2 steps), 8 and the cut 10 go; rows 0..6 */
  sh("test \"$(grep -c 'Step=' ck/trajectory.xyz)\" = 4 && grep -q 'Step=6 ' ck/trajectory.xyz");
  sh("test \"$(wc -l < ck/stats.csv)\" = 8 && tail -n 1 ck/stats.csv | cut -d, -f2 | grep -qx 6");
  /* a kill inside the header of the first frame leaves nothing of it */
  sh("head -c 3 ck5/trajectory.xyz > ck/trajectory.xyz");
  assert_int_equal(agglo_checkpoint_truncate("ck", 6, NULL, err, sizeof err), 0);
  sh("test ! -s ck/trajectory.xyz");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kill_between_renames),
      cmocka_unit_test(test_kill_before_renames),
      cmocka_unit_test(test_kill_before_first_renames),
      cmocka_unit_test(test_truncate),
      cmocka_unit_test(test_new_not_adopted),
      cmocka_unit_test(test_disk_full),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
