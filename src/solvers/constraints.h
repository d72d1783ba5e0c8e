/* The contact set of one step: pairs and walls whose gap may close within the step, with their
   gap D, gradient direction e and multiplier (impulse) lambda carried over from the last step. */
#ifndef AGGLO_CONSTRAINTS_H
#define AGGLO_CONSTRAINTS_H
#include "core/cells.h"
#include "core/system.h"

typedef struct {
  size_t n, cap;
  int32_t *i, *j;      /* j >= 0: pair (i, j), i < j; j < 0: wall number -1 - j acting on i */
  double *e;           /* 3n: pair: unit vector from i to j; wall: inward normal */
  double *gap;         /* D at the start of the step */
  double *lambda;      /* impulse (>= 0 for inequalities, free for equalities) */
  double *gamma;       /* per-contact memory, e.g. the gluey adhesion (0 = none) */
  uint8_t *equality;   /* 1: gap velocity forced to zero (glued) */
  /* incidence, built by agglo_constraints_index on request (the collection does not): the
     constraints acting on particle p are inc[inc_start[p] .. inc_start[p+1]), encoded 2c
     (particle is i) or 2c+1 (particle is j) */
  size_t *inc_start;
  uint32_t *inc;
  size_t inc_cap, np;
  int max_per_particle; /* most constraints on one particle */
  size_t *by_i;         /* np_by+1: constraints with first particle i: by_i[i] .. by_i[i+1] */
  size_t np_by, by_cap;
  struct agglo_cscratch *scratch; /* buffers of the collection, kept between steps */
  struct agglo_proj_ws *ws; /* the projection's scratch memory, kept between steps */
} agglo_constraints;

/* Wall w = 2k + side acts along axis k: side 0 is the low face (normal +e_k), side 1 the high. */
static inline double agglo_wall_gap(const agglo_system *s, int w, size_t i) {
  int k = w / 2;
  return (w & 1) ? s->box.hi[k] - s->x[3 * i + k] - s->r[i] : s->x[3 * i + k] - s->box.lo[k] - s->r[i];
}

/* Collect every pair of the neighbour list and every wall contact with gap < reach; lambda and
   gamma are carried over from the previous set for contacts that persist (matched by key). */
int agglo_constraints_collect(agglo_constraints *c, const agglo_system *s, const agglo_neighbors *nb,
                              double reach);
/* The same with a per-contact test, for moving particles: a pair (or wall) is a constraint when
   its gap is below margin, or below both cap and margin + safety h |vstar_j - vstar_i| (vstar the
   a priori velocities; a wall counts as still), or, when vtry is not NULL, when it closes at the
   velocities vtry of an earlier attempt (gap + h e.(vtry_j - vtry_i) < 0). Every pair of the
   neighbour list is examined; with cap no larger than the list's cutoff, the set does not depend
   on when the list was built. vstar may be NULL (margin only). */
int agglo_constraints_collect_moving(agglo_constraints *c, const agglo_system *s,
                                     const agglo_neighbors *nb, double margin, double h,
                                     double safety, double cap, const double *vstar,
                                     const double *vtry);
/* Pairs of the neighbour list and walls that are not constraints but whose gap after the step,
   gap + h G.v, is negative for velocities v (a miss of the selection above). Returns their count;
   sets mark[p] = 1 for their particles when mark is not NULL. */
size_t agglo_constraints_count_missed(const agglo_constraints *c, const agglo_system *s,
                                      const agglo_neighbors *nb, double h, const double *v,
                                      uint8_t *mark);
/* Adds the pairs the last agglo_constraints_count_missed found (same step, same list) with zero
   multipliers, keeping the rest as it is: the same set and order as collecting again with
   vtry = those velocities, without examining the list again. Returns 1 (nothing done) when it
   cannot (a wall was missed, or the list or the positions changed): collect again then. */
int agglo_constraints_add_missed(agglo_constraints *c, const agglo_system *s,
                                 const agglo_neighbors *nb);
/* Build the per-particle incidence lists and max_per_particle (after a collection, if needed:
   the projection does not use them). */
int agglo_constraints_index(agglo_constraints *c, size_t nparticles);
/* A contact read back from a restart point (line `line`): particle i < n, partner j a particle
   i < j < n or, when j < 0, the element -1 - j < elements (what names it: "wall", "obstacle
   element"), keys (i, j) in the collection's order after the previous one (pi, pj; pi < 0 for the
   first), multiplier and memory finite. 0, or -1 with "line L: ..." in err. */
int agglo_constraints_check_loaded(size_t n, size_t elements, const char *what, int i, int j,
                                   int pi, int pj, double lambda, double gamma, size_t line,
                                   char *err, size_t errlen);
/* Room for `need` constraints (the arrays i .. equality): 0, or -1 (memory). */
int agglo_constraints_reserve(agglo_constraints *c, size_t need);
void agglo_constraints_free(agglo_constraints *c);

#endif
