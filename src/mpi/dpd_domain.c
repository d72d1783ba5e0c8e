/* Spatial domain decomposition of the DPD model over MPI (docs/parallel.md).

   The box is cut into px x py x pz bricks, one per rank (MPI_Cart_create). Each rank runs the
   DPD model (dpd_model.c) over its own particles plus ghosts: copies of the particles of other
   ranks within the largest cut-off of its brick, exchanged at every step after the drift. The
   exchange is the usual staged one (x, then y, then z; what arrived along x is forwarded along
   y and z), so edge and corner neighbours are reached through face neighbours only. A pair with
   a ghost is computed on both ranks, each keeping the force on its own particle: the pair force
   depends only on the two particles and the Philox stream keyed by (seed, step, ids), so the
   two ranks agree and no force is sent back. Particles that left the brick in the drift migrate
   to the neighbour first. Along an axis of one brick the model's own periodic wrap applies.

   Rank 0 keeps the simulation of the serial API: it hands the particles out at the start and
   gathers them back (in global id order, into the same writers) at every step with an output,
   a stop or a restart point; between those only the temperature sums and the step's flags
   travel. Rank 0's own model of the whole system computes the stats columns of a gathered state.

   Lees-Edwards shear (dpd.shear_rate; docs/parallel.md, "Shear"): the grid is 1 x py x pz, x (the
   flow) whole on every rank, so that the image of the box across a y face is a shift within a
   rank's own rows. A ghost sent across the box's y face is its particle's image
   (agglo_shear_image: x shifted by the offset, the x velocities by gamma_dot L_y); a migrant is
   wrapped first by the serial model's own wrap (agglo_dpd_wrap_y). A rank's model then sees
   plain neighbours along y (its shear flag off) and keeps rank 0's shear (its le) for the
   peculiar velocities. */
#include "mpi/bricks.h"
#include "core/error.h"
#include "models/dpd_model.h"
#include "models/dpd_state.h"
#include "core/simulation.h"
#include "models/dpd_config.h"
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* A particle on the wire: x[3] v[3] t[3] f[3] r im id spec (reduced units). */
enum { REC = 16 };

typedef struct {
  agglo_bricks b;
  double halo, rate; /* rate: rank 0's shear rate, reduced units (0: none) */
  dpd *m;
  double *send[2], *recv;
  size_t send_cap[2], recv_cap;
  double sent, ghosts, t_exchange; /* over the run: records sent, ghosts held, seconds exchanging */
} domain;

/* ---- particles on the wire --------------------------------------------------------------- */

static void pack(const dpd *m, size_t i, double *r) {
  const parts *p = &m->p;
  for (int k = 0; k < 3; k++)
    r[k] = p->x[k][i], r[3 + k] = p->v[k][i], r[6 + k] = p->t[k][i], r[9 + k] = m->f[k][i];
  r[12] = p->r[i], r[13] = p->im[i], r[14] = p->id[i], r[15] = p->spec[i];
}

static void unpack(dpd *m, size_t i, const double *r, int ghost) {
  parts *p = &m->p;
  for (int k = 0; k < 3; k++)
    p->x[k][i] = r[k], p->v[k][i] = r[3 + k], p->t[k][i] = r[6 + k], m->f[k][i] = r[9 + k];
  p->r[i] = r[12], p->im[i] = r[13], p->id[i] = (uint32_t)r[14], p->spec[i] = (uint8_t)r[15];
  p->perm[i] = i, p->gh[i] = (uint8_t)ghost;
}

/* Send cnt[s] records of d->send[s] to the lower (s = 0) and upper (s = 1) neighbour along axis
   k, append what arrives as particles (ghosts if ghost). */
static int exchange(domain *d, int k, const size_t cnt[2], int ghost) {
  size_t got[2];
  long got_all = agglo_bricks_exchange(&d->b, k, d->send, cnt, REC, &d->recv, &d->recv_cap, got);
  if (got_all < 0 || agglo_dpd_reserve(d->m, d->m->n + (size_t)got_all) != 0) return -1;
  size_t total = (size_t)got_all;
  for (size_t q = 0; q < total; q++) unpack(d->m, d->m->n + q, d->recv + REC * q, ghost);
  d->m->n += total;
  d->sent += (double)(cnt[0] + cnt[1]);
  if (ghost) d->ghosts += (double)total;
  return 0;
}

