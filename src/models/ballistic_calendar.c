/* The calendar of the event-driven engine: a calendar queue (Brown 1988) whose slots are spans
   of time of one width. Time is cut into slots q = floor((t - origin) / width); the events of
   the next nb slots wait unsorted in buckets (one per slot, q mod nb), later ones (and infinite
   times) in a binary heap (far). When the slots reached so far are used up, the next slot's
   bucket is sorted and becomes the run popped from; an event pushed into a slot already reached
   goes to a small heap beside it (late). q never decreases with t, so every event of the
   reached slots is earlier than every other one: the calendar gives exactly the order of
   agglo_ed_event_less whatever the width, which sets the speed only.

   Why: the engine's events are mostly a cluster's next one (the end of its flight, its rebuild),
   pushed a nearly fixed delay ahead and popped in time order. A binary heap of 10^5-10^6 of
   them costs a cache miss per level on every pop; a slot holds a few events. The dlca model's
   monomers that have not met yet all end their flights at exactly the same times (one delay
   from the same start), so one slot may hold most of the events: they were pushed in the order
   they are popped in (by cluster), and the sort, a natural merge sort, takes them as one run.

   The width follows the events: learnt from their mean delay when all are in the far heap
   (PER_SLOT events per slot, nb slots covering twice their span); halved (with twice the slots)
   when a slot's events came in more than CROWDED runs and half a slot would split them; doubled
   when a whole turn of the nb slots found events in less than a slot in PER_SLOT; a turn that
   sent many events to the far heap doubles nb. Each resize places every event anew: O(events),
   paid after a turn of the slots or a crowded slot. */
#include "models/ballistic_calendar.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL = 64,      /* fewer events than this: the far heap alone */
       PER_SLOT = 4,    /* events per slot aimed at */
       CROWDED = 16 };  /* a slot whose events came in more runs than this is halved */

typedef agglo_ed_event event;

static inline int less(const event *a, const event *b) { return agglo_ed_event_less(a, b); }

static int reserve(agglo_ed_heap *h, size_t need) {
  if (need <= h->cap) return 0;
  size_t cap = h->cap ? 2 * h->cap : 16;
  while (cap < need) cap *= 2;
  event *a = realloc(h->a, cap * sizeof *a);
  if (!a) return -1;
  h->a = a, h->cap = cap;
  return 0;
}

/* ---- binary heaps (late, far) ---- */

static int heap_push(agglo_ed_heap *h, event ev) {
  if (reserve(h, h->n + 1) != 0) return -1;
  size_t k = h->n++;
  while (k > 0) {
    size_t up = (k - 1) / 2;
    if (!less(&ev, &h->a[up])) break;
    h->a[k] = h->a[up];
    k = up;
  }
  h->a[k] = ev;
  return 0;
}

static event heap_pop(agglo_ed_heap *h) {
  event top = h->a[0], last = h->a[--h->n];
  size_t k = 0, n = h->n;
  if (n == 0) return top;
  for (;;) {
    size_t l = 2 * k + 1, r = l + 1, m = k;
    const event *best = &last;
    if (l < n && less(&h->a[l], best)) m = l, best = &h->a[l];
    if (r < n && less(&h->a[r], best)) m = r;
    if (m == k) break;
    h->a[k] = h->a[m];
    k = m;
  }
  h->a[k] = last;
  return top;
}

/* ---- the sort of a slot: natural merge sort (stable; one pass over a sorted slot) ---- */

static size_t count_runs(const event *a, size_t n) {
  size_t runs = n > 0;
  for (size_t i = 1; i < n; i++) runs += less(&a[i], &a[i - 1]);
  return runs;
}

/* The end of the run starting at i. */
static size_t run_end(const event *a, size_t i, size_t n) {
  for (i++; i < n && !less(&a[i], &a[i - 1]); i++) {}
  return i;
}

/* Sort b; *runs: the runs it came in. -1: out of memory. */
static int sort_slot(agglo_ed_heap *b, agglo_ed_heap *scratch, size_t *runs) {
  size_t n = b->n, r = count_runs(b->a, n);
  *runs = r;
  if (r <= 1) return 0;
  if (reserve(scratch, n) != 0) return -1;
  event *src = b->a, *dst = scratch->a;
  while (r > 1) {
    r = 0;
    for (size_t i = 0; i < n; r++) {
      size_t m = run_end(src, i, n), e = m < n ? run_end(src, m, n) : n, l = i, h = m, k = i;
      while (l < m && h < e) dst[k++] = less(&src[h], &src[l]) ? src[h++] : src[l++];
      while (l < m) dst[k++] = src[l++];
      while (h < e) dst[k++] = src[h++];
      i = e;
    }
    event *tmp = src;
    src = dst, dst = tmp;
  }
  if (src != b->a) { /* the sorted array is the scratch one: swap them */
    size_t cap = b->cap;
    scratch->a = b->a, b->a = src;
    b->cap = scratch->cap, scratch->cap = cap;
  }
  return 0;
}

