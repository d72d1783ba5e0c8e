/* Lees-Edwards shear of the DPD model (dpd.shear_rate, src/models/dpd_shear.h, docs/dpd.md):
   a pair across the y faces feels exactly the force of the same pair inside the box (every
   force law and thermostat path); the Groot-Warren fluid started at rest develops the linear
   profile of slope gamma_dot from the boundaries alone, with the peculiar velocities at kT
   within 2 % (3D and 2D); bitwise the same with 1 and 2 threads and after a restart; keys
   refused with messages naming them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agglo/agglo.h"
#include "analysis/clusters.h"
#include "agglo/analysis.h"
#include "io/h5md_write.h"
#include "io/xyz_read.h"
#include "io/xyz_write.h"
#include "config/config.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/setup.h"
#include "dpd_support.h"
#include "models/dpd_config.h"
#include "models/dpd_model.h"
#include "models/dpd_shear.h"
#include "models/dpd_state.h"

/* Groot-Warren: rho = 3, a = 25, gamma = 4.5, kT = 1, rc = 1, dt = 0.04, lambda = 0.65, in a box
   lx x ly (x lz), sheared at `rate`. */
static void gw_config(agglo_config *c, int dim, double lx, double ly, double lz, double rate) {
  agglo_config_defaults(c);
  c->model = &agglo_dpd_entry;
  c->dim = dim;
  c->dt = 0.04;
  c->t_end = 1e6;
  double vol = lx * ly * (dim == 3 ? lz : 1);
  c->n = (int64_t)llround(3 * vol);
  c->radius = 0.1, c->radius_spread = 0, c->mass = 1;
  c->size.n = dim, c->size.v[0] = lx, c->size.v[1] = ly, c->size.v[2] = lz;
  c->boundary.n = 1, c->boundary.v[0] = 1;
  c->seed = 7;
  agglo_dpd_edit(c)->shear_rate = rate;
}

/* The force on particle id of a model. */
static void force_of(const dpd *m, uint32_t id, double f[3]) {
  for (size_t k = 0; k < m->n; k++)
    if (m->p.id[k] == id)
      for (int d = 0; d < 3; d++) f[d] = m->f[d][k];
}

/* Two particles at step 3 (offset gamma_dot L_y t = 0.5 x 8 x 0.75 = 3, exact): i at y = 7.75,
   j at y = 0.25 across the upper face, whose image of j is at x_j + 3, y + 8, moving 4 faster
   along x; and the same pair inside the box. Every number is exact in binary, so the forces
   must be the same bits. */
static void run_pair(int dim, int thermostat, int conservative, const double xi[3], const double xj[3],
                     const double vi[3], const double vj[3], double fi[3], double fj[3]) {
  agglo_config c;
  gw_config(&c, dim, 8, 8, 8, 0.5);
  c.n = 2, c.dt = 0.25;
  agglo_dpd_edit(&c)->thermostat = thermostat;
  agglo_dpd_edit(&c)->conservative = conservative;
  agglo_dpd_edit(&c)->rc = 1.5;
  char err[512];
  if (agglo_config_validate(&c, err, sizeof err) != 0) fail_msg("check: %s", err);
  agglo_system s;
  memset(&s, 0, sizeof s);
  if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  for (int d = 0; d < 3; d++) {
    s.x[d] = d < dim ? xi[d] : 0, s.x[3 + d] = d < dim ? xj[d] : 0;
    s.v[d] = d < dim ? vi[d] : 0, s.v[3 + d] = d < dim ? vj[d] : 0;
  }
  s.step = 3, s.t = 0.75;
  void *state;
  if (agglo_model_dpd.init(&state, &s, &c, err, sizeof err) != 0) fail_msg("init: %s", err);
  const dpd *m = state;
  assert_true(m->le.offset == 3 && m->le.dvx == 4);
  force_of(m, (uint32_t)s.id[0], fi);
  force_of(m, (uint32_t)s.id[1], fj);
  agglo_model_dpd.destroy(state);
  agglo_system_free(&s);
}

static void pair_across_the_face(void **st) {
  (void)st;
  const int laws[] = {AGGLO_PF_GROOT_WARREN, AGGLO_PF_LJ};
  for (int dim = 2; dim <= 3; dim++)
    for (int th = DPD_THERMO_DPD; th <= DPD_THERMO_TRANSVERSE; th++) /* (langevin: per particle) */
      for (int l = 0; l < 2; l++) {
        /* across: d = (4.25 - 1 - 3, 7.75 - 8.25, 0.5) = (0.25, -0.5, 0.5); velocities of j's
           image (vj + 4) */
        const double xi[3] = {4.25, 7.75, 5.5}, xj[3] = {1, 0.25, 5};
        const double vi[3] = {0.5, -0.25, 0.75}, vj[3] = {-1.25, 0.5, 0.25};
        const double yi[3] = {4.25, 3.75, 5.5}, yj[3] = {4, 4.25, 5};
        const double wi[3] = {0.5, -0.25, 0.75}, wj[3] = {-1.25 + 4, 0.5, 0.25};
        double fa[2][3], fb[2][3];
        run_pair(dim, th, laws[l], xi, xj, vi, vj, fa[0], fa[1]);
        run_pair(dim, th, laws[l], yi, yj, wi, wj, fb[0], fb[1]);
        printf("%dD thermostat %d law %d: across (%.17g %.17g %.17g), inside (%.17g %.17g %.17g)\n",
               dim, th, laws[l], fa[0][0], fa[0][1], fa[0][2], fb[0][0], fb[0][1], fb[0][2]);
        assert_true(fa[0][0] != 0 && fa[0][1] != 0);
        assert_memory_equal(fa, fb, sizeof fa);
      }
}

