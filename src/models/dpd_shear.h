/* Lees-Edwards boundary conditions (Lees and Edwards, J. Phys. C 5, 1921 (1972); docs/dpd.md,
   "Shear"): a periodic box sheared at the rate gamma_dot = dpd.shear_rate, flow along x (axis 0),
   gradient along y (axis 1). The image of the box across its upper y face is shifted along x by
   offset = gamma_dot L_y t (taken modulo L_x) and moves at + gamma_dot L_y along x; the image
   across the lower face by the opposite. The streaming velocity is u_x(y) = gamma_dot (y - y_c),
   y_c the middle of the box along y [choice, docs/models.md]. Any consistent units; the DPD
   model (dpd_model.c) uses its reduced ones. With gamma_dot = 0 every function below leaves its
   numbers alone, but the model does not call them then (its bytes are those of the code without
   shear). */
#ifndef AGGLO_MODELS_DPD_SHEAR_H
#define AGGLO_MODELS_DPD_SHEAR_H
#include "core/system.h" /* agglo_le_delta_of */
#include <math.h>

typedef struct {
  double rate;   /* gamma_dot */
  double len[3]; /* box lengths on the periodic axes, 0 on the others (z in 2D, walls) */
  double inv[3]; /* their inverses (0 on the others) */
  double y_mid;  /* y_c: the middle of the box along y */
  double offset; /* the upper image's x shift now, gamma_dot L_y t mod L_x, in [0, L_x) */
  double dvx;    /* the upper image's x velocity: gamma_dot L_y */
} agglo_shear;

/* The image offset gamma_dot L_y t, modulo L_x, in [0, L_x) (any sign of gamma_dot). */
static inline double agglo_shear_offset(double rate, double ly, double lx, double t) {
  double s = rate * ly * t;
  s -= lx * floor(s / lx);
  return s >= lx || s < 0 ? 0 : s; /* (rounding of a tiny negative) */
}

/* A shear at rate `rate` of the box lo + [0, len) (periodic[k]: axis k is periodic; x and y must
   be), at time t. */
static inline agglo_shear agglo_shear_make(double rate, const double lo[3], const double len[3],
                                           const int periodic[3], double t) {
  agglo_shear le;
  le.rate = rate;
  for (int k = 0; k < 3; k++) le.len[k] = periodic[k] ? len[k] : 0, le.inv[k] = periodic[k] ? 1.0 / len[k] : 0;
  le.y_mid = lo[1] + 0.5 * len[1];
  le.dvx = rate * len[1];
  le.offset = agglo_shear_offset(rate, len[1], len[0], t);
  return le;
}

/* Move the shear to time t (the offset only). */
static inline void agglo_shear_set_time(agglo_shear *le, double t) {
  le->offset = agglo_shear_offset(le->rate, le->len[1], le->len[0], t);
}

/* The streaming velocity u_x(y) = gamma_dot (y - y_c). */
static inline double agglo_shear_stream(const agglo_shear *le, double y) {
  return le->rate * (y - le->y_mid);
}

/* The relative velocity v_i - v_j of a pair whose separation took ny box heights
   (the minimum image agglo_le_delta_of, core/system.h, of d = x_i - x_j with this shear's len,
   inv and offset): the image of j moves ny gamma_dot L_y faster along x. */
static inline void agglo_shear_velocity_image(const agglo_shear *le, double ny, double dv[3]) {
  dv[0] -= ny * le->dvx;
}

/* The image n box heights up (n = +-1, ...) of a particle at x moving at v, in place: y by
   n L_y, x by n offset (left unwrapped) and the x velocity by n gamma_dot L_y. The one law of
   the images: the wrap below and the ghosts of the MPI bricks (mpi/dpd_domain.c) use it. */
static inline void agglo_shear_image(const agglo_shear *le, double n, double x[3], double v[3]) {
  x[1] += n * le->len[1];
  x[0] += n * le->offset;
  v[0] += n * le->dvx;
}

/* A particle that left the box through a y face comes back through the other one, shifted
   along x by the offset and its x velocity by gamma_dot L_y (x, v: its position and velocity,
   lo the box's lower corner; x along x is left unwrapped). Returns the number of box heights
   taken off y (0: it was inside). */
static inline double agglo_shear_wrap_y(const agglo_shear *le, double lo_y, double x[3],
                                        double v[3]) {
  double ny = floor((x[1] - lo_y) / le->len[1]);
  if (ny == 0 || !isfinite(ny)) return 0;
  agglo_shear_image(le, -ny, x, v);
  if (x[1] - lo_y >= le->len[1] || x[1] < lo_y) x[1] = lo_y; /* rounding */
  return ny;
}

#endif
