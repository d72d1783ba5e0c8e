/* Ballistic aggregation, exact event-driven reference (Degond et al. 2024, supplement A, made
   fast; docs/ballistic.md). Clusters translate rigidly: a particle's position is p_i + X_c + V_c (t - t_c) with p_i
   fixed relative to its cluster c. Events are pair contacts between particles of different
   clusters (closed-form time) and wall hits of a cluster (per axis, from its extents); with a
   motion (ballistic_events.h: the dlca model's Brownian flights), also the end of a cluster's
   flight, and contacts that do not stick.

   Speed: time is cut into windows in which the fastest cluster moves `window` max radii. No
   velocity ever exceeds the window's maximum (a merge averages, a wall reflects, a flight keeps
   or lowers its cluster's speed), so only pairs
   closer than 2 * window * r_max (plus radii) at the window start can meet in it: a cell list
   gives these candidate pairs in O(N). Each cluster keeps its candidate pairs; events go into a
   binary heap with the version counters of the clusters involved, so that when a cluster changes
   velocity (merge or wall) only its own pairs are recomputed, and stale events are dropped when
   they come out of the heap. A pair whose gap at the window's start exceeds the paths its two
   clusters travel by the window's end is not timed at all. Members are relabelled
   small-into-large: O(N log N) over a run. */
#include "models/ballistic_events.h"
#include "models/ballistic_config.h"
#include "core/cells.h"
#include "core/model.h"
#include "core/error.h"
#include "core/files.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef agglo_ed ed;
typedef agglo_ed_event event;

void agglo_ed_destroy(void *state) {
  ed *e = state;
  if (!e) return;
  free(e->cl); free(e->next_mem); free(e->head); free(e->tail); free(e->size);
  free(e->X0); free(e->V); free(e->t0); free(e->M); free(e->ext); free(e->t_flight); free(e->path); free(e->ver); free(e->p);
  free(e->qa); free(e->qb); free(e->qg);
  if (e->plist)
    for (size_t c = 0; c < e->n; c++) free(e->plist[c]);
  free(e->plist); free(e->plen); free(e->pcap);
  free(e->heap); free(e->cell_of); free(e->members); free(e->run_end); free(e->first);
  free(e);
}

