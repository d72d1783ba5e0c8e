/* Ballistic aggregation, exact event-driven reference (Degond et al. 2024, supplement A, made
   fast; docs/ballistic.md). Clusters translate rigidly: a particle's position is
   p_i + X_c + V_c (t - t_c) with p_i fixed relative to its cluster c. Events are pair contacts
   between particles of different clusters (closed-form time) and wall hits of a cluster (per
   axis, from its extents); with a motion (ballistic_events.h: the dlca model's Brownian
   flights), also the end of a cluster's flight, and contacts that do not stick.

   Speed: per-cluster builds with a displacement margin m = window r_max (a distance, so that a
   velocity change at a flight, a merge or a wall never invalidates it). Particles are binned in
   a cell grid by their positions at their cluster's last build; a pair (i of a, j of b) is a
   candidate iff the gap between these build positions is below 2 m. While neither cluster has
   moved m from its build, a pair that is not a candidate cannot touch. A cluster's own events
   are its wall hits, its flight's end and its *rebuild* (its displacement reaching m); only the
   earliest is in the calendar (the horizon of the cluster: at it, all the cluster's events are
   recomputed). A rebuild re-bins the cluster's members and finds its pairs anew (they enter its
   partners' lists too; the pairs of its previous build die with its build stamp). A merged
   cluster keeps the larger one's build: the smaller one's members get the build positions they
   would have had at it, and only their pairs are found. A contact later than the horizon of
   either cluster is not scheduled (it is recomputed then), and a pair whose build gap, less
   the clusters' relative displacement and path to that horizon, stays open is not timed: a
   cluster's flight costs its pairs, not N. Events go into a calendar queue
   (ballistic_calendar.c: exact order, O(1) per event) with the version counters of the clusters
   involved; stale events are dropped when they come out of it.
   Contact, wall and rebuild times are computed from the clusters' reference times, not from the
   time they are scheduled, so that the trajectory does not depend on when the pairs were built
   (a restart goes on bit for bit). Members are relabelled small-into-large: O(N log N).
   With a motion whose draws are keyed per cluster, a cluster without candidate pairs flies its
   flights up to its next rebuild as one event (grouped flights, exact; burst when a build finds
   it: docs/dlca.md). */
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
typedef agglo_ed_pair pair;
_Static_assert(sizeof(agglo_ed_cluster) == 128, "a cluster is two cache lines");

void agglo_ed_destroy(void *state) {
  ed *e = state;
  if (!e) return;
  if (e->cluster)
    for (size_t c = 0; c < e->n; c++) free(e->cluster[c].plist);
  free(e->cl); free(e->next_mem); free(e->head); free(e->tail); free(e->cluster); free(e->ext);
  free(e->turned); free(e->G); free(e->turn_v);
  free(e->grouped); free(e->silent); free(e->gstart); free(e->gdraws);
  free(e->cmark); free(e->nmark); free(e->pmark); free(e->found); free(e->near); free(e->alive);
  free(e->p); free(e->xb);
  free(e->M); free(e->pcap);
  agglo_ed_calendar_free(&e->cal); free(e->chead); free(e->occupied); free(e->cnext); free(e->cprev); free(e->cell_of);
  free(e);
}

/* A cluster's margin as stored: m rounded down (a margin may never exceed what was decided). */
static float margin_float(double m) {
  float f = (float)m;
  return (double)f > m ? nextafterf(f, 0) : f;
}

/* The cell grid of the build positions for the reach e->margin: a candidate's build gap is below
   2 margin, so its centres are within a cell of each other. */
static int make_grid(ed *e, const agglo_system *s) {
  double cell = 2 * e->r_max + 2 * e->margin + 2 * e->slack;
  free(e->chead), free(e->occupied), free(e->cmark), free(e->nmark);
  e->cmark = e->nmark = NULL; /* the scan's marks per cell: anew at the next scan */
  e->ncells = agglo_grid_counts(s->dim, s->box.len, s->box.periodic, cell, 3, s->n, e->nc);
  for (int k = 0; k < 3; k++) e->w[k] = s->box.len[k] / e->nc[k];
  e->chead = malloc(e->ncells * sizeof *e->chead);
  e->occupied = calloc(e->ncells / 64 + 1, sizeof *e->occupied);
  return e->chead && e->occupied ? 0 : -1;
}

/* The largest margin a periodic box allows: two cells across it. */
static double widest_margin(const ed *e, const agglo_system *s) {
  double m = INFINITY;
  for (int k = 0; k < s->dim; k++)
    if (s->box.periodic[k]) m = fmin(m, s->box.len[k] / 4 - e->r_max - e->slack);
  return m;
}

int agglo_ed_widen(agglo_ed *e, const agglo_system *s, double margin) {
  margin = fmin(margin, widest_margin(e, s));
  if (!(margin > e->margin)) return 0;
  e->margin = margin;
  e->built = 0;
  return make_grid(e, s);
}

