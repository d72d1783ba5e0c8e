/* Spatial domain decomposition of the contact model over MPI (docs/parallel.md).

   Each rank owns the particles of its brick (bricks.h) and runs the one contact step
   (agglo_contact_step, contact_model.c) over them plus ghosts: copies of the particles of other
   ranks within the step's reach, which grows with the fastest a priori speed, exchanged in
   stages (x, y, z) after the a priori velocities. Between the step's phases it calls this
   file's hooks (agglo_contact_ranks): reductions over the ranks, the ghosts (reach_out), their
   velocities (the exchange recorded and replayed: after the attraction and after every solve)
   and the solves of the components.

   The projection splits into connected components of the contact graph. A component of a
   rank's graph without a ghost is the whole component (no constraint leaves the rank) and is
   solved there. A component holding a ghost may continue on other ranks; each of its
   constraints is a row of the rank that owns its particle of lower id. Such components are
   solved together by MPRGP over the ranks (spread: agglo_project_part, whose products by the
   dual matrix replay the exchange backwards then forwards), or sent to rank 0, which joins and
   solves them and sends back velocities and multipliers (gathered); parallel.crossing chooses,
   by the largest such component (docs/performance.md). The step reduces the counts that decide
   its rounds (missed pairs, a wider reach) over the ranks, so every rank takes the same rounds. */
#include "mpi/bricks.h"
#include "mpi/balance.h"
#include "core/error.h"
#include "core/model.h"
#include "models/contact_state.h"
#include "core/union_find.h"
#include "core/compare.h"
#include "core/timing.h"
#include "models/contact_config.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A particle on the wire: x[3] v[3] vs[3] (a priori velocity) r m im id. */
enum { REC = 13 };
/* Rank 0's problem: a particle: id im vs[3]; a constraint: id_i id_j wall e[3] gap lambda */
enum { PREC = 5, CREC = 8 };

/* last step's multiplier of a constraint, by ids (pairs: a < b, wall = -1; walls: b = 0) */
typedef struct {
  int64_t a, b;
  int wall;
  double lambda;
} warm_key;

/* The ghost exchange of the step, replayed for velocities: per axis and side, the particles
   sent and how many arrived; per axis, where they start; the buffers. */
typedef struct {
  size_t *list[3][2], lcnt[3][2], lcap[3][2], got[3][2], at[3];
  double *send[2], *recv;
  size_t send_cap[2], recv_cap;
} exchange_log;

static void exchange_free(exchange_log *e) {
  for (int k = 0; k < 3; k++) free(e->list[k][0]), free(e->list[k][1]);
  free(e->send[0]), free(e->send[1]), free(e->recv);
}

/* The components of a round (mark_crossing): per particle of the region its component's root
   (union-find over the constraints), and whether to solve it here; per root, whether the
   component holds a ghost and the rows of it this rank owns; per constraint, a row of the
   components across ranks (spread). nrows, largest: this rank's rows in crossing components,
   the most in one. */
typedef struct {
  int32_t *root;
  uint8_t *only, *cross;
  uint32_t *comp_rows;
  uint8_t *rows;
  size_t rows_cap, nrows, largest;
} components;

static void components_free(components *c) {
  free(c->root), free(c->only), free(c->cross), free(c->comp_rows), free(c->rows);
}

/* The multipliers of this rank's constraints of the last step, by ids; slot: their hash, entry
   + 1 or 0 (empty), slots a power of two. */
typedef struct {
  warm_key *keys;
  size_t n, cap;
  uint32_t *slot;
  size_t nslot;
  double *send[2], *recv; /* migrants' multipliers on the wire (migrate) */
  size_t send_cap[2], recv_cap;
  int64_t *leaving;       /* this stage's migrants: pairs id, side */
  size_t leaving_cap;
} warm_set;

static void warm_free(warm_set *w) {
  free(w->keys), free(w->slot), free(w->send[0]), free(w->send[1]), free(w->recv), free(w->leaving);
}

/* Rank 0: the components joined from every rank (solve_joined). */
typedef struct {
  agglo_constraints c;
  agglo_system s;
  double *vs, *v;
  size_t cap;
} joined;

static void joined_free(joined *j) {
  agglo_constraints_free(&j->c);
  agglo_system_free(&j->s);
  free(j->vs), free(j->v);
}

typedef struct {
  agglo_bricks b;
  contact *m;       /* the contact model over the region (neighbour list, constraints, solver) */
  agglo_system reg; /* own particles 0 .. own-1, then ghosts; box: see region_box */
  agglo_box gbox;   /* the scenario's */
  agglo_box wrap;   /* the scenario's, periodic along the axes of one brick only */
  size_t own, cap;
  double rmax, halo, width; /* width: of a brick the reach outgrew */
  MPI_Op sum_max;   /* sums then maxima in one reduction (sum_then_max) */
  exchange_log ex;
  components cc;
  warm_set warm;
  joined j0;
  double *cut[3];  /* per axis the dims[k] + 1 brick faces (balance), then as many of scratch */
  double *weight;  /* per own particle: its work, for the cuts */
  double hist[AGGLO_BALANCE_BINS];
  /* over the run: ghosts held, records sent, rows in crossing components, constraints,
     seconds exchanging and solving crossing components */
  struct { double ghosts, sent, joined, constraints, t_exchange, t_joined; } tally;
} domain;

static void domain_free(domain *d) {
  if (d->m) agglo_model_contact.destroy(d->m);
  exchange_free(&d->ex);
  components_free(&d->cc);
  warm_free(&d->warm);
  joined_free(&d->j0);
  for (int k = 0; k < 3; k++) free(d->cut[k]);
  free(d->weight);
  if (d->sum_max != MPI_OP_NULL) MPI_Op_free(&d->sum_max);
  agglo_system_free(&d->reg);
  agglo_bricks_free(&d->b);
}

/* Room for n particles in the region: every per-particle array, with its bytes per particle. */
static int reserve(domain *d, size_t n) {
  if (n <= d->cap) return 0;
  size_t c = n + n / 2 + 1024;
  agglo_system *s = &d->reg;
  components *cc = &d->cc;
  struct { void *p; size_t size; } col[] = {
      {&s->x, 3 * sizeof *s->x}, {&s->v, 3 * sizeof *s->v}, {&d->m->vstar, 3 * sizeof *d->m->vstar},
      {&s->r, sizeof *s->r}, {&s->m, sizeof *s->m}, {&s->inv_m, sizeof *s->inv_m},
      {&s->id, sizeof *s->id}, {&cc->root, sizeof *cc->root}, {&cc->only, 1}, {&cc->cross, 1},
      {&cc->comp_rows, sizeof *cc->comp_rows}, {&d->weight, sizeof *d->weight}};
  for (size_t k = 0; k < sizeof col / sizeof *col; k++) {
    void **a = col[k].p, *q = realloc(*a, c * col[k].size);
    if (!q) return -1;
    *a = q;
  }
  d->cap = c;
  return 0;
}

static void pack(const domain *d, size_t i, double *r) {
  const agglo_system *s = &d->reg;
  for (int k = 0; k < 3; k++) r[k] = s->x[3 * i + k], r[3 + k] = s->v[3 * i + k], r[6 + k] = d->m->vstar[3 * i + k];
  r[9] = s->r[i], r[10] = s->m[i], r[11] = s->inv_m[i], r[12] = (double)s->id[i];
}

