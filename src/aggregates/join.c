/* One joining: cluster b placed so that its centre of mass lies gamma from a's, one of its
   monomers j touching one monomer i of a, no monomer of b overlapping one of a. The placements
   are searched systematically, in two passes, each a finite list (docs/aggregates.md):

   1. Orientations, then directions rolled to contact. b is turned by one of ORIENTATIONS random
      rotations R; at c_b = c_a + gamma u it overlaps a for the u in a union of caps, one per
      pair (i of a, k of b) that can meet at gamma (|gamma u - w| < s, w = x_i - c_a - R q_k, q_k:
      k's place about b's centre, s = a_i + a_k). The DIRECTIONS of a Fibonacci sphere (a circle in
      2D), turned at random, are tried until b overlaps nothing there; from that u, b rolls along
      the great circle towards the nearest cap to the first cap it enters: a contact, exact, with
      no overlap (roll_to_contact).
   2. Pairs first, over the band of FracVAL's candidate rule (Moran et al. 2019): the distance
      t = |c_b - x_i| can be both gamma from c_a and s from j's place in b (|x_j - c_b| = e_j):
      max(|gamma - d_i|, |e_j - s|) <= t <= min(gamma + d_i, e_j + s), d_i = |x_i - c_a|. For
      each such pair, a grid of t in that band, of c_b on its circle about the axis c_a -> x_i,
      of x_j on its circle about x_i -> c_b and of b's spin about c_b -> x_j. It places
      joinings pass 1 misses (at D_f 2.6: 16 + 16 of seed 7, test edge_of_contact). Particle-cluster (b a monomer) takes the passes the other way round:
      the band's candidates and their circles are Filippov et al.'s placement.

   A placement tests first the monomers of b where an overlap is likely (pass 1: where a's
   centre falls in b; pass 2: the contact monomer j, then b's monomers near j), then all. Each
   pass tries at most max_trials placements; the stop flag is polled at every one and in the
   contact scans. */
#include "aggregates/cluster.h"
#include "aggregates/contact_grid.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ORIENTATIONS = 512, ORIENTATIONS_2D = 512, DIRECTIONS = 256, DIRECTIONS_2D = 64, /* pass 1 */
       BAND_T = 3, BAND_ANGLES = 8, BAND_SPINS = 4, NEAR_MAX = 512 }; /* pass 2 */

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Two unit vectors e1, e2 perpendicular to the unit vector u and to each other (2D: e1 in the
   plane z = 0, e2 = 0). */
static void basis(int dim, const double u[3], double e1[3], double e2[3]) {
  if (dim == 2) {
    e1[0] = -u[1], e1[1] = u[0], e1[2] = 0, e2[0] = e2[1] = e2[2] = 0;
    return;
  }
  double t[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) t[0] = 0, t[1] = 1;
  double tu = t[0] * u[0] + t[1] * u[1] + t[2] * u[2];
  for (int k = 0; k < 3; k++) e1[k] = t[k] - tu * u[k];
  double l = norm3(e1);
  for (int k = 0; k < 3; k++) e1[k] /= l;
  e2[0] = u[1] * e1[2] - u[2] * e1[1], e2[1] = u[2] * e1[0] - u[0] * e1[2], e2[2] = u[0] * e1[1] - u[1] * e1[0];
}

/* The point at angle phi on the circle about the unit axis u: cos(phi) e1 + sin(phi) e2 (2D: the
   side of u that the sign of cos(phi) picks). */
static void around(int dim, const double u[3], double phi, double w[3]) {
  double e1[3], e2[3];
  basis(dim, u, e1, e2);
  double c = cos(phi), s = sin(phi);
  if (dim == 2) c = c < 0 ? -1 : 1, s = 0;
  for (int k = 0; k < 3; k++) w[k] = c * e1[k] + s * e2[k];
}

static void rotation_z(double ang, double R[9]) {
  double c = cos(ang), s = sin(ang), M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
  memcpy(R, M, sizeof M);
}

/* Rotation matrix (row-major) taking the unit vector p to the unit vector q after a spin by phi
   about p (3D; in 2D the rotation in the plane). */