int agglo_ed_create(agglo_ed **out, const agglo_system *s, double window, const char *window_key,
                    size_t stop_clusters, double t_stop, const agglo_ed_motion *motion, char *err,
                    size_t errlen) {
  ed *e = calloc(1, sizeof *e);
  if (!e) return agglo_fail(err, errlen, "out of memory");
  e->window = window, e->stop_clusters = stop_clusters, e->t_stop = t_stop;
  if (motion) e->motion = *motion;
  size_t n = s->n, m = n ? n : 1;
  e->n = n;
  e->dim = s->dim;
  e->cl = malloc(m * sizeof *e->cl);
  e->next_mem = malloc(m * sizeof *e->next_mem);
  e->head = malloc(m * sizeof *e->head);
  e->tail = malloc(m * sizeof *e->tail);
  e->size = malloc(m * sizeof *e->size);
  e->X0 = malloc(3 * m * sizeof *e->X0);
  e->V = malloc(3 * m * sizeof *e->V);
  e->t0 = malloc(m * sizeof *e->t0);
  e->M = malloc(m * sizeof *e->M);
  e->ext = malloc(6 * m * sizeof *e->ext);
  e->t_flight = malloc(m * sizeof *e->t_flight);
  e->ver = calloc(m, sizeof *e->ver);
  e->path = calloc(m, sizeof *e->path);
  e->p = malloc(3 * m * sizeof *e->p);
  e->plist = calloc(m, sizeof *e->plist);
  e->plen = calloc(m, sizeof *e->plen);
  e->pcap = calloc(m, sizeof *e->pcap);
  e->cell_of = malloc(m * sizeof *e->cell_of);
  e->members = malloc(m * sizeof *e->members);
  if (!e->cl || !e->next_mem || !e->head || !e->tail || !e->size || !e->X0 || !e->V || !e->t0 ||
      !e->M || !e->ext || !e->t_flight || !e->path || !e->ver || !e->p || !e->plist || !e->plen || !e->pcap || !e->cell_of ||
      !e->members) {
    agglo_ed_destroy(e);
    return agglo_fail(err, errlen, "out of memory for %zu particles", n);
  }
  double rs = 0;
  for (size_t i = 0; i < n; i++) {
    e->cl[i] = (int32_t)i, e->next_mem[i] = -1, e->head[i] = e->tail[i] = (int32_t)i;
    e->size[i] = 1;
    e->M[i] = s->m[i];
    e->t0[i] = s->t;
    e->t_flight[i] = INFINITY;
    for (int k = 0; k < 3; k++) {
      e->p[3 * i + k] = 0;
      e->X0[3 * i + k] = s->x[3 * i + k];
      e->V[3 * i + k] = k < s->dim ? s->v[3 * i + k] : 0;
      e->ext[6 * i + k] = -s->r[i], e->ext[6 * i + 3 + k] = s->r[i];
    }
    rs += s->r[i];
  }
  e->n_clusters = n;
  e->t = s->t;
  e->r_max = agglo_max_radius(s);
  e->r_mean = n ? rs / (double)n : 1;
  double span = 0;
  for (int k = 0; k < s->dim; k++)
    if (isfinite(s->box.len[k]) && s->box.len[k] > span) span = s->box.len[k];
  e->slack = 1e-9 * (e->r_max + span);
  double cell = 2 * e->r_max * (1 + window);
  for (int k = 0; k < s->dim; k++)
    if (s->box.periodic[k] && s->box.len[k] < 2 * cell) {
      double len = s->box.len[k];
      agglo_ed_destroy(e);
      return agglo_fail(err, errlen, "event driven: the periodic box (side %g along axis %d) must be at "
                  "least 4 (1 + %s) max radii = %g wide; lower %s or "
                  "enlarge the box", len, k, window_key, 2 * cell, window_key);
    }
  e->ncells = agglo_grid_counts(s->dim, s->box.len, s->box.periodic, cell, 3, s->n, e->nc);
  for (int k = 0; k < 3; k++) e->w[k] = s->box.len[k] / e->nc[k];
  e->first = calloc(e->ncells + 1, sizeof *e->first);
  if (!e->first) {
    agglo_ed_destroy(e);
    return agglo_fail(err, errlen, "out of memory for the cell grid");
  }
  if (e->motion.flight)
    for (size_t i = 0; i < n; i++) e->motion.flight(e->motion.ctx, e, (int32_t)i, e->t);
  *out = e;
  return 0;
}

static int ed_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                   size_t errlen) {
  int one = c->ballistic.stop == BALL_STOP_ONE_CLUSTER;
  return agglo_ed_create((agglo_ed **)state, s, c->ballistic.window, "ballistic.window",
                         one ? 1 : 0, one ? INFINITY : c->t_end, NULL, err, errlen);
}

/* ---- positions ---- */

static inline void pos(const ed *e, const agglo_box *box, int32_t i, double t, double x[3]) {
  int32_t c = e->cl[i];
  double dt = t - e->t0[c];
  for (int k = 0; k < 3; k++)
    x[k] = e->p[3 * (size_t)i + k] + e->X0[3 * (size_t)c + k] + e->V[3 * (size_t)c + k] * dt;
  agglo_box_wrap(box, x);
}

static inline double speed(const ed *e, int32_t c) {
  const double *V = e->V + 3 * (size_t)c;
  return sqrt(V[0] * V[0] + V[1] * V[1] + V[2] * V[2]);
}

/* Move the reference time of cluster c to t (before its velocity changes). */
static inline void rebase(ed *e, int32_t c, double t) {
  double dt = t - e->t0[c];
  for (int k = 0; k < 3; k++) e->X0[3 * (size_t)c + k] += e->V[3 * (size_t)c + k] * dt;
  e->path[c] += speed(e, c) * dt;
  e->t0[c] = t;
}

/* ---- the calendar: a binary min-heap on (t, kind, ca, cb) ---- */

static inline int ev_less(const event *a, const event *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->kind != b->kind) return a->kind < b->kind;
  if (a->ca != b->ca) return a->ca < b->ca;
  return a->cb < b->cb;
}

