/* Spatial domain decomposition of the contact model over MPI (docs/parallel.md).

   Each rank owns the particles of its brick (bricks.h) and runs the contact step (contact_model.c)
   over them plus ghosts: copies of the particles of other ranks within the step's reach, which
   grows with the fastest a priori speed, exchanged in stages (x, y, z) after the a priori
   velocities. The exchange is recorded and replayed to send the ghosts their velocities: after
   the attraction and after every solve.

   The projection splits into connected components of the contact graph. A component of a
   rank's graph without a ghost is the whole component (no constraint leaves the rank) and is
   solved there. A component holding a ghost may continue on other ranks; each of its
   constraints is a row of the rank that owns its particle of lower id. Such components are
   solved together by MPRGP over the ranks (spread: agglo_project_part, whose products by the
   dual matrix replay the exchange backwards then forwards), or sent to rank 0, which joins and
   solves them and sends back velocities and multipliers (gathered); parallel.crossing chooses,
   by the largest such component (docs/performance.md). The rounds that add missed pairs or
   widen the reach run as in the serial step, with their counts summed over the ranks, so every
   rank takes the same rounds. */
#include "mpi/bricks.h"
#include "core/error.h"
#include "core/model.h"
#include "models/contact_state.h"
#include "core/union_find.h"
#include "core/compare.h"
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

typedef struct {
  agglo_bricks b;
  contact *m;       /* the contact model over the region (neighbour list, constraints, solver) */
  agglo_system reg; /* own particles 0 .. own-1, then ghosts; box: see region_box */
  agglo_box gbox;   /* the scenario's */
  size_t own, cap;
  double *vs;       /* a priori velocities */
  double rmax, halo;
  /* the ghost exchange of the step, replayed for velocities: per axis and side, the particles
     sent and how many arrived; per axis, where they start */
  size_t *list[3][2], lcnt[3][2], lcap[3][2], got[3][2], at[3];
  double *send[2], *recv;
  size_t send_cap[2], recv_cap;
  int32_t *root;    /* per particle: its component's root (union-find over the constraints) */
  uint8_t *cross, *only; /* per root: the component holds a ghost; per particle: solve here */
  uint32_t *comp_rows;   /* per root: the rows of a crossing component this rank owns */
  uint8_t *rows;         /* per constraint: a row of the components across ranks (spread) */
  size_t rows_cap;
  MPI_Op sum_max;        /* sums then maxima in one reduction (sum_then_max) */
  warm_key *warm;
  size_t nwarm, warm_cap;
  uint32_t *slot;   /* hash of warm: entry + 1, or 0 (empty); slots a power of two */
  size_t nslot;
  /* rank 0: the joined components */
  agglo_constraints c0;
  agglo_system s0;
  double *vs0, *v0;
  size_t s0_cap;
  /* over the run: ghosts held, records sent, constraints in joined components, seconds */
  double ghosts, sent, joined, constraints, t_exchange, t_joined;
} domain;

/* room for n particles in the region */
static int reserve(domain *d, size_t n) {
  if (n <= d->cap) return 0;
  size_t c = n + n / 2 + 1024;
  agglo_system *s = &d->reg;
#define RE(p, w)                                          \
  do {                                                    \
    void *q_ = realloc((p), c * (w) * sizeof *(p));       \
    if (!q_) return -1;                                   \
    (p) = q_;                                             \
  } while (0)
  RE(s->x, 3); RE(s->v, 3); RE(d->vs, 3); RE(s->r, 1); RE(s->m, 1); RE(s->inv_m, 1); RE(s->id, 1);
  RE(d->root, 1); RE(d->cross, 1); RE(d->only, 1); RE(d->comp_rows, 1);
#undef RE
  d->cap = c;
  return 0;
}

static void pack(const domain *d, size_t i, double *r) {
  const agglo_system *s = &d->reg;
  for (int k = 0; k < 3; k++) r[k] = s->x[3 * i + k], r[3 + k] = s->v[3 * i + k], r[6 + k] = d->vs[3 * i + k];
  r[9] = s->r[i], r[10] = s->m[i], r[11] = s->inv_m[i], r[12] = (double)s->id[i];
}

static void unpack(domain *d, size_t i, const double *r) {
  agglo_system *s = &d->reg;
  for (int k = 0; k < 3; k++) s->x[3 * i + k] = r[k], s->v[3 * i + k] = r[3 + k], d->vs[3 * i + k] = r[6 + k];
  s->r[i] = r[9], s->m[i] = r[10], s->inv_m[i] = r[11], s->id[i] = (int64_t)r[12];
}

