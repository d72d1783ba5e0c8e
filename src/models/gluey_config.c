/* The gluey model (Lefebvre 2007) in the registry (core/models.c): the keys of [gluey] and
   [obstacles]; their checks across keys; its dynamics (gluey_model.c). It also reads the
   contact model's [gravity] and [solver]. */
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include "models/gluey_model.h"
#include "models/gluey_obstacles.h"
#include "models/gluey_config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* where its keys live: members of its settings (config/keys.h) */
#define OWN(member) SETTING(agglo_gluey_settings, member)

static const agglo_key keys[] = {
  {"gluey", "gamma_min", T_DOUBLE, OWN(gamma_min), "-inf", -INFINITY, 0, 0, 0,
   "roughness threshold of the adhesion memory: gamma >= gamma_min; -inf = smooth gluey "
   "particles, 0 = plain inelastic contact, in between = rough"},
  {"gluey", "radius_weighting", T_ENUM, OWN(radius_weighting), "off", 0, 0, 0, "off|on",
   "on: gamma -= (1/r_i + 1/r_j)^2 h lambda (Lefebvre's rough model, 1/r_i^2 against a plane); "
   "off: gamma -= h lambda"},
  {"gluey", "glued_rows", T_ENUM, OWN(glued_rows), "equality", 0, 0, 0,
   "equality|bounded|keep",
   "constraint of a glued contact: equality = D + h G.v = 0 (the paper's); bounded = "
   "0 <= D + h G.v <= max(D, 0), cannot open, may close; keep = D + h G.v = max(D, 0), keeps its "
   "gap, closes an overlap (bounded and keep are always feasible for a rigidly moving glued "
   "cluster; see docs/gluey.md)"},
  {"gluey", "force_times", T_LIST, OWN(force_times), "", 0, BIG, 0, 0,
   "times (ascending) at which the external force per unit mass changes to the next value of "
   "gluey.force (zero before the first); added to gravity.g"},
  {"gluey", "force", T_LIST, OWN(force), "", -BIG, BIG, 0, 0,
   "external force per unit mass from each of gluey.force_times on: run.dim values per time"},
  {"gluey", "skin", T_DOUBLE, OWN(skin), "0.5", 0, BIG, 0, 0,
   "Verlet skin of the neighbour list in mean radii (0: rebuilt every step; the adhesion memory "
   "is carried by pair, whatever the rebuilds)"},
  {"gluey", "region", T_LIST, OWN(region), "", -BIG, BIG, 0, 0,
   "random placement inside this box only: low corner then high corner (2 run.dim values); "
   "empty = the whole box"},
  {"gluey", "positions", T_LIST, OWN(positions), "", -BIG, BIG, 0, 0,
   "explicit initial centres, run.dim values per particle (overrides the placement)"},
  {"gluey", "velocities", T_LIST, OWN(velocities), "", -BIG, BIG, 0, 0,
   "explicit initial velocities, run.dim values per particle (the rest start at rest)"},
  {"obstacles", "planes", T_LIST, OWN(obs_planes), "", -BIG, BIG, 0, 0,
   "fixed planes n.x >= c: run.dim values of the normal n then c, per plane (gluey model)"},
  {"obstacles", "segments", T_LIST, OWN(obs_segments), "", -BIG, BIG, 0, 0,
   "fixed two-sided walls of finite length: two end points (2 run.dim values) per segment"},
  {"obstacles", "spheres", T_LIST, OWN(obs_spheres), "", -BIG, BIG, 0, 0,
   "fixed spheres: centre (run.dim values) and radius, per sphere"},
  {"obstacles", "box", T_LIST, OWN(obs_box), "", -BIG, BIG, 0, 0,
   "a square box rotating about its centre: centre x, centre y, side, angular velocity (rad per "
   "time unit); particles inside"},
  {"obstacles", "wheel", T_LIST, OWN(obs_wheel), "", -BIG, BIG, 0, 0,
   "a paddle wheel of spheres rotating about its centre: centre x, centre y, radius, blades, "
   "ball radius, angular velocity"},
};

/* A step of free fall must not cross a diameter, nor a step of a rotating obstacle: a wall that
   sweeps past a particle within one step leaves the projection no consistent contact (at
   omega = 1e12 every step ran to the iteration cap with warnings only). */