static int heap_push(ed *e, event ev) {
  if (e->hn == e->hcap) {
    size_t cap = e->hcap ? 2 * e->hcap : 1024;
    event *h = realloc(e->heap, cap * sizeof *h);
    if (!h) return -1;
    e->heap = h, e->hcap = cap;
  }
  size_t k = e->hn++;
  while (k > 0) {
    size_t up = (k - 1) / 2;
    if (!ev_less(&ev, &e->heap[up])) break;
    e->heap[k] = e->heap[up];
    k = up;
  }
  e->heap[k] = ev;
  return 0;
}

static event heap_pop(ed *e) {
  event top = e->heap[0], last = e->heap[--e->hn];
  size_t k = 0, n = e->hn;
  for (;;) {
    size_t l = 2 * k + 1, r = l + 1, m = k;
    const event *best = &last;
    if (l < n && ev_less(&e->heap[l], best)) m = l, best = &e->heap[l];
    if (r < n && ev_less(&e->heap[r], best)) m = r;
    if (m == k) break;
    e->heap[k] = e->heap[m];
    k = m;
  }
  if (n) e->heap[k] = last;
  return top;
}

/* ---- event times ---- */

/* Time until particles i and j (different clusters) touch, from time t; INFINITY if never. */
static double pair_time(const ed *e, const agglo_system *s, int32_t i, int32_t j, double t) {
  double xi[3], xj[3], dx[3], dv[3];
  pos(e, &s->box, i, t, xi);
  pos(e, &s->box, j, t, xj);
  agglo_box_delta(&s->box, xj, xi, dx); /* X_i - X_j */
  int32_t a = e->cl[i], b = e->cl[j];
  for (int k = 0; k < 3; k++) dv[k] = e->V[3 * (size_t)a + k] - e->V[3 * (size_t)b + k];
  double bb = dv[0] * dx[0] + dv[1] * dx[1] + dv[2] * dx[2];
  if (bb >= 0) return INFINITY;
  double sum = s->r[i] + s->r[j];
  double cc = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] - sum * sum;
  double aa = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
  double disc = bb * bb - aa * cc;
  if (disc < 0) return INFINITY;
  if (cc <= 0) return 0; /* touching (round-off) and approaching: now */
  return cc / (-bb + sqrt(disc)); /* = -(b + sqrt(disc))/a without cancellation */
}

static int schedule_pair(ed *e, const agglo_system *s, int32_t q) {
  int32_t i = e->qa[q], j = e->qb[q], a = e->cl[i], b = e->cl[j];
  if (a == b) return 0;
  /* cannot touch before the window ends: the gap at its start, less the paths both clusters
     travelled and can still travel in it, stays open (the events are the same without this
     test; it spares the contact time of most pairs of a cluster whose velocity changed) */
  if (e->qg[q] - e->path[a] - e->path[b] - speed(e, a) * (e->t_win - e->t0[a]) -
      speed(e, b) * (e->t_win - e->t0[b]) > e->slack)
    return 0;
  double dt = pair_time(e, s, i, j, e->t);
  if (!(e->t + dt < e->t_win)) return 0;
  event ev = {e->t + dt, q, a, b, e->ver[a], e->ver[b]};
  return heap_push(e, ev);
}

enum { FLIGHT_END = -7 };

/* The events of cluster c alone: its wall hits and the end of its flight. */
static int schedule_walls(ed *e, const agglo_system *s, int32_t c) {
  const double *V = e->V + 3 * (size_t)c, *ext = e->ext + 6 * (size_t)c;
  for (int k = 0; k < s->dim; k++) {
    if (s->box.periodic[k] || V[k] == 0) continue;
    double off = e->X0[3 * (size_t)c + k] + V[k] * (e->t - e->t0[c]);
    double gap = V[k] < 0 ? (ext[k] + off) - s->box.lo[k] : s->box.hi[k] - (ext[3 + k] + off);
    double dt = gap > 0 ? gap / fabs(V[k]) : 0;
    if (!(e->t + dt < e->t_win)) continue;
    event ev = {e->t + dt, -1 - (2 * k + (V[k] > 0)), c, -1, e->ver[c], 0};
    if (heap_push(e, ev) != 0) return -1;
  }
  if (e->t_flight[c] < e->t_win) {
    event ev = {e->t_flight[c], FLIGHT_END, c, -1, e->ver[c], 0};
    if (heap_push(e, ev) != 0) return -1;
  }
  return 0;
}

