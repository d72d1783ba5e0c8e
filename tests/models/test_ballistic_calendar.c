/* The event-driven engine's calendar (ballistic_calendar.h) against a reference that finds the
   earliest event by a scan of all pending ones: the same events in the same order, ties at
   equal times included, over pushes interleaved with pops as the engine makes them (never
   earlier than the last event popped), with the calendar's resizes driven by clumped, spread,
   far and infinite times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/ballistic_calendar.h"
#include "core/rng.h"

typedef agglo_ed_event event;

typedef struct {
  event *a;
  size_t n;
} reference;

static size_t reference_first(const reference *r) {
  size_t best = 0;
  for (size_t k = 1; k < r->n; k++)
    if (agglo_ed_event_less(&r->a[k], &r->a[best])) best = k;
  return best;
}

/* A new event at or after time now, of one of several kinds of delay. */
static event make_event(uint64_t seed, uint64_t k, double now, int32_t clusters) {
  double u[4];
  agglo_rng_uniform4(seed, 1, k, 0, u);
  double t;
  if (u[0] < 0.4) t = now + 1.0;                       /* synchronised flights: exact ties */
  else if (u[0] < 0.7) t = now + u[1];                  /* spread */
  else if (u[0] < 0.8) t = now;                         /* now */
  else if (u[0] < 0.9) t = now + 1e-12 * floor(4 * u[1]); /* a clump of near ties */
  else if (u[0] < 0.98) t = now + 1e3 * u[1];           /* far */
  else t = INFINITY;
  event ev = {t, (int32_t)(u[2] * 10) - 8, (int32_t)(u[3] * 5), (int32_t)(u[3] * clusters),
              (int32_t)(u[2] * clusters), 0, 0};
  return ev;
}

static void run_against_reference(uint64_t seed, size_t start, size_t pops, double p_push2) {
  agglo_ed_calendar c = {0};
  agglo_ed_calendar_clear(&c);
  reference r = {malloc(4 * (start + pops + 16) * sizeof(event)), 0};
  assert_non_null(r.a);
  uint64_t k = 0;
  double now = 0;
  for (size_t i = 0; i < start; i++) {
    event ev = make_event(seed, k++, now, 1000);
    assert_int_equal(agglo_ed_calendar_push(&c, ev), 0);
    r.a[r.n++] = ev;
  }
  for (size_t p = 0; p < pops; p++) {
    const event *top;
    assert_int_equal(agglo_ed_calendar_top(&c, &top), 0);
    if (r.n == 0) {
      assert_null(top);
      break;
    }
    size_t f = reference_first(&r);
    assert_non_null(top);
    assert_memory_equal(top, &r.a[f], sizeof(event));
    event got = agglo_ed_calendar_pop(&c);
    assert_memory_equal(&got, &r.a[f], sizeof(event));
    r.a[f] = r.a[--r.n];
    if (isfinite(got.t)) now = got.t;
    /* each event popped brings one or two new ones (or none, as a merge does) */
    double u[4];
    agglo_rng_uniform4(seed, 2, p, 0, u);
    int pushes = u[0] < 0.05 ? 0 : u[0] < 1 - p_push2 ? 1 : 2;
    for (int q = 0; q < pushes; q++) {
      event ev = make_event(seed, k++, now, 1000);
      ev.va = (uint32_t)p;
      assert_int_equal(agglo_ed_calendar_push(&c, ev), 0);
      r.a[r.n++] = ev;
    }
  }
  assert_int_equal(c.n, r.n);
  agglo_ed_calendar_clear(&c);
  const event *top;
  assert_int_equal(agglo_ed_calendar_top(&c, &top), 0);
  assert_null(top);
  agglo_ed_calendar_free(&c);
  free(r.a);
}

static void test_same_order_as_reference(void **st) {
  (void)st;
  run_against_reference(1, 2000, 20000, 0.05);   /* steady */
  run_against_reference(2, 10, 5000, 0.2);       /* growing from few */
  run_against_reference(3, 3000, 6000, 0.0);     /* draining */
}

/* Events all at one time (the dlca model's monomers that have not met) come out by kind and
   cluster, through a slot that cannot be narrowed. */
static void test_one_time_ties(void **st) {
  (void)st;
  agglo_ed_calendar c = {0};
  agglo_ed_calendar_clear(&c);
  enum { M = 500 };
  for (int32_t q = 0; q < M; q++) {
    event ev = {2.5, -7, -1, (q * 7919) % M, -1, 0, 0};
    assert_int_equal(agglo_ed_calendar_push(&c, ev), 0);
  }
  for (int round = 0; round < 3; round++)
    for (int32_t q = 0; q < M; q++) {
      const event *top;
      assert_int_equal(agglo_ed_calendar_top(&c, &top), 0);
      assert_non_null(top);
      assert_int_equal(top->ca, q);
      event ev = agglo_ed_calendar_pop(&c);
      ev.t += 1; /* its next flight, pushed in the order popped */
      assert_int_equal(agglo_ed_calendar_push(&c, ev), 0);
    }
  agglo_ed_calendar_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_order_as_reference),
      cmocka_unit_test(test_one_time_ties),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