static void rotation(int dim, const double p[3], const double q[3], double phi, double R[9]) {
  if (dim == 2) return rotation_z(atan2(q[1], q[0]) - atan2(p[1], p[0]), R);
  /* spin about p by phi: S = cos I + sin [p]x + (1 - cos) p p^T */
  double c = cos(phi), s = sin(phi), S[9], T[9];
  double px[9] = {0, -p[2], p[1], p[2], 0, -p[0], -p[1], p[0], 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) S[3 * a + b] = (a == b ? c : 0) + s * px[3 * a + b] + (1 - c) * p[a] * p[b];
  /* the smallest rotation p -> q (Rodrigues about k = p x q) */
  double k[3] = {p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
  double cs = p[0] * q[0] + p[1] * q[1] + p[2] * q[2], sn = norm3(k);
  if (sn < 1e-12) {
    if (cs > 0) return (void)memcpy(R, S, sizeof S); /* p = q */
    double w[3], e2[3]; /* p = -q: half a turn about an axis perpendicular to p */
    basis(3, p, w, e2);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) T[3 * a + b] = (a == b ? -1 : 0) + 2 * w[a] * w[b];
  } else {
    for (int q2 = 0; q2 < 3; q2++) k[q2] /= sn;
    double kx[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) T[3 * a + b] = (a == b ? cs : 0) + sn * kx[3 * a + b] + (1 - cs) * k[a] * k[b];
  }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) R[3 * a + b] = T[3 * a] * S[b] + T[3 * a + 1] * S[3 + b] + T[3 * a + 2] * S[6 + b];
}