/* The Groot-Warren fluid sheared at `rate` in a box lx x ly (x 4) under thermostat th, from
   rest (thermal velocities only: the faces alone drive the flow; momentum diffuses over L_y in a
   few time units) or from the linear profile; over `steps` steps after `skip`: the x velocity
   binned in y, its least-squares slope, and the model's temperature of the peculiar velocities.
   The slope's scatter between seeds is the fluid's own (its slowest shear modes): about 0.005
   in 3D (N = 288, 3000 steps) and 0.01 in 2D (N = 288, 4000 steps; 5 seeds each), so the slope
   is checked at rate 1 in 3D and 2 in 2D (within 2 %: 4 standard deviations; measured -0.8 to
   +0.5 % and -0.7 to +0.7 % over 5 seeds). Viscous heating grows as rate^2: the peculiar kT
   measured +2.3 % (dpd, 3D, mean of 6 seeds) at 0.5, +9 % at 1 (3D) and +30 % at 2 (2D), so kT
   is checked at 0.25 (+0.5 to +1.0 % dpd, -0.8 to -0.1 % transverse, 0 to +0.3 % langevin in
   3D; 2D -0.8 to +0.3 % dpd, +0.2 to +0.6 % langevin). */
static void steady_profile(int dim, double lx, double ly, double rate, int th, int from_rest, int steps,
                           int skip, double *slope_out, double *T_out) {
  const int bins = (int)ly;
  agglo_config c;
  gw_config(&c, dim, lx, ly, 4, rate);
  agglo_dpd_edit(&c)->thermostat = th;
  sim S;
  start(&S, &c);
  if (from_rest) {
    const double y_mid = S.s.box.lo[1] + 0.5 * ly;
    for (size_t i = 0; i < S.s.n; i++) S.s.v[3 * i] -= rate * (S.s.x[3 * i + 1] - y_mid);
    char err[512];
    agglo_model_dpd.destroy(S.state);
    if (agglo_model_dpd.init(&S.state, &S.s, &c, err, sizeof err) != 0) fail_msg("init: %s", err);
  }
  advance(&S, skip);
  double sum[64] = {0}, cnt[64] = {0}, T = 0;
  for (int k = 0; k < steps; k++) {
    advance(&S, 1);
    T += ((const dpd *)S.state)->T_last;
    for (size_t i = 0; i < S.s.n; i++) {
      int b = (int)floor((S.s.x[3 * i + 1] - S.s.box.lo[1]) / ly * bins);
      b = b < 0 ? 0 : b >= bins ? bins - 1 : b;
      sum[b] += S.s.v[3 * i], cnt[b] += 1;
    }
  }
  T /= steps;
  double sy = 0, su = 0, syy = 0, syu = 0;
  for (int b = 0; b < bins; b++) {
    double y = (b + 0.5) * ly / bins, u = sum[b] / cnt[b];
    sy += y, su += u, syy += y * y, syu += y * u;
  }
  double slope = (bins * syu - sy * su) / (bins * syy - sy * sy);
  printf("%dD, N = %zu, thermostat %d, gamma_dot = %g%s: slope %.4f (%+.2f %%), peculiar kT %.4f "
         "(%+.2f %%)\n", dim, S.s.n, th, rate, from_rest ? " from rest" : "", slope,
         100 * (slope / rate - 1), T, 100 * (T - 1));
  *slope_out = slope, *T_out = T;
  stop(&S);
}

static void steady_profile_3d(void **st) {
  (void)st;
  double slope, T;
  steady_profile(3, 4, 6, 1, DPD_THERMO_DPD, 1, 3000, 500, &slope, &T);
  assert_true(fabs(slope - 1) < 0.02);
  for (int th = DPD_THERMO_DPD; th <= DPD_THERMO_LANGEVIN; th++) {
    steady_profile(3, 4, 6, 0.25, th, 0, 1500, 250, &slope, &T);
    assert_true(fabs(T - 1) < 0.02);
  }
}

static void steady_profile_2d(void **st) {
  (void)st;
  double slope, T;
  steady_profile(2, 12, 8, 2, DPD_THERMO_DPD, 1, 4000, 1000, &slope, &T);
  assert_true(fabs(slope / 2 - 1) < 0.02);
  for (int th = DPD_THERMO_DPD; th <= DPD_THERMO_LANGEVIN; th += 2) {
    steady_profile(2, 12, 8, 0.25, th, 0, 2000, 500, &slope, &T);
    assert_true(fabs(T - 1) < 0.02);
  }
}