/* Recompute every event of cluster c (after its velocity changed); drops internal pairs. */
static int reschedule(ed *e, const agglo_system *s, int32_t c) {
  int32_t *lst = e->plist[c];
  size_t k = 0;
  for (size_t m = 0; m < e->plen[c]; m++) {
    int32_t q = lst[m];
    if (e->cl[e->qa[q]] == e->cl[e->qb[q]]) continue;
    lst[k++] = q;
    if (schedule_pair(e, s, q) != 0) return -1;
  }
  e->plen[c] = k;
  return schedule_walls(e, s, c);
}

static int plist_add(ed *e, int32_t c, int32_t q) {
  if (e->plen[c] == e->pcap[c]) {
    size_t cap = e->pcap[c] ? 2 * e->pcap[c] : 8;
    int32_t *l = realloc(e->plist[c], cap * sizeof *l);
    if (!l) return -1;
    e->plist[c] = l, e->pcap[c] = cap;
  }
  e->plist[c][e->plen[c]++] = q;
  return 0;
}

/* ---- window: materialise positions, candidate pairs, initial events ---- */

static inline int axis_cell(const ed *e, const agglo_box *box, int k, double xk) {
  if (e->nc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / e->w[k]);
  return c < 0 ? 0 : c >= e->nc[k] ? e->nc[k] - 1 : c;
}

static int push_candidate(ed *e, int32_t i, int32_t j, double gap) {
  if (e->nq == e->qcap) {
    size_t cap = e->qcap ? 2 * e->qcap : 1024;
    int32_t *a = realloc(e->qa, cap * sizeof *a);
    if (a) e->qa = a;
    int32_t *b = realloc(e->qb, cap * sizeof *b);
    if (b) e->qb = b;
    double *g = realloc(e->qg, cap * sizeof *g);
    if (g) e->qg = g;
    if (!a || !b || !g) return -1;
    e->qcap = cap;
  }
  int32_t q = (int32_t)e->nq++;
  e->qa[q] = i, e->qb[q] = j, e->qg[q] = gap;
  if (plist_add(e, e->cl[i], q) != 0 || plist_add(e, e->cl[j], q) != 0) return -1;
  return 0;
}