static void unpack(domain *d, size_t i, const double *r) {
  agglo_system *s = &d->reg;
  for (int k = 0; k < 3; k++) s->x[3 * i + k] = r[k], s->v[3 * i + k] = r[3 + k], d->m->vstar[3 * i + k] = r[6 + k];
  s->r[i] = r[9], s->m[i] = r[10], s->inv_m[i] = r[11], s->id[i] = (int64_t)r[12];
}

/* ---- the exchanges ----------------------------------------------------------------------- */

/* Send cnt[s] particles of d->ex.send[s] to the lower (s = 0) and upper (s = 1) neighbour along
   axis k; what arrives is appended to the region. */
static int exchange(domain *d, int k, const size_t cnt[2]) {
  exchange_log *e = &d->ex;
  size_t got[2];
  long got_all = agglo_bricks_exchange(&d->b, k, e->send, cnt, REC, &e->recv, &e->recv_cap, got);
  if (got_all < 0 || reserve(d, d->reg.n + (size_t)got_all) != 0) return -1;
  size_t total = (size_t)got_all;
  e->at[k] = d->reg.n, e->got[k][0] = got[0], e->got[k][1] = got[1];
  for (size_t q = 0; q < total; q++) unpack(d, d->reg.n + q, e->recv + REC * q);
  d->reg.n += total;
  d->tally.sent += (double)(cnt[0] + cnt[1]);
  return 0;
}

/* Queue particle i for side s of axis k (shifted by a period across the box's edge). */
static int queue(domain *d, size_t i, int k, int s, size_t cnt[2]) {
  exchange_log *e = &d->ex;
  if (agglo_bricks_grow(&e->send[s], &e->send_cap[s], REC * (cnt[s] + 1), sizeof(double)) != 0) return -1;
  double *r = e->send[s] + REC * cnt[s]++;
  pack(d, i, r);
  r[k] += agglo_bricks_shift(&d->b, k, s);
  return 0;
}

/* The ghosts within halo of the brick's faces (own particles and ghosts so far, staged), the
   particles sent recorded for the replays. */
static int make_ghosts(domain *d, double halo) {
  exchange_log *e = &d->ex;
  d->reg.n = d->own;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0}, n = d->reg.n;
    for (int s = 0; s < 2; s++) e->lcnt[k][s] = 0;
    for (size_t i = 0; i < n; i++) {
      double x = d->reg.x[3 * i + k];
      for (int s = 0; s < 2; s++) {
        if (d->b.nb[k][s] == MPI_PROC_NULL || (s == 0 ? x >= d->b.blo[k] + halo : x < d->b.bhi[k] - halo))
          continue;
        if (queue(d, i, k, s, cnt) != 0 ||
            agglo_bricks_grow(&e->list[k][s], &e->lcap[k][s], e->lcnt[k][s] + 1, sizeof(size_t)) != 0)
          return -1;
        e->list[k][s][e->lcnt[k][s]++] = i;
      }
    }
    if (exchange(d, k, cnt) != 0) return -1;
  }
  d->tally.ghosts += (double)(d->reg.n - d->own);
  return 0;
}

/* Room in the buffers for replays of up to 3 values per particle, either way. */
static int reserve_replay(domain *d) {
  exchange_log *e = &d->ex;
  for (int k = 0; k < d->b.dim; k++)
    for (int s = 0; s < 2; s++)
      if (agglo_bricks_grow(&e->send[s], &e->send_cap[s], 3 * e->lcnt[k][s] + 1, sizeof(double)) != 0 ||
          agglo_bricks_grow(&e->recv, &e->recv_cap, 3 * e->lcnt[k][s] + 1, sizeof(double)) != 0)
        return -1;
  return 0;
}

/* The ghosts' copy of field f (w per particle) from the particles they were copied from, the
   stages forwards (the buffers reserved). */
static void send_out(domain *d, double *f, size_t w) {
  exchange_log *e = &d->ex;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t at = e->at[k];
    for (int s = 0; s < 2; s++) { /* block s comes from nb[k][1 - s], which sends its list[k][s] */
      double *out = e->send[s];
      for (size_t q = 0; q < e->lcnt[k][s]; q++) memcpy(out + w * q, f + w * e->list[k][s][q], w * sizeof *f);
      MPI_Sendrecv(out, (int)(w * e->lcnt[k][s]), MPI_DOUBLE, d->b.nb[k][s], 10, f + w * at,
                   (int)(w * e->got[k][s]), MPI_DOUBLE, d->b.nb[k][1 - s], 10, d->b.comm, MPI_STATUS_IGNORE);
      at += e->got[k][s];
    }
  }
}

/* The ghosts' copy of field f (3 per particle: velocities) from their owners. */
static int replay(void *ctx, double *f) {
  domain *d = ctx;
  if (reserve_replay(d) != 0) return -1;
  send_out(d, f, 3);
  return 0;
}

/* agglo_projection_part: f (width per particle) summed over the copies of each particle, every
   copy given the sum. The ghosts' values are added to the particles they were copied from (the
   stages backwards: a ghost of an earlier stage may have been sent on), then the owners' sums
   go out to the ghosts (send_out). The buffers are reserved (reserve_replay). */
static void sum_shared(void *ctx, double *f, int width) {
  domain *d = ctx;
  exchange_log *e = &d->ex;
  const size_t w = (size_t)width;
  for (int k = d->b.dim - 1; k >= 0; k--) {
    if (d->b.dims[k] == 1) continue;
    size_t at = e->at[k];
    for (int s = 0; s < 2; s++) { /* block s came from nb[k][1 - s], which sent its list[k][s] */
      MPI_Sendrecv(f + w * at, (int)(w * e->got[k][s]), MPI_DOUBLE, d->b.nb[k][1 - s], 9, e->recv,
                   (int)(w * e->lcnt[k][s]), MPI_DOUBLE, d->b.nb[k][s], 9, d->b.comm, MPI_STATUS_IGNORE);
      for (size_t q = 0; q < e->lcnt[k][s]; q++)
        for (size_t c = 0; c < w; c++) f[w * e->list[k][s][q] + c] += e->recv[w * q + c];
      at += e->got[k][s];
    }
  }
  send_out(d, f, w);
}

/* The combination of sum_then_max: [n, n sums, maxima] (one MPI_Allreduce for both kinds). */
static void sum_then_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const double *a = in;
  double *b = inout;
  int n = (int)a[0];
  for (int i = 1; i < *len; i++) b[i] = i <= n ? a[i] + b[i] : fmax(a[i], b[i]);
}

static void reduce(void *ctx, double *sums, int nsum, double *maxs, int nmax) {
  domain *d = ctx;
  double buf[16] = {nsum};
  for (int i = 0; i < nsum; i++) buf[1 + i] = sums[i];
  for (int i = 0; i < nmax; i++) buf[1 + nsum + i] = maxs[i];
  MPI_Allreduce(MPI_IN_PLACE, buf, 1 + nsum + nmax, MPI_DOUBLE, d->sum_max, d->b.comm);
  for (int i = 0; i < nsum; i++) sums[i] = buf[1 + i];
  for (int i = 0; i < nmax; i++) maxs[i] = buf[1 + nsum + i];
}