/* 1 and 2 threads (N = 4608 >= the model's threshold of 4096), and a restart at step 20 of 40:
   the same bytes. */
static void threads_and_restart(void **st) {
  (void)st;
  for (int th = DPD_THERMO_DPD; th <= DPD_THERMO_LANGEVIN; th++) {
    agglo_config c;
    gw_config(&c, 3, 8, 12, 16, 0.8);
    agglo_dpd_edit(&c)->thermostat = th;
    double *xs[3], *vs[3];
    size_t n = 0;
    for (int t = 0; t < 2; t++) {
      omp_set_num_threads(t + 1);
      sim S;
      start(&S, &c);
      advance(&S, 40);
      n = S.s.n;
      xs[t] = malloc(3 * n * sizeof(double)), vs[t] = malloc(3 * n * sizeof(double));
      memcpy(xs[t], S.s.x, 3 * n * sizeof(double)), memcpy(vs[t], S.s.v, 3 * n * sizeof(double));
      stop(&S);
    }
    omp_set_num_threads(2);
    assert_true(n >= 4096);
    assert_memory_equal(xs[0], xs[1], 3 * n * sizeof(double));
    assert_memory_equal(vs[0], vs[1], 3 * n * sizeof(double));
    /* restart at step 20: the system and the model's file */
    sim A, B;
    start(&A, &c);
    advance(&A, 20);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(agglo_model_dpd.save(A.state, f), 0);
    start(&B, &c);
    agglo_model_dpd.destroy(B.state);
    memcpy(B.s.x, A.s.x, 3 * n * sizeof(double)), memcpy(B.s.v, A.s.v, 3 * n * sizeof(double));
    B.s.step = A.s.step, B.s.t = A.s.t;
    char err[256];
    assert_int_equal(agglo_model_dpd.init(&B.state, &B.s, &c, err, sizeof err), 0);
    rewind(f);
    assert_int_equal(agglo_model_dpd.load(B.state, &B.s, f, err, sizeof err), 0);
    fclose(f);
    advance(&B, 20);
    assert_memory_equal(B.s.x, xs[1], 3 * n * sizeof(double));
    assert_memory_equal(B.s.v, vs[1], 3 * n * sizeof(double));
    stop(&A), stop(&B);
    for (int t = 0; t < 2; t++) free(xs[t]), free(vs[t]);
  }
}

/* The images: the offset is gamma_dot L_y t mod L_x for either sign; the minimum image and the
   wrap agree with a direct search over the images. */
static void images(void **st) {
  (void)st;
  const double lo[3] = {-1, 2, 0}, len[3] = {5, 4, 3};
  const int per[3] = {1, 1, 1};
  agglo_shear le = agglo_shear_make(-0.75, lo, len, per, 10);
  assert_true(le.offset >= 0 && le.offset < 5 && (le.offset < 1e-12 || le.offset > 5 - 1e-12)); /* -30 mod 5 */
  agglo_shear_set_time(&le, 1);
  assert_true(fabs(le.offset - 2) < 1e-12); /* -3 mod 5 */
  int near = 0;
  assert_true(agglo_shear_stream(&le, 4) == 0 && agglo_shear_stream(&le, 5) == -0.75);
  for (int t = 0; t < 1000; t++) {
    double a[3], b[3];
    for (int k = 0; k < 3; k++)
      a[k] = lo[k] + len[k] * ((t * 37 + 11 * k) % 101) / 101.0,
      b[k] = lo[k] + len[k] * ((t * 53 + 29 * k) % 97) / 97.0;
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]}, best = INFINITY;
    double ny = agglo_le_delta_of(d, le.len, le.inv, le.offset, 1);
    for (int iy = -2; iy <= 2; iy++)
      for (int ix = -2; ix <= 2; ix++)
        for (int iz = -2; iz <= 2; iz++) { /* image of b: iy boxes up is shifted iy offsets */
          double e0 = a[0] - (b[0] + iy * le.offset + ix * len[0]), e1 = a[1] - (b[1] + iy * len[1]);
          double e2 = a[2] - (b[2] + iz * len[2]);
          best = fmin(best, e0 * e0 + e1 * e1 + e2 * e2);
        }
    /* (y first is the nearest image for every pair closer than half the smallest side: any
       cut-off a box allows) */
    if (best < 1.5 * 1.5) assert_true(fabs(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - best) < 1e-9), near++;
    double dv[3] = {0, 0, 0};
    agglo_shear_velocity_image(&le, ny, dv);
    assert_true(dv[0] == -ny * -0.75 * 4);
  }
  printf("%d of 1000 pairs closer than 1.5: the brute-force nearest image\n", near);
  assert_true(near > 50);
  double x[3] = {1, 6.5, 0}, v[3] = {0, 0, 0};
  assert_true(agglo_shear_wrap_y(&le, lo[1], x, v) == 1);
  assert_true(fabs(x[1] - 2.5) < 1e-12 && fabs(x[0] - (1 - 2)) < 1e-12 && v[0] == 3);
}