static int open_window(ed *e, agglo_system *s, double vmax) {
  size_t n = s->n;
  e->windows++;
  e->hn = 0;
  e->nq = 0;
  for (size_t c = 0; c < n; c++) {
    e->plen[c] = 0;
    if (e->size[c] > 0) rebase(e, (int32_t)c, e->t);
    e->path[c] = 0;
  }
  for (size_t i = 0; i < n; i++) pos(e, &s->box, (int32_t)i, e->t, s->x + 3 * i);
  double reach = 2 * e->window * e->r_max;
  e->t_win = e->t + e->window * e->r_max / vmax;
  /* bin */
  memset(e->first, 0, (e->ncells + 1) * sizeof *e->first);
  for (size_t i = 0; i < n; i++) {
    const double *x = s->x + 3 * i;
    int32_t c = (int32_t)(((size_t)axis_cell(e, &s->box, 2, x[2]) * e->nc[1] +
                           axis_cell(e, &s->box, 1, x[1])) * e->nc[0] +
                          axis_cell(e, &s->box, 0, x[0]));
    e->cell_of[i] = c;
    e->first[c + 1]++;
  }
  for (size_t c = 0; c < e->ncells; c++) e->first[c + 1] += e->first[c];
  if (!e->group_clusters) {
    for (size_t i = 0; i < n; i++) e->members[e->first[e->cell_of[i]]++] = (int32_t)i;
  } else { /* cluster by cluster: each cell's members of one cluster are consecutive */
    if (!e->run_end && !(e->run_end = malloc(n * sizeof *e->run_end))) return -1;
    for (size_t c = 0; c < n; c++)
      for (int32_t m = e->size[c] > 0 ? e->head[c] : -1; m >= 0; m = e->next_mem[m])
        e->members[e->first[e->cell_of[m]]++] = m;
  }
  for (size_t c = e->ncells; c > 0; c--) e->first[c] = e->first[c - 1];
  e->first[0] = 0;
  if (e->group_clusters) /* where each run of one cluster's members of a cell ends */
    for (size_t c = 0; c < e->ncells; c++)
      for (size_t p = e->first[c + 1]; p-- > e->first[c];)
        e->run_end[p] = p + 1 < e->first[c + 1] && e->cl[e->members[p + 1]] == e->cl[e->members[p]]
                            ? e->run_end[p + 1] : (int32_t)(p + 1);
  /* candidates: pairs of different clusters closer than reach (gap) */
  e->min_gap = INFINITY;
  for (size_t i = 0; i < n; i++) {
    const double *xi = s->x + 3 * i;
    int ax[3][3] = {{0}}, m[3];
    for (int k = 0; k < 3; k++) {
      int c = axis_cell(e, &s->box, k, xi[k]);
      m[k] = 0;
      for (int d = -1; d <= 1; d++) {
        int cc = c + d;
        if (cc < 0 || cc >= e->nc[k]) {
          if (!s->box.periodic[k]) continue;
          cc = (cc + e->nc[k]) % e->nc[k];
        }
        int dup = 0;
        for (int q = 0; q < m[k]; q++) dup |= ax[k][q] == cc;
        if (!dup) ax[k][m[k]++] = cc;
      }
    }
    for (int a = 0; a < m[2]; a++)
      for (int b = 0; b < m[1]; b++)
        for (int q = 0; q < m[0]; q++) {
          size_t cell = ((size_t)ax[2][a] * e->nc[1] + ax[1][b]) * e->nc[0] + ax[0][q];
          for (size_t p = e->first[cell]; p < e->first[cell + 1]; p++) {
            int32_t j = e->members[p];
            if (e->cl[j] == e->cl[i]) { /* the rest of i's cluster in this cell, at once */
              if (e->group_clusters) p = (size_t)e->run_end[p] - 1;
              continue;
            }
            if ((size_t)j <= i) continue;
            double d[3];
            agglo_box_delta(&s->box, xi, s->x + 3 * (size_t)j, d);
            double lim = s->r[i] + s->r[j], d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 < (lim + reach) * (lim + reach)) {
              double g = sqrt(d2) - lim;
              if (g < e->min_gap) e->min_gap = g;
              if (push_candidate(e, (int32_t)i, j, g) != 0) return -1;
            }
          }
        }
  }
  for (int32_t q = 0; q < (int32_t)e->nq; q++)
    if (schedule_pair(e, s, q) != 0) return -1;
  for (size_t c = 0; c < n; c++)
    if (e->size[c] > 0 && schedule_walls(e, s, (int32_t)c) != 0) return -1;
  return 0;
}

/* ---- events ---- */

static int merge(ed *e, const agglo_system *s, int32_t i, int32_t j, double t) {
  int32_t A = e->cl[i], B = e->cl[j];
  if (e->size[B] > e->size[A] || (e->size[B] == e->size[A] && B < A)) {
    int32_t tmp = A; A = B; B = tmp;
    tmp = i; i = j; j = tmp;
  }
  rebase(e, A, t);
  rebase(e, B, t);
  if (e->path[B] > e->path[A]) e->path[A] = e->path[B]; /* bounds every member's */
  /* shift of B's members into A's frame, with the periodic image of the contact */
  double xi[3], xj[3], d[3], shift[3];
  pos(e, &s->box, i, t, xi);
  pos(e, &s->box, j, t, xj);
  agglo_box_delta(&s->box, xi, xj, d); /* x_j - x_i */
  for (int k = 0; k < 3; k++) {
    double raw = (e->p[3 * (size_t)j + k] + e->X0[3 * (size_t)B + k]) -
                 (e->p[3 * (size_t)i + k] + e->X0[3 * (size_t)A + k]);
    double corr = d[k] - raw;
    if (s->box.periodic[k]) corr = s->box.len[k] * round(corr / s->box.len[k]);
    else corr = 0;
    shift[k] = e->X0[3 * (size_t)B + k] - e->X0[3 * (size_t)A + k] + corr;
  }
  for (int32_t m = e->head[B]; m >= 0; m = e->next_mem[m]) {
    for (int k = 0; k < 3; k++) e->p[3 * (size_t)m + k] += shift[k];
    e->cl[m] = A;
  }
  double *ea = e->ext + 6 * (size_t)A, *eb = e->ext + 6 * (size_t)B;
  for (int k = 0; k < 3; k++) {
    if (eb[k] + shift[k] < ea[k]) ea[k] = eb[k] + shift[k];
    if (eb[3 + k] + shift[k] > ea[3 + k]) ea[3 + k] = eb[3 + k] + shift[k];
  }
  double M = e->M[A] + e->M[B];
  for (int k = 0; k < 3; k++)
    e->V[3 * (size_t)A + k] =
        (e->M[A] * e->V[3 * (size_t)A + k] + e->M[B] * e->V[3 * (size_t)B + k]) / M;
  e->M[A] = M;
  e->t_flight[B] = INFINITY;
  e->next_mem[e->tail[A]] = e->head[B];
  e->tail[A] = e->tail[B];
  e->size[A] += e->size[B];
  e->size[B] = 0;
  if (e->motion.flight) e->motion.flight(e->motion.ctx, e, A, t); /* after its mass and size */
  e->ver[A]++, e->ver[B]++;
  e->n_clusters--;
  e->merges++;
  /* B's candidate pairs join A's */
  for (size_t m = 0; m < e->plen[B]; m++)
    if (plist_add(e, A, e->plist[B][m]) != 0) return -1;
  e->plen[B] = 0;
  return reschedule(e, s, A);
}

