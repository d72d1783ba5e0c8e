/* Obstacles of infinite mass for the gluey model (Lefebvre 2007, Remark 3.5): planes with any
   normal, segments (2D walls of finite length: funnels, inclined planes, containers), fixed
   spheres, and moving obstacles with a prescribed rotation about a centre in the xy plane (a
   square box rotating about its centre, a paddle wheel built from spheres). Each element is one
   constraint partner of a particle; its gap and normal are taken with the obstacle where it is at
   the requested time (the paper's rule: t^{n+1} for the step from t^n). */
#ifndef AGGLO_OBSTACLES_H
#define AGGLO_OBSTACLES_H
#include "config/config.h"
#include "core/system.h"

enum { AGGLO_OBS_PLANE = 0, AGGLO_OBS_SEGMENT = 1, AGGLO_OBS_SPHERE = 2 };
/* What an element belongs to (for messages, pictures and statistics). */
enum {
  AGGLO_OBS_BOXWALL = 0, /* a wall of the system box (box.boundary = wall) */
  AGGLO_OBS_USER_PLANE, AGGLO_OBS_USER_SEGMENT, AGGLO_OBS_USER_SPHERE,
  AGGLO_OBS_ROTATING_BOX, AGGLO_OBS_WHEEL
};

typedef struct {
  int kind, group;
  /* at angle 0: plane n.(x - c) >= d with unit normal n (a) and offset d (radius);
     segment from a to b; sphere of centre a and radius */
  double a[3], b[3], radius;
  double c[3];  /* centre of rotation */
  double omega; /* angular velocity about c (z axis); 0 = fixed */
} agglo_obstacle;

typedef struct {
  agglo_obstacle *o;
  size_t n;
} agglo_obstacles;

/* The obstacles of a scenario: the system box walls first, then [obstacles] planes, segments,
   spheres, the rotating box, the wheel. Returns 0, or -1 with a message. */
int agglo_obstacles_build(agglo_obstacles *ob, const agglo_system *s, const agglo_config *c,
                          char *err, size_t errlen);
void agglo_obstacles_free(agglo_obstacles *ob);

/* Gap between a particle (centre x, radius r) and element o at time t, and the unit normal e
   pointing from the obstacle to the particle (d gap / dx = e). */
double agglo_obstacle_gap(const agglo_obstacle *o, double t, const double *x, double r, double e[3]);
/* 1 / r_o: 0 for planes and segments (flat), 1/radius for a sphere (the radius weighting of the
   gluey model is R = (1/r_i + 1/r_o)^2). */
double agglo_obstacle_inv_radius(const agglo_obstacle *o);
/* Position of a point attached to o at time t (rotation about o->c). */
void agglo_obstacle_place(const agglo_obstacle *o, double t, const double *p0, double *p);

#endif