/* ---- the exchanges ----------------------------------------------------------------------- */

/* Send cnt[s] particles of d->send[s] to the lower (s = 0) and upper (s = 1) neighbour along
   axis k; what arrives is appended to the region. */
static int exchange(domain *d, int k, const size_t cnt[2]) {
  size_t got[2];
  long got_all = agglo_bricks_exchange(&d->b, k, d->send, cnt, REC, &d->recv, &d->recv_cap, got);
  if (got_all < 0 || reserve(d, d->reg.n + (size_t)got_all) != 0) return -1;
  size_t total = (size_t)got_all;
  d->at[k] = d->reg.n, d->got[k][0] = got[0], d->got[k][1] = got[1];
  for (size_t q = 0; q < total; q++) unpack(d, d->reg.n + q, d->recv + REC * q);
  d->reg.n += total;
  d->sent += (double)(cnt[0] + cnt[1]);
  return 0;
}

/* Queue particle i for side s of axis k (shifted by a period across the box's edge). */
static int queue(domain *d, size_t i, int k, int s, size_t cnt[2]) {
  if (agglo_bricks_grow(&d->send[s], &d->send_cap[s], REC * (cnt[s] + 1), sizeof(double)) != 0) return -1;
  double *r = d->send[s] + REC * cnt[s]++;
  pack(d, i, r);
  r[k] += agglo_bricks_shift(&d->b, k, s);
  return 0;
}

/* The ghosts within halo of the brick's faces (own particles and ghosts so far, staged), the
   particles sent recorded for the replays. */
static int make_ghosts(domain *d, double halo) {
  d->reg.n = d->own;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0}, n = d->reg.n;
    for (int s = 0; s < 2; s++) d->lcnt[k][s] = 0;
    for (size_t i = 0; i < n; i++) {
      double x = d->reg.x[3 * i + k];
      for (int s = 0; s < 2; s++) {
        if (d->b.nb[k][s] == MPI_PROC_NULL || (s == 0 ? x >= d->b.blo[k] + halo : x < d->b.bhi[k] - halo))
          continue;
        if (queue(d, i, k, s, cnt) != 0 ||
            agglo_bricks_grow(&d->list[k][s], &d->lcap[k][s], d->lcnt[k][s] + 1, sizeof(size_t)) != 0)
          return -1;
        d->list[k][s][d->lcnt[k][s]++] = i;
      }
    }
    if (exchange(d, k, cnt) != 0) return -1;
  }
  d->ghosts += (double)(d->reg.n - d->own);
  return 0;
}

/* Room in the buffers for replays of up to 3 values per particle, either way. */
static int reserve_replay(domain *d) {
  for (int k = 0; k < d->b.dim; k++)
    for (int s = 0; s < 2; s++)
      if (agglo_bricks_grow(&d->send[s], &d->send_cap[s], 3 * d->lcnt[k][s] + 1, sizeof(double)) != 0 ||
          agglo_bricks_grow(&d->recv, &d->recv_cap, 3 * d->lcnt[k][s] + 1, sizeof(double)) != 0)
        return -1;
  return 0;
}

/* The ghosts' copy of field f (w per particle) from the particles they were copied from, the
   stages forwards (the buffers reserved). */
static void send_out(domain *d, double *f, size_t w) {
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t at = d->at[k];
    for (int s = 0; s < 2; s++) { /* block s comes from nb[k][1 - s], which sends its list[k][s] */
      double *out = d->send[s];
      for (size_t q = 0; q < d->lcnt[k][s]; q++) memcpy(out + w * q, f + w * d->list[k][s][q], w * sizeof *f);
      MPI_Sendrecv(out, (int)(w * d->lcnt[k][s]), MPI_DOUBLE, d->b.nb[k][s], 10, f + w * at,
                   (int)(w * d->got[k][s]), MPI_DOUBLE, d->b.nb[k][1 - s], 10, d->b.comm, MPI_STATUS_IGNORE);
      at += d->got[k][s];
    }
  }
}