/* A uniformly random rotation (Shoemake's quaternion; 2D: a random angle in the plane). */
static void random_rotation(agg_rng *g, int dim, double R[9]) {
  if (dim == 2) return rotation_z(2 * M_PI * agg_uniform(g), R);
  double u1 = agg_uniform(g), u2 = 2 * M_PI * agg_uniform(g), u3 = 2 * M_PI * agg_uniform(g);
  double w = sqrt(1 - u1) * sin(u2), x = sqrt(1 - u1) * cos(u2), y = sqrt(u1) * sin(u3), z = sqrt(u1) * cos(u3);
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

static void apply(const double R[9], const double c[3], const double q[3], double y[3]) {
  for (int a = 0; a < 3; a++) y[a] = c[a] + R[3 * a] * q[0] + R[3 * a + 1] * q[1] + R[3 * a + 2] * q[2];
}

typedef struct {
  agg_state *s;
  const agg_cluster *a, *b;
  const agg_grid *grid;  /* a's monomers */
  agg_grid bgrid;        /* b's, where it stands before the joining: the monomers near j */
  double gamma;
  const double *q;       /* b's centres relative to its centre of mass (3 n_b) */
  double *y;             /* b's placed centres (3 n_b) */
  size_t *near, n_near, near_of; /* b's monomers near j (near_of = j, or n_b: none yet) */
  int64_t tried, max;
  int stopped;
} join_ctx;

/* b placed with its centre at cb, turned by R, j touching: 1 when no monomer of b overlaps one of
   a (y filled). One trial; the stop flag polled. */
static int try_place(join_ctx *J, size_t jl, const double cb[3], const double R[9]) {
  agg_state *s = J->s;
  size_t nb = J->b->n, first = J->b->first;
  J->tried++;
  if (s->o->stop && *s->o->stop) return J->stopped = 1, 0;
  double *yj = J->y + 3 * jl;
  apply(R, cb, J->q + 3 * jl, yj);
  if (s->dim == 2) yj[2] = 0;
  if (agg_grid_overlaps(J->grid, yj, s->r[first + jl], AGG_OVERLAP_TOL)) return 0;
  if (J->near_of != jl) {
    J->n_near = agg_grid_near(&J->bgrid, s->x + 3 * (first + jl), J->near, NEAR_MAX);
    J->near_of = jl;
  }
  for (size_t o = 0; o < J->n_near + nb; o++) { /* the monomers near j, then all */
    size_t k = o < J->n_near ? J->near[o] : o - J->n_near;
    double *yk = J->y + 3 * k;
    apply(R, cb, J->q + 3 * k, yk);
    if (s->dim == 2) yk[2] = 0;
    if (agg_grid_overlaps(J->grid, yk, s->r[first + k], AGG_OVERLAP_TOL)) return 0;
  }
  return 1;
}

typedef struct {
  double d2;
  size_t k;
} by_distance;

static int compare_distance(const void *a, const void *b) {
  const by_distance *x = a, *y = b;
  return x->d2 < y->d2 ? -1 : x->d2 > y->d2 ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* A random order of 0 .. n-1 (Fisher-Yates). */
static void shuffle(agg_rng *g, size_t *p, size_t n) {
  for (size_t k = 0; k < n; k++) p[k] = k;
  for (size_t k = n; k > 1; k--) {
    size_t r = (size_t)(agg_uniform(g) * (double)k);
    if (r >= k) r = k - 1;
    size_t t = p[k - 1];
    p[k - 1] = p[r], p[r] = t;
  }
}

/* b's monomers at c_a + gamma u + R q_k overlap none of a: 1 (y filled). One trial, the stop
   flag polled; b's core first (where an overlap of interpenetrating clusters is met). */
static int free_at(join_ctx *J, const double u[3], const double R[9], const size_t *core) {
  agg_state *s = J->s;
  J->tried++;
  if (s->o->stop && *s->o->stop) return J->stopped = 1, 0;
  double cb[3], p[3], back[3];
  for (int k = 0; k < 3; k++) cb[k] = J->a->c[k] + J->gamma * u[k];
  /* b's monomers where a's centre falls, in b's own frame (R^T (c_a - c_b)), first */
  for (int k = 0; k < 3; k++) back[k] = -J->gamma * u[k];
  for (int k = 0; k < 3; k++) p[k] = J->b->c[k] + R[k] * back[0] + R[3 + k] * back[1] + R[6 + k] * back[2];
  size_t n_near = agg_grid_near(&J->bgrid, p, J->near, NEAR_MAX);
  J->near_of = J->b->n; /* near no longer j's */
  for (size_t o = 0; o < n_near + J->b->n; o++) {
    size_t k = o < n_near ? J->near[o] : core[o - n_near];
    double *yk = J->y + 3 * k;
    apply(R, cb, J->q + 3 * k, yk);
    if (s->dim == 2) yk[2] = 0;
    if (agg_grid_overlaps(J->grid, yk, s->r[J->b->first + k], AGG_OVERLAP_TOL)) return 0;
  }
  return 1;
}

/* From the free direction u0 (b turned by R), along the great circle towards the nearest cap of
   directions where a pair (i of a, k of b) would overlap, to the first contact: every pair's
   overlap is the cap |gamma u - w| < s, w = x_i - c_a - R q_k, i.e. w.u > h = (gamma^2 + |w|^2 -
   s^2) / (2 gamma), entered along u(th) = cos(th) u0 + sin(th) v at th = th0 - acos(h / rho)
   (A = w.u0, B = w.v, rho = |(A, B)|, th0 = atan2(B, A)). The smallest entry over all pairs is
   a contact without overlap. 1 with u set, 0 when no pair can touch (no cap). Only the monomers
   that can reach the sphere gamma away are scanned (ia: d_i + a_i >= gamma - emax, ib: likewise). */
typedef struct {
  const size_t *ia, *ib;   /* a's monomers by distance from c_a, farthest first; b's */
  const double *da, *eb;   /* those distances */
  size_t na, nb;
  double smax;
} reach_lists;

/* The monomers i of a that can meet k of b at gamma: |d_i - e_k| <= gamma + s, d_i + e_k >= gamma -
   s (da descending): the first of them, and *end past the last. */
static size_t meeting(const reach_lists *L, double ek, double gam, size_t *end) {
  size_t lo = 0, hi = L->na;
  while (lo < hi) { /* the first with d_i <= e_k + gamma + s */
    size_t mid = (lo + hi) / 2;
    if (L->da[mid] > ek + gam + L->smax) lo = mid + 1;
    else hi = mid;
  }
  size_t first = lo;
  hi = L->na;
  while (lo < hi) { /* past the last with d_i >= gamma - s - e_k */
    size_t mid = (lo + hi) / 2;
    if (L->da[mid] >= gam - L->smax - ek) lo = mid + 1;
    else hi = mid;
  }
  *end = lo;
  return first;
}

static int roll_to_contact(join_ctx *J, const double R[9], const double u0[3], const reach_lists *L,
                           double u[3]) {
  const size_t *ia = L->ia, *ib = L->ib;
  size_t nb = L->nb;
  agg_state *s = J->s;
  const double *ca = J->a->c;
  double gam = J->gamma, best = INFINITY, v[3] = {0, 0, 0};
  for (size_t x = 0; x < nb; x++) { /* the nearest cap: the direction to roll */
    size_t k = ib[x];
    double P[3];
    if (s->o->stop && *s->o->stop) return J->stopped = 1, 0;
    apply(R, ca, J->q + 3 * k, P);
    size_t end, z0 = meeting(L, L->eb[x], gam, &end);
    for (size_t z = z0; z < end; z++) {
      size_t i = J->a->first + ia[z];
      double w[3] = {s->x[3 * i] - P[0], s->x[3 * i + 1] - P[1], s->x[3 * i + 2] - P[2]}, sik = s->r[i] + s->r[J->b->first + k];
      if (s->dim == 2) w[2] = 0;
      double W = norm3(w);
      if (W <= 1e-12 * (gam + sik) && fabs(gam - sik) <= 1e-12 * (gam + sik)) /* touching all round */
        return memcpy(u, u0, 3 * sizeof *u), 1;
      if (!(W > fabs(gam - sik) && W < gam + sik)) continue;
      double h = (gam * gam + W * W - sik * sik) / (2 * gam), cosd = h / W;
      double cosu = (w[0] * u0[0] + w[1] * u0[1] + w[2] * u0[2]) / W;
      double away = acos(fmax(-1, fmin(1, cosu))) - acos(fmax(-1, fmin(1, cosd)));
      if (away < best) {
        best = away;
        for (int c = 0; c < 3; c++) v[c] = w[c] / W - cosu * u0[c];
      }
    }
  }
  if (best == INFINITY) return 0;
  double lv = norm3(v);
  if (lv < 1e-9) { /* the cap's centre opposite u0: any way round */
    double e2[3];
    basis(s->dim, u0, v, e2);
  } else
    for (int c = 0; c < 3; c++) v[c] /= lv;
  double th = INFINITY;
  for (size_t x = 0; x < nb; x++) {
    size_t k = ib[x];
    double P[3];
    if (s->o->stop && *s->o->stop) return J->stopped = 1, 0; /* a scan of n_a n_b pairs: polled */
    apply(R, ca, J->q + 3 * k, P);
    size_t end, z0 = meeting(L, L->eb[x], gam, &end);
    for (size_t z = z0; z < end; z++) {
      size_t i = J->a->first + ia[z];
      double w[3] = {s->x[3 * i] - P[0], s->x[3 * i + 1] - P[1], s->x[3 * i + 2] - P[2]}, sik = s->r[i] + s->r[J->b->first + k];
      if (s->dim == 2) w[2] = 0;
      double W2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
      double h = (gam * gam + W2 - sik * sik) / (2 * gam);
      double A = w[0] * u0[0] + w[1] * u0[1] + w[2] * u0[2], B = w[0] * v[0] + w[1] * v[1] + w[2] * v[2];
      double rho = sqrt(A * A + B * B);
      if (rho <= h) continue;
      double e = atan2(B, A) - acos(h / rho);
      while (e < 0) e += 2 * M_PI;
      while (e >= 2 * M_PI) e -= 2 * M_PI;
      if (e < th) th = e;
    }
  }
  if (th == INFINITY) return 0;
  for (int c = 0; c < 3; c++) u[c] = cos(th) * u0[c] + sin(th) * v[c];
  return 1;
}

/* Pass 1: 1 placed, 0 not (list exhausted, max_trials or stop). For each of the orientations, the
   directions of a Fibonacci sphere (2D: a circle) turned at random: the first where b overlaps
   nothing is rolled to contact. */
static int pass_orientations(join_ctx *J, const double *d) {
  agg_state *s = J->s;
  size_t na = J->a->n, nb = J->b->n;
  int dim = s->dim, turns = nb == 1 ? 1 : dim == 2 ? ORIENTATIONS_2D : ORIENTATIONS;
  int dirs = dim == 2 ? DIRECTIONS_2D : DIRECTIONS;
  size_t *core = malloc(nb * sizeof *core), *ia = malloc(na * sizeof *ia), *ib = malloc(nb * sizeof *ib);
  double *da = malloc(na * sizeof *da), *eb = malloc(nb * sizeof *eb);
  by_distance *bd = malloc((na > nb ? na : nb) * sizeof *bd);
  reach_lists L = {ia, ib, da, eb, na, nb, 2 * s->r_max};
  int placed = 0;
  if (!core || !ia || !ib || !da || !eb || !bd) goto done;
  for (size_t k = 0; k < nb; k++) bd[k] = (by_distance){norm3(J->q + 3 * k), k};
  qsort(bd, nb, sizeof *bd, compare_distance);
  for (size_t k = 0; k < nb; k++) core[k] = ib[k] = bd[k].k, eb[k] = bd[k].d2;
  for (size_t i = 0; i < na; i++) bd[i] = (by_distance){-d[i], i};
  qsort(bd, na, sizeof *bd, compare_distance);
  for (size_t i = 0; i < na; i++) ia[i] = bd[i].k, da[i] = d[bd[i].k];
  for (int o = 0; o < turns && !placed; o++) {
    double R[9], T[9];
    random_rotation(&s->rng, dim, R);
    random_rotation(&s->rng, dim, T); /* the directions' lattice, turned */
    for (int m = 0; m < dirs && !placed; m++) {
      double f[3], u0[3], u[3];
      if (dim == 2) f[0] = cos(2 * M_PI * (m + 0.5) / dirs), f[1] = sin(2 * M_PI * (m + 0.5) / dirs), f[2] = 0;
      else {
        double z = 1 - (2 * m + 1.0) / dirs, r = sqrt(1 - z * z), ph = m * M_PI * (3 - sqrt(5.0));
        f[0] = r * cos(ph), f[1] = r * sin(ph), f[2] = z;
      }
      double zero[3] = {0, 0, 0};
      apply(T, zero, f, u0);
      if (!free_at(J, u0, R, core)) {
        if (J->stopped || J->tried >= J->max) goto done;
        continue;
      }
      if (!roll_to_contact(J, R, u0, &L, u)) {
        if (J->stopped) goto done;
        break; /* no pair touches: next turn */
      }
      placed = free_at(J, u, R, core); /* to rounding; else the search goes on */
      if (J->stopped || J->tried >= J->max) goto done;
    }
  }
done:
  free(core), free(ia), free(ib), free(da), free(eb), free(bd);
  return placed;
}

/* Pass 2: 1 placed, 0 not. */
static int pass_band(join_ctx *J, const size_t *oa, const size_t *ob, const double *d) {
  agg_state *s = J->s;
  int dim = s->dim, angles = dim == 2 ? 2 : BAND_ANGLES, spins = dim == 2 || J->b->n == 1 ? 1 : BAND_SPINS;
  const double *ca = J->a->c;
  double gam = J->gamma, phase = 2 * M_PI * agg_uniform(&s->rng);
  /* a monomer: one angle of every candidate's circle, then the next angle of each, so that a
     candidate is taken in proportion to the free part of its circle, as random trials take it */
  int sweeps = J->b->n == 1 ? angles : 1;
  for (int sweep = 0; sweep < sweeps; sweep++)
  for (size_t jb = 0; jb < J->b->n; jb++) {
    size_t jl = ob[jb];
    const double *qj = J->q + 3 * jl;
    double ej = norm3(qj), rj = s->r[J->b->first + jl];
    int xs = ej > 0 ? angles : 1; /* j at b's centre: x_j = c_b */
    for (size_t ia = 0; ia < J->a->n; ia++) {
      size_t il = oa[ia], i = J->a->first + il;
      double sij = s->r[i] + rj, di = d[il], scale = gam + di + ej + sij;
      double lo = fmax(fabs(gam - di), fabs(ej - sij)), hi = fmin(gam + di, ej + sij);
      if (lo > hi) continue;
      const double *xi = s->x + 3 * i;
      double u[3] = {xi[0] - ca[0], xi[1] - ca[1], xi[2] - ca[2]};
      int ts = hi - lo > 1e-12 * scale ? BAND_T : 1, cs = di > 1e-12 * scale ? angles : 1;
      if (cs > 1) for (int k = 0; k < 3; k++) u[k] /= di;
      else u[0] = 1, u[1] = u[2] = 0; /* x_i at c_a: c_b anywhere gamma away */
      for (int it = 0; it < ts; it++) {
        double t = ts == 1 ? 0.5 * (lo + hi) : lo + (hi - lo) * it / (ts - 1);
        double cosa = cs == 1 ? 1 : gam > 0 ? (gam * gam + di * di - t * t) / (2 * gam * di) : 1;
        cosa = cosa > 1 ? 1 : cosa < -1 ? -1 : cosa;
        double sina = sqrt(1 - cosa * cosa);
        for (int m1 = 0; m1 < cs; m1++) {
          if (sweeps > 1 && m1 != sweep % cs) continue;
          double e[3], cb[3];
          around(dim, u, phase + 2 * M_PI * m1 / cs, e);
          for (int k = 0; k < 3; k++) cb[k] = ca[k] + gam * (cosa * u[k] + sina * e[k]);
          double v[3] = {cb[0] - xi[0], cb[1] - xi[1], cb[2] - xi[2]}, tt = norm3(v);
          if (tt < 1e-12 * scale) continue;
          for (int k = 0; k < 3; k++) v[k] /= tt;
          double cosb = (sij * sij + tt * tt - ej * ej) / (2 * sij * tt);
          cosb = cosb > 1 ? 1 : cosb < -1 ? -1 : cosb;
          double sinb = sqrt(1 - cosb * cosb);
          for (int m2 = 0; m2 < xs; m2++) {
            double f[3], yj[3], target[3];
            around(dim, v, phase + 2 * M_PI * m2 / xs, f);
            for (int k = 0; k < 3; k++) yj[k] = xi[k] + sij * (cosb * v[k] + sinb * f[k]);
            for (int k = 0; k < 3; k++) target[k] = yj[k] - cb[k];
            double lt = norm3(target), p[3] = {1, 0, 0};
            if (ej > 0 && lt > 0)
              for (int k = 0; k < 3; k++) p[k] = qj[k] / ej, target[k] /= lt;
            else
              memcpy(target, p, sizeof p);
            for (int m3 = 0; m3 < spins; m3++) {
              double R[9];
              rotation(dim, p, target, phase + 2 * M_PI * m3 / spins, R);
              if (try_place(J, jl, cb, R)) return 1;
              if (J->stopped || J->tried >= J->max) return 0;
            }
          }
        }
      }
    }
  }
  return 0;
}

int agg_join(agg_state *s, const agg_cluster *a, const agg_cluster *b, double gamma,
             const void *grid_in, agg_cluster *joined, const char *what, char *err, size_t errlen) {
  size_t na = a->n, nb = b->n;
  double *q = malloc(3 * nb * sizeof *q), *y = malloc(3 * nb * sizeof *y), *d = malloc(na * sizeof *d);
  size_t *oa = malloc(na * sizeof *oa), *ob = malloc(nb * sizeof *ob), *near = malloc(NEAR_MAX * sizeof *near);
  agg_grid own = {0};
  join_ctx J = {.s = s, .a = a, .b = b, .grid = grid_in, .gamma = gamma, .q = q, .y = y,
                .near = near, .near_of = nb, .max = s->o->max_trials};
  int rc = -2, have_bgrid = 0;
  if (!q || !y || !d || !oa || !ob || !near) goto done;
  if (!J.grid) {
    if (agg_grid_init(&own, s->dim, 2 * s->r_max, s->x, s->r, a->first, na) != 0) goto done;
    for (size_t k = 0; k < na; k++) agg_grid_insert(&own, k);
    J.grid = &own;
  }
  if (agg_grid_init(&J.bgrid, s->dim, 2 * s->r_max, s->x, s->r, b->first, nb) != 0) goto done;
  have_bgrid = 1;
  for (size_t k = 0; k < nb; k++) agg_grid_insert(&J.bgrid, k);
  double dmax = 0, emax = 0;
  for (size_t i = 0; i < na; i++) {
    const double *xi = s->x + 3 * (a->first + i);
    double v[3] = {xi[0] - a->c[0], xi[1] - a->c[1], xi[2] - a->c[2]};
    d[i] = norm3(v);
    if (d[i] + s->r[a->first + i] > dmax) dmax = d[i] + s->r[a->first + i];
  }
  for (size_t j = 0; j < nb; j++) {
    for (int k = 0; k < 3; k++) q[3 * j + k] = s->x[3 * (b->first + j) + k] - b->c[k];
    if (norm3(q + 3 * j) + s->r[b->first + j] > emax) emax = norm3(q + 3 * j) + s->r[b->first + j];
  }
  shuffle(&s->rng, oa, na);
  shuffle(&s->rng, ob, nb);
  int placed = 0, exhausted = 0;
  if (gamma <= dmax + emax) {
    /* particle-cluster (a monomer joining): the band first, its candidates in random order and
       the circle of each, as Filippov et al. and FracVAL (rolled contacts would grow the tips) */
    int pc = s->o->method == AGGLO_AGGREGATE_PC;
    placed = pc ? pass_band(&J, oa, ob, d) : pass_orientations(&J, d);
    int64_t first = J.tried;
    if (!placed && !J.stopped) {
      J.max = first + s->o->max_trials; /* the second pass's own bound */
      placed = pc ? pass_orientations(&J, d) : pass_band(&J, oa, ob, d);
      exhausted = !placed && !J.stopped && J.tried < J.max; /* the second list run through */
    }
  }
  s->trials += J.tried;
  s->exhausted = !placed && exhausted;
  if (J.stopped) {
    agglo_fail(err, errlen, "%s: stopped (the stop flag was set)", what);
    rc = -3;
    goto done;
  }
  if (!placed) {
    if (gamma > dmax + emax)
      agglo_fail(err, errlen, "%s: the centres of mass must be %.6g apart, but two clusters of "
                 "reach %.6g and %.6g can touch only when their centres of mass are at "
                 "most %.6g apart: (D_f, k_f) = (%g, %g) asks for clusters looser than contact allows "
                 "(raise k_f or D_f%s)", what, gamma, dmax, emax, dmax + emax,
                 s->o->fractal_dimension, s->o->prefactor,
                 s->o->method == AGGLO_AGGREGATE_PC ? ", or use the cluster-cluster method" : "");
    else if (exhausted)
      agglo_fail(err, errlen, "%s: no feasible contact: with the centres of mass %.6g apart, each "
                 "of the %lld placements of the systematic search (every pair of monomers that can "
                 "touch at that distance, their contact directions) overlaps: (D_f, k_f) = (%g, %g) "
                 "asks for clusters denser than these can interpenetrate (lower D_f or k_f, or radii "
                 "less unequal)", what, gamma, (long long)J.tried, s->o->fractal_dimension,
                 s->o->prefactor);
    else
      agglo_fail(err, errlen, "%s: no placement with the centres of mass %.6g apart touches without "
                 "overlap in %lld trials (max_trials %lld per pass, two passes): (D_f, k_f) = (%g, "
                 "%g) asks for clusters denser than these can interpenetrate (lower D_f or k_f, radii "
                 "less unequal, or raise max_trials)", what, gamma, (long long)J.tried,
                 (long long)s->o->max_trials, s->o->fractal_dimension, s->o->prefactor);
    rc = -1;
    goto done;
  }
  for (size_t k = 0; k < nb; k++) memcpy(s->x + 3 * (b->first + k), y + 3 * k, 3 * sizeof *y);
  /* the union, by parallel axes over the actual distance between the centres */
  double cb[3] = {0, 0, 0};
  for (size_t k = 0; k < nb; k++)
    for (int c = 0; c < 3; c++) cb[c] += s->m[b->first + k] * y[3 * k + c];
  double m = a->mass + b->mass, g2 = 0;
  for (int c = 0; c < 3; c++) cb[c] /= b->mass, g2 += (cb[c] - a->c[c]) * (cb[c] - a->c[c]);
  joined->first = a->first < b->first ? a->first : b->first;
  joined->n = na + nb;
  joined->mass = m;
  joined->log_a = a->log_a + b->log_a;
  for (int c = 0; c < 3; c++) joined->c[c] = (a->mass * a->c[c] + b->mass * cb[c]) / m;
  joined->rg = sqrt((a->mass * a->rg * a->rg + b->mass * b->rg * b->rg + a->mass * b->mass / m * g2) / m);
  rc = 0;
done:
  if (rc == -2) agglo_fail(err, errlen, "%s: out of memory", what);
  if (J.grid == &own) agg_grid_free(&own);
  if (have_bgrid) agg_grid_free(&J.bgrid);
  free(q), free(y), free(d), free(oa), free(ob), free(near);
  return rc;
}
