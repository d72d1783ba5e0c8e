/* The output schedule's arithmetic (src/io/outputs.c) for any interval a scenario may give: at most
   one output per step, in time independent of the interval, and the restart's schedule equal to
   the uninterrupted run's; and the step counts a run cannot take, refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agglo/agglo.h"
#include "core/rng.h"
#include "core/simulation.h"
#include "core/timing.h"
#include "support.h"

/* Uniform in (0, 1) from a counter (the library's generator: the same cases every run). */
static double uniform(uint64_t *k) {
  double u[4];
  agglo_rng_uniform4(20261126, 0, (*k)++, 0, u);
  return u[0];
}

/* 10^u, u uniform in [lo, hi]. */
static double log_uniform(uint64_t *k, double lo, double hi) { return pow(10, lo + (hi - lo) * uniform(k)); }

/* Is t within 1e-10 (relative) of a multiple of the interval? The tolerance of the comparisons
   makes the count there a matter of round-off. */
static int near_multiple(double t, double interval) {
  double q = t / interval;
  return fabs(q - round(q)) < 1e-10 * fmax(q, 1);
}

/* Variable step (the ballistic models): steps of random lengths, intervals from 1e-12 to 1e6. */
static void test_time_schedule_bounded(void **st) {
  (void)st;
  uint64_t k = 0;
  double spent = 0;
  long checked = 0;
  for (int c = 0; c < 400; c++) {
    double interval = log_uniform(&k, -12, 6), t_end = log_uniform(&k, -3, 6);
    int steps = 1 + (int)(2000 * uniform(&k));
    double next = 0, t = 0, prev = 0; /* a fresh run: next = its start, t = 0 */
    long frames = 0, expect = 1, uncertain = 0;
    double t0 = agglo_cpu_seconds(); /* CPU time: other processes on a loaded machine do not count */
    for (int s = 0; s <= steps; s++) {
      prev = t;
      /* the step's length varies (a ballistic step ends at an event or a window's end) */
      t = s == 0 ? 0 : t + t_end / steps * (0.2 + 1.6 * uniform(&k));
      frames += agglo_schedule_due(t, interval, &next);
      if (s > 0 && t - prev > 2 * interval + 1e-10 * t) {
        expect++; /* the step is longer than the interval: due whatever the round-off */
      } else if (s > 0) {
        expect += floor(t / interval) > floor(prev / interval);
        uncertain |= near_multiple(t, interval);
      }
      /* a run restarted at this step schedules the same next output as this one */
      if (s > 0 && next > t * (1 + 1e-12) && !uncertain)
        assert_true(agglo_schedule_next(t, interval) == next);
    }
    spent += agglo_cpu_seconds() - t0;
    if (frames > steps + 1)
      fail_msg("interval %g, %d steps to t = %g: %ld outputs, more than one per step", interval,
               steps, t, frames);
    if (!uncertain && frames != expect)
      fail_msg("interval %g, %d steps to t = %g: %ld outputs, the multiples of the interval "
               "crossed give %ld", interval, steps, t, frames, expect);
    checked += !uncertain;
  }
  printf("400 schedules (%ld checked exactly): %.3f ms of CPU in all\n", checked, 1e3 * spent);
  assert_true(checked > 380);
  assert_true(spent < 2); /* 4 10^5 steps: a loop over the interval would take hours */
  /* the interval below t's precision: every step is due, once */
  double next = 0;
  assert_true(agglo_schedule_due(1e6, 1e-12, &next));
  assert_true(next > 1e6 && agglo_schedule_due(nextafter(1e6, 2e6), 1e-12, &next));
  assert_false(agglo_schedule_due(0.5, 1e300, &(double){1e300}));
}

/* Fixed step (contact, gluey, DPD): outputs at multiples of every = round(interval / dt). */
static void test_step_schedule_bounded(void **st) {
  (void)st;
  uint64_t k = 1000000;
  for (int c = 0; c < 2000; c++) {
    double interval = log_uniform(&k, -12, 6), dt = log_uniform(&k, -6, 0);
    int64_t every = agglo_schedule_every(interval, dt);
    assert_true(every >= 1 && every <= AGGLO_MAX_STEPS + 1);
    if (interval / dt >= 1 && interval / dt < 1e15)
      assert_true(fabs((double)every * dt - interval) <= 0.5 * dt * (1 + 1e-9));
    if (interval < dt / 2) assert_int_equal(every, 1);
  }
  /* ratios beyond any run: no output but the first and last, and no overflow */
  assert_int_equal(agglo_schedule_every(1e300, 1e-300), AGGLO_MAX_STEPS + 1);
  assert_int_equal(agglo_schedule_every(0, 0.02), 0);
  assert_int_equal(agglo_schedule_step(1e300, 1e-300), AGGLO_MAX_STEPS + 1);
  assert_int_equal(agglo_schedule_step(-1, 0.02), 0);
  assert_int_equal(agglo_schedule_step(NAN, 0.02), 0);
  assert_int_equal(agglo_schedule_step(0.4, 0.02), 20);
}