/* The ghosts' copy of field f (3 per particle: velocities) from their owners. */
static int replay(domain *d, double *f) {
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
  const size_t w = (size_t)width;
  for (int k = d->b.dim - 1; k >= 0; k--) {
    if (d->b.dims[k] == 1) continue;
    size_t at = d->at[k];
    for (int s = 0; s < 2; s++) { /* block s came from nb[k][1 - s], which sent its list[k][s] */
      MPI_Sendrecv(f + w * at, (int)(w * d->got[k][s]), MPI_DOUBLE, d->b.nb[k][1 - s], 9, d->recv,
                   (int)(w * d->lcnt[k][s]), MPI_DOUBLE, d->b.nb[k][s], 9, d->b.comm, MPI_STATUS_IGNORE);
      for (size_t q = 0; q < d->lcnt[k][s]; q++)
        for (size_t c = 0; c < w; c++) f[w * d->list[k][s][q] + c] += d->recv[w * q + c];
      at += d->got[k][s];
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

/* Own particles that left the brick go to the neighbour (one brick per step at most: a step
   moves a particle by less than the reach, and bricks are wider). */
static int migrate(domain *d) {
  d->reg.n = d->own;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0};
    double rec[REC];
    for (size_t i = 0; i < d->reg.n;) { /* a migrant's place goes to the last particle */
      int s = agglo_bricks_side(&d->b, k, d->reg.x[3 * i + k]);
      if (s < 0) {
        i++;
        continue;
      }
      if (queue(d, i, k, s, cnt) != 0) return -1;
      if (i + 1 < d->reg.n) pack(d, d->reg.n - 1, rec), unpack(d, i, rec);
      d->reg.n--;
    }
    if (exchange(d, k, cnt) != 0) return -1;
    d->sent -= (double)(cnt[0] + cnt[1]); /* (counted as ghosts' traffic only) */
  }
  d->own = d->reg.n;
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

/* The hash of d->warm (at most half full). */
static int index_warm(domain *d) {
  size_t want = 16;
  while (want < 2 * d->nwarm + 2) want *= 2;
  if (want > d->nslot) {
    uint32_t *q = realloc(d->slot, want * sizeof *q);
    if (!q) return -1;
    d->slot = q, d->nslot = want;
  }
  size_t mask = d->nslot - 1;
  memset(d->slot, 0, d->nslot * sizeof *d->slot);
  for (size_t e = 0; e < d->nwarm; e++) {
    size_t h = hash_of(&d->warm[e], mask);
    while (d->slot[h]) h = (h + 1) & mask;
    d->slot[h] = (uint32_t)e + 1;
  }
  return 0;
}

static const warm_key *find_warm(const domain *d, const warm_key *k) {
  if (!d->nslot) return NULL;
  size_t mask = d->nslot - 1;
  for (size_t h = hash_of(k, mask); d->slot[h]; h = (h + 1) & mask) {
    const warm_key *e = &d->warm[d->slot[h] - 1];
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
  const agglo_constraints *c = &d->m->con;
  d->nwarm = 0;
  if (agglo_bricks_grow(&d->warm, &d->warm_cap, c->n + 1, sizeof *d->warm) != 0) return -1;
  for (size_t k = 0; k < c->n; k++)
    if (owned(d, c, k)) d->warm[d->nwarm++] = key_of(&d->reg, c, k);
  return index_warm(d);
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

/* d->root and d->cross from the constraints; returns the constraints in crossing components
   that this rank owns, and in *largest the most of them in one component. */
static size_t mark_crossing(domain *d, size_t *largest) {
  const agglo_constraints *c = &d->m->con;
  size_t n = d->reg.n, rows = 0;
  int32_t *p = d->root;
  for (size_t i = 0; i < n; i++) p[i] = (int32_t)i, d->cross[i] = 0, d->comp_rows[i] = 0;
  for (size_t k = 0; k < c->n; k++) {
    if (c->j[k] < 0) continue;
    agglo_uf_union(p, c->i[k], c->j[k]);
  }
  for (size_t i = 0; i < n; i++) p[i] = agglo_uf_find(p, (int32_t)i);
  for (size_t i = d->own; i < n; i++) d->cross[p[i]] = 1;
  *largest = 0;
  for (size_t k = 0; k < c->n; k++)
    if (d->cross[p[c->i[k]]] && owned(d, c, k)) {
      rows++;
      uint32_t r = ++d->comp_rows[p[c->i[k]]];
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
  if (agglo_constraints_reserve(&d->c0, m) != 0) return -1;
  if (n > d->s0_cap) {
    size_t cap = n + n / 2 + 64;
    double *a = realloc(d->s0.inv_m, cap * sizeof *a);
    if (a) d->s0.inv_m = a;
    double *b = realloc(d->vs0, 3 * cap * sizeof *b);
    if (b) d->vs0 = b;
    double *v = realloc(d->v0, 3 * cap * sizeof *v);
    if (v) d->v0 = v;
    if (!a || !b || !v) return -1;
    d->s0_cap = cap;
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
  agglo_constraints *c = &d->c0;
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
    d->s0.dim = d->b.dim, d->s0.n = n;
    for (size_t p = 0; p < n; p++) {
      const double *r = parts + PREC * p;
      d->s0.inv_m[p] = r[1];
      memcpy(d->vs0 + 3 * p, r + 2, 3 * sizeof *r);
    }
    rc = agglo_project(&d->s0, c, d->m->cfg.dt, d->vs0, d->v0, &d->m->solver, st);
  }
  /* the replies, in the order of the requests */
  for (size_t m = 0; rc == 0 && m < nc; m++) rows[m].key.lambda = c->lambda[m];
  qsort(rows, nc, sizeof *rows, by_arrival);
  q = recs;
  double *out = reply;
  size_t m = 0;
  for (int r = 0; rc == 0 && r < d->b.size; r++) {
    for (int p = 0; p < counts[2 * r]; p++, q += PREC, out += 3)
      memcpy(out, d->v0 + 3 * joined_index(parts, n, q[0]), 3 * sizeof *out);
    for (int k = 0; k < counts[2 * r + 1]; k++, q += CREC) *out++ = rows[m++].key.lambda;
  }
  free(parts), free(rows);
  return rc;
}

/* d->only: the particles of the components holding a ghost (with a constraint); returns their
   count. */
static size_t mark_across(domain *d) {
  const agglo_constraints *c = &d->m->con;
  size_t parts = 0, n = d->reg.n;
  for (size_t i = 0; i < n; i++) d->only[i] = 0;
  for (size_t k = 0; k < c->n; k++)
    if (d->cross[d->root[c->i[k]]]) {
      d->only[c->i[k]] = 1;
      if (c->j[k] >= 0) d->only[c->j[k]] = 1;
    }
  for (size_t i = 0; i < n; i++) parts += d->only[i];
  return parts;
}

/* The components holding a ghost (mark_crossing: this rank owns rows of them), joined and
   solved on rank 0 (see the top). Collective; returns 0 or -1 (memory, on every rank). */
static int solve_gathered(domain *d, size_t rows, agglo_solver_stats *st) {
  agglo_constraints *c = &d->m->con;
  size_t parts = mark_across(d), n = d->reg.n;
  int cnt[2] = {(int)parts, (int)rows};
  double *mine = malloc((PREC * parts + CREC * rows + 1) * sizeof *mine), *w = mine;
  int bad = !mine;
  for (size_t i = 0; !bad && i < n; i++) {
    if (!d->only[i]) continue;
    *w++ = (double)d->reg.id[i], *w++ = d->reg.inv_m[i];
    memcpy(w, d->vs + 3 * i, 3 * sizeof *w), w += 3;
  }
  for (size_t k = 0; !bad && k < c->n; k++) {
    size_t i = (size_t)c->i[k];
    int32_t j = c->j[k];
    if (!d->cross[d->root[i]] || !owned(d, c, k)) continue;
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
      if (d->only[i]) memcpy(d->reg.v + 3 * i, r, 3 * sizeof *r), r += 3;
    for (size_t k = 0; k < c->n; k++)
      if (d->cross[d->root[c->i[k]]] && owned(d, c, k)) c->lambda[k] = *r++;
  }
  if (d->b.rank == 0) *st = st0;
  free(mine), free(counts), free(displs), free(rcounts), free(rdispls), free(all), free(reply), free(back);
  return bad || bad2 ? -1 : 0;
}

/* The same components solved together by MPRGP over the ranks (agglo_project_part): each rank
   holds the rows it owns; a product by the dual matrix sums the ghosts' shares into their
   owners and sends the sums back (sum_shared). Collective; 0 or -1 (memory, on every rank). */
static int solve_spread(domain *d, agglo_solver_stats *st) {
  agglo_constraints *c = &d->m->con;
  int bad = agglo_bricks_grow(&d->rows, &d->rows_cap, c->n + 1, 1) != 0 || reserve_replay(d) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return -1;
  mark_across(d);
  for (size_t k = 0; k < c->n; k++) d->rows[k] = d->cross[d->root[c->i[k]]] && owned(d, c, k);
  agglo_projection_part part = {d->rows, d->only, d, sum_shared, reduce};
  return agglo_project_part(&d->reg, c, d->m->cfg.dt, d->vs, d->reg.v, &d->m->solver, st, &part);
}

/* When a rank holds more rows than this of one component across ranks, they are spread rather
   than gathered (parallel.crossing = auto): such a component takes hundreds of iterations, each
   cheaper spread; small ones take a few, each cheaper on one rank than a collective (measured in
   docs/performance.md: at most 600 in the dilute case, 17 000 and more in the gel). */
enum { SPREAD_MIN_ROWS = 2000 };

/* The components holding a ghost (this rank owns rows of them: mark_crossing), solved gathered
   or spread (parallel.crossing). Collective. */
static int solve_across(domain *d, size_t rows, size_t largest, agglo_solver_stats *st) {
  double t0 = MPI_Wtime(), total = (double)rows, most = (double)largest;
  reduce(d, &total, 1, &most, 1);
  if (total == 0) return 0;
  int how = d->m->cfg.parallel_crossing;
  int mprgp = d->m->solver.method == AGGLO_SOLVER_MPRGP || d->m->solver.method == AGGLO_SOLVER_ACTIVE_SET;
  int spread = how == CROSS_SPREAD || (how == CROSS_AUTO && mprgp && most > SPREAD_MIN_ROWS);
  int rc = spread ? solve_spread(d, st) : solve_gathered(d, rows, st);
  d->t_joined += MPI_Wtime() - t0;
  return rc;
}

/* ---- the step ---------------------------------------------------------------------------- */

/* What a step tells rank 0, reduced over the ranks. */
typedef struct {
  double iterations, unconverged, violation, neg_min_gap, bad_id, failed; /* max */
  double contacts; /* sum */
} step_report;

/* The ghosts within the reach of a priori speeds up to vmax, the neighbour list over the region
   and the list's cut-off; 1 when the reach exceeds a brick (then *width is that brick's). */
static int reach_out(domain *d, double cutoff, double *width) {
  double halo = cutoff + 2 * d->rmax;
  for (int k = 0; k < d->b.dim; k++)
    if (d->b.dims[k] > 1 && d->b.glen[k] / d->b.dims[k] < halo) {
      *width = d->b.glen[k] / d->b.dims[k];
      d->halo = halo;
      return 1;
    }
  d->halo = halo;
  region_box(d, halo);
  double t0 = MPI_Wtime();
  int rc = make_ghosts(d, halo);
  d->t_exchange += MPI_Wtime() - t0;
  if (rc != 0) return -1;
  return agglo_neighbors_build(&d->m->nb, &d->reg, cutoff, 0) != 0 ? -1 : 0;
}

static double max_speed(const double *v, size_t n) {
  double q = 0;
  for (size_t i = 0; i < n; i++) q = fmax(q, v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
  return sqrt(q);
}

/* One step of the contact model over the ranks (contact_model.c's, phase by phase). Collective;
   fills rep (this rank's part). Returns 0, -1 (memory) or 1 (the reach outgrew a brick). */
static int step(domain *d, int64_t stepno, step_report *rep, double *width) {
  contact *m = d->m;
  const agglo_config *c = &m->cfg;
  agglo_system *s = &d->reg;
  double h = c->dt;
  s->step = stepno, s->t = (double)stepno * h;
  /* 1. a priori velocities of the own particles (in the scenario's box, for the flow) */
  agglo_system mine = *s;
  mine.n = d->own, mine.box = d->gbox;
  agglo_contact_vstar(m, &mine, d->vs);
  double vmax = max_speed(d->vs, d->own);
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double reach, cutoff;
  agglo_contact_reach(m, vmax, &reach, &cutoff);
  int rc = reach_out(d, cutoff, width), all;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all != 0) return all;
  /* 2. attraction on the own particles; the ghosts get theirs from their owners */
  double scale = c->contact.attraction_scaling == ATTR_SQRT_H ? sqrt(h) : h;
  rc = agglo_contact_attraction(m, s, scale, d->vs) != 0 || replay(d, d->vs) != 0;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all) return -1;
  /* 3. constraints and the projection, in rounds as in the serial step */
  agglo_solver_stats st1;
  const double *vtry = NULL;
  int rounds = 0, add_only = 0, full = 1;
  size_t rows = 0; /* (the last round's: the step's constraints in crossing components) */
  m->con.n = 0; /* (the multipliers come by ids: load_warm) */
  m->con.np_by = 0;
  for (;;) {
    rc = add_only ? agglo_constraints_add_missed(&m->con, s, &m->nb) : 1;
    if (rc == 1) {
      rc = agglo_constraints_collect_moving(&m->con, s, &m->nb, m->contact_margin, h,
                                            AGGLO_CONTACT_CLOSING_SAFETY, reach, d->vs, vtry);
      if (rc == 0 && rounds == 0) load_warm(d);
    }
    if (rc == 0 && full) memcpy(s->v, d->vs, 3 * s->n * sizeof *s->v);
    size_t largest = 0;
    rows = rc == 0 ? mark_crossing(d, &largest) : 0;
    /* components without a ghost, here: all of them in the first round, those with a particle
       of a missed pair after */
    for (size_t i = 0; rc == 0 && i < s->n; i++)
      d->only[i] = i < d->own && !d->cross[d->root[i]] && (full || m->mark[i]);
    if (rc == 0 && agglo_project_some(s, &m->con, h, d->vs, s->v, &m->solver, &st1, d->only) != 0) rc = -1;
    if (rc == 0) {
      rep->iterations = fmax(rep->iterations, st1.iterations);
      if (!st1.converged) rep->unconverged = 1;
    }
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all) return -1;
    agglo_solver_stats stc = {.converged = 1};
    if (solve_across(d, rows, largest, &stc) != 0) return -1;
    rep->iterations = fmax(rep->iterations, stc.iterations);
    if (!stc.converged) rep->unconverged = 1;
    rounds++;
    uint8_t *mk = realloc(m->mark, d->cap);
    rc = !mk || replay(d, s->v) != 0;
    if (mk) m->mark = mk;
    double missed = 0;
    if (!rc) {
      memset(m->mark, 0, s->n);
      missed = (double)agglo_constraints_count_missed(&m->con, s, &m->nb, h, s->v, m->mark);
    }
    double sums[2] = {missed, rc};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (sums[1] != 0) return -1;
    vtry = s->v;
    full = 0;
    if (sums[0] > 0 && rounds < AGGLO_CONTACT_MAX_ROUNDS) {
      add_only = 1;
      continue;
    }
    add_only = 0;
    /* can a pair beyond the reach close at these velocities? */
    double vout = max_speed(s->v, d->own);
    MPI_Allreduce(MPI_IN_PLACE, &vout, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (2 * h * vout < cutoff || rounds >= AGGLO_CONTACT_MAX_ROUNDS) break;
    cutoff = 2.5 * h * vout;
    /* the ghosts again, farther, with the velocities of this attempt */
    rc = reach_out(d, cutoff, width);
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all != 0) return all;
    vtry = s->v;
    full = 1;
  }
  /* 4. health before the move (the ghosts move as their owners): the smallest gap after the
     step and the largest violation among the constraints that touch an own particle; then the
     move (no wrap along a cut axis: migration carries the period) */
  double *xn = malloc((3 * s->n + 1) * sizeof *xn);
  if (!xn) return -1;
  for (size_t i = 0; i < 3 * s->n; i++) xn[i] = s->x[i] + h * s->v[i];
  double min_gap = INFINITY, viol = 0, contacts = 0;
  const agglo_constraints *cs = &m->con;
  for (size_t k = 0; k < cs->n; k++) {
    size_t i = (size_t)cs->i[k];
    int32_t j = cs->j[k];
    int own_i = i < d->own, own_j = j >= 0 && (size_t)j < d->own;
    if (!own_i && !own_j) continue;
    /* counted once over the ranks: by the owner of the lower id */
    contacts += j < 0 || (own_i && own_j) || (own_i ? s->id[i] < s->id[j] : s->id[j] < s->id[i]);
    min_gap = fmin(min_gap, agglo_contact_gap_at(s, cs, k, xn));
    viol = fmax(viol, -agglo_constraint_gap_after(cs, k, h, s->v));
  }
  free(xn);
  rep->violation = fmax(rep->violation, viol);
  rep->neg_min_gap = fmax(rep->neg_min_gap, -min_gap);
  rep->contacts += contacts;
  d->constraints += contacts;
  d->joined += (double)rows;
  agglo_box wrap = s->box; /* the unsplit periodic axes only */
  for (int k = 0; k < 3; k++) wrap.periodic[k] = d->b.dims[k] == 1 && d->gbox.periodic[k];
  for (size_t i = 0; i < d->own; i++) {
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    for (int k = 0; k < s->dim; k++) x[k] += h * v[k];
    agglo_box_wrap(&wrap, x);
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) && isfinite(v[1]) &&
          isfinite(v[2])) && rep->bad_id == 0)
      rep->bad_id = (double)s->id[i] + 1;
  }
  if (save_warm(d) != 0) return -1;
  double t0 = MPI_Wtime();
  rc = migrate(d);
  d->t_exchange += MPI_Wtime() - t0;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all ? -1 : 0;
}

