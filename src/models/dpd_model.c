/* Dissipative particle dynamics with attractive conservative forces (Mokkapati 2006;
   docs/dpd.md), integrated by DPD-VV (Groot-Warren 1997):
     x += dt v + dt^2/2 f/m ;  v~ = v + lambda dt f/m ;  f = f(x, v~) ;  v += dt/2 (f_old + f)/m.

   The fast path (why this file does not use cells.h's Verlet list): at the Groot-Warren density a
   particle moves more than skin/2 = 0.15 in one step somewhere in the box at every step, so any
   Verlet list (LAMMPS's too) is rebuilt at every step. Instead the model keeps its own copy of
   the particles, structure of arrays in reduced units, re-sorted by cell (cells at least rc
   wide) at every step with a counting sort, and loops over the pairs of each cell and of its
   neighbour cells of higher index, which are contiguous ranges of the sorted arrays: the
   candidates of a cell are copied together, their distances to each particle tested 8 at a time
   (AVX-512 masks), the pairs in range listed, their forces computed 8 at a time (vectorised
   Philox draws) and then added in the order listed -- the sums of a loop over one pair at a
   time, bit for bit (docs/performance.md, "DPD"). Threads work
   on (y, z) columns of cells in colour phases: a column only writes into its own and its 8
   neighbouring columns, and columns of one colour are at least 3 columns apart (extra colours
   take the remainder of a periodic ring not divisible by 3), so there are no races. Each
   particle receives its pair forces in an order fixed by the grid (colour, column, cell, slot),
   whatever the number of threads: results are bitwise identical with any thread count. Each
   pair's force is computed once, added to i and subtracted from j, so total momentum is
   conserved to round-off. The pair random number is a Philox draw keyed by (seed, step, min id,
   max id): zeta_ij = zeta_ji, independent of storage order and threads. The pair loop is written
   once and compiled once per mode (force law, thermostat, ghosts), the variant chosen at each
   step (kernels[] below). The system arrays are written back (scenario units, original order)
   after every step.

   Thermostats (dpd.thermostat, docs/dpd.md): `dpd` is the central pair thermostat above.
   `transverse` adds its part perpendicular to the pair axis (Junghans, Praprotnik, Kremer 2008):
   -gamma_p w^2 P v_ij + sigma_p w P zeta_ij / sqrt(dt), P = 1 - e e^T, zeta_ij a vector of three
   Philox draws of the same call as zeta_ij, antisymmetric (+ on the lower id), so the pair forces
   stay opposite (momentum conserved) but exert torques: only a non-central friction can cool
   the rigid rotation of a cluster, whose angular momentum central forces conserve. `langevin`
   drops the pair thermostat for -xi v + sqrt(2 xi kT / dt) eta_i on every particle (implicit
   solvent), eta_i keyed by (seed, step, id).

   Capillary bridges with memory (dpd.capillary_bridge = memory): a pair holds a bridge when it
   touches (gap <= 0) or held one at the previous force evaluation and its gap is below the
   rupture distance of Lian et al. (1993); only such pairs feel the capillary force. The set of
   bridges (dpd_bonds.h) is read by all threads during the force loop and rebuilt after it from
   the pairs each thread found bridged; it is saved with the restart state. */
#include "core/compare.h"
#include "core/cells.h"
#include "core/model.h"
#include "models/dpd_model.h"
#include "models/dpd_state.h"
#include "agglo/analysis.h"
#include "models/dpd_pair_forces.h"
#include "core/rng.h"
#include "core/error.h"
#include "core/files.h"
#include "models/dpd_bonds.h"
#include "models/dpd_half_mean.h"
#include "models/dpd_config.h"
#include "models/dpd_stress.h"
#include "models/dpd_shear.h"
#include "analysis/temperature.h"
#include <omp.h>
#include <Random123/philox.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Below this many particles the loops run on one thread: starting a team costs more than the
   work (and much more on busy cores). Results do not depend on it. */
#define PAR_MIN 4096

/* ---------------------------------------------------------------- units */

void agglo_dpd_units_of(const agglo_config *c, agglo_dpd_units *u) {
  memset(u, 0, sizeof *u);
  u->si = agglo_dpd_of(c)->units == DPD_UNITS_SI;
  if (u->si) {
    u->length = 2 * c->radius;
    u->mass = c->mass;
    u->energy = 3 * agglo_dpd_of(c)->kT;
  } else {
    u->length = u->mass = u->energy = 1;
  }
  u->time = u->length * sqrt(u->mass / u->energy);
  u->velocity = u->length / u->time;
  u->force = u->energy / u->length;
}

double agglo_dpd_temperature(const agglo_system *s) {
  double kT = 0; /* 0 for fewer than two particles */
  agglo_analysis_peculiar_temperature(s->x, s->v, s->m, s->n, s->dim, &s->box, &kT);
  return kT;
}

/* The pair parameters of species pair (si, sj) in reduced units. */
static double pair_value(const agglo_list *l, double def, int nspec, int si, int sj) {
  if (l->n == 0) return def;
  int a = si < sj ? si : sj, b = si < sj ? sj : si;
  int idx = a * nspec - a * (a - 1) / 2 + (b - a); /* upper triangle row by row */
  return l->v[idx];
}

static void params_of(const agglo_config *c, const agglo_dpd_units *u, agglo_pair_params *p) {
  const agglo_dpd_settings *dp = agglo_dpd_of(c);
  memset(p, 0, sizeof *p);
  double L = u->length, E = u->energy, F = u->force;
  p->kind = dp->conservative;
  p->rc = dp->rc / L;
  p->a = p->kind == AGGLO_PF_VDW_REDUCED ? dp->vdw_a / F : dp->a / F;
  p->hamaker = dp->hamaker / E;
  p->surface_tension = dp->surface_tension * L * L / E;
  p->cos_theta = cos(dp->contact_angle * M_PI / 180);
  p->alpha = dp->fill_angle * M_PI / 180;
  p->cap_volume = dp->cap_volume;
  p->edl_charge2_over_eps = dp->edl_charge * dp->edl_charge / dp->edl_permittivity * L * L * L / E;
  p->edl_debye = dp->edl_debye / L;
  p->lj_eps = dp->lj_epsilon / E;
  p->lj_sigma = dp->lj_sigma / L;
  p->lj_rmin = dp->lj_rmin;
  p->lj_shift = dp->lj_shift;
  p->min_gap = dp->min_gap / L;
  p->core_k = dp->core_k * L * L / E;
}

int agglo_dpd_species_of(const agglo_config *c, int64_t id, size_t n) {
  double acc = 0, pos = ((double)id + 0.5) / (double)n;
  int sp = 0;
  for (int q = 0; q < agglo_dpd_of(c)->species.n; q++) {
    acc += agglo_dpd_of(c)->species.v[q];
    sp = q;
    if (pos < acc) break;
  }
  return sp;
}

/* The pair parameters of species pair (i, j): the common ones, with the per-pair lists (upper
   triangle) where given. */
static void species_pair_params(const agglo_config *c, const agglo_dpd_units *u, int ns, int i,
                                int j, agglo_pair_params *p) {
  params_of(c, u, p);
  double L = u->length, E = u->energy;
  if (agglo_dpd_of(c)->conservative_ij.n) {
    int a = i < j ? i : j, b = i < j ? j : i;
    p->kind = agglo_dpd_of(c)->conservative_ij.v[a * ns - a * (a - 1) / 2 + (b - a)];
  }
  if (p->kind == AGGLO_PF_VDW_REDUCED) p->a = pair_value(&agglo_dpd_of(c)->vdw_a_ij, agglo_dpd_of(c)->vdw_a, ns, i, j) / u->force;
  p->rc = pair_value(&agglo_dpd_of(c)->rc_ij, agglo_dpd_of(c)->rc, ns, i, j) / L;
  p->hamaker = pair_value(&agglo_dpd_of(c)->hamaker_ij, agglo_dpd_of(c)->hamaker, ns, i, j) / E;
  p->surface_tension = pair_value(&agglo_dpd_of(c)->surface_tension_ij, agglo_dpd_of(c)->surface_tension, ns, i, j) * L * L / E;
  p->edl_charge2_over_eps = pair_value(&agglo_dpd_of(c)->edl_charge_product_ij, agglo_dpd_of(c)->edl_charge * agglo_dpd_of(c)->edl_charge,
                                        ns, i, j) / agglo_dpd_of(c)->edl_permittivity * L * L * L / E;
  p->edl_debye = pair_value(&agglo_dpd_of(c)->edl_debye_ij, agglo_dpd_of(c)->edl_debye, ns, i, j) / L;
  p->lj_eps = pair_value(&agglo_dpd_of(c)->lj_epsilon_ij, agglo_dpd_of(c)->lj_epsilon, ns, i, j) / E;
  p->lj_sigma = pair_value(&agglo_dpd_of(c)->lj_sigma_ij, agglo_dpd_of(c)->lj_sigma, ns, i, j) / L;
}

void agglo_dpd_describe(const agglo_config *c, FILE *f) {
  const agglo_dpd_settings *dp = agglo_dpd_of(c);
  agglo_dpd_units u;
  agglo_dpd_units_of(c, &u);
  agglo_pair_params p;
  params_of(c, &u, &p);
  double gamma = dp->gamma * u.time / u.mass, kT = dp->kT / u.energy;
  static const char *thermo[] = {"dpd", "transverse", "langevin"};
  fprintf(f, "dpd: conservative force %s%s, thermostat %s, ", agglo_pair_kind_name(dp->conservative),
          dp->conservative_ij.n ? " (per species pair: dpd.conservative_ij)" : "",
          thermo[dp->thermostat]);
  if (!u.si) {
    fprintf(f, "reduced units (as given): kT = %g, gamma = %g, sigma = %g, rc = %g, dt = %g, "
            "lambda = %g\n", kT, gamma, sqrt(2 * gamma * kT), p.rc, c->dt, dp->lambda);
    return;
  }
  fprintf(f, "SI scenario converted to reduced units:\n"
          "  length unit  d  = %.6g m (2 particles.radius)\n"
          "  mass unit    m  = %.6g kg (particles.mass)\n"
          "  energy unit  E  = %.6g J (3 dpd.kT, so kT* = 1/3 and v_rms = 1)\n"
          "  time unit    t  = %.6g s (d sqrt(m/E)); force unit %.6g N\n",
          u.length, u.mass, u.energy, u.time, u.force);
  fprintf(f, "  dt = %g s -> %.6g, rc = %g m -> %.6g, gamma = %g kg/s -> %.6g (sigma* = %.6g)\n",
          c->dt, c->dt / u.time, dp->rc, p.rc, dp->gamma, gamma, sqrt(2 * gamma * kT));
  switch (dp->conservative) {
  case AGGLO_PF_GROOT_WARREN: fprintf(f, "  a = %g N -> %.6g\n", dp->a, p.a); break;
  case AGGLO_PF_VDW: fprintf(f, "  A = %g J -> A* = %.6g\n", dp->hamaker, p.hamaker); break;
  case AGGLO_PF_VDW_REDUCED: fprintf(f, "  a = %g N -> %.6g\n", dp->vdw_a, p.a); break;
  case AGGLO_PF_CAPILLARY:
    fprintf(f, "  surface tension = %g N/m -> %.6g (F0* = 2 pi R gamma cos(theta) = %.6g)\n",
            dp->surface_tension, p.surface_tension,
            2 * M_PI * 0.5 * p.surface_tension * p.cos_theta);
    break;
  case AGGLO_PF_EDL:
    fprintf(f, "  sigma_q^2/eps = %g -> %.6g, Debye length %g m -> %.6g\n",
            dp->edl_charge * dp->edl_charge / dp->edl_permittivity,
            p.edl_charge2_over_eps, dp->edl_debye, p.edl_debye);
    break;
  case AGGLO_PF_LJ:
    fprintf(f, "  epsilon = %g J -> %.6g, sigma = %g m -> %.6g\n", dp->lj_epsilon, p.lj_eps,
            dp->lj_sigma, p.lj_sigma);
    break;
  default: break;
  }
  if (dp->conservative != AGGLO_PF_GROOT_WARREN && dp->conservative != AGGLO_PF_NONE)
    fprintf(f, "  min_gap = %g m -> %.6g, core_k = %g N/m -> %.6g\n", dp->min_gap, p.min_gap,
            dp->core_k, p.core_k);
}

/* ---------------------------------------------------------------- pair random numbers */