/* ---- placing events ---- */

enum { REACHED, BUCKET, FAR };

/* Where an event of time t goes, and its slot q when in a bucket. */
static int where(const agglo_ed_calendar *c, double t, int64_t *q) {
  if (!(c->width > 0)) return FAR;
  double x = (t - c->origin) * c->per_width;
  if (!(x < (double)(c->q_near + (int64_t)c->nb))) return FAR;
  if (x < (double)c->q_near) return REACHED;
  *q = (int64_t)x; /* x >= q_near >= 0 */
  return BUCKET;
}

static int place(agglo_ed_calendar *c, event ev) {
  int64_t q = 0;
  switch (where(c, ev.t, &q)) {
  case REACHED: return heap_push(&c->late, ev);
  case FAR: c->far_placed++; return heap_push(&c->far, ev);
  default: {
    agglo_ed_heap *b = &c->bucket[(size_t)q & (c->nb - 1)];
    if (reserve(b, b->n + 1) != 0) return -1;
    b->a[b->n++] = ev;
    c->in_buckets++;
    return 0;
  }
  }
}

int agglo_ed_calendar_push(agglo_ed_calendar *c, event ev) {
  if (place(c, ev) != 0) return -1;
  if (isfinite(ev.t) && isfinite(c->last_t)) c->delay_sum += ev.t - c->last_t, c->delays++;
  c->n++;
  return 0;
}

static size_t pow2_at_least(double x) {
  size_t p = SMALL;
  while ((double)p < x && p < ((size_t)1 << 24)) p *= 2;
  return p;
}

static void take_all(agglo_ed_heap *to, agglo_ed_heap *from, size_t from_index) {
  size_t k = from->n - from_index;
  if (k) memcpy(to->a + to->n, from->a + from_index, k * sizeof *from->a);
  to->n += k;
  from->n = from->head = 0;
}

/* Every event placed anew on nb slots of this width from the earliest event (width < 0: learnt
   from the events, nb too; 0: all in the far heap). */
static int resize(agglo_ed_calendar *c, double width, size_t nb) {
  agglo_ed_heap all = {malloc((c->n ? c->n : 1) * sizeof(event)), 0, c->n, 0};
  if (!all.a) return -1;
  take_all(&all, &c->run, c->run.head);
  take_all(&all, &c->late, 0);
  take_all(&all, &c->far, 0);
  for (size_t k = 0; k < c->nb; k++) take_all(&all, &c->bucket[k], 0);
  double lo = INFINITY, sum = 0;
  size_t finite = 0;
  for (size_t k = 0; k < all.n; k++)
    if (all.a[k].t < lo) lo = all.a[k].t;
  if (width < 0) {
    for (size_t k = 0; k < all.n; k++)
      if (isfinite(all.a[k].t)) sum += all.a[k].t - lo, finite++;
    /* the span of the pending events: twice their mean delay from the earliest, or if they
       are all at one time, the mean delay they were pushed with */
    double span = finite ? 2 * sum / (double)finite : 0;
    if (!(span > 0) && c->delays) span = c->delay_sum / (double)c->delays;
    width = finite ? span * PER_SLOT / (double)finite : 0;
    nb = pow2_at_least((double)finite / 2);
    /* no width (all at one time, or never): the far heap alone until its earliest is later */
    c->retry_after = width > 0 && isfinite(width) ? -INFINITY : lo;
  }
  if (nb != c->nb) {
    agglo_ed_heap *b = calloc(nb, sizeof *b);
    if (!b) {
      free(all.a);
      return -1;
    }
    for (size_t k = 0; k < c->nb; k++) free(c->bucket[k].a);
    free(c->bucket);
    c->bucket = b, c->nb = nb;
  }
  c->origin = isfinite(lo) ? lo : 0;
  c->width = isfinite(lo) && width > 0 && isfinite(width) ? width : 0;
  c->per_width = c->width > 0 ? 1 / c->width : 0;
  c->q_near = 0, c->in_buckets = 0;
  int rc = 0;
  for (size_t k = 0; k < all.n && rc == 0; k++) rc = place(c, all.a[k]);
  c->loaded = c->filled = c->advanced = c->far_placed = 0;
  c->delay_sum = 0, c->delays = 0;
  free(all.a);
  return rc;
}