/* A start from a file's clusters: the pair's clusters become one, as at a collision (not
   counted as one; placed by the pair's minimum image, so touching pairs go first). */
int agglo_ed_join(void *state, const agglo_system *s, int32_t i, int32_t j, int touching) {
  ed *e = state;
  (void)touching;
  if (e->cl[i] == e->cl[j]) return 0;
  int rc = merge(e, s, i, j, e->t);
  e->merges--;
  return rc;
}

static int reflect(ed *e, const agglo_system *s, int32_t c, int axis, double t) {
  rebase(e, c, t);
  double *V = e->V + 3 * (size_t)c, *ext = e->ext + 6 * (size_t)c;
  V[axis] = -V[axis];
  /* a cluster as wide as the box would bounce without end: it stops along that axis [choice] */
  if (ext[3 + axis] - ext[axis] >= s->box.len[axis] * (1 - 1e-12)) V[axis] = 0;
  e->ver[c]++;
  e->wall_hits++;
  return reschedule(e, s, c);
}

/* Cluster c starts a new flight at time t (the end of its flight, or a contact that did not
   stick). */
static int new_flight(ed *e, const agglo_system *s, int32_t c, double t) {
  rebase(e, c, t);
  e->motion.flight(e->motion.ctx, e, c, t);
  e->ver[c]++;
  e->flights++;
  return reschedule(e, s, c);
}

