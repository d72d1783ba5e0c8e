#include "models/gluey_obstacles.h"
#include "core/error.h"
#include "models/gluey_config.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int push(agglo_obstacles *ob, size_t *cap, const agglo_obstacle *o) {
  if (ob->n == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    agglo_obstacle *q = realloc(ob->o, c * sizeof *q);
    if (!q) return -1;
    ob->o = q;
    *cap = c;
  }
  ob->o[ob->n++] = *o;
  return 0;
}

void agglo_obstacle_place(const agglo_obstacle *o, double t, const double *p0, double *p) {
  if (o->omega == 0) {
    memcpy(p, p0, 3 * sizeof *p);
    return;
  }
  double a = o->omega * t, cs = cos(a), sn = sin(a);
  double dx = p0[0] - o->c[0], dy = p0[1] - o->c[1];
  p[0] = o->c[0] + cs * dx - sn * dy;
  p[1] = o->c[1] + sn * dx + cs * dy;
  p[2] = p0[2];
}

static void rotate_vec(const agglo_obstacle *o, double t, const double *v0, double *v) {
  if (o->omega == 0) {
    memcpy(v, v0, 3 * sizeof *v);
    return;
  }
  double a = o->omega * t, cs = cos(a), sn = sin(a);
  v[0] = cs * v0[0] - sn * v0[1];
  v[1] = sn * v0[0] + cs * v0[1];
  v[2] = v0[2];
}

/* distance from x to point p minus r, with the unit direction p -> x */
static double point_gap(const double *p, const double *x, double r, double e[3]) {
  double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
  double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (l > 0) {
    e[0] = d[0] / l, e[1] = d[1] / l, e[2] = d[2] / l;
  } else {
    e[0] = 0, e[1] = 1, e[2] = 0; /* centre on the obstacle: any direction */
  }
  return l - r;
}

double agglo_obstacle_gap(const agglo_obstacle *o, double t, const double *x, double r, double e[3]) {
  switch (o->kind) {
  case AGGLO_OBS_PLANE: {
    double c[3];
    rotate_vec(o, t, o->a, e);
    agglo_obstacle_place(o, t, o->c, c); /* the centre does not move; kept for clarity */
    return e[0] * (x[0] - c[0]) + e[1] * (x[1] - c[1]) + e[2] * (x[2] - c[2]) - o->radius - r;
  }
  case AGGLO_OBS_SEGMENT: {
    double a[3], b[3], ab[3], p[3];
    agglo_obstacle_place(o, t, o->a, a);
    agglo_obstacle_place(o, t, o->b, b);
    double l2 = 0, s = 0;
    for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], l2 += ab[k] * ab[k], s += (x[k] - a[k]) * ab[k];
    s = l2 > 0 ? s / l2 : 0;
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    for (int k = 0; k < 3; k++) p[k] = a[k] + s * ab[k];
    return point_gap(p, x, r, e);
  }
  default: {
    double p[3];
    agglo_obstacle_place(o, t, o->a, p);
    return point_gap(p, x, r + o->radius, e);
  }
  }
}

double agglo_obstacle_inv_radius(const agglo_obstacle *o) {
  return o->kind == AGGLO_OBS_SPHERE && o->radius > 0 ? 1.0 / o->radius : 0.0;
}

void agglo_obstacles_free(agglo_obstacles *ob) {
  free(ob->o);
  memset(ob, 0, sizeof *ob);
}

static int build(agglo_obstacles *ob, const agglo_system *s, const agglo_config *c, char *err,
                 size_t errlen);

/* (a refused key after some elements are pushed leaves nothing allocated) */
int agglo_obstacles_build(agglo_obstacles *ob, const agglo_system *s, const agglo_config *c,
                          char *err, size_t errlen) {
  if (build(ob, s, c, err, errlen) == 0) return 0;
  agglo_obstacles_free(ob);
  return -1;
}

