/* The ensemble API (include/agglo/ensemble.h): the grid and its names, refusals, members run in
   any order, markers, the summary, resume. */
#include "agglo/ensemble.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static const char *tiny = "[run]\nmodel = contact\ndim = 2\nt_end = 0.1\ndt = 0.02\n"
                          "[particles]\nn = 30\n[box]\nsize = 0.5\n[output]\nsnapshots =\n";

static agglo_config *tiny_config(void) {
  agglo_config *c = agglo_config_new();
  assert_int_equal(agglo_config_load_string(c, tiny, "tiny"), AGGLO_OK);
  return c;
}

static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0, ch;
  while ((ch = getc(f)) != EOF) n += ch == '\n';
  fclose(f);
  return n;
}

static void grid_and_refusals(void **state) {
  (void)state;
  agglo_config *c = tiny_config();
  agglo_ensemble *e;
  assert_int_equal(agglo_ensemble_new(c, "test_ensemble_grid", &e), AGGLO_OK);
  assert_int_equal(agglo_ensemble_set_seeds(e, "3-1"), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_ensemble_set_seeds(e, "1,1"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "seed 1 given twice"));
  assert_int_equal(agglo_ensemble_set_seeds(e, "x"), AGGLO_ERROR_INPUT);
  /* seeds are run.seed values: a seed at LONG_MAX (or clamped to it) once looped forever */
  const char *too_big[] = {"9223372036854775807", "99999999999999999999", "1,9223372036854775806-9223372036854775807"};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(agglo_ensemble_set_seeds(e, too_big[k]), AGGLO_ERROR_INPUT);
    assert_non_null(strstr(agglo_last_error(), "a seed is out of range (allowed: 0 to 9200000000000000000"));
  }
  assert_int_equal(agglo_ensemble_set_seeds(e, "9199999999999999999-9200000000000000000"), AGGLO_OK);
  assert_int_equal(agglo_ensemble_set_seeds(e, "0-1000000"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "more than 1000000 seeds"));
  assert_int_equal(agglo_ensemble_set_seeds(e, "-3"), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_ensemble_set_seeds(e, "7,1-2"), AGGLO_OK);
  assert_int_equal(agglo_ensemble_vary(e, "particles.bogus", "1,2"), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "unknown key"));
  assert_int_equal(agglo_ensemble_vary(e, "run.seed", "1,2"), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_ensemble_vary(e, "particles.n", "20,20"), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_ensemble_vary(e, "particles.n", "20, 30"), AGGLO_OK);
  assert_int_equal(agglo_ensemble_vary(e, "particles.n", "40"), AGGLO_ERROR_INPUT);
  assert_int_equal(agglo_ensemble_vary(e, "box.size", "0.5,0.5;0.6,0.6"), AGGLO_OK);
  assert_int_equal(agglo_ensemble_count(e), 0); /* not prepared */
  assert_int_equal(agglo_ensemble_prepare(e, 1), AGGLO_ERROR_INPUT); /* nothing to resume */
  assert_int_equal(agglo_ensemble_prepare(e, 0), AGGLO_OK);
  assert_int_equal(agglo_ensemble_count(e), 12);
  /* points outer (the first key outermost), seeds inner, values made path-safe */
  assert_string_equal(agglo_ensemble_member_name(e, 0), "particles.n=20/box.size=0.5_0.5/seed=7");
  assert_string_equal(agglo_ensemble_member_name(e, 2), "particles.n=20/box.size=0.5_0.5/seed=2");
  assert_string_equal(agglo_ensemble_member_name(e, 3), "particles.n=20/box.size=0.6_0.6/seed=7");
  assert_string_equal(agglo_ensemble_member_name(e, 11), "particles.n=30/box.size=0.6_0.6/seed=2");
  assert_null(agglo_ensemble_member_name(e, 12));
  assert_int_equal(agglo_ensemble_vary(e, "run.dt", "0.01"), AGGLO_ERROR_USAGE); /* prepared */
  agglo_ensemble_destroy(e);
  /* a second ensemble in the same directory is refused */
  assert_int_equal(agglo_ensemble_new(c, "test_ensemble_grid", &e), AGGLO_OK);
  assert_int_equal(agglo_ensemble_prepare(e, 0), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "holds an ensemble already"));
  agglo_ensemble_destroy(e);
  agglo_config_destroy(c);
}

static agglo_ensemble *make(const agglo_config *c, const char *seeds, int mode, agglo_status expect) {
  agglo_ensemble *e;
  assert_int_equal(agglo_ensemble_new(c, "test_ensemble_run", &e), AGGLO_OK);
  assert_int_equal(agglo_ensemble_set_seeds(e, seeds), AGGLO_OK);
  assert_int_equal(agglo_ensemble_vary(e, "particles.n", "20,-4"), AGGLO_OK);
  assert_int_equal(agglo_ensemble_set_outputs(e, AGGLO_OUTPUT_STATS), AGGLO_OK);
  assert_int_equal(agglo_ensemble_prepare(e, mode), expect);
  return e;
}