int agglo_ed_step(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen) {
  ed *e = state;
  size_t n = s->n;
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->bad_particle = SIZE_MAX;
  double t_stop = e->t_stop;
  if (e->n_clusters <= e->stop_clusters || e->t >= t_stop) {
    info->finished = 1;
    return 0;
  }
  double vmax2 = 0;
  for (size_t k = 0; k < n; k++)
    if (e->size[k] > 0) {
      const double *V = e->V + 3 * k;
      double q = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
      if (q > vmax2) vmax2 = q;
    }
  int64_t ev0 = e->events;
  if (vmax2 == 0) {
    e->t = isfinite(t_stop) ? t_stop : e->t;
    info->finished = 1;
  } else {
    if (open_window(e, s, sqrt(vmax2)) != 0) return agglo_fail(err, errlen, "out of memory");
    info->min_gap = e->min_gap;
    for (;;) {
      if (e->hn == 0 || e->heap[0].t >= e->t_win) {
        if (e->t_win >= t_stop) {
          e->t = t_stop;
          info->finished = 1;
        } else {
          e->t = e->t_win;
        }
        break;
      }
      event ev = heap_pop(e);
      if (ev.t > t_stop) {
        e->t = t_stop;
        info->finished = 1;
        break;
      }
      if (ev.kind >= 0) {
        int32_t i = e->qa[ev.kind], j = e->qb[ev.kind];
        if (e->cl[i] != ev.ca || e->cl[j] != ev.cb || e->ver[ev.ca] != ev.va ||
            e->ver[ev.cb] != ev.vb) {
          e->stale++;
          continue;
        }
        e->t = ev.t;
        e->events++;
        if (e->motion.sticks && !e->motion.sticks(e->motion.ctx, e, ev.ca, ev.cb)) {
          /* they part: each leaves on a new flight from the contact */
          e->bounces++;
          if (new_flight(e, s, ev.ca, ev.t) != 0 || new_flight(e, s, ev.cb, ev.t) != 0)
            return agglo_fail(err, errlen, "out of memory");
          continue;
        }
        if (merge(e, s, i, j, ev.t) != 0) return agglo_fail(err, errlen, "out of memory");
        if (e->n_clusters <= e->stop_clusters) {
          info->finished = 1;
          break;
        }
      } else if (ev.kind == FLIGHT_END) {
        if (e->size[ev.ca] == 0 || e->ver[ev.ca] != ev.va) {
          e->stale++;
          continue;
        }
        e->t = ev.t;
        e->events++;
        if (new_flight(e, s, ev.ca, ev.t) != 0) return agglo_fail(err, errlen, "out of memory");
      } else {
        if (e->size[ev.ca] == 0 || e->ver[ev.ca] != ev.va) {
          e->stale++;
          continue;
        }
        int code = -1 - ev.kind;
        e->t = ev.t;
        e->events++;
        if (reflect(e, s, ev.ca, code / 2, ev.t) != 0) return agglo_fail(err, errlen, "out of memory");
      }
    }
  }
  /* materialise the state at e->t */
  size_t bad = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    pos(e, &s->box, (int32_t)i, e->t, s->x + 3 * i);
    const double *V = e->V + 3 * (size_t)e->cl[i];
    for (int k = 0; k < 3; k++) s->v[3 * i + k] = V[k];
    if (bad == SIZE_MAX && !(isfinite(s->x[3 * i]) && isfinite(s->x[3 * i + 1])))
      bad = i;
  }
  s->t = e->t;
  s->step++;
  info->iterations = (int)(e->events - ev0);
  info->n_contacts = e->nq;
  info->bad_particle = bad;
  if (!isfinite(info->min_gap)) info->min_gap = INFINITY;
  return 0;
}

double agglo_ed_contact_gap(const void *state) {
  const ed *e = state;
  return 1e-6 * e->r_mean;
}

int agglo_ed_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size) {
  const ed *e = state;
  size_t nc = 0, mx = 0;
  for (size_t c = 0; c < e->n; c++) {
    if (e->size[c] <= 0) continue;
    nc++;
    if ((size_t)e->size[c] > mx) mx = (size_t)e->size[c];
    int64_t low = INT64_MAX;
    for (int32_t m = e->head[c]; m >= 0; m = e->next_mem[m])
      if (s->id[m] < low) low = s->id[m];
    for (int32_t m = e->head[c]; m >= 0; m = e->next_mem[m]) s->cluster[m] = (int32_t)low;
  }
  *n_clusters = nc, *max_size = mx;
  return 0;
}

/* Restart: the clusters exactly as they are in memory (positions are sums p + X0 + V (t - t0):
   any other split of them rounds differently and moves every later event time). Per particle
   its cluster (the storage index naming it) and position in the cluster's frame; per cluster its
   offset at its reference time, velocity, reference time, mass (summed in merge order) and
   extents. */
static const char ed_header[] = "# ballistic event driven: per particle: cluster, position in "
                                "the cluster's frame (3); then per cluster: index, offset (3), "
                                "velocity (3), reference time, mass, extents (6)\n";