int agglo_ed_create(agglo_ed **out, const agglo_system *s, double window, const char *window_key,
                    size_t stop_clusters, double t_stop, const agglo_ed_motion *motion, char *err,
                    size_t errlen) {
  ed *e = calloc(1, sizeof *e);
  if (!e) return agglo_fail(err, errlen, "out of memory");
  e->window = window, e->stop_clusters = stop_clusters, e->t_stop = t_stop;
  e->t_until = INFINITY;
  if (motion) e->motion = *motion;
  size_t n = s->n, m = n ? n : 1;
  e->n = n;
  e->dim = s->dim;
  e->cl = malloc(m * sizeof *e->cl);
  e->next_mem = malloc(m * sizeof *e->next_mem);
  e->head = malloc(m * sizeof *e->head);
  e->tail = malloc(m * sizeof *e->tail);
  /* one cache line pair per cluster (aligned): an event reads its cluster's motion and build
     together */
  size_t bytes = m * sizeof *e->cluster;
  e->cluster = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (e->cluster) memset(e->cluster, 0, bytes);
  e->ext = malloc(6 * m * sizeof *e->ext);
  e->p = malloc(3 * m * sizeof *e->p);
  e->xb = malloc(3 * m * sizeof *e->xb);
  e->M = malloc(m * sizeof *e->M);
  e->pcap = calloc(m, sizeof *e->pcap);
  e->cnext = malloc(m * sizeof *e->cnext);
  e->cprev = malloc(m * sizeof *e->cprev);
  e->cell_of = malloc(m * sizeof *e->cell_of);
  if (!e->cl || !e->next_mem || !e->head || !e->tail || !e->cluster || !e->ext || !e->p ||
      !e->xb || !e->M || !e->pcap || !e->cnext || !e->cprev || !e->cell_of) {
    agglo_ed_destroy(e);
    return agglo_fail(err, errlen, "out of memory for %zu particles", n);
  }
  if (e->motion.turn) {
    e->turned = calloc(m, sizeof *e->turned);
    e->G = calloc(3 * m, sizeof *e->G); /* a particle is its cluster's origin */
    e->turn_v = malloc(3 * m * sizeof *e->turn_v);
    if (!e->turned || !e->G || !e->turn_v) {
      agglo_ed_destroy(e);
      return agglo_fail(err, errlen, "out of memory for %zu particles", n);
    }
  }
  double rs = 0;
  for (size_t i = 0; i < n; i++) {
    e->cl[i] = (int32_t)i, e->next_mem[i] = -1, e->head[i] = e->tail[i] = (int32_t)i;
    e->cluster[i].size = 1;
    e->M[i] = s->m[i];
    e->cluster[i].t0 = s->t;
    e->cluster[i].t_flight = INFINITY;
    for (int k = 0; k < 3; k++) {
      e->p[3 * i + k] = 0;
      e->cluster[i].X0[k] = s->x[3 * i + k];
      e->cluster[i].V[k] = k < s->dim ? s->v[3 * i + k] : 0;
      e->ext[6 * i + k] = -s->r[i], e->ext[6 * i + 3 + k] = s->r[i];
    }
    rs += s->r[i];
  }
  e->n_clusters = n;
  e->t = s->t;
  e->r_max = agglo_max_radius(s);
  e->r_mean = n ? rs / (double)n : 1;
  e->margin = window * e->r_max;
  for (size_t c = 0; c < n; c++) e->cluster[c].margin = margin_float(e->margin);
  double span = 0;
  for (int k = 0; k < s->dim; k++)
    if (isfinite(s->box.len[k]) && s->box.len[k] > span) span = s->box.len[k];
  e->slack = 1e-9 * (e->r_max + span);
  /* a candidate's build gap is below 2 margin: its centres are within a cell */
  double cell = 2 * e->r_max + 2 * e->margin + 2 * e->slack;
  for (int k = 0; k < s->dim; k++)
    if (s->box.periodic[k] && s->box.len[k] < 2 * cell) {
      double len = s->box.len[k];
      agglo_ed_destroy(e);
      return agglo_fail(err, errlen, "event driven: the periodic box (side %g along axis %d) must be at "
                  "least 4 (1 + %s) max radii = %g wide; lower %s or "
                  "enlarge the box", len, k, window_key, 2 * cell, window_key);
    }
  if (make_grid(e, s) != 0) {
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
  int one = agglo_ballistic_of(c)->stop == BALL_STOP_ONE_CLUSTER;
  return agglo_ed_create((agglo_ed **)state, s, agglo_ballistic_of(c)->window, "ballistic.window",
                         one ? 1 : 0, one ? INFINITY : c->t_end, NULL, err, errlen);
}

/* ---- positions ---- */

static inline void pos(const ed *e, const agglo_box *box, int32_t i, double t, double x[3]) {
  int32_t c = e->cl[i];
  double dt = t - e->cluster[c].t0;
  for (int k = 0; k < 3; k++)
    x[k] = e->p[3 * (size_t)i + k] + e->cluster[c].X0[k] + e->cluster[c].V[k] * dt;
  agglo_box_wrap(box, x);
}

/* Cluster c's offset at time t less its offset at its build (unwrapped: no periodic image). */
static inline void from_build(const ed *e, int32_t c, double t, double D[3]) {
  double dt = t - e->cluster[c].t0;
  for (int k = 0; k < 3; k++) D[k] = e->cluster[c].X0[k] + e->cluster[c].V[k] * dt - e->cluster[c].Xb[k];
}

/* How far cluster c is at time t from its build (unwrapped offsets: no periodic image). */
static inline double displacement(const ed *e, int32_t c, double t) {
  double D[3];
  from_build(e, c, t, D);
  return sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
}

/* How far cluster c's turns may have moved its members since its build (0: it never turns). */
static inline double turned(const ed *e, int32_t c) { return e->turned ? e->turned[c] : 0; }

/* Move the reference time of cluster c to t (before its velocity changes). */
static inline void rebase(ed *e, int32_t c, double t) {
  double dt = t - e->cluster[c].t0;
  for (int k = 0; k < 3; k++) e->cluster[c].X0[k] += e->cluster[c].V[k] * dt;
  e->cluster[c].t0 = t;
}

/* ---- event times, from the clusters' reference times ---- */

/* Time until particles i and j (different clusters) touch, from time t; INFINITY if never. */
/* Time after t at which particles i and j touch, along their clusters' current velocities, in
   the periodic image that is nearest at time `now` (>= t): the pair is a candidate because it is
   near now, while t (the clusters' reference time) may be long before, when the two were in
   another image of each other (ballistic clusters that have not merged for long; a dilute run
   once let clusters pass through each other this way: test_ballistic_events). */
static double pair_time(const ed *e, const agglo_system *s, int32_t i, int32_t j, double t,
                        double now) {
  double xi[3], xj[3], dx[3], dv[3];
  pos(e, &s->box, i, t, xi);
  pos(e, &s->box, j, t, xj);
  agglo_box_delta(&s->box, xj, xi, dx); /* X_i - X_j */
  int32_t a = e->cl[i], b = e->cl[j];
  for (int k = 0; k < 3; k++) {
    dv[k] = e->cluster[a].V[k] - e->cluster[b].V[k];
    if (s->box.periodic[k]) { /* the image nearest now (the same one unless they moved apart) */
      double later = dx[k] + dv[k] * (now - t);
      if (fabs(later) > 0.5 * s->box.len[k]) dx[k] -= s->box.len[k] * round(later / s->box.len[k]);
    }
  }
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

enum { FLIGHT_END = -7, REBUILD = -8 };

/* The earliest event of cluster c alone (a wall hit, its flight's end, its rebuild), from its
   reference time; its time is the cluster's horizon. */
static event own_event(const ed *e, const agglo_system *s, int32_t c) {
  const double *V = e->cluster[c].V, *ext = e->ext + 6 * (size_t)c;
  const double *X = e->cluster[c].X0, *Xb = e->cluster[c].Xb;
  double t0 = e->cluster[c].t0;
  event best = {INFINITY, 0, -1, c, -1, e->cluster[c].ver, 0}, ev = best;
  for (int k = 0; k < s->dim; k++) {
    if (s->box.periodic[k] || V[k] == 0) continue;
    double gap = V[k] < 0 ? (ext[k] + X[k]) - s->box.lo[k] : s->box.hi[k] - (ext[3 + k] + X[k]);
    ev.t = t0 + (gap > 0 ? gap / fabs(V[k]) : 0);
    ev.kind = -1 - (2 * k + (V[k] > 0));
    if (agglo_ed_event_less(&ev, &best)) best = ev;
  }
  ev.t = e->cluster[c].t_flight, ev.kind = FLIGHT_END;
  if (agglo_ed_event_less(&ev, &best)) best = ev;
  /* |D + V dt| = margin less what its turns moved it, D the displacement from the build at t0 */
  double room = e->cluster[c].margin - turned(e, c);
  if (room < 0) room = 0;
  double D[3], aa = 0, bb = 0, cc = -room * room;
  for (int k = 0; k < 3; k++) {
    D[k] = X[k] - Xb[k];
    aa += V[k] * V[k], bb += D[k] * V[k], cc += D[k] * D[k];
  }
  if (aa > 0) {
    /* the later root: the build may lie after t0, on the way (beyond the margin: now) */
    double disc = bb * bb - aa * cc, dt = disc < 0 ? 0 : (-bb + sqrt(disc)) / aa;
    ev.t = t0 + dt, ev.kind = REBUILD;
    if (agglo_ed_event_less(&ev, &best)) best = ev;
  }
  if (best.t < e->t) best.t = e->t; /* round-off: never in the past */
  return best;
}

/* Recompute every event of cluster c (after its velocity or its build changed, ver[c] bumped):
   its own earliest, and the contacts of its live candidate pairs before the horizon of both
   clusters; dead pairs leave its list. */
static event group(ed *e, const agglo_system *s, int32_t c, event own);
static size_t live_pairs(ed *e, int32_t c);

static int reschedule(ed *e, const agglo_system *s, int32_t c) {
  event own = own_event(e, s, c);
  /* a lone cluster (no live pair) that neither turns (a monomer) nor meets anything before the
     end of its flight: its next flights as one event */
  if (own.kind == FLIGHT_END && e->group_cap > 0 && (!e->motion.turn || e->cluster[c].size == 1) &&
      live_pairs(e, c) == 0)
    own = group(e, s, c, own);
  e->cluster[c].horizon = own.t;
  if (isfinite(own.t) && agglo_ed_calendar_push(&e->cal, own) != 0) return -1;
  if (e->cluster[c].plen == 0) return 0;
  double t = e->t, Dc[3];
  from_build(e, c, t, Dc);
  pair *l = e->cluster[c].plist;
  size_t w = 0;
  for (size_t q = 0; q < e->cluster[c].plen; q++) {
    pair pq = l[q];
    int32_t b = pq.b;
    if (e->cluster[b].stamp != pq.stamp) continue; /* dead */
    l[w++] = pq;
    double h = e->cluster[c].horizon < e->cluster[b].horizon ? e->cluster[c].horizon : e->cluster[b].horizon;
    /* the gap stays open until the horizon: not timed (0 * INFINITY is NaN: timed). The two
       particles have moved from their build positions by their clusters' displacements, so
       their distance is at least the build one less the norm of the relative displacement,
       which grows at most at the relative speed: a pair flying along with its partner is not
       timed (a bound by the sum of the two displacements and speeds timed 1.7 times as many
       pairs, the same ones pushed: docs/performance.md) */
    double Db[3], dd2 = 0, dv2 = 0;
    from_build(e, b, t, Db);
    for (int k = 0; k < 3; k++) {
      double dv = e->cluster[c].V[k] - e->cluster[b].V[k];
      dd2 += (Dc[k] - Db[k]) * (Dc[k] - Db[k]), dv2 += dv * dv;
    }
    if (pq.gap - sqrt(dd2) - turned(e, c) - turned(e, b) - sqrt(dv2) * (h - t) > e->slack)
      continue;
    double tr = e->cluster[c].t0 > e->cluster[b].t0 ? e->cluster[c].t0 : e->cluster[b].t0;
    double tc = tr + pair_time(e, s, pq.i, pq.j, tr, t);
    if (!(tc <= h)) continue;
    if (tc < t) tc = t;
    /* oriented by cluster index, whichever cluster scheduled it (the sticking draw is keyed by
       the first cluster) */
    event ev = c < b ? (event){tc, pq.i, pq.j, c, b, e->cluster[c].ver, e->cluster[b].ver}
                     : (event){tc, pq.j, pq.i, b, c, e->cluster[b].ver, e->cluster[c].ver};
    if (agglo_ed_calendar_push(&e->cal, ev) != 0) return -1;
  }
  e->cluster[c].plen = w;
  return 0;
}

/* ---- builds: the cell grid of build positions and the candidate pairs ---- */

static inline int axis_cell(const ed *e, const agglo_box *box, int k, double xk) {
  if (e->nc[k] == 1) return 0;
  int c = (int)floor((xk - box->lo[k]) / e->w[k]);
  return c < 0 ? 0 : c >= e->nc[k] ? e->nc[k] - 1 : c;
}

/* The first particle of a cell, -1 if none: its bit first (a cell grid of 10^5 particles and
   more, mostly empty, does not fit the caches; its bits do). */
static inline int32_t cell_first(const ed *e, size_t cell) {
  return e->occupied[cell / 64] >> (cell % 64) & 1 ? e->chead[cell] : -1;
}

static void cell_remove(ed *e, int32_t i) {
  if (e->cell_of[i] < 0) return;
  if (e->cprev[i] >= 0) e->cnext[e->cprev[i]] = e->cnext[i];
  else if ((e->chead[e->cell_of[i]] = e->cnext[i]) < 0)
    e->occupied[e->cell_of[i] / 64] &= ~(UINT64_C(1) << (e->cell_of[i] % 64));
  if (e->cnext[i] >= 0) e->cprev[e->cnext[i]] = e->cprev[i];
  e->cell_of[i] = -1;
}

/* Particle i at its build position x (wrapped) into the grid. */
static void cell_insert(ed *e, const agglo_box *box, int32_t i) {
  const double *x = e->xb + 3 * (size_t)i;
  int32_t c = (int32_t)(((size_t)axis_cell(e, box, 2, x[2]) * e->nc[1] + axis_cell(e, box, 1, x[1])) *
                            e->nc[0] + axis_cell(e, box, 0, x[0]));
  e->cell_of[i] = c;
  e->cprev[i] = -1;
  e->cnext[i] = e->chead[c];
  if (e->chead[c] >= 0) e->cprev[e->chead[c]] = i;
  e->chead[c] = i;
  e->occupied[c / 64] |= UINT64_C(1) << (c % 64);
}

/* The build position of member i of cluster c (at c's build offset). */
static void build_position(ed *e, const agglo_box *box, int32_t i, int32_t c) {
  for (int k = 0; k < 3; k++)
    e->xb[3 * (size_t)i + k] = e->p[3 * (size_t)i + k] + e->cluster[c].Xb[k];
  agglo_box_wrap(box, e->xb + 3 * (size_t)i);
}

static int plist_add(ed *e, int32_t c, pair q) {
  if (e->cluster[c].plen == e->pcap[c]) {
    size_t w = live_pairs(e, c); /* drop the dead first; grow only if more than half live */
    if (2 * w >= e->pcap[c]) {
      size_t cap = e->pcap[c] ? 2 * e->pcap[c] : 8;
      if (cap > UINT32_MAX) return -1; /* plen's range */
      pair *l = realloc(e->cluster[c].plist, cap * sizeof *l);
      if (!l) return -1;
      e->cluster[c].plist = l, e->pcap[c] = cap;
    }
  }
  e->cluster[c].plist[e->cluster[c].plen++] = q;
  return 0;
}

static int burst(ed *e, const agglo_system *s, int32_t c);

/* The cells next to position x, at most 3 along each axis and each once (a periodic axis of
   fewer than 3 cells wraps onto itself; a wall clips). */
static void stencil(const ed *e, const agglo_box *box, const double *x, int ax[3][3], int m[3]) {
  for (int k = 0; k < 3; k++) {
    int c = axis_cell(e, box, k, x[k]);
    m[k] = 0;
    for (int d = -1; d <= 1; d++) {
      int cc = c + d;
      if (cc < 0 || cc >= e->nc[k]) {
        if (!box->periodic[k]) continue;
        cc = (cc + e->nc[k]) % e->nc[k];
      }
      int dup = 0;
      for (int q = 0; q < m[k]; q++) dup |= ax[k][q] == cc;
      if (!dup) ax[k][m[k]++] = cc;
    }
  }
}

#define FOR_STENCIL(e, ax, m, cell)                                                              \
  for (int z_ = 0; z_ < (m)[2]; z_++)                                                            \
    for (int y_ = 0; y_ < (m)[1]; y_++)                                                          \
      for (int x_ = 0; x_ < (m)[0]; x_++)                                                        \
        for (size_t cell = ((size_t)(ax)[2][z_] * (e)->nc[1] + (ax)[1][y_]) * (e)->nc[0] +       \
                           (ax)[0][x_], once_ = 1; once_; once_ = 0)

/* 1 when two centres at squared distance d2 whose radii sum to lim are less than `reach` apart
   beyond their radii, with that gap in *g. */
static inline int gap_within(double d2, double lim, double reach, double *g) {
  if (!(d2 < (lim + reach) * (lim + reach))) return 0;
  *g = sqrt(d2) - lim;
  return 1;
}

/* gap_within for the build positions of particles i and j. */
static int near(const ed *e, const agglo_system *s, int32_t i, int32_t j, double reach, double *g) {
  double d[3];
  agglo_box_delta(&s->box, e->xb + 3 * (size_t)i, e->xb + 3 * (size_t)j, d);
  return gap_within(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], s->r[i] + s->r[j], reach, g);
}

/* Member i of cluster a and particle j of cluster b, at build gap g, a candidate pair. */
static int add_pair(ed *e, const agglo_system *s, int32_t a, int32_t i, int32_t j, double g) {
  int32_t b = e->cl[j];
  /* its flights are needed one by one from now (ballistic_events.h) */
  if (e->group_cap > 0 && e->grouped[b] && burst(e, s, b) != 0) return -1;
  pair qa = {i, j, b, e->cluster[b].stamp, g}, qb = {j, i, a, e->cluster[a].stamp, g};
  return plist_add(e, a, qa) != 0 || plist_add(e, b, qb) != 0 ? -1 : 0;
}

/* Member i of cluster a and particle j of another cluster b are a candidate pair when their
   build positions are within both radii + both clusters' margins. */
static int try_pair(ed *e, const agglo_system *s, int32_t a, int32_t i, int32_t j) {
  double g, reach = (double)e->cluster[a].margin + e->cluster[e->cl[j]].margin + e->slack;
  return near(e, s, i, j, reach, &g) ? add_pair(e, s, a, i, j, g) : 0;
}

/* Room for one more entry in the scratch list *listp of n entries of `size` bytes (its room
   *cap doubled when full). 0, or -1 (memory). */
static int room_for_one(void *listp, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : 64;
  void **a = listp, *b = realloc(*a, c * size);
  if (!b) return -1;
  *a = b, *cap = c;
  return 0;
}

/* Particle j of another cluster (margin mb) at build gap g from member i: the room it leaves a
   (into h), and the pair noted. */
static int near_note(ed *e, int32_t i, int32_t j, double g, double mb, double *h, size_t *nn) {
  if (g - mb < *h) *h = g - mb;
  if (0.5 * g < *h) *h = 0.5 * g;
  if (room_for_one(&e->near, &e->near_cap, *nn, sizeof *e->near) != 0) return -1;
  e->near[(*nn)++] = (agglo_ed_near){i, j, g};
  return 0;
}

/* Cluster a's margin from the least room h over its nn near particles, and its pairs among them. */
static int room_settle(ed *e, const agglo_system *s, int32_t a, size_t nn, double h) {
  h -= 2 * e->slack;
  e->cluster[a].margin = margin_float(h < e->margin_min ? e->margin_min : h);
  for (size_t q = 0; q < nn; q++) {
    agglo_ed_near p = e->near[q];
    if (p.g < (double)e->cluster[a].margin + e->cluster[e->cl[p.j]].margin + e->slack &&
        add_pair(e, s, a, p.i, p.j, p.g) != 0)
      return -1;
  }
  return 0;
}

/* find_pairs of a rebuilding cluster a that takes as margin the room it has (margin_min > 0; a
   larger cluster's by cell, find_pairs_by_cell). [choice] (docs/dlca.md) The least, over the
   particles j of other clusters, of the build gap less the margin of j's cluster (how far a may
   move while j's cluster stays within its own) and of half the gap (so that j's cluster finds as
   much room at its own rebuild), kept between margin_min and margin. A cluster far from all
   then rebuilds rarely and has no candidate pair (its flights are grouped); one close to
   another takes margin_min and pairs with it. Sound for any value: a pair is a candidate iff
   its build gap is below the sum of the two margins. */
static int find_pairs_room(ed *e, const agglo_system *s, int32_t a, int32_t from) {
  size_t nn = 0;
  double h = e->margin;
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) {
    int ax[3][3], m[3];
    const double *xi = e->xb + 3 * (size_t)i;
    double far = s->r[i] + e->r_max + 2 * e->margin + e->slack;
    stencil(e, &s->box, xi, ax, m);
    FOR_STENCIL(e, ax, m, cell)
    for (int32_t j = cell_first(e, cell); j >= 0; j = e->cnext[j]) {
      double d[3];
      agglo_box_delta(&s->box, xi, e->xb + 3 * (size_t)j, d);
      double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(d2 < far * far)) continue; /* the most, at once */
      int32_t b = e->cl[j];
      double g, mb = e->cluster[b].margin;
      if (b == a || !gap_within(d2, s->r[i] + s->r[j], e->margin + mb + e->slack, &g)) continue;
      if (near_note(e, i, j, g, mb, &h, &nn) != 0) return -1;
    }
  }
  return room_settle(e, s, a, nn, h);
}

