/* One joining: cluster b placed so that its centre of mass lies gamma from a's, one of its
   monomers j touching one monomer i of a, no monomer of b overlapping one of a. The pair (i, j) is
   feasible when the distance t = |c_b - x_i| can be both |c_b - c_a| = gamma away from a's centre
   and the contact s = a_i + a_j away from j's place in b (|x_j - c_b| = e_j):
   max(|gamma - d_i|, |e_j - s|) <= t <= min(gamma + d_i, e_j + s), d_i = |x_i - c_a| (FracVAL's
   candidate rule, Moran et al. 2019). A placement draws t in that range, c_b on the circle of
   points gamma from c_a and t from x_i, x_j on the circle s from x_i and e_j from c_b, and rotates
   b to put j there with a random spin about that axis; it is kept when nothing overlaps. */
#include "aggregates/cluster.h"
#include "aggregates/contact_grid.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* A random unit vector perpendicular to the unit vector u (in the plane z = 0 in 2D). */
static void perpendicular(agg_rng *g, int dim, const double u[3], double w[3]) {
  if (dim == 2) {
    double sgn = agg_uniform(g) < 0.5 ? -1 : 1;
    w[0] = -sgn * u[1], w[1] = sgn * u[0], w[2] = 0;
    return;
  }
  double e1[3], e2[3], t[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) t[0] = 0, t[1] = 1;
  /* e1 = t - (t.u) u, e2 = u x e1 */
  double tu = t[0] * u[0] + t[1] * u[1] + t[2] * u[2];
  for (int k = 0; k < 3; k++) e1[k] = t[k] - tu * u[k];
  double l = norm3(e1);
  for (int k = 0; k < 3; k++) e1[k] /= l;
  e2[0] = u[1] * e1[2] - u[2] * e1[1], e2[1] = u[2] * e1[0] - u[0] * e1[2], e2[2] = u[0] * e1[1] - u[1] * e1[0];
  double psi = 2 * M_PI * agg_uniform(g), cs = cos(psi), sn = sin(psi);
  for (int k = 0; k < 3; k++) w[k] = cs * e1[k] + sn * e2[k];
}

static void random_direction(agg_rng *g, int dim, double v[3]) {
  double u[2] = {agg_uniform(g), agg_uniform(g)};
  agglo_rng_direction(dim, u, 1.0, v);
}

/* Rotation matrix (row-major) taking the unit vector p to the unit vector q after a spin of a
   random angle about p (3D; in 2D the rotation in the plane). */