/* Across the box's y face under shear (Lees-Edwards images, not a plain period). */
static int sheared(const domain *d, int k, int s) {
  return k == 1 && d->rate != 0 && agglo_bricks_shift(&d->b, k, s) != 0;
}

/* Queue particle i for side s of axis k, shifted by a period across the box's edge; a ghost
   across a sheared face as its image one box height over (a migrant is wrapped by migrate). */
static int queue(domain *d, size_t i, int k, int s, size_t cnt[2], int ghost) {
  if (agglo_bricks_grow(&d->send[s], &d->send_cap[s], REC * (cnt[s] + 1), sizeof(double)) != 0) return -1;
  double *r = d->send[s] + REC * cnt[s]++;
  pack(d->m, i, r);
  const double shift = agglo_bricks_shift(&d->b, k, s);
  if (!sheared(d, k, s)) {
    r[k] += shift;
    return 0;
  }
  if (!ghost) return 0;
  const double n = shift / d->b.glen[1];
  agglo_shear_image(&d->m->le, n, r, r + 3);
  r[6] += n * d->m->le.dvx; /* the predicted velocity too (as the sort's wrap does) */
  return 0;
}

/* Flag the ghosts for the sort to drop; particles outside the brick move to the neighbour (one
   brick per step at most: a step moves a particle far less than the cut-off, and bricks are
   wider than it), flagged too. Nothing is copied but the migrants. */
static int migrate(domain *d) {
  dpd *m = d->m;
  uint8_t *gh = m->p.gh;
  for (size_t i = 0; i < m->n; i++) gh[i] = gh[i] ? AGGLO_DPD_DROP : 0;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0};
    const double *x = m->p.x[k];
    for (size_t i = 0; i < m->n; i++) {
      int s = gh[i] ? -1 : agglo_bricks_side(&d->b, k, x[i]);
      if (s < 0) continue;
      if (sheared(d, k, s)) { /* out of the box through a y face: the serial wrap, in place */
        agglo_dpd_wrap_y(m, i, d->b.glo[1]);
        if (x[i] >= d->b.blo[1] && x[i] < d->b.bhi[1]) continue; /* (its rounding: back on this face) */
      }
      if (queue(d, i, k, s, cnt, 0) != 0) return -1;
      gh[i] = AGGLO_DPD_DROP;
    }
    if (exchange(d, k, cnt, 0) != 0) return -1;
    gh = m->p.gh, x = m->p.x[k]; /* (the arrays may have moved) */
  }
  return 0;
}

/* Ghosts: every particle (own or ghost so far) within the halo of a face goes to that neighbour. */
static int make_ghosts(domain *d) {
  dpd *m = d->m;
  for (int k = 0; k < d->b.dim; k++) {
    if (d->b.dims[k] == 1) continue;
    size_t cnt[2] = {0, 0}, n = m->n;
    for (size_t i = 0; i < n; i++) {
      if (m->p.gh[i] == AGGLO_DPD_DROP) continue;
      double x = m->p.x[k][i];
      if (x < d->b.blo[k] + d->halo && d->b.nb[k][0] != MPI_PROC_NULL && queue(d, i, k, 0, cnt, 1) != 0) return -1;
      if (x >= d->b.bhi[k] - d->halo && d->b.nb[k][1] != MPI_PROC_NULL && queue(d, i, k, 1, cnt, 1) != 0) return -1;
    }
    if (exchange(d, k, cnt, 1) != 0) return -1;
  }
  return 0;
}

/* ---- set-up: the grid, the bricks, the hand-out ----------------------------------------- */