/* Candidate pairs of cluster a's members from `from` to its tail, each member scanning the cells
   next to it: every particle of another cluster (with only_above, of a cluster of larger index)
   within try_pair's reach. */
static int find_pairs(ed *e, const agglo_system *s, int32_t a, int32_t from, int only_above) {
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) {
    int ax[3][3], m[3];
    stencil(e, &s->box, e->xb + 3 * (size_t)i, ax, m);
    FOR_STENCIL(e, ax, m, cell)
    for (int32_t j = cell_first(e, cell); j >= 0; j = e->cnext[j]) {
      int32_t b = e->cl[j];
      if (b == a || (only_above && b < a)) continue;
      if (try_pair(e, s, a, i, j) != 0) return -1;
    }
  }
  return 0;
}

/* A new mark for the cells and particles of one scan (the arrays at the first, cleared when the
   32-bit marks wrap). */
static int next_mark(ed *e) {
  if (!e->cmark) { /* the first scan, or a new grid (the particles' marks are kept) */
    e->cmark = calloc(e->ncells, sizeof *e->cmark);
    e->nmark = calloc(e->ncells, sizeof *e->nmark);
    if (!e->pmark) e->pmark = calloc(e->n ? e->n : 1, sizeof *e->pmark);
    if (!e->cmark || !e->nmark || !e->pmark) return -1;
  }
  if (++e->mark == 0) {
    memset(e->cmark, 0, e->ncells * sizeof *e->cmark);
    memset(e->nmark, 0, e->ncells * sizeof *e->nmark);
    memset(e->pmark, 0, e->n * sizeof *e->pmark);
    e->mark = 1;
  }
  return 0;
}