/* zeta_ij of unit variance, a function of (seed, step, {id_i, id_j}) only. */
static inline double pair_zeta(uint64_t seed, uint64_t step, uint32_t a, uint32_t b, int gaussian) {
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  philox4x32_ctr_t c = {{lo, hi, (uint32_t)step,
                         ((uint32_t)(step >> 32) & 0xffffu) | ((uint32_t)AGGLO_STREAM_PAIR << 16)}};
  philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  if (!gaussian) /* sqrt(3) (2u - 1), u = (r + 1/2) / 2^32 */
    return 1.7320508075688772 * (((double)r.v[0] + 0.5) * 4.6566128730773926e-10 - 1.0);
  double u1 = ((double)r.v[0] + 0.5) * 2.3283064365386963e-10;
  double u2 = ((double)r.v[1] + 0.5) * 2.3283064365386963e-10;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Both random draws of pair {a, b} for the transverse thermostat from one Philox call (the
   cost of a second call was a third of the step): *zeta as pair_zeta (the same number), and the
   transverse vector z of three more unit-variance draws -- the unused words of the same call
   (uniform), or the sine of the same Box-Muller pair and a second pair (gaussian). The caller
   applies z with + on the lower id and - on the higher (zeta_ij = -zeta_ji). */
static inline double pair_zeta4(uint64_t seed, uint64_t step, uint32_t a, uint32_t b,
                                int gaussian, double z[3]) {
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  philox4x32_ctr_t c = {{lo, hi, (uint32_t)step,
                         ((uint32_t)(step >> 32) & 0xffffu) | ((uint32_t)AGGLO_STREAM_PAIR << 16)}};
  philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  if (!gaussian) {
    for (int q = 0; q < 3; q++)
      z[q] = 1.7320508075688772 * (((double)r.v[q + 1] + 0.5) * 4.6566128730773926e-10 - 1.0);
    return 1.7320508075688772 * (((double)r.v[0] + 0.5) * 4.6566128730773926e-10 - 1.0);
  }
  double u[4];
  for (int q = 0; q < 4; q++) u[q] = ((double)r.v[q] + 0.5) * 2.3283064365386963e-10;
  double r0 = sqrt(-2.0 * log(u[0])), r1 = sqrt(-2.0 * log(u[2]));
  z[0] = r0 * sin(6.283185307179586 * u[1]);
  z[1] = r1 * cos(6.283185307179586 * u[3]);
  z[2] = r1 * sin(6.283185307179586 * u[3]);
  return r0 * cos(6.283185307179586 * u[1]);
}

/* ---------------------------------------------------------------- grid and sort */

/* Grow one array to m elements of `size` bytes (contents kept). */
static int grow(void *arrayp, size_t m, size_t size) {
  void **a = arrayp, *q = realloc(*a, m * size);
  if (!q) return -1;
  *a = q;
  return 0;
}

static int parts_grow(parts *p, size_t m) {
  int bad = 0;
  for (int k = 0; k < 3; k++)
    bad |= grow(&p->x[k], m, sizeof(double)) | grow(&p->v[k], m, sizeof(double)) |
           grow(&p->t[k], m, sizeof(double));
  bad |= grow(&p->r, m, sizeof(double)) | grow(&p->im, m, sizeof(double)) |
         grow(&p->id, m, sizeof(uint32_t)) | grow(&p->spec, m, 1) | grow(&p->perm, m, sizeof(size_t)) |
         grow(&p->gh, m, 1);
  return bad ? -1 : 0;
}

int agglo_dpd_reserve(dpd *m, size_t n) {
  if (m->p.x[0] && n <= m->cap) return 0;
  size_t cap = m->p.x[0] ? n + n / 4 + 64 : n; /* growing (ghosts, migrants): room ahead */
  int bad = parts_grow(&m->p, cap + 1) | parts_grow(&m->q, cap + 1);
  for (int k = 0; k < 3; k++) bad |= grow(&m->f[k], cap + 1, sizeof(double));
  bad |= grow(&m->cell_of, cap + 1, sizeof *m->cell_of) | grow(&m->order, cap + 1, sizeof *m->order);
  if (bad) return -1;
  m->cap = cap;
  return 0;
}

static void parts_free(parts *p) {
  for (int k = 0; k < 3; k++) free(p->x[k]), free(p->v[k]), free(p->t[k]);
  free(p->r); free(p->im); free(p->id); free(p->spec); free(p->perm); free(p->gh);
}

static int cell_coord(const dpd *m, int k, double xk) {
  if (m->nc[k] == 1) return 0;
  double c = floor((xk - m->lo[k]) / m->len[k] * m->nc[k]); /* clamped before the cast */
  return !(c >= 0) ? 0 : c >= m->nc[k] ? m->nc[k] - 1 : (int)c;
}

static inline double wrap1(const dpd *m, int k, double x) {
  if (!m->periodic[k]) return x;
  double y = x - m->lo[k];
  if (y < 0 || y >= m->len[k]) {
    y -= m->len[k] * floor(y / m->len[k]);
    if (y >= m->len[k] || y < 0) y = 0;
  }
  return m->lo[k] + y;
}

/* Colour of a cell coordinate along a column axis: c mod 3, and on a periodic ring whose length
   is not a multiple of 3, extra colours 3, 4 for the last one or two cells. */
static int axis_colour(int c, int n, int periodic) {
  if (n < 3) return c; /* one colour per cell (axis_colours); the rule below gave 3 or 4 for
                          n = 2, beyond the colours counted, and those columns were skipped */
  int base = 3 * (n / 3);
  if (!periodic || c < base) return c % 3;
  return 3 + (c - base);
}

static int axis_colours(int n, int periodic) {
  if (n < 3) return n;
  return periodic ? 3 + n % 3 : 3;
}

void agglo_dpd_wrap_y(dpd *m, size_t i, double lo_y) {
  parts *p = &m->p;
  double xs[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, vs[3] = {p->v[0][i], 0, 0};
  const double ny = agglo_shear_wrap_y(&m->le, lo_y, xs, vs);
  if (ny != 0) {
    p->x[0][i] = xs[0], p->x[1][i] = xs[1], p->v[0][i] = vs[0];
    p->t[0][i] -= ny * m->le.dvx;
  }
}

/* Wrap positions, then sort every per-particle array by cell (stable counting sort), leaving out
   the particles flagged AGGLO_DPD_DROP. */
void agglo_dpd_sort(dpd *m) {
  size_t n = m->n, nc = m->ncells;
  parts *p = &m->p, *q = &m->q;
#pragma omp parallel for schedule(static) if (m->n >= PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    if (m->shear) agglo_dpd_wrap_y(m, i, m->lo[1]); /* Lees-Edwards: through a y face */
    double x0 = wrap1(m, 0, p->x[0][i]), x1 = wrap1(m, 1, p->x[1][i]), x2 = wrap1(m, 2, p->x[2][i]);
    p->x[0][i] = x0, p->x[1][i] = x1, p->x[2][i] = x2;
    m->cell_of[i] = p->gh[i] == AGGLO_DPD_DROP
                        ? -1
                        : (int32_t)(((size_t)cell_coord(m, 2, x2) * m->nc[1] + cell_coord(m, 1, x1)) *
                                        m->nc[0] + cell_coord(m, 0, x0));
  }
  memset(m->cell_start, 0, (nc + 1) * sizeof *m->cell_start);
  m->nghosts = 0;
  for (size_t i = 0; i < n; i++) {
    m->cell_start[m->cell_of[i] + 1] += m->cell_of[i] >= 0;
    m->nghosts += p->gh[i] == 1;
  }
  for (size_t c = 0; c < nc; c++) m->cell_start[c + 1] += m->cell_start[c];
  memcpy(m->fill, m->cell_start, nc * sizeof *m->fill);
  for (size_t i = 0; i < n; i++)
    if (m->cell_of[i] >= 0) m->order[m->fill[m->cell_of[i]]++] = i;
  n = m->n = m->cell_start[nc]; /* the dropped particles leave here */
  /* within a cell, by id: the order (hence the summation order of the forces) is a function of
     the state only, not of its history, so that a restart continues bitwise */
#pragma omp parallel for schedule(static, 64) if (m->n >= PAR_MIN)
  for (size_t c = 0; c < nc; c++)
    for (size_t a = m->cell_start[c] + 1; a < m->cell_start[c + 1]; a++) {
      size_t o = m->order[a], b = a;
      while (b > m->cell_start[c] && p->id[m->order[b - 1]] > p->id[o]) m->order[b] = m->order[b - 1], b--;
      m->order[b] = o;
    }
#pragma omp parallel for schedule(static) if (m->n >= PAR_MIN)
  for (size_t k = 0; k < n; k++) {
    size_t i = m->order[k];
    for (int d = 0; d < 3; d++) {
      q->x[d][k] = p->x[d][i];
      q->v[d][k] = p->v[d][i];
      q->t[d][k] = p->t[d][i];
    }
    q->r[k] = p->r[i];
    q->im[k] = p->im[i];
    q->id[k] = p->id[i];
    q->spec[k] = p->spec[i];
    q->perm[k] = p->perm[i];
    q->gh[k] = p->gh[i];
  }
  parts tmp = *p;
  *p = *q;
  *q = tmp;
}

/* ---------------------------------------------------------------- forces */

typedef struct {
  double min_gap;
  size_t in_range;
  struct bond_buf *bb; /* this thread's list of bridged pairs */
} force_stats;

static void bond_push(struct bond_buf *b, uint64_t k) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    uint64_t *q = realloc(b->k, cap * sizeof *q);
    if (!q) {
      b->oom = 1;
      return;
    }
    b->k = q, b->cap = cap;
  }
  b->k[b->n++] = k;
}

/* At most this many neighbour cells of a cell: 26, or under Lees-Edwards shear 3 x (5 + 3 + 5)
   when both y neighbours lie across a y face (the row of cells there is shifted along x). */
#define NBR_MAX 39

/* Under shear, the cells of the row across a y face (sign = +1: across the upper face, whose
   image is shifted by +offset) that can hold a partner of cell cx: the cells cx + delta whose
   shifted span meets [cx w - rc, (cx + 1) w + rc], i.e. -w - rc < delta w + sign offset < w + rc
   (w the cell width). The test seen from the other face (delta -> -delta, sign -> -sign) is the
   same numbers negated, so the relation is symmetric, as the "higher index" rule needs. Returns
   the number of deltas (at most 5). */
static int shear_row_deltas(const dpd *m, int sign, int delta[5]) {
  const double w = m->len[0] / m->nc[0], reach = w + m->rc + 1e-9 * m->len[0];
  const double off = sign > 0 ? m->le.offset : -m->le.offset;
  int nd = 0;
  for (int d = (int)floor((-reach - off) / w) - 1; d <= (int)ceil((reach - off) / w) + 1 && nd < 5; d++) {
    const double g = d * w + off;
    if (-reach < g && g < reach) delta[nd++] = d;
  }
  return nd;
}

/* The neighbour cells of higher index than cell c = (cx, cy, cz), as merged ranges of cell
   indices [a, b). Returns the number of ranges (at most NBR_MAX). */
static int upper_neighbours(const dpd *m, int cx, int cy, int cz, size_t c, size_t ra[NBR_MAX],
                            size_t rb[NBR_MAX], int skip_across) {
  size_t cells[NBR_MAX];
  int nn = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++) {
      int dxs[5] = {-1, 0, 1}, ndx = 3;
      const int across = cy + dy < 0 ? -1 : cy + dy >= m->nc[1] ? 1 : 0;
      if (m->shear && across && skip_across) continue;
      if (m->shear && across) ndx = shear_row_deltas(m, across, dxs);
      for (int t = 0; t < ndx; t++) {
        const int dx = dxs[t];
        int cc[3] = {cx + dx, cy + dy, cz + dz}, skip = 0;
        for (int k = 0; k < 3; k++) {
          if (cc[k] >= 0 && cc[k] < m->nc[k]) continue;
          if (!m->periodic[k]) skip = 1;
          else cc[k] = ((cc[k] % m->nc[k]) + m->nc[k]) % m->nc[k];
        }
        if (skip) continue;
        size_t q = ((size_t)cc[2] * m->nc[1] + cc[1]) * m->nc[0] + cc[0];
        if (q <= c) continue;
        int dup = 0;
        for (int t = 0; t < nn; t++) dup |= cells[t] == q;
        if (dup) continue;
        int u = nn++; /* insertion, ascending */
        while (u > 0 && cells[u - 1] > q) cells[u] = cells[u - 1], u--;
        cells[u] = q;
      }
    }
  int nr = 0;
  for (int t = 0; t < nn; t++) { /* (under shear a range stays within a row of cells: cell_pairs) */
    if (nr > 0 && rb[nr - 1] == cells[t] && !(m->shear && cells[t] % (size_t)m->nc[0] == 0)) rb[nr - 1]++;
    else ra[nr] = cells[t], rb[nr] = cells[t] + 1, nr++;
  }
  return nr;
}

/* upper_neighbours of every cell of the row (cy, cz): inside the row (0 < cx < nc0 - 1) nothing
   wraps along x, so a cell's ranges are those of cell cx = 1 shifted by cx - 1 (the same cells,
   order and merges); only the two ends and cell 1 are computed (the search per cell was a fifth
   of the force evaluation). Under shear, in a row next to a y face the row across the face is
   shifted along x by the offset, not by whole cells: its cells are cx + delta for the deltas of
   shear_row_deltas (the same for every cx of the row), added to the ranges of the other rows
   (found as above); with fewer than 3 rows of cells, where a row is both across and next to
   another, every cell is searched by upper_neighbours. */
typedef struct {
  int cy, cz, nr[3], per_cell;
  size_t ra[3][NBR_MAX], rb[3][NBR_MAX];
  int le_rows, le_nd, le_d[5]; /* under shear: the rows across a y face (le_row: their first cell) */
  size_t le_row[3];
} row_neighbours;

static void row_neighbours_of(const dpd *m, int cy, int cz, row_neighbours *rn) {
  const int n0 = m->nc[0];
  const size_t row = ((size_t)cz * m->nc[1] + cy) * n0;
  rn->cy = cy, rn->cz = cz, rn->le_rows = 0;
  rn->per_cell = m->shear && m->nc[1] < 3;
  if (rn->per_cell) return;
  const int across = !m->shear ? 0 : cy == 0 ? -1 : cy == m->nc[1] - 1 ? 1 : 0;
  for (int k = 0; k < 3; k++) {
    const int cx = k == 0 ? 0 : k == 1 ? 1 : n0 - 1;
    rn->nr[k] = cx < n0 && (k != 1 || n0 >= 3) && (k != 2 || n0 >= 2)
                    ? upper_neighbours(m, cx, cy, cz, row + cx, rn->ra[k], rn->rb[k], across != 0)
                    : 0;
  }
  if (!across) return;
  rn->le_nd = shear_row_deltas(m, across, rn->le_d);
  const int cy_a = across > 0 ? 0 : m->nc[1] - 1;
  for (int dz = -1; dz <= 1; dz++) { /* the distinct rows of z, as upper_neighbours finds them */
    int z = cz + dz;
    if (z < 0 || z >= m->nc[2]) {
      if (!m->periodic[2]) continue;
      z = (z + m->nc[2]) % m->nc[2];
    }
    const size_t first = ((size_t)z * m->nc[1] + cy_a) * n0;
    int dup = 0;
    for (int r = 0; r < rn->le_rows; r++) dup |= rn->le_row[r] == first;
    if (!dup) rn->le_row[rn->le_rows++] = first;
  }
}