/* Whether half as wide a slot would split the run just loaded (sorted) into parts of at least
   an eighth each: not so for events at one time. */
static int splits(const agglo_ed_calendar *c) {
  const agglo_ed_heap *r = &c->run;
  double mid = c->origin + ((double)(c->q_near - 1) + 0.5) * c->width;
  return r->a[r->n / 8].t < mid && r->a[r->n - 1 - r->n / 8].t >= mid;
}

/* The run (used up, late empty) becomes the next slot's bucket, sorted; far events move into
   the slots now within reach. */
static int advance(agglo_ed_calendar *c) {
  agglo_ed_heap *b = &c->bucket[(size_t)c->q_near & (c->nb - 1)], used = c->run;
  c->run = *b;
  *b = used;
  b->n = b->head = 0;
  if (b->cap > 4 * CROWDED) { /* a crowded slot's array is not kept for a sparse one */
    free(b->a);
    b->a = NULL, b->cap = 0;
  }
  c->in_buckets -= c->run.n;
  c->q_near++;
  size_t runs;
  if (sort_slot(&c->run, &c->scratch, &runs) != 0) return -1;
  c->advanced++, c->filled += c->run.n > 0, c->loaded += c->run.n;
  int64_t q;
  while (c->far.n && where(c, c->far.a[0].t, &q) == BUCKET)
    if (place(c, heap_pop(&c->far)) != 0) return -1;
  if (runs > CROWDED && splits(c))
    return resize(c, c->width / 2, pow2_at_least(fmin(2.0 * (double)c->nb, 2.0 * (double)c->n)));
  if (c->advanced >= c->nb) {
    int sparse = c->filled * PER_SLOT < c->advanced, short_reach = 4 * c->far_placed > c->loaded;
    size_t nb = short_reach ? pow2_at_least(fmin(2.0 * (double)c->nb, 4.0 * (double)c->n)) : c->nb;
    c->loaded = c->filled = c->advanced = c->far_placed = 0;
    if (sparse || nb != c->nb) return resize(c, sparse ? 2 * c->width : c->width, nb);
  }
  return 0;
}

/* Which part the earliest event is in: the run, the late heap, or (everything else empty)
   the far heap. */
static agglo_ed_heap *first_part(agglo_ed_calendar *c) {
  int r = c->run.head < c->run.n, l = c->late.n > 0;
  if (r && (!l || !less(&c->late.a[0], &c->run.a[c->run.head]))) return &c->run;
  return l ? &c->late : &c->far;
}

int agglo_ed_calendar_top(agglo_ed_calendar *c, const event **top) {
  int resized = 0;
  for (;;) {
    if (c->run.head < c->run.n || c->late.n) {
      agglo_ed_heap *p = first_part(c);
      *top = &p->a[p == &c->run ? p->head : 0];
      return 0;
    }
    if (c->in_buckets) {
      if (advance(c) != 0) return -1;
      continue;
    }
    /* only the far heap holds events: spread them on slots */
    if (c->far.n >= SMALL && !(c->far.a[0].t <= c->retry_after) && !resized) {
      if (resize(c, -1, 0) != 0) return -1;
      resized = 1;
      continue;
    }
    *top = c->far.n ? &c->far.a[0] : NULL;
    return 0;
  }
}

event agglo_ed_calendar_pop(agglo_ed_calendar *c) {
  agglo_ed_heap *p = first_part(c);
  c->n--;
  event ev = p == &c->run ? p->a[p->head++] : heap_pop(p);
  if (isfinite(ev.t)) c->last_t = ev.t;
  return ev;
}

void agglo_ed_calendar_clear(agglo_ed_calendar *c) {
  c->run.n = c->run.head = c->late.n = c->far.n = 0;
  for (size_t k = 0; k < c->nb; k++) c->bucket[k].n = 0;
  c->n = c->in_buckets = 0;
  c->width = c->per_width = 0, c->origin = 0, c->q_near = 0;
  c->loaded = c->filled = c->advanced = c->far_placed = 0;
  c->retry_after = -INFINITY, c->last_t = -INFINITY;
  c->delay_sum = 0, c->delays = 0;
}

void agglo_ed_calendar_free(agglo_ed_calendar *c) {
  free(c->run.a), free(c->late.a), free(c->far.a), free(c->scratch.a);
  for (size_t k = 0; k < c->nb; k++) free(c->bucket[k].a);
  free(c->bucket);
  memset(c, 0, sizeof *c);
}