/* find_pairs' pairs for many members at once (a larger cluster's; its members already in the
   grid at their builds): the cells next to its members are read once each, the particles of
   other clusters there gathered, and each paired with the members in the cells next to it. A
   fractal cluster's members share their cells, so that this reads a few times fewer cells than
   find_pairs; the pairs are the same, found in another order (which orders nothing: the
   calendar orders events by their keys). With room, a's margin from its room as in
   find_pairs_room. */
static int find_pairs_by_cell(ed *e, const agglo_system *s, int32_t a, int32_t from, int room) {
  if (next_mark(e) != 0) return -1;
  uint32_t mark = e->mark;
  size_t nf = 0, nn = 0;
  double h = e->margin;
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) e->pmark[i] = mark;
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) {
    int32_t c = e->cell_of[i];
    if (e->cmark[c] == mark) continue; /* a member in this cell gathered around it already */
    e->cmark[c] = mark;
    int ax[3][3], m[3];
    stencil(e, &s->box, e->xb + 3 * (size_t)i, ax, m);
    FOR_STENCIL(e, ax, m, cell) {
      int32_t j = cell_first(e, cell);
      if (j < 0 || e->nmark[cell] == mark) continue; /* an empty cell's mark is not read */
      e->nmark[cell] = mark;
      for (; j >= 0; j = e->cnext[j]) {
        if (e->cl[j] == a) continue;
        if (room_for_one(&e->found, &e->fcap, nf, sizeof *e->found) != 0) return -1;
        e->found[nf++] = j;
      }
    }
  }
  for (size_t q = 0; q < nf; q++) {
    int32_t j = e->found[q];
    int ax[3][3], m[3];
    stencil(e, &s->box, e->xb + 3 * (size_t)j, ax, m);
    int32_t b = e->cl[j];
    double g, mb = e->cluster[b].margin;
    FOR_STENCIL(e, ax, m, cell)
    for (int32_t i = cell_first(e, cell); i >= 0; i = e->cnext[i]) {
      if (e->pmark[i] != mark) continue;
      if (!room ? try_pair(e, s, a, i, j) != 0
                : near(e, s, i, j, e->margin + mb + e->slack, &g) &&
                      near_note(e, i, j, g, mb, &h, &nn) != 0)
        return -1;
    }
  }
  return room ? room_settle(e, s, a, nn, h) : 0;
}

/* Cluster a's members from `from` to its tail at their positions at a's build, in the grid, with
   their pairs (with room, a's margin from its room first: find_pairs_room). A few members
   leave the grid while each scans the cells next to it (two members of one rigid cluster never
   touch); more are scanned by cell, back in the grid. (The cells' lists end in the same order
   either way.) */
enum { BY_CELL = 8 };
static int build_members(ed *e, const agglo_system *s, int32_t a, int32_t from, int room) {
  int32_t count = 0;
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) {
    build_position(e, &s->box, i, a);
    cell_remove(e, i);
    count++;
  }
  int by_cell = count >= BY_CELL;
  int rc = by_cell ? 0 : room ? find_pairs_room(e, s, a, from) : find_pairs(e, s, a, from, 0);
  for (int32_t i = from; i >= 0; i = e->next_mem[i]) cell_insert(e, &s->box, i);
  if (rc == 0 && by_cell) rc = find_pairs_by_cell(e, s, a, from, room);
  return rc;
}

/* Cluster a is built anew at time t: its build offset, its members' cells, its pairs. */
static int rebuild(ed *e, const agglo_system *s, int32_t a, double t) {
  e->cluster[a].stamp = ++e->stamps;
  if (e->turned) e->turned[a] = 0;
  double dt = t - e->cluster[a].t0;
  for (int k = 0; k < 3; k++)
    e->cluster[a].Xb[k] = e->cluster[a].X0[k] + e->cluster[a].V[k] * dt;
  e->cluster[a].plen = 0;
  e->rebuilds++;
  if (build_members(e, s, a, e->head[a], e->margin_min > 0) != 0) return -1;
  e->cluster[a].ver++;
  return reschedule(e, s, a);
}

