/* Damped Arrow-Hurwicz (DAH) minimiser of the ballistic time stepping (Degond et al. 2024,
   (3.17)-(3.23); Degond, Ferreira, Motsch, J. Comput. Phys. 332, 2017; docs/ballistic.md):
   the nearest constrained critical point, from the current positions, of
       W_S(X) = 1/2 sum_{(i,j) in S} |X_i - X_j|^2
   subject to phi_ij(X) = (r_i + r_j)^2 - |X_i - X_j|^2 <= 0 for (i,j) in S.
   Work is local: only particles that feel a residual force move ("active" set grown from seeds),
   so the cost of one solve does not depend on the size of the clusters it touches. */
#ifndef AGGLO_DAH_H
#define AGGLO_DAH_H
#include "core/system.h"

/* The link set S with its multipliers, and per-particle incidence lists. Links are never
   removed. Link l joins a[l] and b[l]; incidence 2l (end a) and 2l+1 (end b). */
typedef struct {
  int32_t a, b;    /* ends */
  int32_t next[2]; /* next incidence of end a (next[0]) and of end b (next[1]), -1 at the end */
  double lambda;   /* multiplier */
} agglo_link;      /* one cache line holds what an iteration needs of a link */

typedef struct {
  size_t n, count, cap; /* particles, links, room */
  agglo_link *link;
  int32_t *head;   /* n: first incidence of each particle, -1 if none */
  int32_t *degree; /* n */
} agglo_links;

#define AGGLO_LINK_NEXT(L, e) ((L)->link[(e) >> 1].next[(e) & 1])

int agglo_links_init(agglo_links *L, size_t n);
void agglo_links_free(agglo_links *L);
/* 1 if i and j are linked. */
int agglo_links_has(const agglo_links *L, int32_t i, int32_t j);
/* Add a link (i != j, not yet linked) with multiplier lambda0. Returns 0 or -1 (memory). */
int agglo_links_add(agglo_links *L, int32_t i, int32_t j, double lambda0);

typedef struct {
  /* coefficients per pseudo-step, positions in units of the reference length:
     P <- (1-c) P - alpha grad_X L - gamma sum lambda phi grad phi ; X <- X + P ;
     lambda <- max(0, lambda + beta phi) */
  double alpha, beta, gamma, c;
  double tol;       /* max phi+/(ri+rj)^2, max lambda|phi|/(ri+rj)^2 and max |grad L| (units of
                       the reference length) all below tol; max |dX| below tol/100 */
  int max_iter;     /* iteration cap of one attempt */
  int max_restarts; /* fallbacks: halve alpha, gamma (and beta) and restart from the start */
  int adapt;        /* 1: cap gamma by the Gershgorin bound of the active set (stability) */
  double length;    /* reference length (e.g. the mean radius) */
  const _Atomic int *stop; /* not NULL: polled each iteration; when set, the solve gives up (1) */
} agglo_dah_settings;

void agglo_dah_defaults(agglo_dah_settings *s);

typedef struct {
  int iterations;      /* total over attempts */
  int restarts;        /* fallbacks used */
  int converged;
  size_t active;       /* particles moved */
  double max_overlap;  /* largest overlap |r_i + r_j - |X_i - X_j|| of a link left (length) */
  double max_stretch;  /* largest gap of a link left (length) */
  double max_move;     /* largest displacement of a particle (length) */
  double gamma_used;   /* smallest gamma used (after adaptation) */
  double work;         /* particle updates: sum over iterations of the awake particles */
  double checks;       /* residual evaluations of sleeping or untouched neighbours */
  int full_checks;     /* times every particle fell asleep and all were checked */
} agglo_dah_stats;

typedef struct agglo_dah_work agglo_dah_work;

agglo_dah_work *agglo_dah_work_new(size_t n);
void agglo_dah_work_free(agglo_dah_work *w);
/* Indices of the particles moved by the last solve (valid until the next solve). */
const int32_t *agglo_dah_moved(const agglo_dah_work *w, size_t *count);

/* Relax the positions x (3n, storage order of the system) around the seed particles. Particles
   join the active set when a residual force reaches them through the links. Positions on
   periodic axes are wrapped back into the box at the end. If trace is not NULL it receives, per
   iteration, the distance and multiplier of link 0 (for tests): trace[2k], trace[2k+1], up to
   trace_len iterations. Returns 0, -1 (memory) or 1 (a stop request: x half relaxed). */
int agglo_dah_solve(agglo_links *L, double *x, const double *r, const agglo_box *box,
                    const int32_t *seeds, size_t nseeds, const agglo_dah_settings *set,
                    agglo_dah_work *w, agglo_dah_stats *st, double *trace, int trace_len);

#endif