/* The upper neighbour ranges of cell cx of the row, as upper_neighbours gives them; returns
   their number. */
static inline int cell_neighbours(const dpd *m, const row_neighbours *rn, int cx, size_t ra[NBR_MAX],
                                  size_t rb[NBR_MAX]) {
  const int n0 = m->nc[0];
  const size_t c = ((size_t)rn->cz * m->nc[1] + rn->cy) * n0 + cx;
  if (rn->per_cell) return upper_neighbours(m, cx, rn->cy, rn->cz, c, ra, rb, 0);
  const int k = cx == 0 ? 0 : cx == n0 - 1 ? 2 : 1;
  const size_t shift = k == 1 ? (size_t)cx - 1 : 0;
  int nr = rn->nr[k];
  for (int t = 0; t < nr; t++) ra[t] = rn->ra[k][t] + shift, rb[t] = rn->rb[k][t] + shift;
  for (int r = 0; r < rn->le_rows; r++) { /* the row across the face: its cells above c, merged */
    size_t cells[5];
    int nn = 0;
    for (int t = 0; t < rn->le_nd; t++) {
      const size_t q = rn->le_row[r] + (size_t)(((cx + rn->le_d[t]) % n0 + n0) % n0);
      int dup = q <= c;
      for (int u = 0; u < nn; u++) dup |= cells[u] == q;
      if (dup) continue;
      int u = nn++;
      while (u > 0 && cells[u - 1] > q) cells[u] = cells[u - 1], u--;
      cells[u] = q;
    }
    for (int t = 0; t < nn; t++) {
      if (t > 0 && rb[nr - 1] == cells[t]) rb[nr - 1]++;
      else ra[nr] = cells[t], rb[nr] = cells[t] + 1, nr++;
    }
  }
  return nr;
}

#define CHUNK 64

/* x rounded as computed: a product x is not fused into the sums that use it (gcc's default
   -ffp-contract=fast fuses across statements, differently in each variant of the pair loop;
   compilers without the barrier fuse at most within one expression). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_assoc_barrier)
#define ROUNDED(x) __builtin_assoc_barrier(x)
#endif
#endif
#ifndef ROUNDED
#define ROUNDED(x) (x)
#endif

/* FUSED: where a sum of products leaves gcc a choice of which product to fuse (its default
   -ffp-contract=fast), it chose differently in the vectorised loop and in the scalar one; the
   vectorised loop spells the scalar loop's choice out with fma(), so that both round alike (and
   as the loop did before it was vectorised: outputs byte-identical). */

/* A bridge: formed on contact, kept below the rupture distance (held: the pair held one at the
   previous evaluation). */
static inline int bridged(const dpd *m, int q, int held, double ri, double rj, double gap) {
  return gap <= 0 || (held && gap < m->rupt_k[q] * 2 * ri * rj / (ri + rj));
}

/* The modes of the pair loop. The loop (cell_forces) is written once; each variant of it
   (kernels[] below) passes the modes as constants, so that the compiler drops the tests and the
   code of the other modes from its innermost loop. The variant is chosen once per force
   evaluation (kernel_of). */
enum {
  LAW_GW,     /* a w on every pair (groot_warren or none everywhere): the fluid's fast path */
  LAW_PAIR,   /* each pair its own law (dpd_pair_forces.c); the smallest gap is tracked */
  LAW_BRIDGES /* LAW_PAIR, with a capillary pair's force only while it holds a bridge */
};
typedef struct {
  int law;      /* LAW_* */
  int thermo;   /* DPD_THERMO_*: the pair thermostat, central (dpd), also transverse, or none */
  int ghosts;   /* some particles are ghosts (mpi/dpd_domain.c) */
  int multi_rc; /* the species pairs have different cut-offs (dpd.rc_ij; read at run time) */
  int gaussian; /* Gaussian pair random numbers, else uniform (dpd.noise; read at run time) */
  int simd;     /* the loop over pairs is vectorised (FUSED) */
  int shear;    /* Lees-Edwards images across the y faces (dpd_shear.h; no ghosts) */
} pair_mode;

/* The friction of the hard core on a pair of another law than groot_warren (or none) at gap
   `gap`: on the core (gap < 0) its dashpot 2 zeta sqrt(core_k mu), mu the pair's reduced mass,
   else 0. */
static inline double core_dashpot(const dpd *m, size_t i, size_t j, double gap) {
  return gap < 0 ? m->core_gamma / sqrt(m->p.im[i] + m->p.im[j]) : 0;
}

/* The conservative force F(r) of pair (i, j) of species pair q, weight w, under `law`: the
   Groot-Warren a w where the pair's law is groot_warren or none, else the pair's law
   (dpd_pair_forces.c); under LAW_BRIDGES a capillary pair's only while it holds a bridge, then
   listed in bb for the next evaluation. */
static inline __attribute__((always_inline)) double conservative(const dpd *m, int law, int q, size_t i,
                                                                size_t j, double r, double w,
                                                                double *min_gap, struct bond_buf *bb,
                                                                double *gb) {
  if (law == LAW_GW) return agglo_groot_warren(m->a[q], m->rcp[q], w, NULL);
  const parts *p = &m->p;
  const double ri = p->r[i], rj = p->r[j], gap = r - ri - rj;
  if (gap < *min_gap) *min_gap = gap;
  if (m->pgw[q]) return agglo_groot_warren(m->a[q], m->rcp[q], w, NULL);
  if (law == LAW_BRIDGES && m->pp[q].kind == AGGLO_PF_CAPILLARY) {
    const uint64_t key = agglo_bond_key(p->id[i], p->id[j]);
    const int held = agglo_bond_set_has(&m->bonds, key);
    if (!bridged(m, q, held, ri, rj, gap)) return 0;
    bond_push(bb, key);
    bb->formed += !held && !p->gh[p->id[i] < p->id[j] ? i : j]; /* (by the lower id's rank) */
  }
  *gb = core_dashpot(m, i, j, gap);
  return agglo_pair_force(&m->pp[q], r, ri, rj, NULL);
}

/* The force F_out on i (-F_out on j) of pair (i, j) of species pair q along e, with the
   conservative force F, weight w and ev = e.(v~_i - v~_j), under the pair thermostat `thermo`
   of step `step`: F e plus the central dissipative and random forces
   w (sigma zeta / sqrt(dt) - gamma w ev) e (dpd, transverse), plus the transverse ones
   w P (sigma_p z / sqrt(dt) - gamma_p w v_ij), P = 1 - e e^T, v_ij = dv (transverse); langevin
   has none here (forces() adds its own to every particle). A pair on the hard core (gb > 0, the
   core's dashpot) has the central friction gamma w^2 + gb and the random force
   sqrt(2 kT (gamma w^2 + gb)) zeta / sqrt(dt), under every thermostat. The one law of the pair
   thermostat: the integrator's forces (part = THERMO_ALL) and the pressure tensor's random and
   dissipative parts (thermostat_virial: THERMO_RANDOM, the friction left out, and
   THERMO_FRICTION, the noise left out). */
enum { THERMO_ALL, THERMO_RANDOM, THERMO_FRICTION };
static inline __attribute__((always_inline)) void thermostat(const dpd *m, const pair_mode md,
                                                            uint64_t step, int q, uint32_t idi,
                                                            uint32_t idj, double F, double w,
                                                            const double e[3], double ev, double gb,
                                                            const double dv[3], const int part,
                                                            double F_out[3]) {
  const int thermo = md.thermo, gaussian = md.gaussian;
  double z[3] = {0, 0, 0};
  if (part == THERMO_RANDOM) ev = 0;
  if (thermo != DPD_THERMO_LANGEVIN || gb > 0) {
    double zeta = thermo == DPD_THERMO_TRANSVERSE
                      ? pair_zeta4(m->seed, step, idi, idj, gaussian, z)
                      : pair_zeta(m->seed, step, idi, idj, gaussian);
    if (part == THERMO_FRICTION) zeta = 0, z[0] = z[1] = z[2] = 0;
    if (gb > 0) {
      const double g = m->gam[q] * w * w + gb; /* (langevin: gam = 0) */
      F += sqrt(2 * m->kT * g) * zeta * m->inv_sqrt_dt - g * ev;
    } else {
      if (md.simd) /* FUSED */
        F = fma(w, fma(m->sig[q] * zeta, m->inv_sqrt_dt, -(m->gam[q] * w * ev)), F);
      else
        F += w * (m->sig[q] * zeta * m->inv_sqrt_dt - m->gam[q] * w * ev);
    }
  }
  F_out[0] = F * e[0], F_out[1] = F * e[1], F_out[2] = F * e[2];
  if (thermo != DPD_THERMO_TRANSVERSE) return;
  /* w P (sigma_p zeta3 / sqrt(dt) - gamma_p w v_ij), P a = a - e (e.a); v_ij after the first
     half kick, not predicted: with v~ (lambda = 0.65) the Groot-Warren fluid ran 2.0 % cold,
     with it 0.9 % */
  if (m->dim == 2) z[2] = 0;
  const double sz = (idi < idj ? 1 : -1) * m->sig_t[q] * m->inv_sqrt_dt, gd = m->gam_t[q] * w;
  const double a0 = sz * z[0] - gd * (part == THERMO_RANDOM ? 0 : dv[0]);
  const double a1 = sz * z[1] - gd * (part == THERMO_RANDOM ? 0 : dv[1]);
  const double a2 = sz * z[2] - gd * (part == THERMO_RANDOM ? 0 : dv[2]);
  const double ea = e[0] * a0 + e[1] * a1 + e[2] * a2;
  F_out[0] += w * (a0 - ea * e[0]), F_out[1] += w * (a1 - ea * e[1]), F_out[2] += w * (a2 - ea * e[2]);
}

/* The pairs in range of a column, found cell by cell (cell_pairs) and held until BATCH - CHUNK
   of them wait; then their forces are computed together (pair_force, vectorised in the fluid's
   mode: the gathers and the Philox draws of 8 pairs at once) and added to the particles in the
   order they were found (batch_flush), the order of the loop over pairs of one particle i at a
   time: the same sums, bit for bit, as adding each pair's force as it is found. (A particle
   without pairs adds nothing: its sum would be +0, and f, built from +0 by sums, is never -0.) */
#define BATCH 512
typedef struct {
  size_t n;                /* pairs waiting */
  size_t i[BATCH], j[BATCH];
  int32_t q[BATCH];        /* species pair */
  uint32_t idi[BATCH], idj[BATCH];
  double r2[BATCH], F[3][BATCH];
  int32_t keep[BATCH];     /* 0: the pair adds no force (beyond its cut-off, two ghosts) */
  size_t row;              /* the particle i whose sum fi is open (SIZE_MAX: none) */
  double fi[3];
} pair_batch;

/* The force of the batch's pair k into b->F[.][k]; b->keep[k] = 0 when it has none. */
static inline __attribute__((always_inline)) void pair_force(dpd *m, uint64_t step, force_stats *st,
                                                            pair_batch *b, size_t k,
                                                            const pair_mode md) {
  const parts *p = &m->p;
  const size_t i = b->i[k], j = b->j[k];
  double d[3] = {p->x[0][i] - p->x[0][j], p->x[1][i] - p->x[1][j], p->x[2][i] - p->x[2][j]};
  /* the (Lees-Edwards) minimum image; under shear dvs, the x velocity of j's image less j's */
  const double dvs = agglo_le_delta_of(d, m->plen, m->pinv, m->le.offset, md.shear) * m->le.dvx;
  const double r = sqrt(b->r2[k]), inv_r = 1.0 / r;
  const double e[3] = {d[0] * inv_r, d[1] * inv_r, d[2] * inv_r};
  const uint32_t idi = b->idi[k], idj = b->idj[k];
  const int q = b->q[k];
  const int ghi = md.ghosts ? p->gh[i] : 0, ghj = md.ghosts ? p->gh[j] : 0;
  b->keep[k] = 0;
  if (ghi | ghj) { /* a ghost's pair: counted by the rank of the lower id */
    st->in_range -= !ghi && idi > idj;
    st->in_range += ghi && !ghj && idj < idi;
  }
  if (md.multi_rc && !(r < m->rcp[q])) return; /* beyond this species pair's cut-off */
  if (ghi & ghj) {
    /* two ghosts: their ranks compute the force; this rank only keeps their bridge, in case one
       of them migrates here (docs/parallel.md) */
    if (md.law == LAW_BRIDGES && m->pp[q].kind == AGGLO_PF_CAPILLARY &&
        bridged(m, q, agglo_bond_set_has(&m->bonds, agglo_bond_key(idi, idj)), p->r[i], p->r[j],
                r - p->r[i] - p->r[j]))
      bond_push(st->bb, agglo_bond_key(idi, idj));
    return;
  }
  const double w = 1.0 - r * m->inv_rcp[q];
  const double dv0 = md.shear ? p->t[0][i] - p->t[0][j] - dvs : p->t[0][i] - p->t[0][j], dv1 = p->t[1][i] - p->t[1][j], dv2 = p->t[2][i] - p->t[2][j];
  const double ev = md.simd ? fma(e[2], dv2, fma(e[0], dv0, e[1] * dv1)) /* FUSED */
                            : e[0] * dv0 + e[1] * dv1 + e[2] * dv2;
  double gb = 0, F[3];
  const double Fc = conservative(m, md.law, q, i, j, r, w, &st->min_gap, st->bb, &gb);
  const double *restrict v0 = p->v[0], *restrict v1 = p->v[1], *restrict v2 = p->v[2];
  const double vij[3] = {md.shear ? v0[i] - v0[j] - dvs : v0[i] - v0[j], v1[i] - v1[j], v2[i] - v2[j]};
  thermostat(m, md, step, q, idi, idj, Fc, w, e, ev, gb, vij, THERMO_ALL, F);
  /* one rounded force on i and its opposite on j (momentum conserved to round-off) */
  b->F[0][k] = ROUNDED(F[0]), b->F[1][k] = ROUNDED(F[1]), b->F[2][k] = ROUNDED(F[2]);
  b->keep[k] = 1;
}

