/* Tunable cluster-cluster aggregation, hierarchical as FracVAL (Moran et al. 2019): at each level
   the clusters join in pairs (monomers into dimers, dimers into clusters of about 4, ...); each
   pair is placed touching with its centres of mass at the distance Gamma that gives the union the
   prescribed R_g (gyration_rule.c); two monomers only touch. A cluster joins the first later one
   of its level that the distance can reach at all (Gamma real and at most the sum of their
   reaches); when that joining finds no place, the next such one, up to PARTNERS of them (with
   unequal radii a small cluster of large monomers cannot take the R_g of a small-monomer one). A
   cluster that no partner can reach, or left without one, goes up a level unjoined (a level
   where nothing joins is done again joining each cluster with its first partner, whose failure
   says why) (with N odd, a monomer joins a large
   cluster late, where every distance is reachable, instead of a dimer early). After each level
   the monomers are copied so that every cluster is one range of the arrays again. */
#include "aggregates/cluster.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PARTNERS = 4, LOOK_AHEAD = 64 };

/* The farthest monomer surface from the cluster's centre of mass. */
static double reach(const agg_state *s, const agg_cluster *c) {
  double r = 0;
  for (size_t i = c->first; i < c->first + c->n; i++) {
    const double *x = s->x + 3 * i;
    double d = sqrt((x[0] - c->c[0]) * (x[0] - c->c[0]) + (x[1] - c->c[1]) * (x[1] - c->c[1]) +
                    (x[2] - c->c[2]) * (x[2] - c->c[2])) + s->r[i];
    if (d > r) r = d;
  }
  return r;
}

/* The distance Gamma asked to join a and b (two monomers: contact). */
static double gamma_of(const agg_state *s, const agg_cluster *a, const agg_cluster *b, double *rg) {
  size_t m = a->n + b->n;
  *rg = 0;
  if (m < 3) return s->r[a->first] + s->r[b->first];
  *rg = agg_rg_target(m, a->log_a + b->log_a, s->o->fractal_dimension, s->o->prefactor);
  return agg_gamma(a->mass, a->rg, b->mass, b->rg, *rg);
}

/* Join c[p] with a partner among the later unused clusters: 1 joined (*q, *joined), 0 none left
   to join, -1 / -2 failed (message in err). */
static int join_one(agg_state *s, agg_cluster *c, size_t count, size_t p, const double *rch,
                    const char *used, int level, int force, size_t *q_out, agg_cluster *joined,
                    char *err, size_t errlen) {
  const agglo_aggregate_options *o = s->o;
  size_t looked = 0, fallback = count;
  int attempts = 0, rc = 0;
  for (size_t q = p + 1; q < count && looked < LOOK_AHEAD && attempts < PARTNERS; q++) {
    if (used[q]) continue;
    looked++;
    if (fallback == count) fallback = q;
    double rg, gamma = gamma_of(s, &c[p], &c[q], &rg);
    if (!(gamma >= 0 && gamma <= rch[p] + rch[q])) continue;
    char what[200];
    snprintf(what, sizeof what, "cluster-cluster, level %d: clusters of %zu (R_g %.6g) and %zu "
             "(R_g %.6g) monomers joining into %zu of %zu", level, c[p].n, c[p].rg, c[q].n, c[q].rg,
             c[p].n + c[q].n, s->n);
    attempts++;
    rc = agg_join(s, &c[p], &c[q], gamma, NULL, joined, what, err, errlen);
    if (rc == 0) return *q_out = q, 1;
    if (rc == -2 || rc == -3) return rc; /* out of memory, stopped */
  }
  if (attempts > 0) return -1;      /* every partner tried failed: the last one's message */
  if (fallback == count || !force) return 0; /* nothing left, or none reachable: carried up */
  /* no partner the distance can reach: the first one's joining says why */
  size_t q = fallback;
  double rg, gamma = gamma_of(s, &c[p], &c[q], &rg);
  char what[200];
  snprintf(what, sizeof what, "cluster-cluster, level %d: clusters of %zu (R_g %.6g) and %zu (R_g "
           "%.6g) monomers joining into %zu of %zu", level, c[p].n, c[p].rg, c[q].n, c[q].rg,
           c[p].n + c[q].n, s->n);
  if (gamma < 0)
    return agglo_fail(err, errlen, "%s: the prescribed R_g of the union, %.6g, is below what they "
                      "have at any distance: k_f = %g is too large for D_f = %g (lower k_f or raise "
                      "D_f)", what, rg, o->prefactor, o->fractal_dimension);
  rc = agg_join(s, &c[p], &c[q], gamma, NULL, joined, what, err, errlen);
  if (rc == 0) return *q_out = q, 1;
  return rc;
}

int agg_build_cluster_cluster(agg_state *s, char *err, size_t errlen) {
  size_t n = s->n;
  agg_cluster *c = malloc(n * sizeof *c), *next = malloc(n * sizeof *next);
  double *tmp = malloc(5 * n * sizeof *tmp), *rch = malloc(n * sizeof *rch);
  size_t *pa = malloc(n * sizeof *pa), *pb = malloc(n * sizeof *pb);
  char *used = malloc(n);
  int rc = 0, level = 0;
  if (!c || !next || !tmp || !rch || !pa || !pb || !used) {
    rc = -2;
    agglo_fail(err, errlen, "cluster-cluster: out of memory for %zu monomers", n);
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) s->x[3 * i + k] = 0;
    agg_cluster_measure(s, i, 1, &c[i]);
  }
  size_t count = n;
  int force = 0;
  while (count > 1 && rc == 0) {
    level++;
    for (size_t k = 0; k < count; k++) rch[k] = reach(s, &c[k]), used[k] = 0;
    size_t out = 0;
    for (size_t p = 0; p < count && rc == 0; p++) {
      if (used[p]) continue;
      used[p] = 1;
      size_t q = count;
      int got = join_one(s, c, count, p, rch, used, level, force, &q, &next[out], err, errlen);
      if (got < 0) rc = got;
      else if (got == 1) used[q] = 1, pa[out] = p, pb[out] = q, out++;
      else pa[out] = p, pb[out] = count, next[out] = c[p], out++; /* carried */
    }
    if (rc != 0) break;
    force = out == count; /* nothing joined: the next level forces the first pairs */
    /* every new cluster one range again: a's monomers, then b's */
    double *x = tmp, *r = tmp + 3 * n, *m = tmp + 4 * n;
    size_t at = 0;
    for (size_t k = 0; k < out; k++) {
      next[k].first = at;
      for (int part = 0; part < 2; part++) {
        size_t idx = part == 0 ? pa[k] : pb[k];
        if (idx == count) continue;
        const agg_cluster *src = &c[idx];
        memcpy(x + 3 * at, s->x + 3 * src->first, 3 * src->n * sizeof *x);
        memcpy(r + at, s->r + src->first, src->n * sizeof *r);
        memcpy(m + at, s->m + src->first, src->n * sizeof *m);
        at += src->n;
      }
    }
    memcpy(s->x, x, 3 * n * sizeof *x);
    memcpy(s->r, r, n * sizeof *r);
    memcpy(s->m, m, n * sizeof *m);
    memcpy(c, next, out * sizeof *c);
    count = out;
  }
done:
  free(c), free(next), free(tmp), free(rch), free(pa), free(pb), free(used);
  return rc;
}