/* ---- set-up, the gathered state, the run --------------------------------------------------- */

static void pack_root(const void *sim, size_t i, double *r) {
  const agglo_system *s = &((const agglo_sim *)sim)->sys;
  for (int k = 0; k < 3; k++) r[k] = s->x[3 * i + k], r[3 + k] = s->v[3 * i + k], r[6 + k] = 0;
  r[9] = s->r[i], r[10] = s->m[i], r[11] = s->inv_m[i], r[12] = (double)s->id[i];
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
  MPI_Op_create(sum_then_max, 1, &d->sum_max);
  agglo_box *g = &d->gbox;
  for (int k = 0; k < 3; k++)
    g->lo[k] = d->b.glo[k], g->len[k] = d->b.glen[k], g->hi[k] = g->lo[k] + g->len[k], g->periodic[k] = d->b.gper[k];
  double *recs;
  size_t n;
  if (agglo_bricks_hand_out(&d->b, sim ? sim->sys.n : 0, REC, pack_root, sim, &recs, &n) != 0 ||
      reserve(d, n + 1) != 0)
    return agglo_fail(err, errlen, "out of memory handing out the particles");
  d->reg.dim = c->dim;
  d->reg.n = d->own = n;
  for (size_t i = 0; i < n; i++) unpack(d, i, recs + REC * i);
  free(recs);
  region_box(d, scale[2]);
  void *state = NULL;
  if (agglo_model_contact.init(&state, &d->reg, c, err, errlen) != 0) return -1;
  d->m = state;
  agglo_contact_set_scale(d->m, scale[0]);
  /* the multipliers of a restart point */
  unsigned long nk = 0;
  if (sim) {
    const contact *m0 = sim->state;
    if (agglo_bricks_grow(&d->warm, &d->warm_cap, m0->con.n + 1, sizeof *d->warm) != 0) nk = ULONG_MAX;
    for (size_t k = 0; nk != ULONG_MAX && k < m0->con.n; k++)
      if ((size_t)m0->con.i[k] < sim->sys.n && m0->con.j[k] < (int32_t)sim->sys.n)
        d->warm[nk++] = key_of(&sim->sys, &m0->con, k);
  }
  MPI_Bcast(&nk, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  if (nk == ULONG_MAX || agglo_bricks_grow(&d->warm, &d->warm_cap, nk + 1, sizeof *d->warm) != 0)
    return agglo_fail(err, errlen, "out of memory");
  MPI_Bcast(d->warm, (int)(nk * sizeof *d->warm), MPI_BYTE, 0, MPI_COMM_WORLD);
  d->nwarm = nk;
  return index_warm(d) != 0 ? agglo_fail(err, errlen, "out of memory") : 0;
}

/* Every rank's particles into rank 0's system (by id), and the step's multipliers into rank 0's
   model (so that a restart point warm-starts as the run would). */
static agglo_status gather(domain *d, agglo_sim *sim, const agglo_id_index *map) {
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
  if (!bad)
    bad = agglo_bricks_gather(&d->b, d->warm, (int)(d->nwarm * sizeof *d->warm), MPI_BYTE, 1, &keys, &nkeys, NULL);
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
    warm_key *w = keys;
    nkeys /= sizeof *w;
    agglo_constraints *c = &((contact *)sim->state)->con;
    agglo_constraints_free(c);
    if (rc == AGGLO_OK && agglo_constraints_reserve(c, nkeys + 1) != 0)
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
    sim->labelled_step = -1;
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
  double mine[4] = {(double)d->own, d->ghosts * per, d->sent * per, d->t_exchange};
  double solve[2] = {d->constraints * per, d->joined * per}, total[2], joined = 0;
  MPI_Reduce(solve, total, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&d->t_joined, &joined, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
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
  double t_start = MPI_Wtime();
  while (st == AGGLO_OK && stepno < last) {
    step_report rep = {.neg_min_gap = -INFINITY};
    double width = 0;
    int rc = step(d, stepno, &rep, &width);
    stepno++;
    if (rc != 0) {
      st = rc < 0 ? agglo_error(AGGLO_ERROR_MEMORY, "step %lld: out of memory", (long long)stepno)
                  : agglo_error(AGGLO_ERROR_RUN, "step %lld: the contacts' reach (%g, with two radii) "
                                "outgrew a brick (%g wide): the particles move too far in a step for "
                                "%d ranks; run on fewer ranks or lower run.dt", (long long)stepno,
                                d->halo, width, d->b.size);
      MPI_Bcast(agglo_error_buffer(), AGGLO_ERROR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
      break;
    }
    double worst[6] = {rep.iterations, rep.unconverged, rep.violation, rep.neg_min_gap, rep.bad_id, rep.failed};
    MPI_Allreduce(MPI_IN_PLACE, worst, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &rep.contacts, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int health = AGGLO_OK;
    if (d->b.rank == 0) {
      agglo_system *s = &sim->sys;
      s->step = stepno, s->t = (double)stepno * c->dt;
      const contact *m = d->m;
      sim->last = (agglo_step_info){.iterations = (int)worst[0], .converged = worst[1] == 0,
                                    .max_violation = worst[2], .min_gap = -worst[3],
                                    .n_contacts = (size_t)rep.contacts, .bad_particle = SIZE_MAX,
                                    .overlap_limit = 10 * m->solver.tol};
      sim->iter_sum += sim->last.iterations;
      sim->iter_steps++;
      if (worst[4] != 0)
        health = agglo_error(AGGLO_ERROR_RUN, "step %lld: particle %lld has a non-finite position "
                             "or velocity; the time step (run.dt = %g) is probably too large for the "
                             "forces", (long long)stepno, (long long)worst[4] - 1, c->dt);
      else
        health = agglo_sim_check_step(sim);
    }
    MPI_Bcast(&health, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (health != AGGLO_OK) { /* the last good state is the last restart point */
      char *err = agglo_error_buffer();
      if (d->b.rank == 0) {
        size_t l = strlen(err);
        snprintf(err + l, AGGLO_ERROR_LEN - l, ". The last good state is the last restart point");
      }
      MPI_Bcast(err, AGGLO_ERROR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
      st = (agglo_status)health;
      break;
    }
    int flags = agglo_bricks_flags(&d->b, sim, stepno, last);
    if (!(flags & AGGLO_BRICKS_GATHER)) continue;
    if ((st = gather(d, sim, map)) == AGGLO_OK) st = agglo_bricks_write(&d->b, sim, flags);
  }
  if (d->b.rank == 0 && st != AGGLO_OK && st != AGGLO_STOPPED) sim->failed = 1;
  report(d, sim, stepno - first, MPI_Wtime() - t_start);
  free(map);
  return st;
}

agglo_status agglo_contact_run_parallel(agglo_sim *sim, const agglo_config *c) {
  domain d = {.sum_max = MPI_OP_NULL};
  char *err = agglo_error_buffer();
  int fail = set_up(&d, sim, c, err, AGGLO_ERROR_LEN) != 0;
  agglo_status st = agglo_bricks_any_failed(&d.b, fail) ? AGGLO_ERROR_INPUT : run(&d, sim, c);
  if (d.m) agglo_model_contact.destroy(d.m);
  for (int k = 0; k < 3; k++) free(d.list[k][0]), free(d.list[k][1]);
  free(d.send[0]), free(d.send[1]), free(d.recv), free(d.vs), free(d.root), free(d.cross);
  free(d.only), free(d.comp_rows), free(d.rows), free(d.warm), free(d.slot), free(d.vs0), free(d.v0), free(d.s0.inv_m);
  if (d.sum_max != MPI_OP_NULL) MPI_Op_free(&d.sum_max);
  agglo_constraints_free(&d.c0);
  agglo_system_free(&d.reg);
  agglo_bricks_free(&d.b);
  return st;
}
