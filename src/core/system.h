/* Particles as arrays of 3-vectors (2D keeps z = 0) and the box they live in. */
#ifndef AGGLO_SYSTEM_H
#define AGGLO_SYSTEM_H
#include "agglo/agglo.h" /* agglo_box */
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
  int dim;          /* 2 or 3 */
  size_t n;         /* number of particles */
  double *x, *v;    /* 3n: centres and velocities */
  double *r, *m;    /* n: radii and masses */
  double *inv_m;    /* n: 1/m, 0 for an immovable particle */
  int64_t *id;      /* n: global id, independent of storage order */
  int32_t *cluster; /* n: cluster label (smallest id of the cluster) */
  /* n: each particle's species (0, 1, ...; DPD's dpd.species), or NULL: one species. Filled by
     the model at the start of a run (agglo_model_fill_species, core/model.h); the pictures and
     the writers read it here, never from a model's settings */
  int32_t *species;
  agglo_box box;
  double t;         /* time, always step * dt */
  int64_t step;
  /* a stop requested while a step runs (agglo_sim_request_stop), or NULL when the step cannot
     be undone: an engine that polls it (agglo_stop_requested) gives its step up, returning
     AGGLO_STEP_STOPPED, and the driver restores the state from before the step */
  const _Atomic int *stop;
} agglo_system;

/* Has a stop been asked for inside the current step? (relaxed: a poll, read often) */
static inline int agglo_stop_requested(const agglo_system *s) {
  return s->stop && atomic_load_explicit(s->stop, memory_order_relaxed);
}

int agglo_system_alloc(agglo_system *s, int dim, size_t n);
void agglo_system_free(agglo_system *s);

/* The Lees-Edwards minimum image of a separation d = x_a - x_b, in place: y first (ny = the box
   heights taken off: the image of b used is ny boxes up), then x shifted by ny times the offset
   of the image across the upper y face (with `shear`) and wrapped, z wrapped. L[k]: the length
   of axis k if periodic, else 0; inv[k] its inverse (0 if bounded). Returns ny (the relative
   velocity of the pair across the faces takes ny times the faces' relative velocity). The one
   minimum image of a sheared box: the DPD forces, cell search and bridges (reduced units,
   src/models/dpd_*), the pressure tensor, and agglo_box_delta below (the analysis, clusters,
   neighbour lists, pictures); without shear it is the plain periodic minimum image. */
static inline __attribute__((always_inline)) double agglo_le_delta_of(double d[3], const double L[3],
                                                                     const double inv[3],
                                                                     double offset, int shear) {
  const double ny = __builtin_rint(d[1] * inv[1]);
  d[1] -= L[1] * ny;
  if (shear) d[0] -= ny * offset;
  d[0] -= L[0] * __builtin_rint(d[0] * inv[0]);
  d[2] -= L[2] * __builtin_rint(d[2] * inv[2]);
  return ny;
}

/* Minimum-image separation x_j - x_i. Under Lees-Edwards shear (b->shear_x != 0), the image of
   j across a y face is also shifted along x by -+shear_x: agglo_le_delta_of (src/models/dpd_shear.h). */
static inline void agglo_box_delta(const agglo_box *b, const double *xi, const double *xj,
                                   double d[3]) {
  if (b->shear_x != 0 && b->periodic[1]) {
    double L[3], inv[3];
    for (int k = 0; k < 3; k++) {
      L[k] = b->periodic[k] ? b->len[k] : 0, inv[k] = b->periodic[k] ? 1 / b->len[k] : 0;
      d[k] = xj[k] - xi[k];
    }
    agglo_le_delta_of(d, L, inv, b->shear_x, 1);
    return;
  }
  for (int k = 0; k < 3; k++) {
    double dk = xj[k] - xi[k];
    if (b->periodic[k]) {
      if (dk > 0.5 * b->len[k]) dk -= b->len[k];
      else if (dk < -0.5 * b->len[k]) dk += b->len[k];
    }
    d[k] = dk;
  }
}

/* The minimum image of agglo_box_delta with the box's constants read once, for loops over many
   pairs: L = 0 and half = 0 on a bounded axis leave the difference alone (the same bits). D = 2
   leaves z out (every z is 0 in 2D: d[2] = 0 as agglo_box_delta finds). */
typedef struct {
  double L[3], half[3];
} agglo_image;

static inline agglo_image agglo_box_image(const agglo_box *b) {
  agglo_image m;
  for (int k = 0; k < 3; k++) m.L[k] = b->periodic[k] ? b->len[k] : 0.0, m.half[k] = 0.5 * m.L[k];
  return m;
}

static inline __attribute__((always_inline)) void agglo_image_delta(const agglo_image *m,
                                                                    const double *xi,
                                                                    const double *xj, double d[3],
                                                                    int D) {
  for (int k = 0; k < D; k++) {
    double dk = xj[k] - xi[k];
    if (dk > m->half[k]) dk -= m->L[k];
    else if (dk < -m->half[k]) dk += m->L[k];
    d[k] = dk;
  }
  if (D == 2) d[2] = 0.0;
}

/* Put a position back into the primary periodic image. */
/* A centre given for a periodic axis may lie at most this many box lengths from the box:
   wrapping one farther keeps fewer than 6 of its digits (a coordinate of 1e308 wrapped to 0). */
#define AGGLO_WRAP_MAX_SIDES 1e6

static inline void agglo_box_wrap(const agglo_box *b, double *x) {
  if (b->shear_x != 0 && b->periodic[1]) { /* Lees-Edwards: through a y face, shifted along x */
    const double ny = __builtin_floor((x[1] - b->lo[1]) / b->len[1]);
    if (ny != 0 && __builtin_isfinite(ny)) x[0] -= ny * b->shear_x;
  }
  for (int k = 0; k < 3; k++)
    if (b->periodic[k]) {
      double y = x[k] - b->lo[k];
      if (y < 0 || y >= b->len[k]) y -= b->len[k] * __builtin_floor(y / b->len[k]);
      if (y >= b->len[k] || y < 0) y = 0; /* rounding (of a tiny negative, or a huge x) */
      x[k] = b->lo[k] + y;
    }
}

double agglo_max_radius(const agglo_system *s);
double agglo_min_radius(const agglo_system *s);
double agglo_kinetic_energy(const agglo_system *s);
/* The largest speed among the first n velocities of v (3 per particle). */
double agglo_max_speed(const double *v, size_t n);

#endif