/* The open sum of particle b->row into its force. */
static inline void row_close(dpd *m, pair_batch *b) {
  if (b->row == SIZE_MAX) return;
  m->f[0][b->row] += b->fi[0], m->f[1][b->row] += b->fi[1], m->f[2][b->row] += b->fi[2];
  b->row = SIZE_MAX;
}

/* The forces of the waiting pairs, then added in their order: +F to the sum of i (closed into
   f_i when the next pair has another i), -F to f_j. */
static inline __attribute__((always_inline)) void batch_flush(dpd *m, uint64_t step, force_stats *st,
                                                             pair_batch *b, const pair_mode md) {
  if (md.law == LAW_GW && !md.ghosts && md.thermo == DPD_THERMO_DPD && !md.multi_rc && !md.gaussian) {
    /* the fluid: no side effects, no branches, no calls -- vectorised */
    const pair_mode fluid = {LAW_GW, DPD_THERMO_DPD, 0, 0, 0, 1, md.shear};
#pragma omp simd
    for (size_t k = 0; k < b->n; k++) pair_force(m, step, st, b, k, fluid);
  } else {
    for (size_t k = 0; k < b->n; k++) pair_force(m, step, st, b, k, md);
  }
  double *restrict f0 = m->f[0], *restrict f1 = m->f[1], *restrict f2 = m->f[2];
  for (size_t k = 0; k < b->n; k++) {
    if (b->i[k] != b->row) {
      row_close(m, b);
      b->row = b->i[k], b->fi[0] = b->fi[1] = b->fi[2] = 0;
    }
    if (!b->keep[k]) continue;
    const size_t j = b->j[k];
    b->fi[0] += b->F[0][k], b->fi[1] += b->F[1][k], b->fi[2] += b->F[2][k];
    f0[j] -= b->F[0][k], f1[j] -= b->F[1][k], f2[j] -= b->F[2][k];
  }
  b->n = 0;
}

/* The candidates k < len (len <= CHUNK) at x0[k], x1[k], x2[k] within the cut-off of the
   particle at xi, appended to the batch (their index jj[k], or j0 + k if jj is NULL, and r2; at
   most CHUNK: the batch keeps room); returns their number. */
static inline __attribute__((always_inline)) size_t candidates_in_range(const dpd *m, const double xi[3],
                                                                       const double *restrict x0,
                                                                       const double *restrict x1,
                                                                       const double *restrict x2,
                                                                       const size_t *restrict jj,
                                                                       size_t j0, size_t len,
                                                                       pair_batch *b, const int shear) {
  const double rc2 = m->rc * m->rc;
  size_t n = b->n;
#if defined(__AVX512F__)
  /* 8 candidates at a time, those in range compressed into the list: the arithmetic of the
     loop below as gcc vectorises it (FUSED: r2 = d2 d2 + (d0 d0 + d1 d1), fused), i.e.
     agglo_le_delta_of (core/system.h) spelled in AVX-512 intrinsics for the compress store: a
     change to that law is made there and here (test_dpd_shear's forces_are_the_direct_sum and
     the same bytes with and without AVX-512 check both) */
  const __m512d X0 = _mm512_set1_pd(xi[0]), X1 = _mm512_set1_pd(xi[1]), X2 = _mm512_set1_pd(xi[2]);
  const __m512d L0 = _mm512_set1_pd(m->plen[0]), L1 = _mm512_set1_pd(m->plen[1]), L2 = _mm512_set1_pd(m->plen[2]);
  const __m512d I0 = _mm512_set1_pd(m->pinv[0]), I1 = _mm512_set1_pd(m->pinv[1]), I2 = _mm512_set1_pd(m->pinv[2]);
  const __m512d R2 = _mm512_set1_pd(rc2), zero = _mm512_setzero_pd();
  const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  for (size_t k = 0; k < len; k += 8) {
    const __mmask8 live = len - k >= 8 ? 0xff : (__mmask8)((1u << (len - k)) - 1);
    __m512d d0 = _mm512_sub_pd(X0, _mm512_maskz_loadu_pd(live, x0 + k));
    __m512d d1 = _mm512_sub_pd(X1, _mm512_maskz_loadu_pd(live, x1 + k));
    __m512d d2 = _mm512_sub_pd(X2, _mm512_maskz_loadu_pd(live, x2 + k));
    if (shear) { /* Lees-Edwards: y first, x shifted by the images crossed */
      const __m512d ny = _mm512_roundscale_pd(_mm512_mul_pd(d1, I1), _MM_FROUND_CUR_DIRECTION);
      d1 = _mm512_fnmadd_pd(ny, L1, d1);
      d0 = _mm512_fnmadd_pd(ny, _mm512_set1_pd(m->le.offset), d0);
    }
    d0 = _mm512_fnmadd_pd(_mm512_roundscale_pd(_mm512_mul_pd(d0, I0), _MM_FROUND_CUR_DIRECTION), L0, d0);
    if (!shear)
      d1 = _mm512_fnmadd_pd(_mm512_roundscale_pd(_mm512_mul_pd(d1, I1), _MM_FROUND_CUR_DIRECTION), L1, d1);
    d2 = _mm512_fnmadd_pd(_mm512_roundscale_pd(_mm512_mul_pd(d2, I2), _MM_FROUND_CUR_DIRECTION), L2, d2);
    const __m512d r2 = _mm512_fmadd_pd(d2, d2, _mm512_fmadd_pd(d0, d0, _mm512_mul_pd(d1, d1)));
    const __mmask8 hit = _mm512_mask_cmp_pd_mask(live, r2, R2, _CMP_LT_OQ) &
                         _mm512_cmp_pd_mask(r2, zero, _CMP_GT_OQ);
    const __m512i j = jj ? _mm512_maskz_loadu_epi64(live, jj + k)
                         : _mm512_add_epi64(_mm512_set1_epi64((long long)(j0 + k)), iota);
    _mm512_storeu_si512(b->j + n, _mm512_maskz_compress_epi64(hit, j));
    _mm512_storeu_pd(b->r2 + n, _mm512_maskz_compress_pd(hit, r2));
    n += (size_t)__builtin_popcount(hit);
  }
#else
  double r2c[CHUNK];
#pragma omp simd
  for (size_t k = 0; k < len; k++) {
    double d[3] = {xi[0] - x0[k], xi[1] - x1[k], xi[2] - x2[k]};
    agglo_le_delta_of(d, m->plen, m->pinv, m->le.offset, shear); /* (Lees-Edwards) minimum image */
    r2c[k] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  }
  for (size_t k = 0; k < len; k++) { /* without a branch: in range or not is a coin toss */
    b->j[n] = jj ? jj[k] : j0 + k, b->r2[n] = r2c[k];
    n += (r2c[k] < rc2) & (r2c[k] > 0);
  }
#endif
  return n - b->n;
}

/* The candidates of one cell: its particles, then those of its upper neighbour cells, copied
   together so that the distance tests of a particle run over full vectors (up to CELL_CAP). */
#define CELL_CAP 512
typedef struct {
  double x[3][CELL_CAP];
  size_t j[CELL_CAP];
} cell_candidates;

/* The pairs in range of particle i at xi among the candidates k < len, into the batch. */
static inline __attribute__((always_inline)) void row_pairs(dpd *m, size_t i, const double xi[3],
                                                           const double *x0, const double *x1,
                                                           const double *x2, const size_t *jj,
                                                           size_t j0, size_t len, uint64_t step,
                                                           force_stats *st, pair_batch *b,
                                                           const pair_mode md, const int le_test) {
  const parts *p = &m->p;
  const int ghi = md.ghosts ? p->gh[i] : 0, si = p->spec[i] * m->nspec;
  for (size_t k = 0; k < len; k += CHUNK) {
    const size_t n0 = b->n, l = len - k < CHUNK ? len - k : CHUNK;
    const size_t n = n0 + candidates_in_range(m, xi, x0 + k, x1 + k, x2 + k, jj ? jj + k : NULL, j0 + k, l, b, le_test);
    for (size_t h = n0; h < n; h++)
      b->i[h] = i, b->q[h] = si + p->spec[b->j[h]], b->idi[h] = p->id[i], b->idj[h] = p->id[b->j[h]];
    b->n = n;
    if (!ghi) st->in_range += n - n0;
    if (n > BATCH - CHUNK) batch_flush(m, step, st, b, md);
  }
}

/* All pairs (i in cell c, j > i in c or in an upper neighbour cell) into the batch, in the
   order: i, then j by range and index. Under shear (with 3 rows of cells or more) the candidates
   of a range in the row across a y face are copied as their images (x +- offset, y +- L_y), so
   that their distance test is the plain periodic one: the Lees-Edwards arithmetic is paid per
   candidate copied, not per candidate tested (the ranges do not straddle rows then). */