static int by_id64(const void *p, const void *q) {
  int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
  return (a > b) - (a < b);
}

/* The multipliers of the rows of this stage's migrants (w->leaving: nl pairs id, side) go with
   them along axis k: a row belongs to the owner of its particle of lower id, key.a, so the
   migrant's new rank warm-starts those rows as this one would have (they started cold before,
   and a moving cut moves many particles). */
static int move_keys(domain *d, int k, size_t nl) {
  warm_set *w = &d->warm;
  enum { KREC = sizeof(warm_key) / sizeof(double) };
  _Static_assert(sizeof(warm_key) == KREC * sizeof(double), "a key is a whole number of doubles");
  int64_t(*ps)[2] = (int64_t(*)[2])w->leaving;
  size_t cnt[2] = {0, 0}, got[2];
  if (nl > 0) {
    qsort(ps, nl, sizeof *ps, by_id64);
    size_t kept = 0;
    for (size_t e = 0; e < w->n; e++) {
      int64_t(*hit)[2] = bsearch(&w->keys[e].a, ps, nl, sizeof *ps, by_id64);
      if (!hit) {
        w->keys[kept++] = w->keys[e];
        continue;
      }
      int side = (int)(*hit)[1];
      if (agglo_bricks_grow(&w->send[side], &w->send_cap[side], KREC * (cnt[side] + 1), sizeof(double)) != 0)
        return -1;
      memcpy(w->send[side] + KREC * cnt[side]++, &w->keys[e], sizeof *w->keys);
    }
    w->n = kept;
  }
  long all = agglo_bricks_exchange(&d->b, k, w->send, cnt, KREC, &w->recv, &w->recv_cap, got);
  if (all < 0 || agglo_bricks_grow(&w->keys, &w->cap, w->n + (size_t)all + 1, sizeof *w->keys) != 0) return -1;
  memcpy(w->keys + w->n, w->recv, (size_t)all * sizeof *w->keys);
  w->n += (size_t)all;
  return 0;
}

/* Own particles that left the brick go to the neighbour (one brick per step at most: a step
   moves a particle by less than the reach, a cut by at most half a brick, and bricks are wider),
   with the multipliers of their rows (move_keys). */
static int migrate(domain *d) {
  d->reg.n = d->own;
  warm_set *w = &d->warm;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0}, nl = 0;
    double rec[REC];
    for (size_t i = 0; i < d->reg.n;) { /* a migrant's place goes to the last particle */
      int s = agglo_bricks_side(&d->b, k, d->reg.x[3 * i + k]);
      if (s < 0) {
        i++;
        continue;
      }
      if (queue(d, i, k, s, cnt) != 0 ||
          agglo_bricks_grow(&w->leaving, &w->leaving_cap, 2 * (nl + 1), sizeof *w->leaving) != 0)
        return -1;
      w->leaving[2 * nl] = d->reg.id[i], w->leaving[2 * nl++ + 1] = s;
      if (i + 1 < d->reg.n) pack(d, d->reg.n - 1, rec), unpack(d, i, rec);
      d->reg.n--;
    }
    if (move_keys(d, k, nl) != 0 || exchange(d, k, cnt) != 0) return -1;
    d->tally.sent -= (double)(cnt[0] + cnt[1]); /* (counted as ghosts' traffic only) */
  }
  d->own = d->reg.n;
  return 0;
}

/* The own particles in the order of their ids, on several ranks: the order of a migration's
   arrivals and departures would otherwise pass from step to step (the constraints, hence the
   solver's sums, follow it), and a restart, which hands the particles out afresh, could not take
   it up. One process keeps its storage order, the serial run's. 0 or -1 (memory). */
static int sort_own(domain *d) {
  size_t n = d->own;
  if (d->b.size == 1) return 0;
  size_t i = 1;
  while (i < n && d->reg.id[i - 1] < d->reg.id[i]) i++;
  if (i >= n) return 0;
  int64_t(*by)[2] = malloc((n + 1) * sizeof *by);
  double *recs = malloc((REC * n + 1) * sizeof *recs);
  if (!by || !recs) {
    free(by), free(recs);
    return -1;
  }
  for (i = 0; i < n; i++) by[i][0] = d->reg.id[i], by[i][1] = (int64_t)i, pack(d, i, recs + REC * i);
  qsort(by, n, sizeof *by, by_id64);
  for (i = 0; i < n; i++) unpack(d, i, recs + REC * by[i][1]);
  free(by), free(recs);
  return 0;
}

/* The region's box: the scenario's along an axis of one brick; along a cut axis open, with the
   scenario's wall where the brick meets it and elsewhere a face farther than any constraint's
   reach (the constraints take every non-periodic face for a wall). */
static void region_box(domain *d, double halo) {
  agglo_box *bx = &d->reg.box;
  *bx = d->gbox;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    double far = 3 * halo + 4 * d->rmax;
    bx->periodic[k] = AGGLO_WALL;
    bx->lo[k] = !d->b.gper[k] && d->b.coord[k] == 0 ? d->gbox.lo[k] : d->b.blo[k] - far;
    bx->hi[k] = !d->b.gper[k] && d->b.coord[k] == d->b.dims[k] - 1 ? d->gbox.hi[k] : d->b.bhi[k] + far;
    bx->len[k] = bx->hi[k] - bx->lo[k];
  }
}

/* ---- warm start by ids ------------------------------------------------------------------- */

static int by_key(const void *p, const void *q) {
  const warm_key *a = p, *b = q;
  if (a->a != b->a) return (a->a > b->a) - (a->a < b->a);
  if (a->wall != b->wall) return (a->wall > b->wall) - (a->wall < b->wall);
  return (a->b > b->b) - (a->b < b->b);
}

static warm_key key_of(const agglo_system *s, const agglo_constraints *c, size_t k) {
  int64_t a = s->id[c->i[k]];
  if (c->j[k] < 0) return (warm_key){a, 0, -1 - c->j[k], c->lambda[k]};
  int64_t b = s->id[c->j[k]];
  return a < b ? (warm_key){a, b, -1, c->lambda[k]} : (warm_key){b, a, -1, c->lambda[k]};
}

static size_t hash_of(const warm_key *k, size_t mask) {
  uint64_t z = (uint64_t)k->a * 0x9E3779B97F4A7C15u ^ ((uint64_t)k->b + (uint64_t)(k->wall + 1) * 0xBF58476D1CE4E5B9u);
  z = (z ^ (z >> 31)) * 0x94D049BB133111EBu;
  return (size_t)(z ^ (z >> 29)) & mask;
}

/* The hash of d->warm.keys (at most half full). */
static int index_warm(domain *d) {
  warm_set *w = &d->warm;
  size_t want = 16;
  while (want < 2 * w->n + 2) want *= 2;
  if (want > w->nslot) {
    uint32_t *q = realloc(w->slot, want * sizeof *q);
    if (!q) return -1;
    w->slot = q, w->nslot = want;
  }
  size_t mask = w->nslot - 1;
  memset(w->slot, 0, w->nslot * sizeof *w->slot);
  for (size_t e = 0; e < w->n; e++) {
    size_t h = hash_of(&w->keys[e], mask);
    while (w->slot[h]) h = (h + 1) & mask;
    w->slot[h] = (uint32_t)e + 1;
  }
  return 0;
}