static const char *small_run = "[particles]\nn = 20\nradius = 0.05\n[box]\nsize = 2\n";

/* Step counts a run cannot take (beyond 2^53) are refused, naming the keys and the bound. */
static void test_huge_step_counts_refused(void **st) {
  (void)st;
  const char *const cases[][2] = {{"run.t_end=1e18", NULL}, {"run.dt=1e-20", NULL},
                                  {"run.model=dpd", "run.t_end=1e300"}};
  for (int c = 0; c < 3; c++) {
    const char *over[] = {cases[c][0], cases[c][1], NULL};
    agglo_config *cfg = load_config(small_run, over);
    agglo_sim *sim = NULL;
    assert_int_equal(agglo_sim_create(cfg, &sim), AGGLO_ERROR_INPUT);
    printf("%s\n", agglo_last_error());
    assert_non_null(strstr(agglo_last_error(), "run.t_end / run.dt"));
    assert_non_null(strstr(agglo_last_error(), "at most 2^53 = 9007199254740992 steps"));
    agglo_config_destroy(cfg);
  }
  /* the ballistic models choose their steps: a long run.t_end is theirs to end */
  const char *ballistic[] = {"run.model=ballistic", "ballistic.stop=t_end", "run.t_end=1e18", NULL};
  agglo_config *cfg = load_config(small_run, ballistic);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(cfg, &sim), AGGLO_OK);
  agglo_sim_destroy(sim);
  agglo_config_destroy(cfg);
  /* through the stepping API */
  cfg = load_config(small_run, NULL);
  assert_int_equal(agglo_sim_create(cfg, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_run_until(sim, 1e300), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "at most 2^53 steps"));
  assert_int_equal(agglo_sim_step(sim, INT64_MAX), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "the steps left before step 2^53"));
  assert_int_equal(agglo_sim_step_count(sim), 0);
  /* a time already passed is refused (it took no step and said OK: issue 47) */
  assert_int_equal(agglo_sim_run_until(sim, -1e300), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "is before the simulation's time 0"));
  agglo_sim_destroy(sim);
  agglo_config_destroy(cfg);
}

/* The event-driven models end a step where the driver asks (agglo_sim_run_until's time, the next
   output): they stop there exactly, and where their steps end changes no event: the positions at
   t = 400 are the same bits whether the run stopped at 123.25 on the way or not. */
static void test_event_driven_steps_end_where_asked(void **st) {
  (void)st;
  const char *const models[][7] = {
      {"run.model=dlca", "particles.n=200", "particles.fraction=0.01", "dlca.persistence=0.25",
       "dlca.stop=t_end",
       "run.t_end=1000", NULL},
      {"run.model=ballistic", "ballistic.method=event_driven", "ballistic.stop=t_end",
       "particles.n=200", "particles.fraction=0.01", "run.t_end=400", NULL}};
  for (int m = 0; m < 2; m++) {
    agglo_config *cfg = load_config("[run]\ndim = 3\nseed = 3\nt_end = 1000\n[particles]\n"
                                    "radius = 1\n", models[m]);
    agglo_sim *a = NULL, *b = NULL;
    assert_int_equal(agglo_sim_create(cfg, &a), AGGLO_OK);
    assert_int_equal(agglo_sim_create(cfg, &b), AGGLO_OK);
    assert_int_equal(agglo_sim_run_until(a, 123.25), AGGLO_OK);
    assert_true(agglo_sim_time(a) == 123.25);
    assert_int_equal(agglo_sim_run_until(a, 400), AGGLO_OK);
    assert_int_equal(agglo_sim_run_until(b, 400), AGGLO_OK);
    assert_true(agglo_sim_time(a) == 400 && agglo_sim_time(b) == 400);
    printf("%s: %lld and %lld steps to t = 400\n", agglo_sim_model(a),
           (long long)agglo_sim_step_count(a), (long long)agglo_sim_step_count(b));
    assert_true(agglo_sim_step_count(a) != agglo_sim_step_count(b)); /* other step ends */
    size_t n = agglo_sim_count(a);
    assert_memory_equal(agglo_sim_positions(a), agglo_sim_positions(b), 3 * n * sizeof(double));
    assert_memory_equal(agglo_sim_velocities(a), agglo_sim_velocities(b), 3 * n * sizeof(double));
    agglo_sim_destroy(a);
    agglo_sim_destroy(b);
    agglo_config_destroy(cfg);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_time_schedule_bounded),
      cmocka_unit_test(test_step_schedule_bounded),
      cmocka_unit_test(test_huge_step_counts_refused),
      cmocka_unit_test(test_event_driven_steps_end_where_asked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