static inline __attribute__((always_inline)) void cell_pairs(dpd *m, const row_neighbours *rn, int cx,
                                                            uint64_t step, force_stats *st,
                                                            pair_batch *b, cell_candidates *cc,
                                                            const pair_mode md) {
  size_t c = ((size_t)rn->cz * m->nc[1] + rn->cy) * m->nc[0] + cx;
  size_t i0 = m->cell_start[c], i1 = m->cell_start[c + 1];
  if (i0 == i1) return;
  size_t ra[NBR_MAX + 1], rb[NBR_MAX + 1], total = i1 - i0;
  int nr = cell_neighbours(m, rn, cx, ra + 1, rb + 1) + 1;
  int8_t across[NBR_MAX + 1] = {0}; /* under shear: the range's row is across the upper (+1) or
                                       lower (-1) y face */
  const int le_copy = md.shear && m->nc[1] >= 3;
  ra[0] = i0, rb[0] = i1;
  for (int t = 1; t < nr; t++) {
    if (le_copy) {
      const int row = (int)((ra[t] / (size_t)m->nc[0]) % (size_t)m->nc[1]);
      across[t] = rn->cy == m->nc[1] - 1 && row == 0 ? 1 : rn->cy == 0 && row == m->nc[1] - 1 ? -1 : 0;
    }
    ra[t] = m->cell_start[ra[t]], rb[t] = m->cell_start[rb[t]], total += rb[t] - ra[t];
  }
  const parts *p = &m->p;
  if (total <= CELL_CAP) {
    size_t k = 0;
    for (int t = 0; t < nr; t++) {
      const size_t len = rb[t] - ra[t];
      const size_t a = ra[t]; /* (a few elements: a loop, not memcpy calls) */
#pragma omp simd
      for (size_t u = 0; u < len; u++)
        cc->x[0][k + u] = p->x[0][a + u], cc->x[1][k + u] = p->x[1][a + u],
        cc->x[2][k + u] = p->x[2][a + u], cc->j[k + u] = a + u;
      if (le_copy && across[t]) /* the images across the face */
        for (size_t u = 0; u < len; u++)
          cc->x[0][k + u] += across[t] * m->le.offset, cc->x[1][k + u] += across[t] * m->len[1];
      k += len;
    }
    for (size_t i = i0, k = 1; i < i1; i++, k++) {
      const double xi[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
      row_pairs(m, i, xi, cc->x[0] + k, cc->x[1] + k, cc->x[2] + k, cc->j + k, 0, total - k, step,
                st, b, md, md.shear && !le_copy);
    }
    return;
  }
  for (size_t i = i0; i < i1; i++) { /* a crowded cell: range by range */
    const double xi[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
    ra[0] = i + 1;
    for (int t = 0; t < nr; t++)
      row_pairs(m, i, xi, p->x[0] + ra[t], p->x[1] + ra[t], p->x[2] + ra[t], NULL, ra[t],
                rb[t] - ra[t], step, st, b, md, md.shear);
  }
}

/* The pairs of the cells of column col = (cy, cz), in mode md. */
static inline __attribute__((always_inline)) void column_forces(dpd *m, int col, uint64_t step,
                                                               force_stats *st, const pair_mode md) {
  row_neighbours rn;
  row_neighbours_of(m, col % m->nc[1], col / m->nc[1], &rn);
  pair_batch b;
  b.n = 0, b.row = SIZE_MAX, b.fi[0] = b.fi[1] = b.fi[2] = 0;
  cell_candidates cc;
  for (int cx = 0; cx < m->nc[0]; cx++) cell_pairs(m, &rn, cx, step, st, &b, &cc, md);
  batch_flush(m, step, st, &b, md);
  row_close(m, &b);
}

/* The variants: column_forces in one mode each. */
typedef void (*column_kernel)(dpd *m, int col, uint64_t step, force_stats *st);
#define VARIANT(name, law, thermo, ghosts, shear)                                               \
  static void name(dpd *m, int col, uint64_t step, force_stats *st) {                           \
    column_forces(m, col, step, st, (pair_mode){law, thermo, ghosts, m->multi_rc, m->gaussian, 0, shear}); \
  }
#define VARIANTS(name, law, thermo)                                                             \
  VARIANT(name, law, thermo, 0, 0) VARIANT(name##_ghosts, law, thermo, 1, 0)                    \
  VARIANT(name##_shear, law, thermo, 0, 1)
VARIANTS(gw_dpd, LAW_GW, DPD_THERMO_DPD)
VARIANTS(gw_transverse, LAW_GW, DPD_THERMO_TRANSVERSE)
VARIANTS(gw_langevin, LAW_GW, DPD_THERMO_LANGEVIN)
VARIANTS(pair_dpd, LAW_PAIR, DPD_THERMO_DPD)
VARIANTS(pair_transverse, LAW_PAIR, DPD_THERMO_TRANSVERSE)
VARIANTS(pair_langevin, LAW_PAIR, DPD_THERMO_LANGEVIN)
VARIANTS(bridges_dpd, LAW_BRIDGES, DPD_THERMO_DPD)
VARIANTS(bridges_transverse, LAW_BRIDGES, DPD_THERMO_TRANSVERSE)
VARIANTS(bridges_langevin, LAW_BRIDGES, DPD_THERMO_LANGEVIN)
static const column_kernel kernels[3][3][3] = { /* [law][thermostat][ghosts, or 2: shear] */
    [LAW_GW] = {[DPD_THERMO_DPD] = {gw_dpd, gw_dpd_ghosts, gw_dpd_shear},
                [DPD_THERMO_TRANSVERSE] = {gw_transverse, gw_transverse_ghosts, gw_transverse_shear},
                [DPD_THERMO_LANGEVIN] = {gw_langevin, gw_langevin_ghosts, gw_langevin_shear}},
    [LAW_PAIR] = {[DPD_THERMO_DPD] = {pair_dpd, pair_dpd_ghosts, pair_dpd_shear},
                  [DPD_THERMO_TRANSVERSE] = {pair_transverse, pair_transverse_ghosts, pair_transverse_shear},
                  [DPD_THERMO_LANGEVIN] = {pair_langevin, pair_langevin_ghosts, pair_langevin_shear}},
    [LAW_BRIDGES] = {[DPD_THERMO_DPD] = {bridges_dpd, bridges_dpd_ghosts, bridges_dpd_shear},
                     [DPD_THERMO_TRANSVERSE] = {bridges_transverse, bridges_transverse_ghosts,
                                                bridges_transverse_shear},
                     [DPD_THERMO_LANGEVIN] = {bridges_langevin, bridges_langevin_ghosts,
                                              bridges_langevin_shear}}};

/* The variant of the model's modes now. */
static column_kernel kernel_of(const dpd *m) {
  const int law = m->gw ? LAW_GW : m->bridges ? LAW_BRIDGES : LAW_PAIR;
  return kernels[law][m->thermo][m->shear ? 2 : m->nghosts > 0]; /* (shear: no ghosts; the MPI
                                                                      bricks cut y and make the images) */
}

static int cmp_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The bridges of the set that the new one (m->next) lacks: broken, counted for the pairs whose
   lower id is a particle of this model that is not a ghost (every particle outside a domain
   decomposition). 0 or -1 (memory). */
static int count_broken(dpd *m) {
  size_t nown = 0;
  m->broken_now = 0;
  for (size_t t = 0; t < m->bonds.cap; t++) {
    const uint64_t k = m->bonds.key[t];
    if (!k || agglo_bond_set_has(&m->next, k)) continue;
    if (!nown) { /* the ids of this model's own particles, once a step with a break */
      uint32_t *ids = realloc(m->own_ids, (m->n + 1) * sizeof *ids);
      if (!ids) return -1;
      m->own_ids = ids;
      for (size_t i = 0; i < m->n; i++)
        if (!m->p.gh[i]) ids[nown++] = m->p.id[i];
      qsort(ids, nown, sizeof *ids, cmp_u32);
      if (!nown) return 0;
    }
    const uint32_t lo = (uint32_t)((k - 1) >> 32);
    m->broken_now += bsearch(&lo, m->own_ids, nown, sizeof lo, cmp_u32) != NULL;
  }
  return 0;
}

/* The bridges found by the threads become the set of the next evaluation; those formed and
   broken counted. */
static int rebuild_bonds(dpd *m, int nthreads) {
  size_t total = 0;
  m->formed_now = 0;
  for (int t = 0; t < nthreads; t++) {
    if (m->bb[t].oom) return -1;
    total += m->bb[t].n, m->formed_now += m->bb[t].formed;
  }
  if (total > m->bond_all_cap) {
    uint64_t *q = realloc(m->bond_all, total * sizeof *q);
    if (!q) return -1;
    m->bond_all = q, m->bond_all_cap = total;
  }
  size_t k = 0;
  for (int t = 0; t < nthreads; t++) {
    if (!m->bb[t].n) continue; /* (empty lists may still be NULL) */
    memcpy(m->bond_all + k, m->bb[t].k, m->bb[t].n * sizeof *m->bond_all);
    k += m->bb[t].n;
  }
  if (agglo_bond_set_assign(&m->next, m->bond_all, total) != 0 || count_broken(m) != 0) return -1;
  const agglo_bond_set old = m->bonds;
  m->bonds = m->next, m->next = old;
  return 0;
}

/* f = F(x, v~) with the random numbers of step `step`. Returns 0 or -1 (memory). */
static int forces(dpd *m, uint64_t step, force_stats *out) {
  size_t n = m->n;
  double min_gap = INFINITY;
  size_t in_range = 0;
  const column_kernel kernel = kernel_of(m);
  int nthreads = m->n >= PAR_MIN ? omp_get_max_threads() : 1;
  if (nthreads > m->nbb) {
    struct bond_buf *b = realloc(m->bb, (size_t)nthreads * sizeof *b);
    if (!b) return -1;
    memset(b + m->nbb, 0, (size_t)(nthreads - m->nbb) * sizeof *b);
    m->bb = b, m->nbb = nthreads;
  }
  for (int t = 0; t < m->nbb; t++) m->bb[t].n = m->bb[t].formed = 0;
  m->force_step = step;
#pragma omp parallel reduction(min : min_gap) reduction(+ : in_range) num_threads(nthreads)
  {
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; i++) m->f[0][i] = m->f[1][i] = m->f[2][i] = 0;
    force_stats st = {INFINITY, 0, &m->bb[omp_get_thread_num()]};
    for (int colour = 0; colour < m->ncolours; colour++) {
#pragma omp for schedule(dynamic, 1)
      for (size_t k = m->colour_start[colour]; k < m->colour_start[colour + 1]; k++)
        kernel(m, m->columns[k], step, &st);
    }
    if (st.min_gap < min_gap) min_gap = st.min_gap;
    in_range += st.in_range;
    if (m->thermo == DPD_THERMO_LANGEVIN) {
      /* implicit solvent: -xi v + sqrt(2 xi kT / dt) eta on each particle */
      const double xi = m->xi, sl = m->sig_l;
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++) {
        double u[4];
        agglo_rng_uniform4(m->seed, AGGLO_STREAM_LANGEVIN, step, m->p.id[i], u);
        if (m->gaussian) {
          double r0 = sqrt(-2.0 * log(u[0])), r1 = sqrt(-2.0 * log(u[2]));
          u[0] = r0 * cos(6.283185307179586 * u[1]), u[1] = r0 * sin(6.283185307179586 * u[1]);
          u[2] = r1 * cos(6.283185307179586 * u[3]);
        } else {
          for (int k = 0; k < 3; k++) u[k] = 1.7320508075688772 * (2 * u[k] - 1);
        }
        /* friction on v + dt/2 f/m (the velocity after the first half kick), not on the
           DPD-VV prediction v~: lambda = 0.65, tuned for the pair thermostat, runs a per-particle
           friction cold (0.964 kT against 1.0006 for xi = 4.5 in the Groot-Warren fluid) */
        for (int k = 0; k < m->dim; k++) m->f[k][i] += sl * u[k] - xi * m->p.v[k][i];
        /* under shear, the friction acts on the peculiar velocity v - u(y) */
        if (m->le.rate != 0) m->f[0][i] += xi * agglo_shear_stream(&m->le, m->p.x[1][i]);
      }
    }
  }
  out->min_gap = min_gap;
  out->in_range = in_range;
  return m->bridges ? rebuild_bonds(m, m->nbb) : 0;
}

/* ---------------------------------------------------------------- model */

/* Particle i's peculiar velocity v - u(y) (v without shear). */
static inline void peculiar(const dpd *m, size_t i, double v[3]) {
  v[0] = agglo_peculiar_vx(m->p.v[0][i], m->p.x[1][i], m->le.rate, m->le.y_mid);
  v[1] = m->p.v[1][i], v[2] = m->p.v[2][i];
}

/* kT = sum m |v - v_cm|^2 / (d (N - 1)) in reduced units, summed in storage order (a function of
   the state: the same with any thread count and after a restart). */
static double temperature_now(const dpd *m) {
  double sums[6];
  agglo_dpd_kinetic_sums(m, sums);
  return agglo_dpd_temperature_of(m->dim, sums);
}


static void dpd_destroy(void *state) {
  dpd *m = state;
  if (!m) return;
  free(m->pp); free(m->a); free(m->gam); free(m->sig); free(m->gam_t); free(m->sig_t);
  free(m->rcp); free(m->inv_rcp); free(m->pgw); free(m->rupt_k);
  parts_free(&m->p);
  parts_free(&m->q);
  for (int k = 0; k < 3; k++) free(m->f[k]);
  free(m->cell_of); free(m->order); free(m->cell_start); free(m->fill); free(m->columns);
  free(m->colour_start);
  agglo_bond_set_free(&m->bonds);
  agglo_bond_set_free(&m->next);
  free(m->own_ids);
  for (int t = 0; t < m->nbb; t++) free(m->bb[t].k);
  free(m->bb);
  free(m->bond_all);
  free(m);
}

/* The box of the state (model hook .box): under shear the Lees-Edwards offset of the positions
   of the last sort, so that the analysis and pictures see the images and the temperature the
   peculiar velocities -- after init and a restart's load as after a step. */
static void dpd_box(const void *state, agglo_box *b) {
  const dpd *m = state;
  if (!m->shear) return;
  b->shear_x = m->le.offset * m->u.length;
  b->shear_rate = m->le.rate / m->u.time;
}

/* Write the state back into the system (scenario units, system order). */
static void write_back(const dpd *m, agglo_system *s) {
  double L = m->u.length, V = m->u.velocity;
  const parts *p = &m->p;
  dpd_box(m, &s->box);
#pragma omp parallel for schedule(static) if (m->n >= PAR_MIN)
  for (size_t k = 0; k < m->n; k++) {
    size_t i = p->perm[k];
    for (int d = 0; d < 3; d++) {
      s->x[3 * i + d] = wrap1(m, d, p->x[d][k]) * L;
      s->v[3 * i + d] = p->v[d][k] * V;
    }
  }
}


/* A capillary bridge (dpd.capillary_bridge = memory) lives until its gap passes D_rupt: the pair
   must stay within the cut-off that far, rc >= ri + rj + D_rupt, or the bridge is cut short at rc
   without a word (rc = 1.04 for radius 0.5 ruptured at 1.0385 instead of 1.0567). Checked for
   each species pair with the largest radii of its species (D_rupt grows with both). */
static int check_bridge_cutoff(const dpd *m, const agglo_config *c, char *err, size_t errlen) {
  int ns = m->nspec;
  double rmax[256] = {0};
  for (size_t i = 0; i < m->n; i++) rmax[m->p.spec[i]] = fmax(rmax[m->p.spec[i]], m->p.r[i]);
  for (int i = 0; i < ns; i++)
    for (int j = i; j < ns; j++) {
      int q = i * ns + j;
      double ri = rmax[i], rj = rmax[j];
      if (m->pp[q].kind != AGGLO_PF_CAPILLARY || !(ri > 0 && rj > 0)) continue;
      double need = ri + rj + m->rupt_k[q] * 2 * ri * rj / (ri + rj), L = m->u.length;
      if (m->rcp[q] < need) {
        char pair[64] = "";
        if (ns > 1) snprintf(pair, sizeof pair, " for species %d and %d", i + 1, j + 1);
        return agglo_fail(err, errlen, "%s = %g%s is below ri + rj + D_rupt = %g (radii %g and %g, "
                          "capillary rupture distance D_rupt = %g): the capillary bridges would be cut "
                          "short at the cut-off; allowed: %s >= %.10g (or dpd.capillary_bridge = always)",
                          agglo_dpd_of(c)->rc_ij.n ? "dpd.rc_ij" : "dpd.rc", m->rcp[q] * L, pair, need * L,
                          ri * L, rj * L, (need - ri - rj) * L, agglo_dpd_of(c)->rc_ij.n ? "dpd.rc_ij" : "dpd.rc",
                          need * L);
      }
    }
  return 0;
}

static int dpd_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                    size_t errlen) {
  dpd *m = calloc(1, sizeof *m);
  if (!m) return agglo_fail(err, errlen, "out of memory");
  *state = m;
  m->cfg = *c;
  m->stress_cols = agglo_dpd_stress_columns(c);
  m->bridge_counts = agglo_dpd_bridge_counts(c);
  agglo_dpd_units_of(c, &m->u);
  const agglo_dpd_units *u = &m->u;
  size_t n = m->n = s->n;
  m->dim = s->dim;
  m->dt = c->dt / u->time;
  m->inv_sqrt_dt = 1.0 / sqrt(m->dt);
  m->lambda = agglo_dpd_of(c)->lambda;
  m->seed = (uint64_t)c->seed;
  m->gaussian = agglo_dpd_of(c)->noise == DPD_NOISE_GAUSSIAN;
  m->kind = agglo_dpd_of(c)->conservative;
  m->contact_gap_sys = agglo_dpd_of(c)->agglomerate_gap;
  double kT = m->kT = agglo_dpd_of(c)->kT / u->energy;
  m->thermo = agglo_dpd_of(c)->thermostat;
  m->xi = agglo_dpd_of(c)->langevin_gamma * u->time / u->mass;
  /* 2 zeta sqrt(core_k): a pair of reduced mass mu vibrating on the hard core is damped with the
     ratio zeta (dpd.core_damping) */
  m->core_gamma = 2 * agglo_dpd_of(c)->core_damping * sqrt(agglo_dpd_of(c)->core_k * u->length * u->length / u->energy);
  m->sig_l = sqrt(2 * m->xi * kT / m->dt);
  agglo_half_mean_init(&m->T_half);
  m->shear = agglo_dpd_of(c)->shear_rate != 0;
  for (int k = 0; k < 3; k++) {
    m->len[k] = s->box.len[k] / u->length;
    m->lo[k] = s->box.lo[k] / u->length;
    m->periodic[k] = k < s->dim && s->box.periodic[k];
    m->plen[k] = m->periodic[k] ? m->len[k] : 0;
    m->pinv[k] = m->periodic[k] ? 1.0 / m->len[k] : 0;
    m->wall[k] = k < s->dim && !s->box.periodic[k];
    m->wlo[k] = m->lo[k], m->whi[k] = m->lo[k] + m->len[k];
  }
  /* Lees-Edwards: the rate in reduced units, the offset of the state's time (a function of the
     step: a restart continues it bit for bit) */
  m->le = agglo_shear_make(agglo_dpd_of(c)->shear_rate * u->time, m->lo, m->len, m->periodic,
                           (double)s->step * m->dt);
  /* species and per-pair coefficients */
  int ns = m->nspec = agglo_dpd_of(c)->species.n ? agglo_dpd_of(c)->species.n : 1;
  m->pp = calloc((size_t)ns * ns, sizeof *m->pp);
  m->a = calloc((size_t)ns * ns, sizeof *m->a);
  m->gam = calloc((size_t)ns * ns, sizeof *m->gam);
  m->sig = calloc((size_t)ns * ns, sizeof *m->sig);
  m->gam_t = calloc((size_t)ns * ns, sizeof *m->gam_t);
  m->sig_t = calloc((size_t)ns * ns, sizeof *m->sig_t);
  m->rcp = calloc((size_t)ns * ns, sizeof *m->rcp);
  m->inv_rcp = calloc((size_t)ns * ns, sizeof *m->inv_rcp);
  m->pgw = calloc((size_t)ns * ns, sizeof *m->pgw);
  m->rupt_k = calloc((size_t)ns * ns, sizeof *m->rupt_k);
  int ok = m->pp && m->a && m->gam && m->sig && m->gam_t && m->sig_t && m->rcp && m->inv_rcp &&
           m->pgw && m->rupt_k && agglo_dpd_reserve(m, n) == 0;
  if (!ok) return agglo_fail(err, errlen, "out of memory for %zu DPD particles", n);
  memset(m->p.gh, 0, n + 1); /* no ghosts outside a domain decomposition */
  for (int i = 0; i < ns; i++)
    for (int j = 0; j < ns; j++) {
      int q = i * ns + j;
      agglo_pair_params *pp = &m->pp[q];
      species_pair_params(c, u, ns, i, j, pp);
      m->a[q] = pp->kind == AGGLO_PF_NONE ? 0 : pair_value(&agglo_dpd_of(c)->a_ij, agglo_dpd_of(c)->a, ns, i, j) / u->force;
      if (pp->kind == AGGLO_PF_GROOT_WARREN) pp->a = m->a[q];
      m->pgw[q] = pp->kind == AGGLO_PF_GROOT_WARREN || pp->kind == AGGLO_PF_NONE;
      m->rcp[q] = pp->rc, m->inv_rcp[q] = 1.0 / pp->rc;
      m->rupt_k[q] = agglo_capillary_rupture(pp, 1, 1); /* R = 1: D_rupt / (2 ri rj/(ri+rj)) */
      m->gam[q] = pair_value(&agglo_dpd_of(c)->gamma_ij, agglo_dpd_of(c)->gamma, ns, i, j) * u->time / u->mass;
      m->sig[q] = sqrt(2 * m->gam[q] * kT);
      m->gam_t[q] = agglo_dpd_of(c)->transverse_ratio * m->gam[q];
      m->sig_t[q] = sqrt(2 * m->gam_t[q] * kT);
      if (m->thermo == DPD_THERMO_LANGEVIN) m->gam[q] = m->sig[q] = 0; /* no pair thermostat */
    }
  /* the grid takes the largest cut-off; the fast path needs groot_warren (or none) everywhere */
  m->rc = 0, m->gw = 1, m->bridges = 0, m->multi_rc = 0;
  for (int q = 0; q < ns * ns; q++) {
    m->rc = fmax(m->rc, m->rcp[q]);
    m->multi_rc |= m->rcp[q] != m->rcp[0];
    m->gw &= m->pgw[q];
    m->bridges |= m->pp[q].kind == AGGLO_PF_CAPILLARY && agglo_dpd_of(c)->cap_bridge == DPD_BRIDGE_MEMORY;
  }
  /* particles; species in blocks of ids given by the fractions */
  parts *p = &m->p;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      p->x[k][i] = s->x[3 * i + k] / u->length;
      p->v[k][i] = p->t[k][i] = k < s->dim ? s->v[3 * i + k] / u->velocity : 0;
    }
    p->r[i] = s->r[i] / u->length;
    p->im[i] = s->inv_m[i] * u->mass;
    if ((uint64_t)s->id[i] > UINT32_MAX)
      return agglo_fail(err, errlen, "particle id %lld: the DPD model handles ids below 2^32",
                  (long long)s->id[i]);
    p->id[i] = (uint32_t)s->id[i];
    p->perm[i] = i;
    p->spec[i] = (uint8_t)agglo_dpd_species_of(c, s->id[i], n);
  }
  if (m->bridges && check_bridge_cutoff(m, c, err, errlen) != 0) return -1;
  /* grid: cells at least rc wide */
  m->ncells = agglo_grid_counts(s->dim, m->len, NULL, m->rc, 1, n, m->nc);
  m->cell_start = calloc(m->ncells + 1, sizeof *m->cell_start);
  m->fill = malloc((m->ncells + 1) * sizeof *m->fill);
  size_t ncol = (size_t)m->nc[1] * m->nc[2];
  int cy_n = axis_colours(m->nc[1], m->periodic[1]), cz_n = axis_colours(m->nc[2], m->periodic[2]);
  m->ncolours = cy_n * cz_n;
  m->columns = malloc(ncol * sizeof *m->columns);
  m->colour_start = malloc((size_t)(m->ncolours + 1) * sizeof *m->colour_start);
  if (!m->cell_start || !m->fill || !m->columns || !m->colour_start)
    return agglo_fail(err, errlen, "out of memory (cell grid)");
  size_t q = 0;
  for (int colour = 0; colour < m->ncolours; colour++) {
    m->colour_start[colour] = q;
    for (int cz = 0; cz < m->nc[2]; cz++)
      for (int cy = 0; cy < m->nc[1]; cy++)
        if (axis_colour(cz, m->nc[2], m->periodic[2]) * cy_n +
                axis_colour(cy, m->nc[1], m->periodic[1]) == colour)
          m->columns[q++] = (int32_t)(cz * m->nc[1] + cy);
  }
  m->colour_start[m->ncolours] = q;
  agglo_dpd_sort(m);
  force_stats st;
  if (forces(m, (uint64_t)s->step, &st) != 0) return agglo_fail(err, errlen, "out of memory (bridges)");
  m->T_last = temperature_now(m);
  /* the bridges of the start are formed at it (a restart's load reads its own counts) */
  m->formed_row = m->formed_now, m->broken_row = m->broken_now;
  return 0;
}