static void members_any_order_and_resume(void **state) {
  (void)state;
  (void)!system("rm -rf test_ensemble_run");
  agglo_config *c = tiny_config();
  agglo_ensemble *e = make(c, "1-3", AGGLO_ENSEMBLE_NEW, AGGLO_OK);
  assert_int_equal(agglo_ensemble_count(e), 6);
  for (size_t i = 6; i-- > 0;) {
    agglo_status st = agglo_ensemble_run_member(e, i, NULL, NULL);
    if (i < 3) { /* particles.n = 20 */
      assert_int_equal(st, AGGLO_OK);
      assert_int_equal(agglo_ensemble_member_state(e, i), 1);
    } else { /* particles.n = -4: refused, reported, the others go on */
      assert_int_equal(st, AGGLO_ERROR_INPUT);
      assert_non_null(strstr(agglo_last_error(), "particles.n=-4/seed="));
      assert_int_equal(agglo_ensemble_member_state(e, i), -1);
    }
  }
  size_t failed = 0;
  assert_int_equal(agglo_ensemble_write_summary(e, &failed), AGGLO_OK);
  assert_int_equal(failed, 3);
  assert_int_equal(count_lines("test_ensemble_run/members.csv"), 7);
  /* t = 0, 0.02, ..., 0.1 for the good point only */
  assert_int_equal(count_lines("test_ensemble_run/ensemble.csv"), 1 + 6);
  FILE *f = fopen("test_ensemble_run/ensemble.csv", "r");
  char line[256];
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  assert_memory_equal(line, "particles.n,output_time,members,running,time_mean,time_sd,", 57);
  agglo_ensemble_destroy(e);
  /* resume: the finished members are kept, the failed ones are run again */
  e = make(c, "1-3", AGGLO_ENSEMBLE_RESUME, AGGLO_OK);
  for (size_t i = 0; i < 3; i++) assert_int_equal(agglo_ensemble_member_done(e, i), 1);
  for (size_t i = 3; i < 6; i++) assert_int_equal(agglo_ensemble_member_done(e, i), 0);
  /* while it is held, another handle is refused, naming this process; one that joins is not */
  agglo_ensemble *other = make(c, "1-3", AGGLO_ENSEMBLE_RESUME, AGGLO_ERROR_IO);
  char holder[64];
  snprintf(holder, sizeof holder, "(pid %ld holds test_ensemble_run/agglo.lock)", (long)getpid());
  assert_non_null(strstr(agglo_last_error(), "test_ensemble_run is in use by another run"));
  assert_non_null(strstr(agglo_last_error(), holder));
  agglo_ensemble_destroy(other);
  other = make(c, "1-3", AGGLO_ENSEMBLE_JOIN, AGGLO_OK);
  agglo_ensemble_destroy(other);
  agglo_ensemble_destroy(e);
  /* a member whose file changed after its done marker (here stats.csv cut) is not done: resume
     runs it again, the summary does not count it */
  (void)!system("head -c 200 test_ensemble_run/particles.n=20/seed=2/stats.csv > cut.csv && "
                "mv cut.csv test_ensemble_run/particles.n=20/seed=2/stats.csv");
  e = make(c, "1-3", AGGLO_ENSEMBLE_RESUME, AGGLO_OK);
  assert_int_equal(agglo_ensemble_member_done(e, 0), 1);
  assert_int_equal(agglo_ensemble_member_done(e, 1), 0);
  assert_int_equal(agglo_ensemble_member_state(e, 1), 0);
  assert_int_equal(agglo_ensemble_write_summary(e, &failed), AGGLO_OK);
  assert_int_equal(failed, 4);
  assert_int_equal(system("grep -q '^particles.n=20/seed=2,20,2,incomplete,.*stats.csv has 200 bytes, "
                          "not the [0-9]* its done marker lists' test_ensemble_run/members.csv"), 0);
  assert_int_equal(agglo_ensemble_run_member(e, 1, NULL, NULL), AGGLO_OK);
  assert_int_equal(agglo_ensemble_member_done(e, 1), 1);
  /* edited in place, same size (a digit of its last row changed): not done either */
  (void)!system("f=test_ensemble_run/particles.n=20/seed=3/stats.csv && "
                "sed '$ s/[0-8]\\([^0-9]*\\)$/9\\1/' $f > edited.csv && ! cmp -s edited.csv $f && "
                "test $(wc -c < edited.csv) -eq $(wc -c < $f) && mv edited.csv $f");
  assert_int_equal(agglo_ensemble_member_done(e, 2), 0);
  assert_int_equal(agglo_ensemble_write_summary(e, &failed), AGGLO_OK);
  assert_int_equal(system("grep -q '^particles.n=20/seed=3,20,3,incomplete,.*stats.csv has checksum "
                          "[0-9a-f]*, not the [0-9a-f]* its done marker lists (edited in place)' "
                          "test_ensemble_run/members.csv"), 0);
  assert_int_equal(agglo_ensemble_run_member(e, 2, NULL, NULL), AGGLO_OK);
  assert_int_equal(agglo_ensemble_member_done(e, 2), 1);
  agglo_ensemble_destroy(e);
  /* other seeds: refused */
  e = make(c, "1-4", AGGLO_ENSEMBLE_RESUME, AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "made with other seeds"));
  agglo_ensemble_destroy(e);
  /* a new ensemble over this one: refused, or replaced (its summary and markers go) */
  e = make(c, "1-3", AGGLO_ENSEMBLE_NEW, AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "holds an ensemble already"));
  agglo_ensemble_destroy(e);
  e = make(c, "1-3", AGGLO_ENSEMBLE_OVERWRITE, AGGLO_OK);
  for (size_t i = 0; i < 6; i++) assert_int_equal(agglo_ensemble_member_state(e, i), 0);
  assert_int_equal(count_lines("test_ensemble_run/members.csv"), -1);
  agglo_ensemble_destroy(e);
  agglo_config_destroy(c);
}

int main(void) {
  (void)!system("rm -rf test_ensemble_grid test_ensemble_run");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(grid_and_refusals),
      cmocka_unit_test(members_any_order_and_resume),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