int agglo_ed_save(const void *state, FILE *f) {
  const ed *e = state;
  fprintf(f, "%s%zu\n", ed_header, e->n);
  for (size_t i = 0; i < e->n; i++)
    fprintf(f, "%d %.17g %.17g %.17g\n", e->cl[i], e->p[3 * i], e->p[3 * i + 1], e->p[3 * i + 2]);
  fprintf(f, "%zu\n", e->n_clusters);
  for (size_t c = 0; c < e->n; c++) {
    if (e->size[c] <= 0) continue;
    fprintf(f, "%zu", c);
    for (int k = 0; k < 3; k++) fprintf(f, " %.17g", e->X0[3 * c + k]);
    for (int k = 0; k < 3; k++) fprintf(f, " %.17g", e->V[3 * c + k]);
    fprintf(f, " %.17g %.17g", e->t0[c], e->M[c]);
    for (int k = 0; k < 6; k++) fprintf(f, " %.17g", e->ext[6 * c + k]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

static int all_finite(const double *v, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(v[k])) return 0;
  return 1;
}

int agglo_ed_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  (void)s; /* the clusters are read whole, not rebuilt from the particles */
  ed *e = state;
  char line[1024];
  size_t cnt, nc;
  if (!fgets(line, sizeof line, f) || strcmp(line, ed_header) != 0)
    return agglo_fail(err, errlen, "line 1 is not this agglo's event-driven header "
                      "(an older restart point, unwrapped positions only, cannot be continued "
                      "exactly: start the run over)");
  if (!fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1 || cnt != e->n)
    return agglo_fail(err, errlen, "line 2: expected the particle count %zu", e->n);
  for (size_t c = 0; c < e->n; c++) e->size[c] = 0, e->head[c] = e->tail[c] = -1;
  for (size_t i = 0; i < e->n; i++) {
    int c;
    double *p = e->p + 3 * i;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %lg %lg %lg", &c, &p[0], &p[1], &p[2]) != 4 ||
        c < 0 || (size_t)c >= e->n || !all_finite(p, 3))
      return agglo_fail(err, errlen, "line %zu is not 'cluster x y z' (cluster 0 to "
                        "%zu, finite positions)", i + 3, e->n - 1);
    e->cl[i] = c;
    e->next_mem[i] = -1;
    if (e->head[c] < 0) e->head[c] = (int32_t)i;
    else e->next_mem[e->tail[c]] = (int32_t)i;
    e->tail[c] = (int32_t)i;
    e->size[c]++;
  }
  size_t at = e->n + 3; /* the line read next */
  if (!fgets(line, sizeof line, f) || sscanf(line, "%zu", &nc) != 1 || nc > e->n)
    return agglo_fail(err, errlen, "line %zu: expected the cluster count (at most %zu)",
                      at, e->n);
  size_t named = 0;
  for (size_t c = 0; c < e->n; c++) named += e->size[c] > 0;
  if (nc != named)
    return agglo_fail(err, errlen, "line %zu: %zu clusters, but the particles name %zu",
                      at, nc, named);
  for (size_t q = 0; q < nc; q++) {
    size_t c;
    double X[3], V[3], t0, M, x[6];
    at++;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%zu %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg", &c, &X[0], &X[1],
               &X[2], &V[0], &V[1], &V[2], &t0, &M, &x[0], &x[1], &x[2], &x[3], &x[4], &x[5]) != 15 ||
        c >= e->n || e->size[c] <= 0 || !all_finite(X, 3) || !all_finite(V, 3) || !isfinite(t0) ||
        !(M > 0 && isfinite(M)) || !all_finite(x, 6))
      return agglo_fail(err, errlen, "line %zu is not a cluster of the particles "
                        "(index, 3 offsets, 3 velocities, time, mass > 0, 6 extents; all finite)", at);
    for (int k = 0; k < 3; k++) e->X0[3 * c + k] = X[k], e->V[3 * c + k] = V[k];
    for (int k = 0; k < 6; k++) e->ext[6 * c + k] = x[k];
    e->t0[c] = t0, e->M[c] = M;
    e->size[c] = -e->size[c]; /* read: a cluster listed twice is refused */
  }
  for (size_t c = 0; c < e->n; c++) e->size[c] = -e->size[c];
  e->n_clusters = nc;
  return 0;
}

const agglo_model agglo_model_ballistic_ed = {
    .name = "ballistic (event driven)",
    .init = ed_init,
    .step = agglo_ed_step,
    .contact_gap = agglo_ed_contact_gap,
    .neighbors = NULL,
    .save = agglo_ed_save,
    .load = agglo_ed_load,
    .destroy = agglo_ed_destroy,
    .variable_step = 1,
    .labels = agglo_ed_labels,
    .join = agglo_ed_join,
};