int agglo_dpd_temperature_report(const void *state, double *mean, double *target, double *band) {
  const dpd *m = state;
  *target = m->kT * m->u.energy;
  int64_t cnt;
  double T = agglo_half_mean_value(&m->T_half, &cnt), se = agglo_half_mean_stderr(&m->T_half);
  *band = fmax(isfinite(se) ? 3 * se * m->u.energy : 0, AGGLO_DPD_T_FLOOR * *target);
  if (cnt == 0) {
    *mean = NAN;
    return -1;
  }
  *mean = T * m->u.energy;
  return !(fabs(*mean - *target) <= *band); /* a NaN mean is outside the band too */
}

/* The Lees-Edwards shear of the last force evaluation (its images at the time of that step), or
   NULL without shear. */
static const agglo_shear *stress_shear(const dpd *m) { return m->shear ? &m->le : NULL; }

/* F (x) r of a pair force F on i, separation r = x_i - x_j, into the components of a part of
   the pressure tensor (dpd_stress.h: xx yy zz xy xz yz, ab = F_a r_b). */
static inline void add_virial(double *P, const double F[3], const double r[3]) {
  P[DPD_P_XX] += F[0] * r[0], P[DPD_P_YY] += F[1] * r[1], P[DPD_P_ZZ] += F[2] * r[2];
  P[DPD_P_XY] += F[0] * r[1], P[DPD_P_XZ] += F[0] * r[2], P[DPD_P_YZ] += F[1] * r[2];
}

/* The virial of the pair thermostat's forces on pair (i, j) of species pair q at separation d
   (r = |d|, surface gap `gap`) into the dissipative and random parts of T: the forces of the
   last evaluation by the integrator's own law (thermostat(), its random part and its friction),
   from the same predicted velocities, the same random numbers (its step) and the same friction
   on the hard core (core_dashpot); the transverse friction acts on the velocity after the first
   half kick, v - dt/2 f/m. */
static void thermostat_virial(const dpd *m, const agglo_shear *le, double ny, int q, size_t i,
                              size_t j, double r, const double d[3], double gap, agglo_dpd_stress *T) {
  const parts *p = &m->p;
  const double w = 1.0 - r * m->inv_rcp[q], inv_r = 1.0 / r;
  const double e[3] = {d[0] * inv_r, d[1] * inv_r, d[2] * inv_r};
  const double gb = m->pgw[q] ? 0 : core_dashpot(m, i, j, gap);
  double ev = 0, dt3[3], vij[3], FD[3], FR[3];
  const double hdt = 0.5 * m->dt;
  for (int k = 0; k < 3; k++) {
    dt3[k] = p->t[k][i] - p->t[k][j];
    vij[k] = (p->v[k][i] - hdt * m->f[k][i] * p->im[i]) - (p->v[k][j] - hdt * m->f[k][j] * p->im[j]);
  }
  if (le) agglo_shear_velocity_image(le, ny, dt3), agglo_shear_velocity_image(le, ny, vij);
  for (int k = 0; k < 3; k++) ev += e[k] * dt3[k];
  const pair_mode md = {LAW_PAIR, m->thermo, 0, m->multi_rc, m->gaussian, 0, m->shear};
  thermostat(m, md, m->force_step, q, p->id[i], p->id[j], 0, w, e, ev, gb, vij, THERMO_FRICTION, FD);
  thermostat(m, md, m->force_step, q, p->id[i], p->id[j], 0, w, e, ev, gb, vij, THERMO_RANDOM, FR);
  add_virial(T->part[DPD_P_DISSIPATIVE], FD, d);
  add_virial(T->part[DPD_P_RANDOM], FR, d);
}

/* The conservative part of the state, from the positions of the last force evaluation (the
   sorted arrays) and the bridges it left, in one serial pass over the pairs (a function of the
   state: the same with any thread count): potential energy U, virial W = sum r F^C(r) over the
   pairs (F > 0 repels), and the bound pairs -- the capillary bridges with memory, else the pairs
   whose gap is below the agglomerate gap. Reduced units. The dissipative and random forces are
   left out of W: they average to zero in equilibrium (docs/dpd.md). With T (not NULL), the
   pairs' parts of the pressure tensor too, not yet divided by the volume: conservative
   (Groot-Warren) or bridge (every other law) and the thermostat's. */
static void conservative_sums(const dpd *m, double *U_out, double *W_out, size_t *bound_out,
                              agglo_dpd_stress *T) {
  const parts *p = &m->p;
  const double rc2 = m->rc * m->rc, agap = m->contact_gap_sys / m->u.length;
  double U = 0, W = 0;
  size_t bound = 0;
  row_neighbours rn;
  const agglo_shear *le = stress_shear(m);
  for (int col = 0; col < m->nc[1] * m->nc[2]; col++) {
    row_neighbours_of(m, col % m->nc[1], col / m->nc[1], &rn);
      for (int cx = 0; cx < m->nc[0]; cx++) {
        size_t c = (size_t)col * m->nc[0] + cx, ra[NBR_MAX + 1], rb[NBR_MAX + 1];
        int nr = cell_neighbours(m, &rn, cx, ra + 1, rb + 1) + 1;
        for (int t = 1; t < nr; t++) ra[t] = m->cell_start[ra[t]], rb[t] = m->cell_start[rb[t]];
        for (size_t i = m->cell_start[c]; i < m->cell_start[c + 1]; i++) {
          ra[0] = i + 1, rb[0] = m->cell_start[c + 1];
          for (int t = 0; t < nr; t++)
            for (size_t j = ra[t]; j < rb[t]; j++) {
              double dv[3] = {p->x[0][i] - p->x[0][j], p->x[1][i] - p->x[1][j], p->x[2][i] - p->x[2][j]};
              /* the (Lees-Edwards) minimum image the forces took */
              const double ny = agglo_le_delta_of(dv, m->plen, m->pinv, m->le.offset, le != NULL);
              const double d2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
              const int q = p->spec[i] * m->nspec + p->spec[j];
              if (!(d2 < rc2) || d2 == 0 || !(d2 < m->rcp[q] * m->rcp[q])) continue;
              double r = sqrt(d2), ri = p->r[i], rj = p->r[j], gap = r - ri - rj, u = 0, F;
              const agglo_pair_params *pp = &m->pp[q];
              int bridged = 0;
              if (T) thermostat_virial(m, le, ny, q, i, j, r, dv, gap, T);
              if (m->pgw[q]) {
                F = agglo_groot_warren(m->a[q], m->rcp[q], 1 - r / m->rcp[q], &u);
              } else if (m->bridges && pp->kind == AGGLO_PF_CAPILLARY) {
                if (!agglo_bond_set_has(&m->bonds, agglo_bond_key(p->id[i], p->id[j]))) continue;
                /* the bridge's potential is zero at rupture: forming one costs U(0) < 0 */
                double D = m->rupt_k[q] * 2 * ri * rj / (ri + rj), u_rupt;
                F = agglo_pair_force(pp, r, ri, rj, &u);
                agglo_pair_force(pp, ri + rj + D, ri, rj, &u_rupt);
                u -= u_rupt;
                bound++, bridged = 1;
              } else {
                F = agglo_pair_force(pp, r, ri, rj, &u);
              }
              if (!bridged && !(m->bridges && pp->kind == AGGLO_PF_CAPILLARY) && gap < agap) bound++;
              U += u, W += r * F;
              if (T) {
                const double Fr = F / r, Fv[3] = {Fr * dv[0], Fr * dv[1], Fr * dv[2]};
                add_virial(T->part[m->pgw[q] ? DPD_P_CONSERVATIVE : DPD_P_BRIDGE], Fv, dv);
              }
            }
        }
      }
  }
  *U_out = U, *W_out = W, *bound_out = bound;
}