static const warm_key *find_warm(const domain *d, const warm_key *k) {
  const warm_set *w = &d->warm;
  if (!w->nslot) return NULL;
  size_t mask = w->nslot - 1;
  for (size_t h = hash_of(k, mask); w->slot[h]; h = (h + 1) & mask) {
    const warm_key *e = &w->keys[w->slot[h] - 1];
    if (e->a == k->a && e->b == k->b && e->wall == k->wall) return e;
  }
  return NULL;
}

/* A constraint belongs to the rank that owns its particle of lower id (a wall's: its
   particle's); a pair across ranks is a constraint on both, a row of one. */
static int owned(const domain *d, const agglo_constraints *c, size_t k) {
  size_t i = (size_t)c->i[k];
  int32_t j = c->j[k];
  if (j < 0 || (size_t)j < d->own) return i < d->own || (j >= 0 && d->reg.id[j] < d->reg.id[i]);
  return i < d->own && d->reg.id[i] < d->reg.id[j];
}

/* Keep the multipliers of the step's constraints that this rank owns. */
static int save_warm(domain *d) {
  warm_set *w = &d->warm;
  const agglo_constraints *c = &d->m->con;
  w->n = 0;
  if (agglo_bricks_grow(&w->keys, &w->cap, c->n + 1, sizeof *w->keys) != 0) return -1;
  for (size_t k = 0; k < c->n; k++)
    if (owned(d, c, k)) w->keys[w->n++] = key_of(&d->reg, c, k);
  return 0; /* (indexed after the migration: index_warm) */
}

static void load_warm(domain *d) {
  agglo_constraints *c = &d->m->con;
  for (size_t k = 0; k < c->n; k++) {
    warm_key key = key_of(&d->reg, c, k);
    const warm_key *hit = find_warm(d, &key);
    c->lambda[k] = hit ? hit->lambda : 0;
  }
}

/* ---- the components that cross ranks ----------------------------------------------------- */

/* The components' roots and crossing flags (d->cc) from the constraints; returns the constraints
   in crossing components that this rank owns, and in *largest the most of them in one. */
static size_t mark_crossing(domain *d, size_t *largest) {
  components *cc = &d->cc;
  const agglo_constraints *c = &d->m->con;
  size_t n = d->reg.n, rows = 0;
  int32_t *p = cc->root;
  for (size_t i = 0; i < n; i++) p[i] = (int32_t)i, cc->cross[i] = 0, cc->comp_rows[i] = 0;
  for (size_t k = 0; k < c->n; k++) {
    if (c->j[k] < 0) continue;
    agglo_uf_union(p, c->i[k], c->j[k]);
  }
  for (size_t i = 0; i < n; i++) p[i] = agglo_uf_find(p, (int32_t)i);
  for (size_t i = d->own; i < n; i++) cc->cross[p[i]] = 1;
  *largest = 0;
  for (size_t k = 0; k < c->n; k++)
    if (cc->cross[p[c->i[k]]] && owned(d, c, k)) {
      rows++;
      uint32_t r = ++cc->comp_rows[p[c->i[k]]];
      *largest = r > *largest ? r : *largest;
    }
  return rows;
}