static void rotation(agg_rng *g, int dim, const double p[3], const double q[3], double R[9]) {
  if (dim == 2) {
    double ang = atan2(q[1], q[0]) - atan2(p[1], p[0]), c = cos(ang), s = sin(ang);
    double M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, M, sizeof M);
    return;
  }
  /* spin about p by phi: S = cos I + sin [p]x + (1 - cos) p p^T */
  double phi = 2 * M_PI * agg_uniform(g), c = cos(phi), s = sin(phi), S[9], T[9];
  double px[9] = {0, -p[2], p[1], p[2], 0, -p[0], -p[1], p[0], 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) S[3 * a + b] = (a == b ? c : 0) + s * px[3 * a + b] + (1 - c) * p[a] * p[b];
  /* the smallest rotation p -> q (Rodrigues about k = p x q) */
  double k[3] = {p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
  double cs = p[0] * q[0] + p[1] * q[1] + p[2] * q[2], sn = norm3(k);
  if (sn < 1e-12) {
    if (cs > 0) { /* p = q */
      memcpy(R, S, sizeof S);
      return;
    }
    double w[3]; /* p = -q: half a turn about any axis perpendicular to p */
    perpendicular(g, 3, p, w);
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

/* A uniformly random rotation (Shoemake's quaternion), for a b whose contact monomer is its centre. */
static void random_rotation(agg_rng *g, int dim, double R[9]) {
  if (dim == 2) {
    double a = 2 * M_PI * agg_uniform(g), c = cos(a), s = sin(a);
    double M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, M, sizeof M);
    return;
  }
  double u1 = agg_uniform(g), u2 = 2 * M_PI * agg_uniform(g), u3 = 2 * M_PI * agg_uniform(g);
  double w = sqrt(1 - u1) * sin(u2), x = sqrt(1 - u1) * cos(u2), y = sqrt(u1) * sin(u3), z = sqrt(u1) * cos(u3);
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

typedef struct {
  agg_state *s;
  const agg_cluster *a, *b;
  double gamma;
  const double *q; /* b's centres relative to its centre of mass (3 n_b) */
  double *y;       /* b's placed centres (3 n_b) */
  const size_t *near; /* b's monomers nearest the contact monomer j first: an overlap, if any,
                         is met after a few tests */
} join_ctx;

typedef struct {
  double d2;
  size_t k;
} by_distance;

static int compare_distance(const void *a, const void *b) {
  const by_distance *x = a, *y = b;
  return x->d2 < y->d2 ? -1 : x->d2 > y->d2 ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* One placement for the pair (i of a, j of b, local index jl): 1 when it holds (y filled). */
static int place(join_ctx *J, const agg_grid *grid, size_t i, size_t jl, double lo, double hi) {
  agg_state *s = J->s;
  agg_rng *g = &s->rng;
  int dim = s->dim;
  const double *ca = J->a->c, *xi = s->x + 3 * i, *qj = J->q + 3 * jl;
  double ej = norm3(qj), sij = s->r[i] + s->r[J->b->first + jl], gam = J->gamma;
  double t = lo + (hi - lo) * agg_uniform(g);
  double u[3] = {xi[0] - ca[0], xi[1] - ca[1], xi[2] - ca[2]}, di = norm3(u), cb[3], w[3];
  double scale = gam + di + ej + sij;
  /* c_b: gamma from c_a, t from x_i */
  if (di < 1e-12 * scale) {
    random_direction(g, dim, w);
    for (int k = 0; k < 3; k++) cb[k] = ca[k] + gam * w[k];
  } else {
    for (int k = 0; k < 3; k++) u[k] /= di;
    double cosa = gam > 0 ? (gam * gam + di * di - t * t) / (2 * gam * di) : 1;
    cosa = cosa > 1 ? 1 : cosa < -1 ? -1 : cosa;
    double sina = sqrt(1 - cosa * cosa);
    perpendicular(g, dim, u, w);
    for (int k = 0; k < 3; k++) cb[k] = ca[k] + gam * (cosa * u[k] + sina * w[k]);
  }
  /* x_j: s from x_i, e_j from c_b; then the rotation of b putting j there */
  double R[9];
  if (ej < 1e-12 * scale) {
    random_rotation(g, dim, R);
  } else {
    double v[3] = {cb[0] - xi[0], cb[1] - xi[1], cb[2] - xi[2]}, tt = norm3(v), yj[3];
    if (tt < 1e-12 * scale) return 0;
    for (int k = 0; k < 3; k++) v[k] /= tt;
    double cosb = (sij * sij + tt * tt - ej * ej) / (2 * sij * tt);
    cosb = cosb > 1 ? 1 : cosb < -1 ? -1 : cosb;
    double sinb = sqrt(1 - cosb * cosb);
    perpendicular(g, dim, v, w);
    for (int k = 0; k < 3; k++) yj[k] = xi[k] + sij * (cosb * v[k] + sinb * w[k]);
    /* j is tested first (near[0]) and most placements fail there (its place lies inside a's
       other monomers): test it before the rotation is built, drawing the spin that rotation()
       would draw, so that the placements and their random numbers stay the same */
    if (agg_grid_overlaps(grid, yj, s->r[J->b->first + jl], AGG_OVERLAP_TOL)) {
      if (dim == 3) (void)agg_uniform(g);
      return 0;
    }
    double p[3] = {qj[0] / ej, qj[1] / ej, qj[2] / ej}, target[3];
    for (int k = 0; k < 3; k++) target[k] = (yj[k] - cb[k]);
    double lt = norm3(target);
    for (int k = 0; k < 3; k++) target[k] /= lt;
    rotation(g, dim, p, target, R);
  }
  for (size_t o = 0; o < J->b->n; o++) {
    size_t k = J->near[o];
    const double *qk = J->q + 3 * k;
    double *yk = J->y + 3 * k;
    for (int a = 0; a < 3; a++) yk[a] = cb[a] + R[3 * a] * qk[0] + R[3 * a + 1] * qk[1] + R[3 * a + 2] * qk[2];
    if (dim == 2) yk[2] = 0;
    if (agg_grid_overlaps(grid, yk, s->r[J->b->first + k], AGG_OVERLAP_TOL)) return 0;
  }
  return 1;
}

int agg_join(agg_state *s, const agg_cluster *a, const agg_cluster *b, double gamma,
             const void *grid_in, agg_cluster *joined, const char *what, char *err, size_t errlen) {
  size_t na = a->n, nb = b->n;
  double *q = malloc(3 * nb * sizeof *q), *y = malloc(3 * nb * sizeof *y), *d = malloc(na * sizeof *d);
  size_t *cand = malloc(na * sizeof *cand), *near = malloc(nb * sizeof *near);
  by_distance *bd = malloc(nb * sizeof *bd);
  double *clo = malloc(na * sizeof *clo), *chi = malloc(na * sizeof *chi);
  agg_grid own = {0};
  const agg_grid *grid = grid_in;
  int rc = -2;
  if (!q || !y || !d || !cand || !clo || !chi || !near || !bd) goto done;
  if (!grid) {
    if (agg_grid_init(&own, s->dim, 2 * s->r_max, s->x, s->r, a->first, na) != 0) goto done;
    for (size_t k = 0; k < na; k++) agg_grid_insert(&own, k);
    grid = &own;
  }
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
  join_ctx J = {s, a, b, gamma, q, y, near};
  int64_t max = s->o->max_trials, tried = 0;
  int placed = 0;
  int stopped = 0;
  while (!placed && !stopped && tried < max) {
    /* a monomer j of b, and every monomer of a it can touch at this gamma */
    size_t jl = nb == 1 ? 0 : (size_t)(agg_uniform(&s->rng) * (double)nb);
    if (jl >= nb) jl = nb - 1;
    double ej = norm3(q + 3 * jl), rj = s->r[b->first + jl];
    size_t nc = 0;
    for (size_t i = 0; i < na; i++) {
      double sij = s->r[a->first + i] + rj;
      double lo = fmax(fabs(gamma - d[i]), fabs(ej - sij)), hi = fmin(gamma + d[i], ej + sij);
      if (lo <= hi) cand[nc] = a->first + i, clo[nc] = lo, chi[nc] = hi, nc++;
    }
    tried++;
    if (nc == 0 && nb == 1) break; /* one monomer: no other j to draw, the distance is out of reach */
    if (nc > 0) {
      for (size_t k = 0; k < nb; k++) {
        double v[3] = {q[3 * k] - q[3 * jl], q[3 * k + 1] - q[3 * jl + 1], q[3 * k + 2] - q[3 * jl + 2]};
        bd[k] = (by_distance){v[0] * v[0] + v[1] * v[1] + v[2] * v[2], k};
      }
      qsort(bd, nb, sizeof *bd, compare_distance);
      for (size_t k = 0; k < nb; k++) near[k] = bd[k].k;
    }
    /* a few placements per candidate before another j (b = one monomer: all of them) */
    int64_t rounds = nb == 1 ? max : 8 * (int64_t)nc;
    for (int64_t k = 0; k < rounds && tried < max && nc > 0; k++, tried++) {
      if (s->o->stop && *s->o->stop) {
        stopped = 1;
        break;
      }
      size_t c = (size_t)(agg_uniform(&s->rng) * (double)nc);
      if (c >= nc) c = nc - 1;
      if (place(&J, grid, cand[c], jl, clo[c], chi[c])) {
        placed = 1;
        break;
      }
    }
  }
  s->trials += tried;
  if (stopped) {
    agglo_fail(err, errlen, "%s: stopped (the stop flag was set)", what);
    rc = -3;
    goto done;
  }
  if (!placed) {
    if (gamma > dmax + emax)
      agglo_fail(err, errlen, "%s: the centres of mass must be %.6g apart, but two clusters of "
                 "reach %.6g and %.6g (their farthest monomer's surface from their centre) touch at "
                 "most %.6g apart: (D_f, k_f) = (%g, %g) asks for clusters looser than contact allows "
                 "(raise k_f or D_f%s)", what, gamma, dmax, emax, dmax + emax,
                 s->o->fractal_dimension, s->o->prefactor,
                 s->o->method == AGGLO_AGGREGATE_PC ? ", or use the cluster-cluster method" : "");
    else
      agglo_fail(err, errlen, "%s: no placement with the centres of mass %.6g apart touches without "
                 "overlap in %lld trials (max_trials): (D_f, k_f) = (%g, %g) asks for clusters "
                 "denser than these can interpenetrate (lower k_f or D_f, radii less unequal, or "
                 "raise max_trials)",
                 what, gamma, (long long)max, s->o->fractal_dimension, s->o->prefactor);
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
  if (grid == &own) agg_grid_free(&own);
  free(q), free(y), free(d), free(cand), free(clo), free(chi), free(near), free(bd);
  return rc;
}