/* The margins of a build of all (margin_min > 0): a cluster's is half its least build gap to
   another cluster's particles (within 2 margin), between margin_min and margin. */
static void first_margins(ed *e, const agglo_system *s) {
  for (size_t c = 0; c < e->n; c++) {
    if (e->cluster[c].size <= 0) continue;
    double h = e->margin;
    for (int32_t i = e->head[c]; i >= 0; i = e->next_mem[i]) {
      int ax[3][3], m[3];
      stencil(e, &s->box, e->xb + 3 * (size_t)i, ax, m);
      FOR_STENCIL(e, ax, m, cell)
      for (int32_t j = cell_first(e, cell); j >= 0; j = e->cnext[j]) {
        double g;
        if (e->cl[j] != (int32_t)c && near(e, s, i, j, 2 * e->margin, &g) && 0.5 * g < h) h = 0.5 * g;
      }
    }
    h -= e->slack;
    e->cluster[c].margin = margin_float(h < e->margin_min ? e->margin_min : h);
  }
}

/* Every cluster built at e->t, the calendar made anew (the first step, and after a load). */
static int build_all(ed *e, const agglo_system *s) {
  size_t n = e->n;
  agglo_ed_calendar_clear(&e->cal);
  for (size_t c = 0; c < e->ncells; c++) e->chead[c] = -1;
  memset(e->occupied, 0, (e->ncells / 64 + 1) * sizeof *e->occupied);
  for (size_t c = 0; c < n; c++) {
    e->cell_of[c] = -1, e->cluster[c].plen = 0, e->cluster[c].margin = margin_float(e->margin);
    if (e->grouped) e->grouped[c] = 0;
    if (e->cluster[c].size <= 0) continue;
    e->cluster[c].stamp = ++e->stamps;
    if (e->turned) e->turned[c] = 0;
    double dt = e->t - e->cluster[c].t0;
    for (int k = 0; k < 3; k++)
      e->cluster[c].Xb[k] = e->cluster[c].X0[k] + e->cluster[c].V[k] * dt;
  }
  for (size_t c = 0; c < n; c++)
    for (int32_t i = e->cluster[c].size > 0 ? e->head[c] : -1; i >= 0; i = e->next_mem[i])
    {
      build_position(e, &s->box, i, (int32_t)c);
      cell_insert(e, &s->box, i);
    }
  if (e->margin_min > 0) first_margins(e, s);
  for (size_t c = 0; c < n; c++)
    if (e->cluster[c].size > 0 && find_pairs(e, s, (int32_t)c, e->head[c], 1) != 0) return -1;
  /* horizons first: each pair is timed up to both clusters' */
  for (size_t c = 0; c < n; c++)
    if (e->cluster[c].size > 0) e->cluster[c].horizon = own_event(e, s, (int32_t)c).t;
  /* (each lone cluster's flights grouped, up to group_cap of them: at N = 5e4 monomers of a
     short persistence, 2e8 flights, seconds: a stop gives the build up, 1) */
  for (size_t c = 0; c < n; c++) {
    if (c % 256 == 0 && agglo_stop_requested(s)) return 1;
    if (e->cluster[c].size > 0 && reschedule(e, s, (int32_t)c) != 0) return -1;
  }
  e->built = 1;
  return 0;
}

/* ---- events ---- */