/* Rank 0: index of id among the n joined particles (records sorted by id). */
static size_t joined_index(const double *parts, size_t n, double id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (parts[PREC * mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && parts[PREC * lo] == id ? lo : SIZE_MAX;
}

/* a constraint received by rank 0: its ids (and, after the solve, its multiplier) and its
   record */
typedef struct {
  warm_key key;
  const double *row;
} joined_row;

static int by_row(const void *p, const void *q) {
  return by_key(&((const joined_row *)p)->key, &((const joined_row *)q)->key);
}

static int by_arrival(const void *p, const void *q) {
  const joined_row *a = p, *b = q;
  return (a->row > b->row) - (a->row < b->row);
}

static int reserve_c0(domain *d, size_t m, size_t n) {
  if (agglo_constraints_reserve(&d->j0.c, m) != 0) return -1;
  if (n > d->j0.cap) {
    size_t cap = n + n / 2 + 64;
    double *a = realloc(d->j0.s.inv_m, cap * sizeof *a);
    if (a) d->j0.s.inv_m = a;
    double *b = realloc(d->j0.vs, 3 * cap * sizeof *b);
    if (b) d->j0.vs = b;
    double *v = realloc(d->j0.v, 3 * cap * sizeof *v);
    if (v) d->j0.v = v;
    if (!a || !b || !v) return -1;
    d->j0.cap = cap;
  }
  return 0;
}

/* Rank 0 joins the components of all ranks (recs: every rank's block of particles then
   constraints, counts[2 r], counts[2 r + 1] of them; each constraint comes from its owner, a
   particle from every rank that holds it) and solves them; reply: per rank, the velocities of
   its particles then the multipliers of its constraints. */
static int solve_joined(domain *d, const double *recs, const int *counts, double *reply,
                        agglo_solver_stats *st) {
  size_t np = 0, nc = 0;
  for (int r = 0; r < d->b.size; r++) np += (size_t)counts[2 * r], nc += (size_t)counts[2 * r + 1];
  /* particles sorted by id, each once (copies of a particle are equal) */
  double *parts = malloc((np + 1) * PREC * sizeof *parts);
  joined_row *rows = malloc((nc + 1) * sizeof *rows);
  if (!parts || !rows || reserve_c0(d, nc + 1, np + 1) != 0) {
    free(parts), free(rows);
    return -1;
  }
  const double *q = recs;
  size_t at = 0;
  for (int r = 0; r < d->b.size; r++) {
    for (int p = 0; p < counts[2 * r]; p++, q += PREC) memcpy(parts + PREC * at++, q, PREC * sizeof *q);
    q += (size_t)CREC * counts[2 * r + 1];
  }
  qsort(parts, np, PREC * sizeof *parts, agglo_cmp_double); /* by id, each record's first value */
  size_t n = 0;
  for (size_t p = 0; p < np; p++)
    if (n == 0 || parts[PREC * p] != parts[PREC * (n - 1)])
      memmove(parts + PREC * n++, parts + PREC * p, PREC * sizeof *parts);
  /* the constraints in the serial order (by ids: a round-off path close to the serial solve's) */
  q = recs;
  for (size_t r = 0, k = 0; r < (size_t)d->b.size; r++) {
    q += (size_t)PREC * counts[2 * r];
    for (int e = 0; e < counts[2 * r + 1]; e++, q += CREC, k++) {
      int64_t a = (int64_t)q[0], b = (int64_t)q[1];
      int wall = (int)q[2];
      rows[k].key = wall >= 0 ? (warm_key){a, 0, wall, 0} : a < b ? (warm_key){a, b, -1, 0} : (warm_key){b, a, -1, 0};
      rows[k].row = q;
    }
  }
  qsort(rows, nc, sizeof *rows, by_row);
  agglo_constraints *c = &d->j0.c;
  int rc = 0;
  for (size_t m = 0; m < nc; m++) {
    q = rows[m].row;
    size_t i = joined_index(parts, n, q[0]), j = q[2] >= 0 ? 0 : joined_index(parts, n, q[1]);
    if (i == SIZE_MAX || j == SIZE_MAX) {
      rc = -2; /* a constraint without its particle: cannot be */
      break;
    }
    c->i[m] = (int32_t)i, c->j[m] = q[2] >= 0 ? (int32_t)(-1 - (int)q[2]) : (int32_t)j;
    memcpy(c->e + 3 * m, q + 3, 3 * sizeof *q);
    c->gap[m] = q[6], c->lambda[m] = q[7], c->gamma[m] = 0, c->equality[m] = 0;
  }
  if (rc == 0) {
    c->n = nc;
    d->j0.s.dim = d->b.dim, d->j0.s.n = n;
    for (size_t p = 0; p < n; p++) {
      const double *r = parts + PREC * p;
      d->j0.s.inv_m[p] = r[1];
      memcpy(d->j0.vs + 3 * p, r + 2, 3 * sizeof *r);
    }
    rc = agglo_project(&d->j0.s, c, d->m->cfg.dt, d->j0.vs, d->j0.v, &d->m->solver, st);
  }
  /* the replies, in the order of the requests */
  for (size_t m = 0; rc == 0 && m < nc; m++) rows[m].key.lambda = c->lambda[m];
  qsort(rows, nc, sizeof *rows, by_arrival);
  q = recs;
  double *out = reply;
  size_t m = 0;
  for (int r = 0; rc == 0 && r < d->b.size; r++) {
    for (int p = 0; p < counts[2 * r]; p++, q += PREC, out += 3)
      memcpy(out, d->j0.v + 3 * joined_index(parts, n, q[0]), 3 * sizeof *out);
    for (int k = 0; k < counts[2 * r + 1]; k++, q += CREC) *out++ = rows[m++].key.lambda;
  }
  free(parts), free(rows);
  return rc;
}

/* d->cc.only: the particles of the components holding a ghost (with a constraint); returns
   their count. */
static size_t mark_across(domain *d) {
  components *cc = &d->cc;
  const agglo_constraints *c = &d->m->con;
  size_t parts = 0, n = d->reg.n;
  for (size_t i = 0; i < n; i++) cc->only[i] = 0;
  for (size_t k = 0; k < c->n; k++)
    if (cc->cross[cc->root[c->i[k]]]) {
      cc->only[c->i[k]] = 1;
      if (c->j[k] >= 0) cc->only[c->j[k]] = 1;
    }
  for (size_t i = 0; i < n; i++) parts += cc->only[i];
  return parts;
}

/* The components holding a ghost (mark_crossing: this rank owns rows of them), joined and
   solved on rank 0 (see the top). Collective; returns 0 or -1 (memory, on every rank). */
static int solve_gathered(domain *d, size_t rows, agglo_solver_stats *st) {
  components *cc = &d->cc;
  agglo_constraints *c = &d->m->con;
  size_t parts = mark_across(d), n = d->reg.n;
  int cnt[2] = {(int)parts, (int)rows};
  double *mine = malloc((PREC * parts + CREC * rows + 1) * sizeof *mine), *w = mine;
  int bad = !mine;
  for (size_t i = 0; !bad && i < n; i++) {
    if (!cc->only[i]) continue;
    *w++ = (double)d->reg.id[i], *w++ = d->reg.inv_m[i];
    memcpy(w, d->m->vstar + 3 * i, 3 * sizeof *w), w += 3;
  }
  for (size_t k = 0; !bad && k < c->n; k++) {
    size_t i = (size_t)c->i[k];
    int32_t j = c->j[k];
    if (!cc->cross[cc->root[i]] || !owned(d, c, k)) continue;
    *w++ = (double)d->reg.id[i], *w++ = j >= 0 ? (double)d->reg.id[j] : 0, *w++ = j >= 0 ? -1 : -1 - j;
    memcpy(w, c->e + 3 * k, 3 * sizeof *w), w += 3;
    *w++ = c->gap[k], *w++ = c->lambda[k];
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) {
    free(mine);
    return -1;
  }
  int *counts = NULL, *displs = NULL, *rcounts = NULL, *rdispls = NULL;
  double *all = NULL, *reply = NULL;
  if (d->b.rank == 0) {
    size_t K = (size_t)d->b.size;
    counts = malloc(2 * K * sizeof *counts), displs = calloc(K + 1, sizeof *displs);
    rcounts = malloc(K * sizeof *rcounts), rdispls = calloc(K + 1, sizeof *rdispls);
    bad = !counts || !displs || !rcounts || !rdispls;
  }
  MPI_Gather(cnt, 2, MPI_INT, counts, 2, MPI_INT, 0, MPI_COMM_WORLD);
  size_t total = 0;
  if (d->b.rank == 0 && !bad) {
    int *size = rcounts; /* (the request sizes first, the reply sizes after the solve) */
    for (int r = 0; r < d->b.size; r++) {
      size[r] = PREC * counts[2 * r] + CREC * counts[2 * r + 1];
      displs[r + 1] = displs[r] + size[r];
    }
    total = (size_t)displs[d->b.size];
    all = malloc((total + 1) * sizeof *all);
    bad = !all;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!bad) MPI_Gatherv(mine, PREC * cnt[0] + CREC * cnt[1], MPI_DOUBLE, all, rcounts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  agglo_solver_stats st0 = {.converged = 1};
  if (d->b.rank == 0 && !bad) {
    for (int r = 0; r < d->b.size; r++) {
      rcounts[r] = 3 * counts[2 * r] + counts[2 * r + 1];
      rdispls[r + 1] = rdispls[r] + rcounts[r];
    }
    reply = malloc(((size_t)rdispls[d->b.size] + 1) * sizeof *reply);
    bad = !reply || solve_joined(d, all, counts, reply, &st0) != 0;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double *back = bad ? NULL : malloc(((size_t)(3 * cnt[0] + cnt[1])) * sizeof *back + 1);
  int bad2 = !bad && !back;
  MPI_Allreduce(MPI_IN_PLACE, &bad2, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!bad && !bad2) {
    MPI_Scatterv(reply, rcounts, rdispls, MPI_DOUBLE, back, 3 * cnt[0] + cnt[1], MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const double *r = back;
    for (size_t i = 0; i < n; i++)
      if (cc->only[i]) memcpy(d->reg.v + 3 * i, r, 3 * sizeof *r), r += 3;
    for (size_t k = 0; k < c->n; k++)
      if (cc->cross[cc->root[c->i[k]]] && owned(d, c, k)) c->lambda[k] = *r++;
  }
  if (d->b.rank == 0) *st = st0;
  free(mine), free(counts), free(displs), free(rcounts), free(rdispls), free(all), free(reply), free(back);
  return bad || bad2 ? -1 : 0;
}

/* The same components solved together by MPRGP over the ranks (agglo_project_part): each rank
   holds the rows it owns; a product by the dual matrix sums the ghosts' shares into their
   owners and sends the sums back (sum_shared). Collective; 0 or -1 (memory, on every rank). */
static int solve_spread(domain *d, agglo_solver_stats *st) {
  components *cc = &d->cc;
  agglo_constraints *c = &d->m->con;
  int bad = agglo_bricks_grow(&cc->rows, &cc->rows_cap, c->n + 1, 1) != 0 || reserve_replay(d) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return -1;
  mark_across(d);
  for (size_t k = 0; k < c->n; k++) cc->rows[k] = cc->cross[cc->root[c->i[k]]] && owned(d, c, k);
  agglo_projection_part part = {cc->rows, cc->only, d, sum_shared, reduce};
  return agglo_project_part(&d->reg, c, d->m->cfg.dt, d->m->vstar, d->reg.v, &d->m->solver, st, &part);
}

/* When a rank holds more rows than this of one component across ranks, they are spread rather
   than gathered (parallel.crossing = auto): such a component takes hundreds of iterations, each
   cheaper spread; small ones take a few, each cheaper on one rank than a collective (measured in
   docs/performance.md: at most 600 in the dilute case, 17 000 and more in the gel). */
enum { SPREAD_MIN_ROWS = 2000 };

/* The components holding a ghost (this rank owns rows of them: mark_crossing), solved gathered
   or spread (parallel.crossing). Collective. */
static int solve_across(void *ctx, agglo_solver_stats *st) {
  domain *d = ctx;
  double t0 = MPI_Wtime(), total = (double)d->cc.nrows, most = (double)d->cc.largest;
  reduce(d, &total, 1, &most, 1);
  if (total == 0) return 0;
  int how = d->m->cfg.parallel_crossing;
  int mprgp = d->m->solver.method == AGGLO_SOLVER_MPRGP || d->m->solver.method == AGGLO_SOLVER_ACTIVE_SET;
  int spread = how == CROSS_SPREAD || (how == CROSS_AUTO && mprgp && most > SPREAD_MIN_ROWS);
  int rc = spread ? solve_spread(d, st) : solve_gathered(d, d->cc.nrows, st);
  d->tally.t_joined += MPI_Wtime() - t0;
  return rc;
}

/* ---- the step: contact_model.c's, with these between its phases ------------------------ */

/* The ghosts within cutoff (and two radii) of the brick's faces and the neighbour list over the
   region; 1 when that reach exceeds a brick (then d->width is that brick's). */
static int reach_out(void *ctx, double cutoff) {
  domain *d = ctx;
  double halo = cutoff + 2 * d->rmax;
  d->halo = halo;
  for (int k = 0; k < d->b.dim; k++)
    if (d->b.dims[k] > 1 && d->b.bhi[k] - d->b.blo[k] < halo) {
      d->width = d->b.bhi[k] - d->b.blo[k];
      return 1;
    }
  region_box(d, halo);
  double t0 = MPI_Wtime();
  int rc = make_ghosts(d, halo);
  d->tally.t_exchange += MPI_Wtime() - t0;
  if (rc != 0) return -1;
  /* no pair of two ghosts (pairs are listed under their lower index, the own particles come
     first): each is listed on a rank that owns one of them, and its constraint is a row there */
  return agglo_neighbors_build_first(&d->m->nb, &d->reg, cutoff, 0, d->own) != 0 ? -1 : 0;
}

/* The components without a ghost, solved here: all of them in a full round, else those with a
   particle of a missed pair; the others marked for solve_across. */
static int solve_here(void *ctx, int first, int full, agglo_solver_stats *st) {
  domain *d = ctx;
  contact *m = d->m;
  agglo_system *s = &d->reg;
  if (first) load_warm(d); /* (the step starts without constraints: the multipliers by ids) */
  if (full) memcpy(s->v, m->vstar, 3 * s->n * sizeof *s->v);
  d->cc.nrows = mark_crossing(d, &d->cc.largest);
  for (size_t i = 0; i < s->n; i++)
    d->cc.only[i] = i < d->own && !d->cc.cross[d->cc.root[i]] && (full || m->mark[i]);
  return agglo_project_some(s, &m->con, m->cfg.dt, m->vstar, s->v, &m->solver, st, d->cc.only) != 0 ? -1 : 0;
}

/* A particle's work for the cuts: BALANCE_PARTICLE plus one per row it owns (a constraint
   whose particle of lower id it is) [choice]. Measured on one rank (3D gel of 8 000, a step of
   0.40 s CPU): the neighbour list, attraction, collection and the rest cost about 14 us per
   particle and the spread solve about 7 us per row, so two rows weigh one particle. */
enum { BALANCE_PARTICLE = 2 };

/* The cuts moved to balance the weights of the own particles (balance.c), this rank's brick
   set from them; the particles then migrate to their new bricks. Collective. */
static void balance(domain *d) {
  const agglo_constraints *c = &d->m->con;
  const agglo_system *s = &d->reg;
  for (size_t i = 0; i < d->own; i++) d->weight[i] = BALANCE_PARTICLE;
  for (size_t k = 0; k < c->n; k++) {
    if (!owned(d, c, k)) continue;
    size_t i = (size_t)c->i[k];
    int32_t j = c->j[k];
    size_t lower = j < 0 || s->id[i] < s->id[j] ? i : (size_t)j;
    d->weight[lower] += 1;
  }
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    agglo_balance_cuts(d->b.comm, d->b.dims[k], d->b.glo[k], d->b.glen[k], d->b.gper[k], s->x + k, 3,
                       d->weight, d->own, 2 * d->halo, d->cut[k], d->hist, d->cut[k] + d->b.dims[k] + 1);
    d->b.blo[k] = d->cut[k][d->b.coord[k]], d->b.bhi[k] = d->cut[k][d->b.coord[k] + 1];
  }
}

/* One step over the ranks, then the warm start kept and the migration. Collective; *bad_id:
   1 + the largest id of a particle with a non-finite value (0: none). Returns 0, -1 (memory,
   message in err) or 1 (the reach outgrew a brick). */
static int step(domain *d, agglo_step_info *info, double *bad_id, char *err, size_t errlen) {
  contact *m = d->m;
  m->con.n = 0; /* (the multipliers come by ids: load_warm) */
  m->con.np_by = 0;
  agglo_contact_ranks r = {d, d->own, d->gbox, d->wrap, reduce, reach_out, replay, solve_here, solve_across};
  int rc = agglo_contact_step(m, &d->reg, &r, info, err, errlen);
  if (rc != 0) return rc;
  d->tally.constraints += (double)info->n_contacts;
  d->tally.joined += (double)d->cc.nrows; /* (the last round's) */
  size_t i = info->bad_particle;
  double worst[2] = {save_warm(d) != 0, i == SIZE_MAX ? 0 : (double)d->reg.id[i] + 1};
  balance(d);
  double t0 = MPI_Wtime();
  if (migrate(d) != 0 || sort_own(d) != 0 || index_warm(d) != 0) worst[0] = 1;
  d->tally.t_exchange += MPI_Wtime() - t0;
  reduce(d, NULL, 0, worst, 2);
  *bad_id = worst[1];
  return worst[0] != 0 ? agglo_fail(err, errlen, "out of memory exchanging particles") : 0;
}

/* ---- set-up, the gathered state, the run --------------------------------------------------- */

static void pack_root(const void *sim, size_t i, double *r) {
  const agglo_system *s = &((const agglo_sim *)sim)->sys;
  for (int k = 0; k < 3; k++) r[k] = s->x[3 * i + k], r[3 + k] = s->v[3 * i + k], r[6 + k] = 0;
  r[9] = s->r[i], r[10] = s->m[i], r[11] = s->inv_m[i], r[12] = (double)s->id[i];
}

/* The cuts of the restart point's bricks (m0: rank 0's model, NULL elsewhere), when it was
   written on this grid and each brick is still at least reach wide; else they stay at equal
   widths. Collective: 0, or -1 (memory) on every rank. */
static int restore_cuts(domain *d, const contact *m0, double reach) {
  unsigned long cnt = 0; /* the inner cuts, then the three counts */
  if (m0)
    for (int k = 0; k < 3; k++) cnt += (unsigned long)m0->bricks[k] - 1;
  MPI_Bcast(&cnt, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  double *all = malloc((cnt + 3) * sizeof *all);
  int bad = !all;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) {
    free(all);
    return -1;
  }
  if (m0) {
    memcpy(all, m0->cuts, cnt * sizeof *all);
    for (int k = 0; k < 3; k++) all[cnt + k] = m0->bricks[k];
  }
  MPI_Bcast(all, (int)cnt + 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int same = 1;
  for (int k = 0; k < 3; k++) same &= all[cnt + k] == d->b.dims[k];
  const double *c = all;
  for (int k = 0; same && k < 3; c += d->b.dims[k++] - 1) {
    int p = d->b.dims[k];
    double *next = d->cut[k] + p + 1; /* (the balance's scratch) */
    next[0] = d->cut[k][0], next[p] = d->cut[k][p];
    for (int q = 1; q < p; q++) next[q] = c[q - 1];
    for (int q = 0; q < p; q++) same &= p == 1 || next[q + 1] - next[q] >= reach;
  }
  for (int k = 0; same && k < 3; k++) {
    memcpy(d->cut[k], d->cut[k] + d->b.dims[k] + 1, ((size_t)d->b.dims[k] + 1) * sizeof *d->cut[k]);
    d->b.blo[k] = d->cut[k][d->b.coord[k]], d->b.bhi[k] = d->cut[k][d->b.coord[k] + 1];
  }
  free(all);
  return 0;
}

/* The grid, rank 0's particles to their bricks, each rank's model over them, and the warm
   start of a restart point (rank 0's multipliers, by ids, to every rank). */
static int set_up(domain *d, agglo_sim *sim, const agglo_config *c, char *err, size_t errlen) {
  double lo[3] = {0}, len[3] = {0}, scale[3] = {0}; /* r_mean, r_max, first reach */
  int per[3] = {0};
  if (sim) {
    const contact *m0 = sim->state;
    for (int k = 0; k < 3; k++) lo[k] = sim->sys.box.lo[k], len[k] = sim->sys.box.len[k], per[k] = sim->sys.box.periodic[k];
    scale[0] = m0->r_mean, scale[1] = agglo_max_radius(&sim->sys);
    scale[2] = fmax(m0->att_reach, m0->contact_margin) + 2 * scale[1];
  }
  MPI_Bcast(scale, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (agglo_bricks_setup(&d->b, c, lo, len, per, scale[2], err, errlen) != 0) return -1;
  d->rmax = scale[1];
  for (int k = 0; k < 3; k++) { /* the cuts start at equal widths, as the bricks */
    if (!(d->cut[k] = malloc(2 * ((size_t)d->b.dims[k] + 1) * sizeof *d->cut[k])))
      return agglo_fail(err, errlen, "out of memory");
    for (int q = 0; q <= d->b.dims[k]; q++) d->cut[k][q] = d->b.glo[k] + d->b.glen[k] * q / d->b.dims[k];
    d->cut[k][d->b.coord[k]] = d->b.blo[k], d->cut[k][d->b.coord[k] + 1] = d->b.bhi[k];
    d->b.cut[k] = d->cut[k];
  }
  if (restore_cuts(d, sim ? sim->state : NULL, scale[2]) != 0) return agglo_fail(err, errlen, "out of memory");
  MPI_Op_create(sum_then_max, 1, &d->sum_max);
  agglo_box *g = &d->gbox;
  for (int k = 0; k < 3; k++)
    g->lo[k] = d->b.glo[k], g->len[k] = d->b.glen[k], g->hi[k] = g->lo[k] + g->len[k], g->periodic[k] = d->b.gper[k];
  d->wrap = *g;
  for (int k = 0; k < 3; k++) d->wrap.periodic[k] = d->b.dims[k] == 1 && g->periodic[k];
  /* the model over the region, still empty (its a priori velocities grow with it: reserve) */
  void *state = NULL;
  d->reg.dim = c->dim;
  if (agglo_model_contact.init(&state, &d->reg, c, err, errlen) != 0) return -1;
  d->m = state;
  agglo_contact_set_scale(d->m, scale[0]);
  double *recs;
  size_t n;
  if (agglo_bricks_hand_out(&d->b, sim ? sim->sys.n : 0, REC, pack_root, sim, &recs, &n) != 0 ||
      reserve(d, n + 1) != 0)
    return agglo_fail(err, errlen, "out of memory handing out the particles");
  d->reg.n = d->own = n;
  for (size_t i = 0; i < n; i++) unpack(d, i, recs + REC * i);
  free(recs);
  if (sort_own(d) != 0) return agglo_fail(err, errlen, "out of memory");
  region_box(d, scale[2]);
  /* the multipliers of a restart point */
  unsigned long nk = 0;
  if (sim) {
    const contact *m0 = sim->state;
    if (agglo_bricks_grow(&d->warm.keys, &d->warm.cap, m0->con.n + 1, sizeof *d->warm.keys) != 0) nk = ULONG_MAX;
    for (size_t k = 0; nk != ULONG_MAX && k < m0->con.n; k++)
      if ((size_t)m0->con.i[k] < sim->sys.n && m0->con.j[k] < (int32_t)sim->sys.n)
        d->warm.keys[nk++] = key_of(&sim->sys, &m0->con, k);
  }
  MPI_Bcast(&nk, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  if (nk == ULONG_MAX || agglo_bricks_grow(&d->warm.keys, &d->warm.cap, nk + 1, sizeof *d->warm.keys) != 0)
    return agglo_fail(err, errlen, "out of memory");
  MPI_Bcast(d->warm.keys, (int)(nk * sizeof *d->warm.keys), MPI_BYTE, 0, MPI_COMM_WORLD);
  d->warm.n = nk;
  return index_warm(d) != 0 ? agglo_fail(err, errlen, "out of memory") : 0;
}

/* Rank 0: whether the gather after this step must bring the multipliers: only a restart point
   (periodic, final, or at a stop) writes them (contacts.txt); the stats rows, the trajectory and
   the pictures need the particles only. A restart point on the wall clock counts as due a
   minute early (it is decided when written, after the gather). */
static int multipliers_wanted(const agglo_sim *sim, int flags) {
  const agglo_outputs *o = &sim->out;
  if (flags & (AGGLO_BRICKS_FINAL | AGGLO_BRICKS_STOP)) return 1;
  if (!o->dir || !(o->which & AGGLO_OUTPUT_STATE)) return 0;
  return agglo_outputs_checkpoint_due(sim, agglo_wall_seconds() + 60);
}

/* Every rank's particles into rank 0's system (by id), and, when a restart point may be written
   (multipliers_wanted), the step's multipliers into rank 0's model (so that a restart point
   warm-starts as the run would). */
static agglo_status gather(domain *d, agglo_sim *sim, const agglo_id_index *map, int flags) {
  enum { G = 7 }; /* id x[3] v[3] */
  double *mine = malloc((G * d->own + 1) * sizeof *mine);
  for (size_t i = 0; mine && i < d->own; i++) {
    double *r = mine + G * i;
    r[0] = (double)d->reg.id[i];
    for (int k = 0; k < 3; k++) r[1 + k] = d->reg.x[3 * i + k], r[4 + k] = d->reg.v[3 * i + k];
  }
  void *got = NULL, *keys = NULL;
  size_t total = 0, nkeys = 0;
  int bad = agglo_bricks_gather(&d->b, mine, (int)(G * d->own), MPI_DOUBLE, sizeof *mine, &got, &total, NULL);
  int want = d->b.rank == 0 && multipliers_wanted(sim, flags);
  MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!bad && want)
    bad = agglo_bricks_gather(&d->b, d->warm.keys, (int)(d->warm.n * sizeof *d->warm.keys), MPI_BYTE, 1, &keys, &nkeys, NULL);
  free(mine);
  int rc = bad ? agglo_error(AGGLO_ERROR_MEMORY, "out of memory gathering the particles") : AGGLO_OK;
  if (d->b.rank == 0 && rc == AGGLO_OK) {
    agglo_system *s = &sim->sys;
    const double *all = got;
    total /= G;
    if (total != s->n)
      rc = agglo_error(AGGLO_ERROR_RUN, "step %lld: %zu particles gathered, %zu expected",
                       (long long)s->step, total, s->n);
    for (size_t q = 0; rc == AGGLO_OK && q < total; q++) {
      const double *r = all + G * q;
      size_t i = agglo_id_lookup(map, s->n, (int64_t)r[0]);
      if (i == SIZE_MAX) {
        rc = agglo_error(AGGLO_ERROR_RUN, "gathered particle id %lld is unknown", (long long)r[0]);
        break;
      }
      for (int k = 0; k < 3; k++) s->x[3 * i + k] = r[1 + k], s->v[3 * i + k] = r[4 + k];
      agglo_box_wrap(&s->box, s->x + 3 * i);
    }
    /* the multipliers, by storage index as the serial model keeps them (each from its owner;
       two periodic images of one pair: keep one) */
    if (want) {
      warm_key *w = keys;
      nkeys /= sizeof *w;
      agglo_constraints *c = &((contact *)sim->state)->con;
      agglo_constraints_free(c);
      if (rc == AGGLO_OK && (agglo_constraints_reserve(c, nkeys + 1) != 0 ||
                             agglo_contact_keep_bricks(sim->state, d->b.dims, d->cut) != 0))
        rc = agglo_error(AGGLO_ERROR_MEMORY, "out of memory gathering the contacts");
      size_t kept = 0;
      for (size_t k = 0; rc == AGGLO_OK && k < nkeys; k++) {
        size_t i = agglo_id_lookup(map, s->n, w[k].a), j = w[k].wall >= 0 ? 0 : agglo_id_lookup(map, s->n, w[k].b);
        if (i == SIZE_MAX || j == SIZE_MAX) continue;
        if (w[k].wall < 0 && j < i) { size_t t = i; i = j, j = t; }
        w[kept++] = (warm_key){(int64_t)i, w[k].wall >= 0 ? -1 - w[k].wall : (int64_t)j, 0, w[k].lambda};
      }
      qsort(w, kept, sizeof *w, by_key); /* the serial order: by i, then j (walls first) */
      for (size_t k = 0; rc == AGGLO_OK && k < kept; k++)
        if (c->n == 0 || w[k].a != c->i[c->n - 1] || w[k].b != c->j[c->n - 1])
          c->i[c->n] = (int32_t)w[k].a, c->j[c->n] = (int32_t)w[k].b, c->gamma[c->n] = 0,
          c->lambda[c->n++] = w[k].lambda;
    }
    agglo_sim_replaced(sim);
  }
  free(got), free(keys);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/* parallel.csv (agglo_bricks_report) with the constraints per step, the share of them joined on
   rank 0, and the seconds (largest over the ranks) and share of the wall time of the joined
   solves. */
static void report(const domain *d, agglo_sim *sim, int64_t steps, double wall) {
  double per = steps > 0 ? 1.0 / (double)steps : 0;
  double mine[4] = {(double)d->own, d->tally.ghosts * per, d->tally.sent * per, d->tally.t_exchange};
  double rows = d->tally.joined * per, total[2] = {d->tally.constraints * per, 0}, joined = 0;
  MPI_Reduce(&rows, total + 1, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* (constraints: of all ranks) */
  MPI_Reduce(&d->tally.t_joined, &joined, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  FILE *f = agglo_bricks_report(&d->b, sim, steps, wall, REC, mine,
                                ",constraints_per_step,joined_share,joined_s,joined_share_of_time");
  if (!f) return;
  fprintf(f, ",%.6g,%.4f,%.4g,%.4f\n", total[0], total[0] > 0 ? total[1] / total[0] : 0, joined,
          joined / wall);
  fclose(f);
}

static agglo_status run(domain *d, agglo_sim *sim, const agglo_config *c) {
  int64_t stepno, last;
  agglo_id_index *map;
  agglo_status st = agglo_bricks_start(&d->b, sim, &stepno, &last, &map);
  const int64_t first = stepno;
  d->reg.step = stepno, d->reg.t = (double)stepno * c->dt;
  double t_start = MPI_Wtime();
  while (st == AGGLO_OK && stepno < last) {
    agglo_step_info info = {0};
    double bad_id;
    char msg[256];
    int rc = step(d, &info, &bad_id, msg, sizeof msg);
    stepno++;
    if (rc != 0) {
      st = rc < 0 ? agglo_error(AGGLO_ERROR_MEMORY, "step %lld: %s", (long long)stepno, msg)
                  : agglo_error(AGGLO_ERROR_RUN, "step %lld: the contacts' reach (%g, with two radii) "
                                "outgrew a brick (%g wide): the particles move too far in a step for "
                                "%d ranks; run on fewer ranks or lower run.dt", (long long)stepno,
                                d->halo, d->width, d->b.size);
      MPI_Bcast(agglo_error_buffer(), AGGLO_ERROR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
      break;
    }
    int flags = agglo_bricks_end_step(&d->b, sim, map, stepno, last, &info, bad_id);
    if (flags & AGGLO_BRICKS_FAILED) {
      st = AGGLO_ERROR_RUN;
      break;
    }
    if (!(flags & AGGLO_BRICKS_GATHER)) continue;
    if ((st = gather(d, sim, map, flags)) == AGGLO_OK) st = agglo_bricks_write(&d->b, sim, flags);
  }
  if (d->b.rank == 0) agglo_sim_ended(sim, st);
  report(d, sim, stepno - first, MPI_Wtime() - t_start);
  free(map);
  return st;
}

agglo_status agglo_contact_run_parallel(agglo_sim *sim, const agglo_config *c) {
  domain d = {.sum_max = MPI_OP_NULL};
  char *err = agglo_error_buffer();
  int fail = set_up(&d, sim, c, err, AGGLO_ERROR_LEN) != 0;
  agglo_status st = agglo_bricks_any_failed(&d.b, fail) ? AGGLO_ERROR_INPUT : run(&d, sim, c);
  domain_free(&d);
  return st;
}