/* Every pair found: the model's forces at the start equal a direct sum over all pairs with the
   Lees-Edwards minimum image (conservative a w and dissipative -gamma w^2 (e.v_ij) e, v_ij
   across a face corrected; kT = 1e-30 leaves the random force below 1e-13), for random
   particles in boxes of 2 (every cell searched by upper_neighbours), 3, 6 and 7 rows of cells
   along y (the fourth with walls along z in 3D, the last crowded: density 60 in 3D, 120 in 2D, so
   that a cell's candidates overflow the copy), offsets that are not a whole number of cells,
   in 2D and 3D. */
static void forces_are_the_direct_sum(void **st) {
  (void)st;
  const double boxes[][3] = {{5, 6, 4}, {4.5, 3.2, 3}, {3.3, 2.5, 4}, {6, 7, 2.5}, {3.2, 3.1, 3}};
  uint64_t lcg = 12345;
  for (int bx = 0; bx < 5; bx++)
    for (int dim = 2; dim <= 3; dim++) {
      const double *L = boxes[bx];
      agglo_config c;
      gw_config(&c, dim, L[0], L[1], L[2], 0.37);
      agglo_dpd_edit(&c)->kT = 1e-30;
      if (bx == 3) c.boundary.n = dim, c.boundary.v[0] = c.boundary.v[1] = 1, c.boundary.v[2] = 0;
      if (bx == 4) c.n *= dim == 3 ? 20 : 40, c.radius = 0.01; /* crowded cells (over 512 candidates) */
      char err[512];
      if (agglo_config_validate(&c, err, sizeof err) != 0) fail_msg("check: %s", err);
      agglo_system s;
      memset(&s, 0, sizeof s);
      if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
      for (size_t i = 0; i < 3 * s.n; i++) { /* uniform positions, velocities in (-1, 1) */
        const int k = (int)(i % 3);
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(lcg >> 11) * 0x1p-53;
        s.x[i] = k < dim ? s.box.lo[k] + u * s.box.len[k] : 0;
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        s.v[i] = k < dim ? 2 * (double)(lcg >> 11) * 0x1p-53 - 1 : 0;
      }
      s.step = 13, s.t = 13 * c.dt;
      void *state;
      if (agglo_model_dpd.init(&state, &s, &c, err, sizeof err) != 0) fail_msg("init: %s", err);
      const dpd *m = state;
      double *f = calloc(3 * s.n, sizeof *f), worst = 0;
      size_t pairs = 0, across = 0;
      for (size_t i = 0; i < s.n; i++)
        for (size_t j = i + 1; j < s.n; j++) {
          double d[3], dv[3];
          for (int k = 0; k < 3; k++) d[k] = s.x[3 * i + k] - s.x[3 * j + k], dv[k] = s.v[3 * i + k] - s.v[3 * j + k];
          const double ny = agglo_le_delta_of(d, m->le.len, m->le.inv, m->le.offset, 1);
          agglo_shear_velocity_image(&m->le, ny, dv);
          const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          if (!(r < 1)) continue;
          pairs++, across += ny != 0;
          const double w = 1 - r, ev = (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) / r;
          const double F = 25 * w - 4.5 * w * w * ev;
          for (int k = 0; k < 3; k++) f[3 * i + k] += F * d[k] / r, f[3 * j + k] -= F * d[k] / r;
        }
      for (size_t q = 0; q < m->n; q++) {
        const size_t i = m->p.perm[q];
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(m->f[k][q] - f[3 * i + k]));
      }
      printf("%dD box %g x %g (x %g), %d x %d cells, offset %.4f: %zu pairs (%zu across a y face), "
             "largest force difference %.3g\n", dim, L[0], L[1], L[2], m->nc[0], m->nc[1], m->le.offset,
             pairs, across, worst);
      assert_true(across > 0 && worst < 1e-9);
      free(f);
      agglo_model_dpd.destroy(state);
      agglo_system_free(&s);
    }
}

/* The analysis (clusters, sizes, agglomerates: core/cells.c's list and agglo_box_delta) sees the
   sheared images: two touching spheres across the upper y face, B's image shifted by
   shear_x = 3, are one cluster; without the shift they are apart. Filler particles spread over
   the box make a grid of many cells, so the shifted row is searched as such. */