static int build(agglo_obstacles *ob, const agglo_system *s, const agglo_config *c, char *err,
                 size_t errlen) {
  memset(ob, 0, sizeof *ob);
  size_t cap = 0;
  int d = s->dim;
  agglo_obstacle o;
#define PUSH()                                              \
  do {                                                      \
    if (push(ob, &cap, &o) != 0) {                          \
      agglo_obstacles_free(ob);                             \
      return agglo_fail(err, errlen, "out of memory (obstacles)"); \
    }                                                       \
  } while (0)
  /* the system box walls: plane n.x >= lo + ... written as n.(x - c) >= 0 with c on the face */
  for (int k = 0; k < d; k++) {
    if (s->box.periodic[k]) continue;
    for (int side = 0; side < 2; side++) {
      memset(&o, 0, sizeof o);
      o.kind = AGGLO_OBS_PLANE, o.group = AGGLO_OBS_BOXWALL;
      o.a[k] = side ? -1.0 : 1.0;
      o.c[k] = side ? s->box.hi[k] : s->box.lo[k];
      PUSH();
    }
  }
  /* planes: normal (d values) and offset c: n.x >= c, n normalised */
  const agglo_list *L = &agglo_gluey_of(c)->obs_planes;
  if (L->n % (d + 1))
    return agglo_fail(err, errlen, "obstacles.planes has %d values: give %d per plane (normal, offset)",
                L->n, d + 1);
  for (int p = 0; p < L->n; p += d + 1) {
    memset(&o, 0, sizeof o);
    o.kind = AGGLO_OBS_PLANE, o.group = AGGLO_OBS_USER_PLANE;
    double nn = 0;
    for (int k = 0; k < d; k++) o.a[k] = L->v[p + k], nn += o.a[k] * o.a[k];
    if (!(nn > 0)) return agglo_fail(err, errlen, "obstacles.planes: plane %d has a zero normal", p / (d + 1) + 1);
    nn = sqrt(nn);
    for (int k = 0; k < d; k++) o.a[k] /= nn;
    o.radius = L->v[p + d] / nn; /* offset along the unit normal, from the origin */
    PUSH();
  }
  L = &agglo_gluey_of(c)->obs_segments;
  if (L->n % (2 * d))
    return agglo_fail(err, errlen, "obstacles.segments has %d values: give %d per segment (two end "
                "points)", L->n, 2 * d);
  for (int p = 0; p < L->n; p += 2 * d) {
    memset(&o, 0, sizeof o);
    o.kind = AGGLO_OBS_SEGMENT, o.group = AGGLO_OBS_USER_SEGMENT;
    for (int k = 0; k < d; k++) o.a[k] = L->v[p + k], o.b[k] = L->v[p + d + k];
    PUSH();
  }
  L = &agglo_gluey_of(c)->obs_spheres;
  if (L->n % (d + 1))
    return agglo_fail(err, errlen, "obstacles.spheres has %d values: give %d per sphere (centre, "
                "radius)", L->n, d + 1);
  for (int p = 0; p < L->n; p += d + 1) {
    memset(&o, 0, sizeof o);
    o.kind = AGGLO_OBS_SPHERE, o.group = AGGLO_OBS_USER_SPHERE;
    for (int k = 0; k < d; k++) o.a[k] = L->v[p + k];
    o.radius = L->v[p + d];
    if (!(o.radius > 0)) return agglo_fail(err, errlen, "obstacles.spheres: sphere %d has radius <= 0", p / (d + 1) + 1);
    PUSH();
  }
  /* rotating square box: centre x, y, side, omega; its walls n.(x - c) >= -side/2 */
  L = &agglo_gluey_of(c)->obs_box;
  if (L->n != 0 && L->n != 4)
    return agglo_fail(err, errlen, "obstacles.box has %d values: give 4 (centre x, centre y, side, "
                "angular velocity) or none", L->n);
  if (L->n == 4) {
    if (!(L->v[2] > 0)) return agglo_fail(err, errlen, "obstacles.box: the side must be > 0");
    for (int w = 0; w < 4; w++) {
      memset(&o, 0, sizeof o);
      o.kind = AGGLO_OBS_PLANE, o.group = AGGLO_OBS_ROTATING_BOX;
      o.c[0] = L->v[0], o.c[1] = L->v[1];
      o.omega = L->v[3];
      o.a[w / 2] = (w & 1) ? -1.0 : 1.0; /* low x face has normal +x, ... */
      o.radius = -0.5 * L->v[2];
      PUSH();
    }
  }
  /* wheel: centre x, y, outer radius, blades, ball radius, omega; each blade a row of balls
     from the hub to the rim, spaced by one ball radius; a hub ring of balls */
  L = &agglo_gluey_of(c)->obs_wheel;
  if (L->n != 0 && L->n != 6)
    return agglo_fail(err, errlen, "obstacles.wheel has %d values: give 6 (centre x, centre y, radius, "
                "blades, ball radius, angular velocity) or none", L->n);
  if (L->n == 6) {
    double R = L->v[2], rb = L->v[4];
    int blades = L->v[3] >= 1 && L->v[3] <= 64 ? (int)L->v[3] : 0; /* cast in range only */
    if (!(R > 0) || !(rb > 0) || blades < 1 || blades > 64 || blades != L->v[3] || rb * 2 > R)
      return agglo_fail(err, errlen, "obstacles.wheel = ..., %g blades, ...: need radius > 0, a whole "
                  "number of blades from 1 to 64 and 0 < ball radius <= radius / 2", L->v[3]);
    memset(&o, 0, sizeof o);
    o.kind = AGGLO_OBS_SPHERE, o.group = AGGLO_OBS_WHEEL;
    o.c[0] = L->v[0], o.c[1] = L->v[1];
    o.omega = L->v[5];
    double hub = 2 * rb; /* hub: one ball of radius 2 rb at the centre */
    o.a[0] = o.c[0], o.a[1] = o.c[1], o.radius = hub;
    PUSH();
    o.radius = rb;
    for (int b = 0; b < blades; b++) {
      double ang = 2 * M_PI * b / blades;
      for (double rr = hub + rb; rr <= R - rb + 1e-12; rr += rb) {
        o.a[0] = o.c[0] + rr * cos(ang), o.a[1] = o.c[1] + rr * sin(ang);
        PUSH();
      }
    }
  }
#undef PUSH
  return 0;
}
