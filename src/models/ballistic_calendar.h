/* The calendar of the event-driven engine (ballistic_event_driven.c): a priority queue of events
   that pops them in exactly the order of agglo_ed_event_less, in O(1) amortised per event
   (ballistic_calendar.c says how). */
#ifndef AGGLO_MODELS_BALLISTIC_CALENDAR_H
#define AGGLO_MODELS_BALLISTIC_CALENDAR_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  double t;
  int32_t kind;   /* >= 0: particle i of a contact with particle j; -1..-6: wall,
                     -1 - (2 axis + side); -7: flight end; -8: rebuild of the cluster's pairs */
  int32_t j;
  int32_t ca, cb; /* clusters (cb unused for the events of one cluster) */
  uint32_t va, vb;
} agglo_ed_event;

/* The order of events: by time, then kind, clusters and partner, so that events at equal
   times come out in an order that does not depend on when they were scheduled. */
static inline int agglo_ed_event_less(const agglo_ed_event *a, const agglo_ed_event *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->kind != b->kind) return a->kind < b->kind;
  if (a->ca != b->ca) return a->ca < b->ca;
  if (a->cb != b->cb) return a->cb < b->cb;
  return a->j < b->j;
}

/* A binary min-heap, an unsorted bucket or a sorted run (from index head). */
typedef struct {
  agglo_ed_event *a;
  size_t n, cap, head;
} agglo_ed_heap;

typedef struct {
  agglo_ed_heap run;       /* the events of the slots before q_near, sorted (from run.head) */
  agglo_ed_heap late;      /* and those pushed there after the sort (a heap) */
  agglo_ed_heap far;       /* slots from q_near + nb, and infinite times (a heap) */
  agglo_ed_heap *bucket;   /* nb slots: bucket[q % nb] holds the events of slot q */
  agglo_ed_heap scratch;   /* for sorting */
  size_t nb, in_buckets, n;
  double origin, width;    /* slot q of time t: floor((t - origin) / width); width 0: not set */
  double per_width;        /* 1 / width (the slot is computed by a product) */
  int64_t q_near;
  /* since the last turn of the slots or resize: events loaded, slots loaded with events, slots
     passed, events placed far */
  size_t loaded, filled, advanced, far_placed;
  double retry_after;      /* no width could be learnt from events at this time */
  double last_t;           /* of the last event popped (-INFINITY: none yet) */
  double delay_sum;        /* since the last resize: the delays of the events pushed */
  size_t delays;
} agglo_ed_calendar;

/* A calendar starts zeroed, then cleared (agglo_ed_calendar_clear: empty). */
int agglo_ed_calendar_push(agglo_ed_calendar *c, agglo_ed_event ev);
/* *top: the earliest event (NULL when the calendar is empty), valid until the next push or pop;
   it may move events between the calendar's parts. -1: out of memory. */
int agglo_ed_calendar_top(agglo_ed_calendar *c, const agglo_ed_event **top);
/* Remove the earliest event (right after agglo_ed_calendar_top gave one). */
agglo_ed_event agglo_ed_calendar_pop(agglo_ed_calendar *c);
void agglo_ed_calendar_clear(agglo_ed_calendar *c);
void agglo_ed_calendar_free(agglo_ed_calendar *c);

#endif