static void clusters_across_the_face(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++)
    for (int shifted = 0; shifted < 2; shifted++) {
      agglo_system s;
      const size_t n = 202;
      assert_int_equal(agglo_system_alloc(&s, dim, n), 0);
      for (int k = 0; k < 3; k++) {
        s.box.lo[k] = 0, s.box.len[k] = s.box.hi[k] = k < dim ? 8 : 0;
        s.box.periodic[k] = k < dim;
      }
      s.box.shear_x = shifted ? 3 : 0;
      for (size_t i = 0; i < n; i++) { /* fillers on a lattice, far from A and B */
        s.r[i] = 0.1;
        s.x[3 * i] = 0.5 + (double)(i % 10) * 0.7, s.x[3 * i + 1] = 2 + (double)(i / 10 % 10) * 0.4;
        s.x[3 * i + 2] = dim == 3 ? 1 + (double)(i / 100) * 0.7 : 0;
      }
      const double a[3] = {4.25, 7.9, 6.5}, b[3] = {1.25, 0.1, 6.5};
      for (int k = 0; k < dim; k++) s.x[3 * 200 + k] = a[k], s.x[3 * 201 + k] = b[k];
      assert_int_equal(agglo_clusters_label(&s, NULL, 0.05, NULL), 0);
      printf("%dD, shear_x = %g: clusters of A and B: %d %d\n", dim, s.box.shear_x, s.cluster[200],
             s.cluster[201]);
      assert_true((s.cluster[200] == s.cluster[201]) == shifted);
      double d[3];
      agglo_box_delta(&s.box, s.x + 3 * 200, s.x + 3 * 201, d);
      if (shifted) assert_true(fabs(d[0]) < 1e-12 && fabs(d[1] - 0.2) < 1e-12);
      agglo_system_free(&s);
    }
}

/* agglo_dpd_temperature (and dpd_bench's kT, the same agglo_analysis_peculiar_temperature) is the
   stats.csv `temperature` column under shear: of v - u(y), not of the laboratory velocities
   (which carry the flow: at gamma_dot = 1 in a box 6 high, kT ~ 1 + <u^2> = 1 + 3 = 4). */
static void temperature_is_peculiar(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 3, 4, 6, 4, 1);
  sim S;
  start(&S, &c);
  advance(&S, 30);
  const dpd *m = S.state;
  double column = m->T_last * m->u.energy, api = agglo_dpd_temperature(&S.s), lab = 0;
  agglo_analysis_temperature(S.s.v, S.s.m, S.s.n, S.s.dim, &lab);
  printf("gamma_dot = 1: stats column kT %.9f, agglo_dpd_temperature %.9f, laboratory %.4f\n", column,
         api, lab);
  assert_true(fabs(api - column) < 1e-9 * column);
  assert_true(lab > 1.5 * column); /* (the flow: what the check would see without the fix) */
  stop(&S);
}

/* A sheared run's trajectory keeps the Lees-Edwards offset (XYZ: the second lattice vector's x,
   H5MD: box/edges row 2 column 1), so that agglo analyze / agglomerates later find the clusters
   the run found: two spheres touching across the upper y face only through the image shifted
   by shear_x = 3 (clusters_across_the_face). An offset in a box not periodic along y is refused,
   naming the file, frame, line and key. */
static size_t cluster_count(agglo_system *s) {
  assert_int_equal(agglo_clusters_label(s, NULL, 0.05, NULL), 0);
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) n += s->cluster[i] == s->id[i];
  return n;
}