static int merge(ed *e, const agglo_system *s, int32_t i, int32_t j, double t) {
  int32_t A = e->cl[i], B = e->cl[j];
  if (e->cluster[B].size > e->cluster[A].size || (e->cluster[B].size == e->cluster[A].size && B < A)) {
    int32_t tmp = A; A = B; B = tmp;
    tmp = i; i = j; j = tmp;
  }
  rebase(e, A, t);
  rebase(e, B, t);
  /* shift of B's members into A's frame, with the periodic image of the contact */
  double xi[3], xj[3], d[3], shift[3];
  pos(e, &s->box, i, t, xi);
  pos(e, &s->box, j, t, xj);
  agglo_box_delta(&s->box, xi, xj, d); /* x_j - x_i */
  for (int k = 0; k < 3; k++) {
    double raw = (e->p[3 * (size_t)j + k] + e->cluster[B].X0[k]) -
                 (e->p[3 * (size_t)i + k] + e->cluster[A].X0[k]);
    double corr = d[k] - raw;
    if (s->box.periodic[k]) corr = s->box.len[k] * round(corr / s->box.len[k]);
    else corr = 0;
    shift[k] = e->cluster[B].X0[k] - e->cluster[A].X0[k] + corr;
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
  if (e->G)
    for (int k = 0; k < 3; k++)
      e->G[3 * (size_t)A + k] = (e->M[A] * e->G[3 * (size_t)A + k] +
                                 e->M[B] * (e->G[3 * (size_t)B + k] + shift[k])) / M;
  for (int k = 0; k < 3; k++)
    e->cluster[A].V[k] =
        (e->M[A] * e->cluster[A].V[k] + e->M[B] * e->cluster[B].V[k]) / M;
  e->M[A] = M;
  e->cluster[B].t_flight = INFINITY;
  int32_t first_of_B = e->head[B];
  e->next_mem[e->tail[A]] = e->head[B];
  e->tail[A] = e->tail[B];
  e->cluster[A].size += e->cluster[B].size;
  e->cluster[B].size = 0;
  e->cluster[B].stamp = ++e->stamps; /* the pairs found with its members die */
  if (e->motion.flight) e->motion.flight(e->motion.ctx, e, A, t); /* after its mass and size */
  e->cluster[A].ver++, e->cluster[B].ver++;
  e->n_clusters--;
  e->merges++;
  if (!e->built) return 0;
  /* A keeps its build: B's members at the build positions they would have had at it, and their
     pairs (B's died with its stamp) */
  e->cluster[B].plen = 0;
  if (build_members(e, s, A, first_of_B, 0) != 0) return -1;
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
  double *V = e->cluster[c].V, *ext = e->ext + 6 * (size_t)c;
  V[axis] = -V[axis];
  /* a cluster as wide as the box would bounce without end: it stops along that axis [choice] */
  if (ext[3 + axis] - ext[axis] >= s->box.len[axis] * (1 - 1e-12)) V[axis] = 0;
  e->cluster[c].ver++;
  e->wall_hits++;
  return reschedule(e, s, c);
}

/* Cluster c starts a new flight at time t (the end of its flight, or a contact that did not
   stick). */
static int new_flight(ed *e, const agglo_system *s, int32_t c, double t) {
  rebase(e, c, t);
  e->motion.flight(e->motion.ctx, e, c, t);
  e->cluster[c].ver++;
  e->flights++;
  return reschedule(e, s, c);
}

/* ---- turns: a motion's rotation of a cluster at the end of its flight (docs/dlca.md) ---- */

/* v turned about the unit axis n by the angle of cosine c and sine sn (Rodrigues). */
static void turned_vector(const double n[3], double c, double sn, const double v[3], double out[3]) {
  double nv = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
  double x[3] = {n[1] * v[2] - n[2] * v[1], n[2] * v[0] - n[0] * v[2], n[0] * v[1] - n[1] * v[0]};
  for (int k = 0; k < 3; k++) out[k] = v[k] * c + x[k] * sn + n[k] * nv * (1 - c);
}

/* The first angle in [0, 2 pi) at which a member at v from the centre of mass, turning about n,
   is at distance S from a point at -g from the centre of mass (INFINITY: never). Its path is a
   circle: |g + R(phi) v|^2 - S^2 = K + P cos phi + Q sin phi, closed form. */
static double turn_contact(const double n[3], const double v[3], const double g[3], double S) {
  double nv = n[0] * v[0] + n[1] * v[1] + n[2] * v[2], a[3], vp[3];
  double x[3] = {n[1] * v[2] - n[2] * v[1], n[2] * v[0] - n[0] * v[2], n[0] * v[1] - n[1] * v[0]};
  double K = -S * S, P = 0, Q = 0;
  for (int k = 0; k < 3; k++) {
    vp[k] = v[k] - n[k] * nv, a[k] = g[k] + n[k] * nv;
    K += a[k] * a[k] + vp[k] * vp[k];
  }
  for (int k = 0; k < 3; k++) P += 2 * a[k] * vp[k], Q += 2 * a[k] * x[k];
  if (K + P <= 0 && Q < 0) return 0; /* touching (round-off) and turning closer: now */
  double H = sqrt(P * P + Q * Q);
  if (!(H > 0) || K > H) return INFINITY;
  /* inside where cos(phi - phi0) <= -K / H: entered at phi0 + acos(-K / H) */
  double phi = atan2(Q, P) + acos(-K / H > 1 ? 1 : -K / H);
  while (phi < 0) phi += 2 * M_PI;
  while (phi >= 2 * M_PI) phi -= 2 * M_PI;
  return phi;
}

/* Cluster c (reference time t) turns by theta about the unit axis n through its centre of mass,
   and stops at its first contact on the way with a particle of another cluster: that pair in
   *hit_i, *hit_j (-1: none). Only its candidate pairs are timed: a member moves at most
   rho phi along an arc phi (rho: the farthest member from the centre), counted in turned[c] with
   the displacement that triggers its rebuild, and c is rebuilt on the way whenever its margin
   would not cover the rest. The final orientation is computed from the one before the turn
   (as each contact angle), and the centre is kept, not summed anew, so that it depends neither on
   where the builds fell nor on the members' order (a restart lists them by index). */
static int turn(ed *e, const agglo_system *s, int32_t c, const double n[3], double theta,
                int32_t *hit_i, int32_t *hit_j) {
  *hit_i = *hit_j = -1;
  const double *G = e->G + 3 * (size_t)c;
  double rho = 0;
  for (int32_t i = e->head[c]; i >= 0; i = e->next_mem[i]) {
    double *v = e->turn_v + 3 * (size_t)i, r2 = 0;
    for (int k = 0; k < 3; k++) v[k] = e->p[3 * (size_t)i + k] - G[k], r2 += v[k] * v[k];
    if (r2 > rho * rho) rho = sqrt(r2);
  }
  if (!(rho > 0) || !(theta > 0)) return 0;
  /* [choice] a cluster that could reach its own periodic image (as wide as the box: a gel in the
     making) turns no more */
  for (int k = 0; k < s->dim; k++)
    if (s->box.periodic[k] && 2 * (rho + e->r_max) >= s->box.len[k]) return 0;
  e->turns++;
  const double *X = e->cluster[c].X0;
  double done = 0, end = theta;
  /* each piece covers at least margin / (2 rho): bounded by 2 rho theta / margin + 1 pieces */
  while (done < end) {
    double room = e->cluster[c].margin - displacement(e, c, e->cluster[c].t0) - e->turned[c];
    double cd = cos(done), sd = sin(done);
    if (rho * (end - done) > room && room < e->cluster[c].margin / 2) {
      for (int32_t i = e->head[c]; i >= 0; i = e->next_mem[i]) {
        double w[3];
        turned_vector(n, cd, sd, e->turn_v + 3 * (size_t)i, w);
        for (int k = 0; k < 3; k++) e->p[3 * (size_t)i + k] = G[k] + w[k];
      }
      if (rebuild(e, s, c, e->cluster[c].t0) != 0) return -1;
      room = e->cluster[c].margin;
    }
    double upto = done + room / rho < end ? done + room / rho : end;
    for (size_t q = 0; q < e->cluster[c].plen; q++) {
      const pair *pq = &e->cluster[c].plist[q];
      if (e->cluster[pq->b].stamp != pq->stamp) continue; /* dead */
      const double *v = e->turn_v + 3 * (size_t)pq->i;
      double xj[3], xi[3], w[3], d[3], g[3];
      pos(e, &s->box, pq->j, e->cluster[c].t0, xj);
      /* the image of j nearest to i where this piece starts */
      turned_vector(n, cd, sd, v, w);
      for (int k = 0; k < 3; k++) xi[k] = X[k] + G[k] + w[k];
      agglo_box_wrap(&s->box, xi);
      agglo_box_delta(&s->box, xj, xi, d);
      for (int k = 0; k < 3; k++) {
        double raw = X[k] + G[k] + w[k] - xj[k];
        g[k] = X[k] + G[k] - xj[k];
        if (s->box.periodic[k]) g[k] += s->box.len[k] * round((d[k] - raw) / s->box.len[k]);
      }
      double phi = turn_contact(n, v, g, s->r[pq->i] + s->r[pq->j]);
      if (phi > upto) continue;
      if (phi < end || (phi == end && *hit_i >= 0 &&
                        (pq->i < *hit_i || (pq->i == *hit_i && pq->j < *hit_j))))
        end = phi, *hit_i = pq->i, *hit_j = pq->j;
    }
    if (upto > end) upto = end;
    if (upto > done) e->turned[c] += rho * (upto - done);
    done = upto;
  }
  double *ext = e->ext + 6 * (size_t)c;
  double ce = cos(end), se = sin(end), moved = 0;
  for (int k = 0; k < 3; k++) ext[k] = INFINITY, ext[3 + k] = -INFINITY;
  for (int32_t i = e->head[c]; i >= 0; i = e->next_mem[i]) {
    double w[3], b[3], *p = e->p + 3 * (size_t)i;
    turned_vector(n, ce, se, e->turn_v + 3 * (size_t)i, w);
    for (int k = 0; k < 3; k++) {
      p[k] = G[k] + w[k];
      if (p[k] - s->r[i] < ext[k]) ext[k] = p[k] - s->r[i];
      if (p[k] + s->r[i] > ext[3 + k]) ext[3 + k] = p[k] + s->r[i];
      b[k] = p[k] + e->cluster[c].Xb[k];
    }
    /* how far the turns moved it from its build position (the offset's part apart) */
    double d[3];
    agglo_box_wrap(&s->box, b);
    agglo_box_delta(&s->box, e->xb + 3 * (size_t)i, b, d);
    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (d2 > moved * moved) moved = sqrt(d2);
  }
  /* the turns random-walk: what they moved its members, not the sum of the arcs (the bound on
     the way), plus round-off */
  e->turned[c] = moved + e->slack;
  return 0;
}

/* The end of cluster c's flight at time t: with a motion that turns, it turns first; a turn
   stopped by a contact is a contact (the clusters stick, or c flies on from it [choice] while
   the other's flight goes on); then c starts a new flight (unless it merged). */
static int flight_end(ed *e, const agglo_system *s, int32_t c, double t) {
  double n[3] = {0, 0, 1};
  double theta = e->motion.turn ? e->motion.turn(e->motion.ctx, e, c, t, n) : 0;
  if (theta != 0) {
    int32_t i, j;
    rebase(e, c, t);
    if (turn(e, s, c, n, theta, &i, &j) != 0) return -1;
    if (i >= 0) {
      int32_t a = e->cl[i], b = e->cl[j];
      e->events++;
      /* the sticking draw keyed by the lower cluster, as a contact along a flight */
      if (!e->motion.sticks || e->motion.sticks(e->motion.ctx, e, a < b ? a : b, a < b ? b : a))
        return merge(e, s, i, j, t);
      e->bounces++;
    }
  }
  return new_flight(e, s, c, t);
}

/* ---- grouped flights (docs/dlca.md): a lone cluster's flights as one event ---- */

int agglo_ed_group_flights(agglo_ed *e, int cap) {
  e->group_cap = 0;
  if (cap <= 0 || !e->motion.draws || !e->motion.flight) return 0;
  size_t m = e->n ? e->n : 1;
  if (!e->grouped) {
    e->grouped = calloc(m, sizeof *e->grouped);
    e->silent = calloc(m, sizeof *e->silent);
    e->gstart = malloc(8 * m * sizeof *e->gstart);
    e->gdraws = malloc(m * sizeof *e->gdraws);
    if (!e->grouped || !e->silent || !e->gstart || !e->gdraws) return -1;
  }
  e->group_cap = cap;
  return 0;
}

/* Live candidate pairs of cluster c (the dead ones leave its list). */
static size_t live_pairs(ed *e, int32_t c) {
  pair *l = e->cluster[c].plist;
  size_t w = 0;
  for (size_t q = 0; q < e->cluster[c].plen; q++)
    if (e->cluster[l[q].b].stamp == l[q].stamp) l[w++] = l[q];
  return e->cluster[c].plen = w;
}

/* The end of lone cluster c's flight at time t as flight_end and new_flight make it, without
   their events: a monomer's turn is none (the motion's turn draws nothing for it). */
static void quiet_flight(ed *e, int32_t c, double t) {
  rebase(e, c, t);
  e->motion.flight(e->motion.ctx, e, c, t);
}

/* 1 when own_event(c) is surely the end of c's flight, decided without its square root: no wall
   along the way (a periodic box) and c still well inside its rebuild's sphere at the flight's
   end: |D + V tau|^2 - room^2 = f(tau) < -1e-6 room^2, so that the rebuild root r > tau by at
   least 5e-7 room / |V|, a thousand times what own_event's rounding of r (relative error below
   1e6 eps where f(0) = -(room^2 - |D|^2) >= f(tau)) and of t0 + r can be (checked: the reference
   time's own rounding is below it too). Otherwise 0: own_event decides. */
static int inside_to_the_end(const ed *e, const agglo_system *s, int32_t c) {
  for (int k = 0; k < s->dim; k++)
    if (!s->box.periodic[k]) return 0;
  const double *V = e->cluster[c].V, *X = e->cluster[c].X0, *Xb = e->cluster[c].Xb;
  double room = e->cluster[c].margin - turned(e, c), tau = e->cluster[c].t_flight - e->cluster[c].t0;
  if (!(room > 0) || !(tau >= 0)) return 0;
  double aa = 0, bb = 0, dd = 0;
  for (int k = 0; k < 3; k++) {
    double D = X[k] - Xb[k];
    aa += V[k] * V[k], bb += D * V[k], dd += D * D;
  }
  double r2 = room * room, f = aa * tau * tau + 2 * bb * tau + dd - r2;
  double tf = e->cluster[c].t_flight;
  /* the margin beyond f's own rounding, and 5e-7 room / |V| beyond 1e-12 of the time */
  return f < -1e-6 * r2 - 1e-12 * (aa * tau * tau + 2 * fabs(bb) * tau + dd + r2) &&
         0.25e-12 * r2 > 1e-24 * tf * tf * aa;
}

/* Lone cluster c, whose own next event is the end of its flight: its following flight ends
   before the end of the step (and not after the stop time), at most group_cap of them, are made
   now, with the arithmetic of one event per flight (each flight's own event computed at its start,
   at that time), until a flight whose own event is not its end (a rebuild, a wall). Their events
   are counted now (the step is theirs). Returns the cluster's own event after them, which
   stands for all. The flight it was on is kept (with its draw counter) for a burst. Exact: the
   flights draw the cluster's own keyed numbers, which nothing else draws, and nothing else reads a
   cluster without candidate pairs until a build finds it (burst). */
static event group(ed *e, const agglo_system *s, int32_t c, event own) {
  double *g = e->gstart + 8 * (size_t)c, now = e->t;
  for (int k = 0; k < 3; k++) g[k] = e->cluster[c].X0[k], g[3 + k] = e->cluster[c].V[k];
  g[6] = e->cluster[c].t0, g[7] = e->cluster[c].t_flight;
  e->gdraws[c] = e->motion.draws[c];
  int n = 0;
  while (own.kind == FLIGHT_END && n < e->group_cap && own.t < e->t_end && own.t <= e->t_stop) {
    e->t = own.t;
    quiet_flight(e, c, own.t);
    if (!inside_to_the_end(e, s, c)) own = own_event(e, s, c);
    else own.t = e->cluster[c].t_flight;
    n++;
  }
  e->t = now;
  if (n == 0) return own;
  e->grouped[c] = 1, e->silent[c] = n;
  e->events += n, e->flights += n, e->groups++;
  own.va = ++e->cluster[c].ver;
  return own;
}

/* Grouped cluster c is needed now (a build found it, or the run stops here): it is put on the
   flight it is on at the current event, replayed from the one it was grouped on, passing the
   flight ends that come before the current event in the calendar's order (ties included), as
   one event per flight would have; its group's event goes stale and its own event is pushed. */
static int burst(ed *e, const agglo_system *s, int32_t c) {
  const double *g = e->gstart + 8 * (size_t)c;
  for (int k = 0; k < 3; k++) e->cluster[c].X0[k] = g[k], e->cluster[c].V[k] = g[3 + k];
  e->cluster[c].t0 = g[6], e->cluster[c].t_flight = g[7];
  e->motion.draws[c] = e->gdraws[c];
  double now = e->t;
  event end = {0, FLIGHT_END, -1, c, -1, 0, 0};
  int n = 0;
  for (; n < e->silent[c]; n++) {
    end.t = e->cluster[c].t_flight;
    if (!agglo_ed_event_less(&end, &e->cur)) break;
    e->t = end.t;
    quiet_flight(e, c, end.t);
  }
  e->events -= e->silent[c] - n, e->flights -= e->silent[c] - n;
  e->grouped[c] = 0, e->bursts++;
  e->cluster[c].ver++;
  if (n > 0) e->t = e->cluster[c].t0; /* its own event as computed at its flight's start */
  event own = own_event(e, s, c);
  e->t = now;
  e->cluster[c].horizon = own.t;
  return isfinite(own.t) ? agglo_ed_calendar_push(&e->cal, own) : 0;
}

/* One event out of the calendar (stale ones are dropped). */
static int process(ed *e, const agglo_system *s, event ev) {
  e->cur = ev;
  if (ev.kind >= 0) {
    int32_t i = ev.kind, j = ev.j;
    if (e->cl[i] != ev.ca || e->cl[j] != ev.cb || e->cluster[ev.ca].ver != ev.va ||
        e->cluster[ev.cb].ver != ev.vb) {
      e->stale++;
      return 0;
    }
    e->t = ev.t;
    e->events++;
    if (e->motion.sticks && !e->motion.sticks(e->motion.ctx, e, ev.ca, ev.cb)) {
      /* they part: each leaves on a new flight from the contact */
      e->bounces++;
      if (new_flight(e, s, ev.ca, ev.t) != 0 || new_flight(e, s, ev.cb, ev.t) != 0) return -1;
      return 0;
    }
    return merge(e, s, i, j, ev.t);
  }
  if (e->cluster[ev.ca].size == 0 || e->cluster[ev.ca].ver != ev.va) {
    e->stale++;
    return 0;
  }
  e->t = ev.t;
  if (e->grouped) e->grouped[ev.ca] = 0; /* a group's last event: the cluster is itself again */
  if (ev.kind == REBUILD) return rebuild(e, s, ev.ca, ev.t);
  e->events++;
  if (ev.kind == FLIGHT_END) return flight_end(e, s, ev.ca, ev.t);
  return reflect(e, s, ev.ca, (-1 - ev.kind) / 2, ev.t);
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
  /* the live clusters' list, less the dead once half of it is (late in a run, a few clusters
     among many particles: a step need not visit every cluster name) */
  if (!e->alive) {
    if (!(e->alive = malloc((n ? n : 1) * sizeof *e->alive)))
      return agglo_fail(err, errlen, "out of memory");
    for (size_t k = 0; k < n; k++)
      if (e->cluster[k].size > 0) e->alive[e->nalive++] = (int32_t)k;
  } else if (e->nalive > 2 * e->n_clusters) {
    size_t w = 0;
    for (size_t q = 0; q < e->nalive; q++)
      if (e->cluster[e->alive[q]].size > 0) e->alive[w++] = e->alive[q];
    e->nalive = w;
  }
  double vmax2 = 0;
  for (size_t q = 0; q < e->nalive; q++) {
    const agglo_ed_cluster *c = &e->cluster[e->alive[q]];
    double v2 = c->V[0] * c->V[0] + c->V[1] * c->V[1] + c->V[2] * c->V[2];
    if (c->size > 0 && v2 > vmax2) vmax2 = v2;
  }
  int64_t ev0 = e->events;
  if (vmax2 == 0) {
    e->t = isfinite(t_stop) ? t_stop : e->t;
    info->finished = 1;
  } else {
    /* a step: the model's time, or the fastest cluster moving window r_max, ended at the
       driver's next output (grouped flights stop at its end; no event depends on where) */
    double t_end = e->t + (e->step_time > 0 ? e->step_time : e->window * e->r_max / sqrt(vmax2));
    if (e->t_until > e->t && e->t_until < t_end) t_end = e->t_until;
    e->t_end = t_end;
    int built = e->built ? 0 : build_all(e, s);
    if (built > 0) return AGGLO_STEP_STOPPED; /* (the driver restores the state; built stays 0) */
    if (built < 0) return agglo_fail(err, errlen, "out of memory");
    for (;;) {
      const event *top;
      if (agglo_ed_calendar_top(&e->cal, &top) != 0)
        return agglo_fail(err, errlen, "out of memory");
      if (!top || top->t >= t_end) {
        if (t_end >= t_stop) {
          e->t = t_stop;
          info->finished = 1;
        } else {
          e->t = t_end;
        }
        break;
      }
      /* a stop request gives the step up (the driver restores the state from before it) */
      if (agglo_stop_requested(s)) return AGGLO_STEP_STOPPED;
      event ev = agglo_ed_calendar_pop(&e->cal);
      if (ev.t > t_stop) {
        e->t = t_stop;
        info->finished = 1;
        break;
      }
      if (process(e, s, ev) != 0) return agglo_fail(err, errlen, "out of memory");
      if (e->n_clusters <= e->stop_clusters) {
        /* the grouped clusters on the flights they are on now */
        for (size_t c = 0; c < n && e->group_cap > 0; c++)
          if (e->grouped[c] && burst(e, s, (int32_t)c) != 0)
            return agglo_fail(err, errlen, "out of memory");
        info->finished = 1;
        break;
      }
    }
  }
  /* materialise the state at e->t */
  size_t bad = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    pos(e, &s->box, (int32_t)i, e->t, s->x + 3 * i);
    const double *V = e->cluster[e->cl[i]].V;
    for (int k = 0; k < 3; k++) s->v[3 * i + k] = V[k];
    if (bad == SIZE_MAX && !(isfinite(s->x[3 * i]) && isfinite(s->x[3 * i + 1])))
      bad = i;
  }
  s->t = e->t;
  s->step++;
  info->iterations = (int)(e->events - ev0);
  /* not measured: the candidate pairs differ with the builds, and no two clusters can overlap
     (test_ballistic_events, test_dlca) */
  info->min_gap = INFINITY;
  info->bad_particle = bad;
  return 0;
}