/* The pressure tensor (scenario units) and conservative_sums's numbers, in one pass. */
static void stress_sums(const dpd *m, agglo_dpd_stress *out, double *U, double *W, size_t *bound) {
  const parts *p = &m->p;
  double V = 1;
  memset(out, 0, sizeof *out);
  conservative_sums(m, U, W, bound, out);
  double *K = out->part[DPD_P_KINETIC];
  for (size_t i = 0; i < m->n; i++) {
    if (p->gh[i]) continue;
    double v[3]; /* the peculiar velocity v - u(y), u the streaming velocity of the shear */
    peculiar(m, i, v);
    const double mi = 1 / p->im[i], mv[3] = {mi * v[0], mi * v[1], mi * v[2]};
    add_virial(K, mv, v);
  }
  for (int k = 0; k < m->dim; k++) V *= m->len[k];
  const double Pu = m->u.energy / pow(m->u.length, m->dim) / V;
  for (int q = 0; q < DPD_P_PARTS; q++)
    for (int a = 0; a < DPD_P_COMPONENTS; a++) out->part[q][a] *= Pu;
}

void agglo_dpd_stress_of(const void *state, agglo_dpd_stress *out) {
  double U, W;
  size_t bound;
  stress_sums(state, out, &U, &W, &bound);
}

void agglo_dpd_refresh_thermostat(dpd *m, const double *tv, uint64_t step) {
  for (size_t k = 0; k < m->n; k++)
    for (int d = 0; d < 3; d++) m->p.t[d][k] = tv[3 * m->p.perm[k] + d];
  m->force_step = step;
}

/* The formats of the columns: the 6 of every run, then the stress columns (dpd_stress.h: 8, 9,
   11 or 12 of them), then the bridge counts (dpd.bridge_counts) */
#define G9 "%.9g"
#define DPD_FORMATS G9, G9, G9, G9, G9, "%.0f"
#define G9x8 G9, G9, G9, G9, G9, G9, G9, G9
#define COUNTS "%.0f", "%.0f"
static const char *const dpd_stats_formats[] = {DPD_FORMATS, G9x8, G9, G9, G9, G9};
static const char *const counts_formats_0[] = {DPD_FORMATS, COUNTS};
static const char *const counts_formats_8[] = {DPD_FORMATS, G9x8, COUNTS};
static const char *const counts_formats_9[] = {DPD_FORMATS, G9x8, G9, COUNTS};
static const char *const counts_formats_11[] = {DPD_FORMATS, G9x8, G9, G9, G9, COUNTS};
static const char *const counts_formats_12[] = {DPD_FORMATS, G9x8, G9, G9, G9, G9, COUNTS};

static void dpd_stats_numbers(const void *state, double *v, int *has) {
  const dpd *m = state;
  for (int k = 0; k < 6 + m->stress_cols + 2 * m->bridge_counts; k++) has[k] = 1;
  if (m->bridge_counts) /* after the others */
    v[6 + m->stress_cols] = (double)m->formed_row, v[7 + m->stress_cols] = (double)m->broken_row;
  v[0] = m->T_last * m->u.energy;
  int64_t cnt;
  double T = agglo_half_mean_value(&m->T_half, &cnt);
  v[1] = T * m->u.energy, has[1] = cnt != 0;
  /* potential, total energy, virial pressure P = (sum m v^2 + W) / (d V), bound pairs */
  double U, W, K2 = 0, V = 1;
  size_t bound;
  if (m->stress_cols) { /* the tensor's columns after the others, from the same pass */
    agglo_dpd_stress T;
    stress_sums(m, &T, &U, &W, &bound);
    agglo_dpd_stress_values(&m->cfg, &T, v + 6);
  } else {
    conservative_sums(m, &U, &W, &bound, NULL);
  }
  for (size_t i = 0; i < m->n; i++) { /* under shear, the peculiar velocity v - u(y) */
    double v[3];
    peculiar(m, i, v);
    for (int k = 0; k < m->dim; k++) K2 += v[k] * v[k] / m->p.im[i];
  }
  for (int k = 0; k < m->dim; k++) V *= m->len[k];
  const double E = m->u.energy, Pu = E / pow(m->u.length, m->dim);
  v[2] = U * E, v[3] = (U + 0.5 * K2) * E, v[4] = (K2 + W) / (m->dim * V) * Pu, v[5] = (double)bound;
}

void agglo_dpd_drift(dpd *m) {
  size_t n = m->n;
  const double dt = m->dt, hdt = 0.5 * dt, hdt2 = 0.5 * dt * dt, ldt = m->lambda * dt;
  parts *p = &m->p;
  for (int k = 0; k < m->dim; k++) {
    double *restrict x = p->x[k], *restrict v = p->v[k], *restrict t = p->t[k];
    const double *restrict f = m->f[k], *restrict im = p->im;
#pragma omp parallel for schedule(static) if (m->n >= PAR_MIN)
    for (size_t i = 0; i < n; i++) {
      double a = f[i] * im[i];
      x[i] += dt * v[i] + hdt2 * a;
      t[i] = v[i] + ldt * a;
      v[i] += hdt * a;
    }
    if (m->wall[k]) { /* walls reflect specularly */
#pragma omp parallel for schedule(static) if (m->n >= PAR_MIN)
      for (size_t i = 0; i < n; i++) {
        double lo = m->wlo[k] + p->r[i], hi = m->whi[k] - p->r[i];
        if (x[i] < lo || x[i] > hi) {
          x[i] = x[i] < lo ? 2 * lo - x[i] : 2 * hi - x[i];
          v[i] = -v[i];
          t[i] = -t[i];
        }
      }
    }
  }
}

int agglo_dpd_forces(dpd *m, uint64_t step, size_t *in_range, double *min_gap) {
  force_stats st;
  int rc = forces(m, step, &st);
  *in_range = st.in_range, *min_gap = st.min_gap;
  return rc;
}

size_t agglo_dpd_kick(dpd *m) {
  const double hdt = 0.5 * m->dt;
  parts *p = &m->p;
  size_t bad = SIZE_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad) if (m->n >= PAR_MIN)
  for (size_t i = 0; i < m->n; i++) {
    double im = p->im[i], chk = 0;
    for (int k = 0; k < m->dim; k++) {
      p->v[k][i] += hdt * m->f[k][i] * im;
      chk += p->v[k][i] + p->x[k][i];
    }
    if (!isfinite(chk) && !p->gh[i] && i < bad) bad = i;
  }
  return bad;
}

void agglo_dpd_kinetic_sums(const dpd *m, double out[6]) {
  memset(out, 0, AGGLO_KT_SUMS * sizeof *out);
  for (size_t i = 0; i < m->n; i++) {
    if (m->p.gh[i]) continue;
    double v[3];
    peculiar(m, i, v);
    agglo_kinetic_add(out, 1 / m->p.im[i], v, m->dim);
  }
}

double agglo_dpd_temperature_of(int dim, const double sum[6]) { return agglo_temperature_of_sums(dim, sum); }

void agglo_dpd_refresh(dpd *m, const agglo_system *s, const double *xv, const double *g) {
  parts *p = &m->p;
  for (size_t k = 0; k < m->n; k++) {
    size_t i = p->perm[k];
    for (int d = 0; d < 3; d++) {
      p->x[d][k] = xv ? xv[6 * i + d] : s->x[3 * i + d] / m->u.length;
      p->v[d][k] = p->t[d][k] = xv ? xv[6 * i + 3 + d] : s->v[3 * i + d] / m->u.velocity;
    }
  }
  agglo_dpd_sort(m); /* (f is not sorted along: it is set after) */
  for (size_t k = 0; k < m->n; k++)
    for (int d = 0; d < 3; d++) m->f[d][k] = g[3 * p->perm[k] + d];
}

void agglo_dpd_record_temperature(dpd *m, double T) {
  m->T_last = T;
  agglo_half_mean_add(&m->T_half, T);
}

void agglo_dpd_record_bridges(dpd *m, uint64_t formed, uint64_t broken) {
  m->formed_row += formed, m->broken_row += broken;
}

/* A stats row took the counts (model hook .stats_taken). */
static void dpd_stats_taken(void *state) {
  dpd *m = state;
  m->formed_row = m->broken_row = 0;
}

static int dpd_step(void *state, agglo_system *s, agglo_step_info *info, char *err,
                    size_t errlen) {
  dpd *m = state;
  /* 1. positions, predicted velocities, first half kick */
  agglo_dpd_drift(m);
  if (m->shear) agglo_shear_set_time(&m->le, (double)(s->step + 1) * m->dt); /* the new positions' */
  agglo_dpd_sort(m);
  /* 2. forces at the new positions and predicted velocities */
  force_stats st;
  if (forces(m, (uint64_t)s->step + 1, &st) != 0) return agglo_fail(err, errlen, "out of memory (bridges)");
  /* 3. second half kick */
  size_t bad = agglo_dpd_kick(m);
  s->step++;
  s->t = (double)s->step * m->cfg.dt;
  agglo_dpd_record_temperature(m, temperature_now(m));
  agglo_dpd_record_bridges(m, m->formed_now, m->broken_now);
  write_back(m, s);
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->min_gap = isfinite(st.min_gap) ? st.min_gap * m->u.length : INFINITY;
  info->n_contacts = st.in_range;
  info->bad_particle = bad == SIZE_MAX ? SIZE_MAX : m->p.perm[bad];
  return 0;
}

static double dpd_contact_gap(const void *state) { return ((const dpd *)state)->contact_gap_sys; }

static const char counts_header[] = "# bridges formed and broken since the last stats row\n";
static const char reduced_header[] = "# dpd positions and velocities (reduced units) by storage index\n";
static int reduced_units(const dpd *m) { return m->u.length == 1 && m->u.velocity == 1; }

/* Restart: the forces of the last step (DPD-VV needs f(t)), by system index, reduced units. */
static int dpd_save(const void *state, FILE *f) {
  const dpd *m = state;
  double *g = malloc(3 * (m->n + 1) * sizeof *g);
  if (!g) return -1;
  for (size_t k = 0; k < m->n; k++)
    for (int d = 0; d < 3; d++) g[3 * m->p.perm[k] + d] = m->f[d][k];
  fprintf(f, "# dpd forces (reduced units) by storage index\n%zu\n", m->n);
  for (size_t i = 0; i < m->n; i++)
    fprintf(f, "%.17g %.17g %.17g\n", g[3 * i], g[3 * i + 1], g[3 * i + 2]);
  free(g);
  fprintf(f, "# temperature: last, then block sums (half_mean.h)\n%a\n", m->T_last);
  agglo_half_mean_save(&m->T_half, f);
  if (m->bridges) {
    uint64_t *k = malloc((m->bonds.n + 1) * sizeof *k);
    if (!k) return -1;
    agglo_bond_set_sorted(&m->bonds, k);
    fprintf(f, "# capillary bridges: count, then id pairs\n%zu\n", m->bonds.n);
    for (size_t t = 0; t < m->bonds.n; t++)
      fprintf(f, "%u %u\n", (unsigned)((k[t] - 1) >> 32), (unsigned)((k[t] - 1) & 0xffffffffu));
    free(k);
    fprintf(f, "%s%llu %llu\n", counts_header, (unsigned long long)m->formed_row,
            (unsigned long long)m->broken_row);
  }
  if (!reduced_units(m)) { /* the state's numbers are the model's times the units, rounded */
    double *xv = malloc(6 * (m->n + 1) * sizeof *xv);
    if (!xv) return -1;
    for (size_t k = 0; k < m->n; k++)
      for (int d = 0; d < 3; d++)
        xv[6 * m->p.perm[k] + d] = m->p.x[d][k], xv[6 * m->p.perm[k] + 3 + d] = m->p.v[d][k];
    fprintf(f, "%s%zu\n", reduced_header, m->n);
    for (size_t i = 0; i < m->n; i++) {
      for (int q = 0; q < 6; q++) fprintf(f, q ? " %.17g" : "%.17g", xv[6 * i + q]);
      fputc('\n', f);
    }
    free(xv);
  }
  return ferror(f) ? -1 : 0;
}

/* After the bridges, when the units are not reduced (dpd.units = si): the model's positions and
   velocities by storage index, which the state's (rounded from them) do not give back; each must
   give the state's. A restart point without them (written before) starts from the state's. */
static int load_reduced(dpd *m, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  char line[256];
  size_t cnt;
  if (reduced_units(m) || fscanf(f, " ") < 0 || !fgets(line, sizeof line, f)) return 0; /* (the
     record before ends within its line) */
  if (strcmp(line, reduced_header) != 0 || !fgets(line, sizeof line, f) ||
      sscanf(line, "%zu", &cnt) != 1 || cnt != m->n)
    return agglo_fail(err, errlen, "after the temperature record%s: expected the positions and "
                      "velocities in reduced units (%.*s), then the particle count %zu",
                      m->bridges ? " and the capillary bridges" : "",
                      (int)strcspn(reduced_header, "\n"), reduced_header, m->n);
  double *xv = malloc(9 * (m->n + 1) * sizeof *xv), *g = xv + 6 * (m->n + 1); /* g: the forces */
  if (!xv) return agglo_fail(err, errlen, "out of memory");
  const double L = m->u.length, V = m->u.velocity;
  for (size_t i = 0; i < m->n; i++) {
    double *r = xv + 6 * i;
    int ok = fscanf(f, "%lf %lf %lf %lf %lf %lf", r, r + 1, r + 2, r + 3, r + 4, r + 5) == 6;
    for (int d = 0; ok && d < 3; d++)
      ok = wrap1(m, d, r[d]) * L == s->x[3 * i + d] && r[3 + d] * V == s->v[3 * i + d];
    if (!ok) {
      free(xv);
      return agglo_fail(err, errlen, "particle %zu (id %lld): its position and velocity in reduced "
                        "units are not six numbers that give the state's", i, (long long)s->id[i]);
    }
  }
  for (size_t k = 0; k < m->n; k++)
    for (int d = 0; d < 3; d++) g[3 * m->p.perm[k] + d] = m->f[d][k];
  agglo_dpd_refresh(m, s, xv, g);
  free(xv);
  return 0;
}