static void trajectory_keeps_the_offset(void **st) {
  (void)st;
  agglo_system s;
  const size_t n = 202;
  assert_int_equal(agglo_system_alloc(&s, 3, n), 0);
  for (int k = 0; k < 3; k++) s.box.lo[k] = 0, s.box.len[k] = s.box.hi[k] = 8, s.box.periodic[k] = 1;
  s.box.shear_x = 3, s.box.shear_rate = 0.5;
  for (size_t i = 0; i < n; i++) {
    s.r[i] = 0.1, s.m[i] = 1, s.inv_m[i] = 1, s.id[i] = (int64_t)i;
    s.x[3 * i] = 0.5 + (double)(i % 10) * 0.7, s.x[3 * i + 1] = 2 + (double)(i / 10 % 10) * 0.4;
    s.x[3 * i + 2] = 1 + (double)(i / 100) * 0.7;
  }
  const double a[3] = {4.25, 7.9, 6.5}, b[3] = {1.25, 0.1, 6.5};
  for (int k = 0; k < 3; k++) s.x[3 * 200 + k] = a[k], s.x[3 * 201 + k] = b[k];
  const size_t during = cluster_count(&s);
  assert_int_equal(during, n - 1); /* A and B joined */
  char err[512], xyz[] = "/tmp/agglo_le_XXXXXX", h5[64];
  int fd = mkstemp(xyz);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_int_equal(agglo_xyz_write_frame(f, &s), 0);
  fclose(f);
  snprintf(h5, sizeof h5, "%s.h5", xyz);
  agglo_h5md_options o = {0};
  agglo_h5md *h = agglo_h5md_open(h5, &s, 0, &o, err, sizeof err);
  if (!h) fail_msg("%s", err);
  assert_int_equal(agglo_h5md_frame(h, &s, err, sizeof err), 0);
  assert_int_equal(agglo_h5md_close(h), 0);
  const char *files[2] = {xyz, h5};
  for (int q = 0; q < 2; q++) {
    agglo_xyz_reader r;
    agglo_system t;
    memset(&t, 0, sizeof t);
    if (agglo_xyz_open(&r, files[q], 0, err, sizeof err) != 0) fail_msg("%s", err);
    if (agglo_xyz_next(&r, &t, err, sizeof err) != 1) fail_msg("%s", err);
    agglo_xyz_close(&r);
    const size_t after = cluster_count(&t);
    printf("%s: shear_x = %g, clusters %zu (during the run %zu)\n", q ? "H5MD" : "XYZ", t.box.shear_x,
           after, during);
    assert_true(t.box.shear_x == 3);
    assert_int_equal(after, during);
    agglo_system_free(&t);
  }
  /* refused: the offset with a wall along y */
  f = fopen(xyz, "w");
  fputs("1\nLattice=\"8 0 0 3 8 0 0 0 8\" Properties=pos:R:3:radius:R:1 pbc=\"T F T\"\n"
        "X 1 1 1 0.1\n", f);
  fclose(f);
  agglo_xyz_reader r;
  agglo_system t;
  memset(&t, 0, sizeof t);
  if (agglo_xyz_open(&r, xyz, 0, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(agglo_xyz_next(&r, &t, err, sizeof err), -1);
  agglo_xyz_close(&r);
  agglo_system_free(&t);
  printf("refused: %s\n", err);
  assert_non_null(strstr(err, xyz));
  assert_non_null(strstr(err, "frame 1"));
  assert_non_null(strstr(err, "Lattice"));
  remove(xyz), remove(h5);
  char xdmf[80];
  if (agglo_h5md_xdmf_path(h5, xdmf, sizeof xdmf) == 0) remove(xdmf);
  agglo_system_free(&s);
}

/* The box of a restarted sheared run: agglo_sim_create_from_restart sets the Lees-Edwards offset
   of the restart point's step (the model's .box hook) before anything reads it, so the box and
   the clusters across the y faces seen before the first step are the uninterrupted run's, and
   every output of the resumed run (stats with the analysis, trajectory, pictures, the first ones
   after the resume included) is the uninterrupted run's byte for byte. Without the hook the
   restarted box had shear_x = 0 until its first step. */
static int stop_at_20(agglo_sim *sim, void *user) {
  (void)user;
  return agglo_sim_step_count(sim) >= 20;
}

static void restart_keeps_the_box_shear(void **st) {
  (void)st;
  for (int format = AGGLO_CHECKPOINT_TEXT; format <= AGGLO_CHECKPOINT_HDF5; format++) {
  agglo_config c;
  gw_config(&c, 3, 4, 6, 4, 1.3);
  c.t_end = 40 * c.dt;
  c.trajectory_interval = 0.2, c.stats_interval = 0, c.analysis_interval = 0.04;
  c.snapshots.n = 3, c.snapshots.v[0] = 0.4, c.snapshots.v[1] = 0.84, c.snapshots.v[2] = 1.2;
  c.png_width = 64;
  c.checkpoint_format = format;
  agglo_dpd_edit(&c)->agglomerate_gap = 0.4; /* clusters of a few, some across the faces */
  agglo_set_threads(1);
  const char *dirs[2] = {"le_restart_whole", "le_restart_cut"};
  for (int q = 0; q < 2; q++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dirs[q]);
    assert_int_equal(system(cmd), 0);
  }
  agglo_sim *a = NULL, *b = NULL;
  assert_int_equal(agglo_sim_create(&c, &a), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(a, dirs[0], AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_run(a), AGGLO_OK);
  assert_int_equal(agglo_sim_close_outputs(a), AGGLO_OK);
  agglo_sim_destroy(a);
  /* cut at step 20: the box and clusters there */
  assert_int_equal(agglo_sim_create(&c, &b), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(b, dirs[1], AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_set_callback(b, 1, stop_at_20, NULL), AGGLO_OK);
  assert_int_equal(agglo_sim_run(b), AGGLO_STOPPED);
  agglo_box cut;
  assert_int_equal(agglo_sim_box(b, &cut), AGGLO_OK);
  const size_t n = agglo_sim_count(b), clusters = agglo_sim_cluster_count(b);
  int32_t *labels = malloc(n * sizeof *labels);
  memcpy(labels, agglo_sim_clusters(b), n * sizeof *labels);
  assert_int_equal(agglo_sim_close_outputs(b), AGGLO_OK);
  agglo_sim_destroy(b);
  /* resumed: the same box and clusters before its first step */
  assert_int_equal(agglo_sim_create_from_restart(&c, dirs[1], &b), AGGLO_OK);
  agglo_box got;
  assert_int_equal(agglo_sim_box(b, &got), AGGLO_OK);
  const size_t resumed = agglo_sim_cluster_count(b);
  printf("%s restart point at step 20: shear_x %.17g (uninterrupted %.17g), shear_rate %g (%g), clusters %zu "
         "(%zu)\n", format ? "HDF5" : "text", got.shear_x, cut.shear_x, got.shear_rate, cut.shear_rate, resumed, clusters);
  assert_true(cut.shear_x != 0 && got.shear_x == cut.shear_x && got.shear_rate == cut.shear_rate);
  assert_int_equal(resumed, clusters);
  assert_memory_equal(agglo_sim_clusters(b), labels, n * sizeof *labels);
  free(labels);
  assert_int_equal(agglo_sim_attach_outputs(b, dirs[1], AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_run(b), AGGLO_OK);
  assert_int_equal(agglo_sim_close_outputs(b), AGGLO_OK);
  agglo_sim_destroy(b);
  const char *files[] = {"stats.csv", "trajectory.xyz", "sizes.csv", format ? "stats.csv" : "state.xyz",
                         format ? "stats.csv" : "contacts.txt",
                         "snapshot_000000010.png", "snapshot_000000021.png", "snapshot_000000030.png"};
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    char p0[128], p1[128];
    snprintf(p0, sizeof p0, "%s/%s", dirs[0], files[k]), snprintf(p1, sizeof p1, "%s/%s", dirs[1], files[k]);
    FILE *f0 = fopen(p0, "rb"), *f1 = fopen(p1, "rb");
    if (!f0 || !f1) fail_msg("%s or %s missing", p0, p1);
    int c0, c1;
    long at = 0;
    do c0 = fgetc(f0), c1 = fgetc(f1), at++;
    while (c0 == c1 && c0 != EOF);
    if (c0 != c1) fail_msg("%s differs from the uninterrupted run's at byte %ld", p1, at);
    fclose(f0), fclose(f1);
  }
  printf("%zu files identical\n", sizeof files / sizeof *files);
  }
}

/* particles.from with positions, ids and masses but no velocities: the start velocities are drawn
   after the file is read -- Maxwell draws keyed by the file's ids, scaled by the file's masses,
   their mean momentum removed, plus the streaming velocity gamma_dot (y - y_mid) at the file's y
   (an independent computation of dpd_config.c's start). Drawn before it (as they were), they were
   keyed by the set-up's ids 0..n-1, scaled by particles.mass and streamed at y = 0. */
static void start_velocities_after_the_file(void **st) {
  (void)st;
  const double rate = 1.3, kT = 1;
  agglo_config c;
  gw_config(&c, 3, 4, 6, 4, rate);
  const size_t n = 60;
  char path[] = "/tmp/agglo_from_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "%zu\nLattice=\"4 0 0 0 6 0 0 0 4\" Origin=\"0 0 0\" "
             "Properties=species:S:1:pos:R:3:masses:R:1:radius:R:1:id:I:1 pbc=\"T T T\"\n", n);
  double want_x[60][3], want_m[60];
  int64_t want_id[60];
  for (size_t i = 0; i < n; i++) { /* ids 1000 + 7 ((i * 37) mod 60): not 0..n-1, not in order */
    want_id[i] = 1000 + 7 * (int64_t)((i * 37) % n);
    want_m[i] = 0.5 + 0.25 * (double)(i % 5);
    want_x[i][0] = 0.3 + (double)(i % 5) * 0.75, want_x[i][1] = 0.2 + (double)(i / 5 % 6) * 0.95;
    want_x[i][2] = 0.4 + (double)(i / 30) * 1.9;
    fprintf(f, "X %.17g %.17g %.17g %.17g 0.1 %lld\n", want_x[i][0], want_x[i][1], want_x[i][2],
            want_m[i], (long long)want_id[i]);
  }
  fclose(f);
  snprintf(c.from, sizeof c.from, "%s", path);
  c.n = (int64_t)n;
  agglo_sim *sim = NULL;
  if (agglo_sim_create(&c, &sim) != AGGLO_OK) fail_msg("%s", agglo_last_error());
  const double *v = agglo_sim_velocities(sim), *x = agglo_sim_positions(sim), *m = agglo_sim_masses(sim);
  const int64_t *id = agglo_sim_ids(sim);
  /* the expected velocities, by the file's order */
  double w[60][3], p[3] = {0, 0, 0}, mt = 0, worst = 0;
  for (size_t i = 0; i < n; i++) {
    double z[4];
    agglo_rng_normal4((uint64_t)c.seed, AGGLO_STREAM_VELOCITY, 0, (uint64_t)want_id[i], z);
    for (int k = 0; k < 3; k++) w[i][k] = sqrt(kT / want_m[i]) * z[k], p[k] += want_m[i] * w[i][k];
    mt += want_m[i];
  }
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) w[i][k] -= p[k] / mt;
    w[i][0] += rate * (want_x[i][1] - 3);
  }
  for (size_t q = 0; q < n; q++) { /* the simulation's storage order: found by id */
    size_t i = 0;
    while (i < n && want_id[i] != id[q]) i++;
    assert_true(i < n);
    assert_true(m[q] == want_m[i] && fabs(x[3 * q + 1] - want_x[i][1]) < 1e-12);
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(v[3 * q + k] - w[i][k]));
  }
  printf("particles.from without velocities: largest difference from the expected start velocities "
         "%.3g\n", worst);
  assert_true(worst < 1e-12);
  agglo_sim_destroy(sim);
  remove(path);
}