/* Everything but the particles: rank 0's box (reduced units) reaches every rank. */
static int setup(domain *d, agglo_sim *sim, const agglo_config *c, char *err, size_t errlen) {
  double lo[3] = {0}, len[3] = {0}, hr[2] = {0, 0}; /* the halo and the shear rate */
  int per[3] = {0};
  if (sim) {
    const dpd *m0 = sim->state;
    for (int k = 0; k < 3; k++) lo[k] = m0->lo[k], len[k] = m0->len[k], per[k] = m0->periodic[k];
    hr[0] = m0->rc, hr[1] = m0->le.rate;
  }
  MPI_Bcast(hr, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  d->halo = hr[0], d->rate = hr[1], d->b.shear = hr[1] != 0;
  return agglo_bricks_setup(&d->b, c, lo, len, per, hr[0], err, errlen);
}

static void pack_root(const void *m0, size_t i, double *r) { pack(m0, i, r); }

/* Rank 0's particles to their bricks; each rank makes its model over its brick and halo. */
static int hand_out(domain *d, agglo_sim *sim, const agglo_config *c, char *err, size_t errlen) {
  double *recs;
  size_t n;
  if (agglo_bricks_hand_out(&d->b, d->b.rank == 0 ? ((const dpd *)sim->state)->n : 0, REC, pack_root,
                            d->b.rank == 0 ? sim->state : NULL, &recs, &n) != 0)
    return agglo_fail(err, errlen, "out of memory handing out the particles");
  /* the model over the brick and its halo (along an axis of one brick, the scenario's box) and
     this rank's particles */
  agglo_system region = {0};
  if (agglo_system_alloc(&region, c->dim, n) != 0) {
    free(recs);
    return agglo_fail(err, errlen, "out of memory");
  }
  agglo_dpd_units u;
  agglo_dpd_units_of(c, &u);
  for (int k = 0; k < 3; k++) {
    int split = d->b.dims[k] > 1;
    region.box.lo[k] = (split ? d->b.blo[k] - d->halo : d->b.glo[k]) * u.length;
    region.box.len[k] = (split ? d->b.bhi[k] - d->b.blo[k] + 2 * d->halo : d->b.glen[k]) * u.length;
    region.box.hi[k] = region.box.lo[k] + region.box.len[k];
    region.box.periodic[k] = !split && d->b.gper[k];
  }
  for (size_t i = 0; i < n; i++) { /* the model's start (its sort and forces are redone below) */
    const double *r = recs + REC * i;
    for (int k = 0; k < 3; k++) region.x[3 * i + k] = r[k] * u.length, region.v[3 * i + k] = r[3 + k] * u.velocity;
    region.r[i] = r[12] * u.length, region.inv_m[i] = r[13] / u.mass, region.m[i] = 1 / region.inv_m[i];
    region.id[i] = (int64_t)r[14];
  }
  void *state = NULL;
  int rc = agglo_model_dpd.init(&state, &region, c, err, errlen);
  agglo_system_free(&region);
  d->m = state;
  if (rc != 0) {
    free(recs);
    return -1;
  }
  dpd *m = d->m;
  /* rank 0's shear of the whole box; with y cut, its images arrive with the ghosts (queue) */
  m->shear = d->rate != 0 && d->b.dims[1] == 1;
  m->le = agglo_shear_make(d->rate, d->b.glo, d->b.glen, d->b.gper, 0); /* (timed by run) */
  for (size_t i = 0; i < n; i++) unpack(m, i, recs + REC * i, 0);
  free(recs);
  for (int k = 0; k < 3; k++) { /* walls: the scenario's */
    m->wall[k] = k < c->dim && !d->b.gper[k];
    m->wlo[k] = d->b.glo[k], m->whi[k] = d->b.glo[k] + d->b.glen[k];
  }
  if (!m->bridges) return 0;
  /* capillary bridges with memory: every rank starts from all of them (its set keeps, at each
     step, the pairs it meets, two ghosts included: docs/parallel.md) */
  unsigned long nb = d->b.rank == 0 ? ((const dpd *)sim->state)->bonds.n : 0;
  MPI_Bcast(&nb, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  uint64_t *keys = malloc((nb + 1) * sizeof *keys);
  if (!keys) return agglo_fail(err, errlen, "out of memory");
  if (d->b.rank == 0) agglo_bond_set_sorted(&((const dpd *)sim->state)->bonds, keys);
  MPI_Bcast(keys, (int)nb, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  rc = agglo_bond_set_assign(&m->bonds, keys, nb);
  free(keys);
  return rc != 0 ? agglo_fail(err, errlen, "out of memory") : 0;
}

/* ---- the gathered state ------------------------------------------------------------------ */

/* This rank's own particles (not ghosts). */
static size_t own_count(const dpd *m) {
  size_t own = 0;
  for (size_t i = 0; i < m->n; i++) own += !m->p.gh[i];
  return own;
}

/* The union of every rank's bridges becomes rank 0's set (stats, restart points). 0 or -1. */
static int gather_bonds(const domain *d, agglo_sim *sim) {
  const dpd *m = d->m;
  uint64_t *mine = malloc((m->bonds.n + 1) * sizeof *mine);
  if (mine) agglo_bond_set_sorted(&m->bonds, mine);
  void *all;
  size_t total;
  int bad = agglo_bricks_gather(&d->b, mine, (int)m->bonds.n, MPI_UINT64_T, sizeof *mine, &all, &total, NULL);
  if (!bad && d->b.rank == 0) bad = agglo_bond_set_assign(&((dpd *)sim->state)->bonds, all, total);
  free(mine), free(all);
  return bad ? -1 : 0;
}

/* Every rank's particles into rank 0's system (by id) and its model (forces, then the stats). */
static int gather(domain *d, agglo_sim *sim, const agglo_id_index *map, double *fbuf) {
  const dpd *m = d->m;
  size_t own = own_count(m);
  double *mine = malloc((REC * own + 1) * sizeof *mine);
  int cnt = (int)(REC * own);
  own = 0;
  for (size_t i = 0; mine && i < m->n; i++)
    if (!m->p.gh[i]) pack(m, i, mine + REC * own++);
  void *gathered;
  size_t total;
  if (agglo_bricks_gather(&d->b, mine, cnt, MPI_DOUBLE, sizeof *mine, &gathered, &total, NULL) != 0) {
    free(mine);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory gathering the particles");
  }
  const double *all = gathered;
  total /= REC;
  int rc = 0;
  if (d->b.rank == 0) {
    agglo_system *s = &sim->sys;
    dpd *m0 = sim->state;
    double *xv = fbuf + 3 * s->n, *tv = fbuf + 9 * s->n; /* tv: the predicted velocities */
    if (total != s->n)
      rc = agglo_error(AGGLO_ERROR_RUN, "step %lld: %zu particles gathered, %zu expected",
                       (long long)s->step, total, s->n);
    for (size_t q = 0; rc == 0 && q < total; q++) {
      const double *r = all + REC * q;
      size_t i = agglo_id_lookup(map, s->n, (int64_t)r[14]);
      if (i == SIZE_MAX) {
        rc = agglo_error(AGGLO_ERROR_RUN, "gathered particle id %lld is unknown", (long long)r[14]);
        break;
      }
      for (int k = 0; k < 3; k++) {
        double x = r[k];
        if (d->b.gper[k]) x -= d->b.glen[k] * floor((x - d->b.glo[k]) / d->b.glen[k]);
        s->x[3 * i + k] = x * m0->u.length;
        s->v[3 * i + k] = r[3 + k] * m0->u.velocity;
        fbuf[3 * i + k] = r[9 + k];
        xv[6 * i + k] = x, xv[6 * i + 3 + k] = r[3 + k]; /* (the system's, rounded, give back others) */
        tv[3 * i + k] = r[6 + k];
      }
    }
    if (rc == 0) {
      if (m0->shear) { /* the images of this step (the serial model's write-back) */
        agglo_shear_set_time(&m0->le, (double)s->step * m0->dt);
        s->box.shear_x = m0->le.offset * m0->u.length, s->box.shear_rate = m0->le.rate / m0->u.time;
      }
      agglo_dpd_refresh(m0, s, xv, fbuf);
      agglo_dpd_refresh_thermostat(m0, tv, m->force_step); /* (the pressure tensor's thermostat part) */
    }
    agglo_sim_replaced(sim);
  }
  free(mine), free(gathered);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc == 0 && m->bridges && gather_bonds(d, sim) != 0)
    rc = agglo_error(AGGLO_ERROR_MEMORY, "out of memory gathering the capillary bridges");
  return rc;
}

/* ---- the run ----------------------------------------------------------------------------- */

/* parallel.csv (agglo_bricks_report): records of REC doubles. */
static void report(const domain *d, agglo_sim *sim, int64_t steps, double wall) {
  double per = steps > 0 ? 1.0 / (double)steps : 0;
  double mine[4] = {(double)own_count(d->m), d->ghosts * per, d->sent * per, d->t_exchange};
  FILE *f = agglo_bricks_report(&d->b, sim, steps, wall, REC, mine, "");
  if (f) fputc('\n', f), fclose(f);
}

static agglo_status run(domain *d, agglo_sim *sim) {
  int64_t step, last;
  agglo_id_index *map;
  agglo_status st = agglo_bricks_start(&d->b, sim, &step, &last, &map);
  const int64_t first = step;
  double *fbuf = NULL; /* rank 0: the gathered forces (3n), positions and velocities (6n), predicted
                          velocities (3n) */
  int bad = d->b.rank == 0 && !(fbuf = malloc((12 * sim->sys.n + 1) * sizeof *fbuf));
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (st == AGGLO_OK && bad) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  double t_start = MPI_Wtime();
  dpd *m = d->m;
  while (st == AGGLO_OK && step < last) {
    agglo_dpd_drift(m);
    if (d->rate != 0) agglo_shear_set_time(&m->le, (double)(step + 1) * m->dt); /* the new positions' */
    double t0 = MPI_Wtime();
    if (migrate(d) != 0 || make_ghosts(d) != 0) bad = 1;
    d->t_exchange += MPI_Wtime() - t0;
    agglo_dpd_sort(m);
    size_t in_range = 0;
    double min_gap = INFINITY;
    if (agglo_dpd_forces(m, (uint64_t)step + 1, &in_range, &min_gap) != 0) bad = 1;
    size_t first_bad = agglo_dpd_kick(m);
    /* two reductions: temperature sums, pairs and bridges formed and broken (each rank counts
       the pairs whose lower id it owns, so each once); the smallest gap, a non-finite particle
       (id + 1) and memory */
    double sums[9], worst[3] = {-min_gap, first_bad == SIZE_MAX ? 0 : (double)m->p.id[first_bad] + 1, bad};
    agglo_dpd_kinetic_sums(m, sums);
    sums[6] = (double)in_range, sums[7] = (double)m->formed_now, sums[8] = (double)m->broken_now;
    MPI_Allreduce(MPI_IN_PLACE, sums, 9, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    min_gap = -worst[0];
    step++;
    if (worst[2] != 0) {
      st = agglo_error(AGGLO_ERROR_MEMORY, "step %lld: out of memory exchanging particles", (long long)step);
      break;
    }
    if (d->b.rank == 0) {
      agglo_dpd_record_temperature(sim->state, agglo_dpd_temperature_of(d->b.dim, sums));
      agglo_dpd_record_bridges(sim->state, (uint64_t)sums[7], (uint64_t)sums[8]);
    }
    agglo_step_info info = {.converged = 1, .n_contacts = (size_t)sums[6],
                            .min_gap = isfinite(min_gap) ? min_gap * m->u.length : INFINITY};
    int flags = agglo_bricks_end_step(&d->b, sim, map, step, last, &info, worst[1]);
    if (flags & AGGLO_BRICKS_FAILED) {
      st = AGGLO_ERROR_RUN;
      break;
    }
    if (!(flags & AGGLO_BRICKS_GATHER)) continue;
    if ((st = gather(d, sim, map, fbuf)) == AGGLO_OK) st = agglo_bricks_write(&d->b, sim, flags);
  }
  if (d->b.rank == 0) agglo_sim_ended(sim, st);
  report(d, sim, step - first, MPI_Wtime() - t_start);
  free(map);
  free(fbuf);
  return st;
}

agglo_status agglo_dpd_run_parallel(agglo_sim *sim, const agglo_config *c) {
  domain d = {0};
  char *err = agglo_error_buffer();
  int fail = setup(&d, sim, c, err, AGGLO_ERROR_LEN) != 0;
  if (!fail) fail = hand_out(&d, sim, c, err, AGGLO_ERROR_LEN) != 0;
  agglo_status st = agglo_bricks_any_failed(&d.b, fail) ? AGGLO_ERROR_INPUT : run(&d, sim);
  if (d.m) agglo_model_dpd.destroy(d.m);
  free(d.send[0]), free(d.send[1]), free(d.recv);
  agglo_bricks_free(&d.b);
  return st;
}