/* After the bridges: the bridges formed and broken since the last stats row. A restart point
   written before they were counted has none: its run resumes without the columns. */
static int load_counts(dpd *m, FILE *f, char *err, size_t errlen) {
  char line[256];
  unsigned long long formed, broken;
  const long at = ftell(f);
  if (fscanf(f, " ") < 0 || !fgets(line, sizeof line, f) || strcmp(line, counts_header) != 0) {
    if (m->bridge_counts)
      return agglo_fail(err, errlen, "after the capillary bridges: expected the bridges formed and "
                        "broken since the last stats row (%.*s), which a restart point written before "
                        "agglo counted them lacks; resume it with dpd.bridge_counts = off",
                        (int)strcspn(counts_header, "\n"), counts_header);
    m->formed_row = m->broken_row = 0;
    return at >= 0 && fseek(f, at, SEEK_SET) == 0 ? 0 : agglo_fail(err, errlen, "cannot seek");
  }
  if (!fgets(line, sizeof line, f) || sscanf(line, "%llu %llu", &formed, &broken) != 2 ||
      formed > (1ull << 53) || broken > (1ull << 53))
    return agglo_fail(err, errlen, "after the capillary bridges: the bridges formed and broken since "
                      "the last stats row are not two counts (allowed: 0 to 2^53)");
  m->formed_row = formed, m->broken_row = broken;
  return 0;
}

/* The bridges: count, then id pairs of particles of s, into m->bonds. */
static int load_bridges(dpd *m, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  int got = -1;
  size_t nb;
  if (fscanf(f, " # capillary bridges: count, then id pairs%n", &got) < 0 || got < 0 ||
      fscanf(f, "%zu", &nb) != 1 || !agglo_load_count_fits(f, nb, 2))
    return agglo_fail(err, errlen, "after the temperature record: the capillary bridges (count, then "
                      "id pairs) are missing or cut short (a run without bridges cannot gain "
                      "dpd.capillary_bridge = memory on a restart)");
  uint64_t *k = malloc((nb + 1) * sizeof *k);
  int64_t *ids = malloc((s->n + 1) * sizeof *ids);
  int rc = k && ids ? 0 : agglo_fail(err, errlen, "out of memory");
  if (ids) memcpy(ids, s->id, s->n * sizeof *ids), qsort(ids, s->n, sizeof *ids, agglo_cmp_i64);
  for (size_t t = 0; t < nb && rc == 0; t++) {
    long long a = -1, b = -1;
    int ok = fscanf(f, "%lld %lld", &a, &b) == 2 && a != b && a >= 0 && b >= 0 &&
             a <= UINT32_MAX && b <= UINT32_MAX;
    int64_t ab[2] = {a, b};
    if (!ok || !bsearch(&ab[0], ids, s->n, sizeof *ids, agglo_cmp_i64) ||
        !bsearch(&ab[1], ids, s->n, sizeof *ids, agglo_cmp_i64))
      rc = agglo_fail(err, errlen, "capillary bridge %zu of %zu: ids %lld %lld (allowed: the ids of "
                      "two particles of the state)", t + 1, nb, a, b);
    else
      k[t] = agglo_bond_key((uint32_t)a, (uint32_t)b);
  }
  if (rc == 0 && agglo_bond_set_assign(&m->bonds, k, nb) != 0) rc = agglo_fail(err, errlen, "out of memory");
  free(k);
  free(ids);
  return rc == 0 ? load_counts(m, f, err, errlen) : rc;
}

static int dpd_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  dpd *m = state;
  char line[256];
  size_t cnt;
  if (agglo_read_line(f, line, sizeof line) <= 0 || agglo_read_line(f, line, sizeof line) <= 0 ||
      sscanf(line, "%zu", &cnt) != 1 || cnt != m->n)
    return agglo_fail(err, errlen, "line 2: expected the number of particles, %zu (a DPD force "
                      "file)", m->n);
  double *g = malloc(3 * (m->n + 1) * sizeof *g);
  if (!g) return agglo_fail(err, errlen, "out of memory");
  for (size_t i = 0; i < m->n; i++) {
    if (fscanf(f, "%lf %lf %lf", g + 3 * i, g + 3 * i + 1, g + 3 * i + 2) != 3) {
      free(g);
      return agglo_fail(err, errlen, "line %zu: the force of particle %zu is not three numbers "
                        "(f_x f_y f_z)", i + 3, i);
    }
    for (int d = 0; d < 3; d++)
      if (!isfinite(g[3 * i + d])) {
        double v = g[3 * i + d];
        free(g);
        return agglo_fail(err, errlen, "line %zu: the force of particle %zu: f_%c = %g (allowed: "
                          "finite)", i + 3, i, "xyz"[d], v);
      }
  }
  /* A force that would carry its particle across the box in one step (a kick f dt/m beyond the
     largest side per step, the bound on a start's speeds) is no state a step leaves: a forged or
     blown-up restart point, refused here rather than mid-run */
  double side = 0;
  for (int d = 0; d < m->dim; d++) side = fmax(side, m->len[d]);
  for (size_t k = 0; k < m->n; k++) {
    const size_t i = m->p.perm[k];
    const double *q = g + 3 * i, lim = side / (m->dt * m->dt * m->p.im[k]);
    for (int d = 0; d < 3; d++)
      if (!(fabs(q[d]) <= lim)) {
        double v = q[d];
        free(g);
        return agglo_fail(err, errlen, "line %zu: the force of particle %zu (id %u): f_%c = %g "
                          "(allowed: at most m L/dt^2 = %g in reduced units, the force whose kick "
                          "carries the particle across the box, side L = %g, in one step of dt = %g)",
                          i + 3, i, m->p.id[k], "xyz"[d], v, lim, side, m->dt);
      }
    for (int d = 0; d < 3; d++) m->f[d][k] = q[d];
  }
  free(g);
  int got = -1;
  if (fscanf(f, " # temperature: last, then block sums (half_mean.h)%n", &got) < 0 || got < 0 ||
      fscanf(f, "%la", &m->T_last) != 1 || !(m->T_last >= 0 && isfinite(m->T_last)) ||
      agglo_half_mean_load(&m->T_half, f) != 0)
    return agglo_fail(err, errlen, "after line %zu: expected the temperature record (the last "
                      "temperature, >= 0, then the block sums of dpd_half_mean.h: finite numbers)",
                      m->n + 2);
  if (m->bridges && load_bridges(m, s, f, err, errlen) != 0) return -1;
  return load_reduced(m, s, f, err, errlen);
}

/* The run's warning: its mean temperature over the last half outside its statistical band. */
static int dpd_final_warning(const void *state, char *msg, size_t n) {
  static const char *thermo[] = {"dpd", "transverse", "langevin"};
  double mean, target, band;
  if (agglo_dpd_temperature_report(state, &mean, &target, &band) != 1) return 0;
  char off[64]; /* a blown-up run: a ratio, not a 60-digit percentage */
  if (!isfinite(mean)) snprintf(off, sizeof off, "non-finite, not near");
  else if (!isfinite(mean / target)) snprintf(off, sizeof off, "more than 1e308 times");
  else if (mean / target > 1000) snprintf(off, sizeof off, "%.3g times", mean / target);
  else snprintf(off, sizeof off, "%+.2f%% from", 100 * (mean / target - 1));
  char width[64]; /* a band of many times kT (a tiny dpd.kT's noise): a ratio, not 20 digits */
  if (!isfinite(band / target)) snprintf(width, sizeof width, "more than 1e308 times dpd.kT");
  else if (band / target > 10) snprintf(width, sizeof width, "%.3g times dpd.kT", band / target);
  else snprintf(width, sizeof width, "%.2f%%", 100 * band / target);
  snprintf(msg, n, "the mean temperature over the last half of the run is %.4g, %s dpd.kT = %.4g, "
           "outside the run's band of +-%s (3 standard errors, at least %g%%; dpd.thermostat = "
           "%s; docs/dpd.md)", mean, off, target, width, 100 * AGGLO_DPD_T_FLOOR,
           thermo[((const dpd *)state)->thermo]);
  return 1;
}

/* The central pair thermostat conserves the angular momentum of every agglomerate: with a
   colloidal attraction (van der Waals, capillary bridges) and no solvent beads (no groot_warren
   species pair) the rotation of the agglomerates it forms is cooled by nothing, and the run
   heats up (docs/dpd.md). Lennard-Jones is left out: a dense LJ fluid under the DPD thermostat
   is the usual use, and its many neighbours cool it. */
static int dpd_start_warning(const void *state, char *msg, size_t n) {
  const dpd *m = state;
  int attraction = 0, solvent = 0;
  for (int q = 0; q < m->nspec * m->nspec; q++) {
    int k = m->pp[q].kind;
    attraction |= k == AGGLO_PF_VDW || k == AGGLO_PF_VDW_REDUCED || k == AGGLO_PF_CAPILLARY;
    solvent |= k == AGGLO_PF_GROOT_WARREN;
  }
  if (m->thermo != DPD_THERMO_DPD || !attraction || solvent) return 0;
  snprintf(msg, n, "dpd.thermostat = dpd is central: it cannot cool the rotation of the "
           "agglomerates the attraction forms without solvent beads, and such runs heat up (+3%% on "
           "examples/dpd_vdw.ini and dpd_capillary.ini); dpd.thermostat = transverse or langevin "
           "holds the temperature (docs/dpd.md)");
  return 1;
}

/* The species of each particle, as the set-up assigned them (dpd.species). */
static int dpd_species(const void *state, const agglo_system *s, int32_t *out) {
  const dpd *m = state;
  if (m->nspec < 2) return 0;
  for (size_t i = 0; i < s->n; i++) out[i] = agglo_dpd_species_of(&m->cfg, s->id[i], s->n);
  return 1;
}

/* The forces are made again from the new state by init; capillary bridges with memory are a
   history of which pairs touched, which a new state does not carry. */
static const char *dpd_new_state_refused(const void *state) {
  const dpd *m = state;
  return m->bridges ? "its capillary bridges remember which pairs have touched "
                      "(dpd.capillary_bridge = memory)" : NULL;
}

#define DPD_COLUMNS ",temperature,temperature_mean_last_half,potential_energy,total_energy,pressure,bound_pairs"
#define DPD_PARTS_XY ",pxy_kinetic,pxy_conservative,pxy_dissipative,pxy_random,pxy_bridge"
#define DPD_MODEL_F(columns, count, formats)                                                       \
  {.name = "dpd", .final_warning = dpd_final_warning, .start_warning = dpd_start_warning,          \
   .init = dpd_init, .step = dpd_step, .contact_gap = dpd_contact_gap, .neighbors = NULL,          \
   .save = dpd_save, .load = dpd_load, .destroy = dpd_destroy, .stats_columns = columns,           \
   .stats_count = count, .stats_formats = formats, .stats_numbers = dpd_stats_numbers,             \
   .species = dpd_species, .new_state_refused = dpd_new_state_refused, .box = dpd_box,            \
   .stats_taken = dpd_stats_taken}
#define DPD_MODEL(columns, count) DPD_MODEL_F(columns, count, dpd_stats_formats)
#define DPD_STRESS_3D ",pressure_xx,pressure_yy,pressure_zz,pressure_xy,pressure_xz,pressure_yz" DPD_PARTS_XY
#define DPD_STRESS_2D ",pressure_xx,pressure_yy,pressure_xy" DPD_PARTS_XY
#define DPD_COUNTS ",bridges_formed,bridges_broken"

const agglo_model agglo_model_dpd = DPD_MODEL(DPD_COLUMNS, 6);
/* with the pressure tensor (dpd.stress_tensor), in 3D and 2D, with the viscosity under shear;
   each also with the bridge counts (dpd.bridge_counts) */
static const agglo_model dpd_tables[2][5] = {
    {DPD_MODEL(DPD_COLUMNS, 6), DPD_MODEL(DPD_COLUMNS DPD_STRESS_2D, 14),
     DPD_MODEL(DPD_COLUMNS DPD_STRESS_2D ",viscosity", 15), DPD_MODEL(DPD_COLUMNS DPD_STRESS_3D, 17),
     DPD_MODEL(DPD_COLUMNS DPD_STRESS_3D ",viscosity", 18)},
    {DPD_MODEL_F(DPD_COLUMNS DPD_COUNTS, 8, counts_formats_0),
     DPD_MODEL_F(DPD_COLUMNS DPD_STRESS_2D DPD_COUNTS, 16, counts_formats_8),
     DPD_MODEL_F(DPD_COLUMNS DPD_STRESS_2D ",viscosity" DPD_COUNTS, 17, counts_formats_9),
     DPD_MODEL_F(DPD_COLUMNS DPD_STRESS_3D DPD_COUNTS, 19, counts_formats_11),
     DPD_MODEL_F(DPD_COLUMNS DPD_STRESS_3D ",viscosity" DPD_COUNTS, 20, counts_formats_12)}};

const agglo_model *agglo_dpd_dynamics(const agglo_config *c) {
  const int cols = agglo_dpd_stress_columns(c), counts = agglo_dpd_bridge_counts(c);
  if (!cols && !counts) return &agglo_model_dpd;
  return &dpd_tables[counts][cols == 0 ? 0 : cols == 8 ? 1 : cols == 9 ? 2 : cols == 11 ? 3 : 4];
}