/* Refused: non-finite, a wall along x or y, a strain per step above 1. */
static void refused(void **st) {
  (void)st;
  agglo_config c;
  char err[512];
  gw_config(&c, 3, 4, 4, 4, 0);
  assert_int_not_equal(agglo_config_set_value(&c, "dpd.shear_rate", "nan", err, sizeof err), 0);
  printf("%s\n", err);
  assert_non_null(strstr(err, "dpd.shear_rate"));
  assert_int_not_equal(agglo_config_set_value(&c, "dpd.shear_rate", "inf", err, sizeof err), 0);
  assert_non_null(strstr(err, "dpd.shear_rate"));
  gw_config(&c, 3, 4, 4, 4, 0.5);
  c.boundary.n = 3, c.boundary.v[0] = 1, c.boundary.v[1] = 0, c.boundary.v[2] = 1;
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  printf("%s\n", err);
  assert_non_null(strstr(err, "dpd.shear_rate"));
  assert_non_null(strstr(err, "box.boundary"));
  gw_config(&c, 3, 4, 4, 4, 30);
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  printf("%s\n", err);
  assert_non_null(strstr(err, "run.dt"));
}

/* agglo_sim_set_positions and agglo_sim_set_state with positions but no velocities, under shear:
   each particle keeps its peculiar velocity v - u(y), its streaming part u_x = rate (y - y_c)
   following the new y (the start's flow belonged to the old positions); velocities given with
   the positions are taken as they are. */