void agglo_ed_until(void *state, double t) { ((ed *)state)->t_until = t; }

double agglo_ed_contact_gap(const void *state) {
  const ed *e = state;
  return 1e-6 * e->r_mean;
}

int agglo_ed_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size) {
  const ed *e = state;
  size_t nc = 0, mx = 0;
  for (size_t c = 0; c < e->n; c++) {
    if (e->cluster[c].size <= 0) continue;
    nc++;
    if ((size_t)e->cluster[c].size > mx) mx = (size_t)e->cluster[c].size;
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
    if (e->cluster[c].size <= 0) continue;
    fprintf(f, "%zu", c);
    for (int k = 0; k < 3; k++) fprintf(f, " %.17g", e->cluster[c].X0[k]);
    for (int k = 0; k < 3; k++) fprintf(f, " %.17g", e->cluster[c].V[k]);
    fprintf(f, " %.17g %.17g", e->cluster[c].t0, e->M[c]);
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
  /* the clusters are read whole, not rebuilt from the particles; then checked against them */
  ed *e = state;
  char line[1024];
  size_t cnt, nc;
  if (!fgets(line, sizeof line, f) || strcmp(line, ed_header) != 0)
    return agglo_fail(err, errlen, "line 1 is not this agglo's event-driven header "
                      "(an older restart point, unwrapped positions only, cannot be continued "
                      "exactly: start the run over)");
  if (!fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1 || cnt != e->n)
    return agglo_fail(err, errlen, "line 2: expected the particle count %zu", e->n);
  for (size_t c = 0; c < e->n; c++) e->cluster[c].size = 0, e->head[c] = e->tail[c] = -1;
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
    e->cluster[c].size++;
  }
  size_t at = e->n + 3; /* the line read next */
  if (!fgets(line, sizeof line, f) || sscanf(line, "%zu", &nc) != 1 || nc > e->n)
    return agglo_fail(err, errlen, "line %zu: expected the cluster count (at most %zu)",
                      at, e->n);
  size_t named = 0;
  for (size_t c = 0; c < e->n; c++) named += e->cluster[c].size > 0;
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
        c >= e->n || e->cluster[c].size <= 0 || !all_finite(X, 3) || !all_finite(V, 3) || !isfinite(t0) ||
        !(M > 0 && isfinite(M)) || !all_finite(x, 6))
      return agglo_fail(err, errlen, "line %zu is not a cluster of the particles "
                        "(index, 3 offsets, 3 velocities, time, mass > 0, 6 extents; all finite)", at);
    for (int k = 0; k < 3; k++) e->cluster[c].X0[k] = X[k], e->cluster[c].V[k] = V[k];
    for (int k = 0; k < 6; k++) e->ext[6 * c + k] = x[k];
    e->cluster[c].t0 = t0, e->M[c] = M;
    e->cluster[c].size = -e->cluster[c].size; /* read: a cluster listed twice is refused */
  }
  for (size_t c = 0; c < e->n; c++) e->cluster[c].size = -e->cluster[c].size;
  e->n_clusters = nc;
  /* each particle where its cluster puts it at the restart point's time (the state's own
     positions, written from the clusters), each inside its cluster's extents, which reach no
     further than a box side beyond its members: a forged offset, velocity, time or extent would
     otherwise fly a cluster from elsewhere, or never end a step */
  double side = 0;
  for (int k = 0; k < s->dim; k++) side = fmax(side, s->box.len[k]);
  for (size_t i = 0; i < e->n; i++) {
    double x[3];
    int32_t c = e->cl[i];
    const double *ext = e->ext + 6 * (size_t)c, *p = e->p + 3 * i;
    pos(e, &s->box, (int32_t)i, s->t, x);
    for (int k = 0; k < s->dim; k++) {
      double d = fabs(x[k] - s->x[3 * i + k]);
      if (s->box.periodic[k]) d = fmin(d, fabs(d - s->box.len[k]));
      if (!(d <= 1e-9 * side) || !(ext[k] <= p[k] - s->r[i] + 1e-9 * side) ||
          !(ext[3 + k] >= p[k] + s->r[i] - 1e-9 * side))
        return agglo_fail(err, errlen, "cluster %d (among lines %zu to %zu) does not hold particle "
                          "%zu (line %zu) where the state has it at time %.17g: its offset, velocity, "
                          "time or extents are not those written", (int)c, e->n + 4, at, i, i + 3, s->t);
    }
  }
  for (size_t c = 0; c < e->n; c++) { /* its mass, its members' (summed in another order) */
    double m = 0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const double *ext = e->ext + 6 * c;
    for (int32_t i = e->cluster[c].size > 0 ? e->head[c] : -1; i >= 0; i = e->next_mem[i]) {
      m += s->m[i];
      for (int k = 0; k < 3; k++)
        lo[k] = fmin(lo[k], e->p[3 * (size_t)i + k] - s->r[i]), hi[k] = fmax(hi[k], e->p[3 * (size_t)i + k] + s->r[i]);
    }
    if (e->cluster[c].size <= 0) continue;
    if (!(fabs(e->M[c] - m) <= 1e-9 * m))
      return agglo_fail(err, errlen, "cluster %zu (among lines %zu to %zu): mass %.17g, its members' "
                        "%.17g", c, e->n + 4, at, e->M[c], m);
    for (int k = 0; k < s->dim; k++) /* (a bound: no further than a box side beyond them) */
      if (!(ext[k] >= lo[k] - side) || !(ext[3 + k] <= hi[k] + side))
        return agglo_fail(err, errlen, "cluster %zu (among lines %zu to %zu): extents %g .. %g along "
                          "%c, its members' %g .. %g (allowed: at most a box side beyond them)", c,
                          e->n + 4, at, ext[k], ext[3 + k], "xyz"[k], lo[k], hi[k]);
  }
  e->built = 0; /* builds and calendar anew at the next step */
  free(e->alive), e->alive = NULL, e->nalive = 0; /* the live list anew too */
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
    .until = agglo_ed_until,
    .labels = agglo_ed_labels,
    .join = agglo_ed_join,
};