static int validate(const agglo_config *c, double rmax, char *err, size_t errlen) {
  if (agglo_config_check_gravity(c, rmax, err, errlen) != 0) return -1;
  const agglo_list *B = &agglo_gluey_of(c)->obs_box, *W = &agglo_gluey_of(c)->obs_wheel;
  struct { const char *key; int n; double omega, reach; } rot[2] = {
    {"obstacles.box", B->n == 4, B->n == 4 ? B->v[3] : 0, B->n == 4 ? fabs(B->v[2]) / sqrt(2.0) : 0},
    {"obstacles.wheel", W->n == 6, W->n == 6 ? W->v[5] : 0, W->n == 6 ? fabs(W->v[2]) : 0}};
  for (int k = 0; k < 2; k++)
    if (rot[k].n && !(fabs(rot[k].omega) * rot[k].reach * c->dt <= 2 * rmax))
      return agglo_fail(err, errlen, "%s: the angular velocity %g is too large for run.dt = %g: its "
                        "farthest point (%g from the centre) moves %g per step, more than a particle "
                        "diameter (%g); allowed: |omega| <= %g, or lower run.dt", rot[k].key,
                        rot[k].omega, c->dt, rot[k].reach, fabs(rot[k].omega) * rot[k].reach * c->dt,
                        2 * rmax, 2 * rmax / (rot[k].reach * c->dt));
  return 0;
}

/* gluey.region: random placement inside it, low corner then high corner. */
static int placement_region(const agglo_config *c, const agglo_system *s, const double **region,
                            char *err, size_t errlen) {
  const agglo_list *R = &agglo_gluey_of(c)->region;
  int d = c->dim;
  if (!R->n) return 0;
  if (R->n != 2 * d)
    return agglo_fail(err, errlen, "gluey.region has %d values: give %d (low corner, high corner)",
                      R->n, 2 * d);
  for (int k = 0; k < d; k++)
    if (!(R->v[d + k] - R->v[k] >= 2 * agglo_max_radius(s)))
      return agglo_fail(err, errlen, "gluey.region is narrower than a particle");
  *region = R->v;
  return 0;
}

/* The random placement keeps out of the obstacles where they stand at t = 0 (a particle started
   inside a sphere or outside the rotating box is blown out, or stays stuck, by the first step). */
typedef struct {
  agglo_obstacles ob;
  char name[128];
} placement_ctx;

static const char *blocked(void *ctx, const double *x, double r) {
  placement_ctx *p = ctx;
  static const char *group[] = {"the box walls (box.boundary = wall)", "obstacles.planes plane",
                                "obstacles.segments segment", "obstacles.spheres sphere",
                                "obstacles.box (the rotating box)", "obstacles.wheel"};
  for (size_t k = 0; k < p->ob.n; k++) {
    const agglo_obstacle *o = &p->ob.o[k];
    double e[3];
    if (agglo_obstacle_gap(o, 0, x, r, e) >= 0) continue;
    size_t nth = 1; /* its number among the elements of its group */
    for (size_t q = 0; q < k; q++) nth += p->ob.o[q].group == o->group;
    if (o->group == AGGLO_OBS_USER_PLANE || o->group == AGGLO_OBS_USER_SEGMENT ||
        o->group == AGGLO_OBS_USER_SPHERE)
      snprintf(p->name, sizeof p->name, "%s %zu", group[o->group], nth);
    else snprintf(p->name, sizeof p->name, "%s", group[o->group]);
    return p->name;
  }
  return NULL;
}

static void release(void *ctx) {
  placement_ctx *p = ctx;
  agglo_obstacles_free(&p->ob);
  free(p);
}

static int placement_filter(const agglo_config *c, const agglo_system *s, agglo_placement_filter *f,
                            char *err, size_t errlen) {
  if (agglo_gluey_of(c)->positions.n) return 0; /* gluey.positions replaces the placement (start) */
  placement_ctx *p = calloc(1, sizeof *p);
  if (!p) return agglo_fail(err, errlen, "out of memory (obstacles)");
  if (agglo_obstacles_build(&p->ob, s, c, err, errlen) != 0) {
    free(p);
    return -1;
  }
  f->ctx = p, f->blocked = blocked, f->release = release;
  return 0;
}

/* gluey.positions and gluey.velocities (unless particles.from gives the start). */
static int start(agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  return c->from[0] ? 0 : agglo_gluey_place(s, c, err, errlen);
}

/* A user's start may overlap by the solver's tolerance. */
static double overlap_tolerance(const agglo_config *c) { return c->solver_tol; }

static const agglo_model *dynamics(const agglo_config *c) {
  (void)c;
  return &agglo_model_gluey;
}

const agglo_model_entry agglo_gluey_entry = {
    .name = "gluey",
    .help = "gluey particles (Lefebvre 2007; settings in [gluey] and [obstacles], docs/gluey.md)",
    .description = "gluey particles (Lefebvre 2007): adhesion memory gamma per contact,\n"
                   "smooth, rough or inelastic (gluey.gamma_min), obstacles (docs/gluey.md)",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(agglo_gluey_settings),
    .also_reads = "gravity. solver.",
    /* the start's; the adhesion memory names obstacle elements by number */
    .fixed_on_restart = "gluey.region gluey.positions gluey.velocities obstacles.",
    .validate = validate,
    .placement_region = placement_region,
    .placement_filter = placement_filter,
    .start = start,
    .dynamics = dynamics,
    .overlap_tolerance = overlap_tolerance,
};