static void new_positions_carry_the_flow(void **st) {
  (void)st;
  const double rate = 1.3, ymid = 3;
  agglo_config c;
  gw_config(&c, 3, 4, 6, 4, rate);
  const size_t n = 24;
  c.n = (int64_t)n;
  for (int call = 0; call < 3; call++) {
    agglo_sim *sim = NULL;
    if (agglo_sim_create(&c, &sim) != AGGLO_OK) fail_msg("%s", agglo_last_error());
    const double *v = agglo_sim_velocities(sim), *x = agglo_sim_positions(sim);
    const int64_t *id = agglo_sim_ids(sim);
    double x0[24][3], v0[24][3], xn[24 * 3], vn[24 * 3], worst = 0, moved = 0;
    int64_t id0[24];
    for (size_t i = 0; i < n; i++) { /* a lattice 4 x 3 x 2, y = 0.5 .. 5.5: every y new */
      id0[i] = id[i];
      for (int k = 0; k < 3; k++) x0[i][k] = x[3 * i + k], v0[i][k] = v[3 * i + k];
      xn[3 * i] = 0.5 + (double)(i % 4), xn[3 * i + 1] = 0.5 + 2 * (double)(i / 4 % 3);
      xn[3 * i + 2] = 1 + 2 * (double)(i / 12);
      for (int k = 0; k < 3; k++) vn[3 * i + k] = 0.25 * (double)k - 0.01 * (double)i;
    }
    agglo_status r = call == 0 ? agglo_sim_set_positions(sim, xn, n, 3)
                   : call == 1 ? agglo_sim_set_state(sim, n, xn, NULL, NULL, NULL)
                               : agglo_sim_set_state(sim, n, xn, vn, NULL, NULL);
    if (r != AGGLO_OK) fail_msg("%s", agglo_last_error());
    v = agglo_sim_velocities(sim), x = agglo_sim_positions(sim), id = agglo_sim_ids(sim);
    for (size_t i = 0; i < n; i++) {
      assert_true(id[i] == id0[i] && x[3 * i + 1] == xn[3 * i + 1]);
      double want[3];
      for (int k = 0; k < 3; k++) want[k] = call == 2 ? vn[3 * i + k] : v0[i][k];
      if (call < 2) want[0] += rate * ((xn[3 * i + 1] - ymid) - (x0[i][1] - ymid));
      for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(v[3 * i + k] - want[k]));
      moved = fmax(moved, fabs(rate * (xn[3 * i + 1] - x0[i][1])));
    }
    printf("%s: largest difference from v - u(y) kept (given v: taken) %.3g (the flow moved by up "
           "to %.3g)\n", call == 0 ? "agglo_sim_set_positions" : call == 1 ? "agglo_sim_set_state(x)"
           : "agglo_sim_set_state(x, v)", worst, moved);
    assert_true(worst < 1e-12 && moved > 1);
    agglo_sim_destroy(sim);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(images),
      cmocka_unit_test(refused),
      cmocka_unit_test(pair_across_the_face),
      cmocka_unit_test(clusters_across_the_face),
      cmocka_unit_test(temperature_is_peculiar),
      cmocka_unit_test(trajectory_keeps_the_offset),
      cmocka_unit_test(forces_are_the_direct_sum),
      cmocka_unit_test(steady_profile_3d),
      cmocka_unit_test(steady_profile_2d),
      cmocka_unit_test(threads_and_restart),
      cmocka_unit_test(restart_keeps_the_box_shear),
      cmocka_unit_test(start_velocities_after_the_file),
      cmocka_unit_test(new_positions_carry_the_flow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
