/* Tunable cluster-cluster aggregation, hierarchical as FracVAL (Moran et al. 2019): at each level
   neighbouring clusters join in pairs (monomers into dimers, dimers into clusters of 4, ...); each
   pair is placed touching with its centres of mass at the distance Gamma that gives the union the
   prescribed R_g (gyration_rule.c); two monomers only touch. Each cluster is paired with the first
   later one that the distance asked can reach at all (Gamma real and at most the sum of their
   reaches: with unequal radii a neighbour often cannot), and the monomers are reordered so that
   every pair is one range of the arrays. A level with an odd count carries its last cluster up
   unjoined, so that the odd monomers of N join large clusters late, where every distance is
   reachable, instead of a dimer early. */
#include "aggregates/cluster.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Partners for this level's clusters (order[2k], order[2k+1] a pair; an odd one last), then the
   monomers copied in that order so that each pair is one range. At most 64 clusters are tried
   for each (the first one when none can reach: its joining then fails with the reason). */
static int pair_up(agg_state *s, agg_cluster *c, size_t count, double *tmp, size_t *order) {
  double *rch = malloc(count * sizeof *rch);
  char *used = calloc(count, 1);
  if (!rch || !used) return free(rch), free(used), -1;
  for (size_t k = 0; k < count; k++) rch[k] = reach(s, &c[k]);
  size_t no = 0;
  for (size_t p = 0; p < count; p++) {
    if (used[p]) continue;
    used[p] = 1;
    size_t first = count, pick = count;
    for (size_t q = p + 1, tried = 0; q < count && tried < 64; q++) {
      if (used[q]) continue;
      if (first == count) first = q;
      tried++;
      double rg, g = gamma_of(s, &c[p], &c[q], &rg);
      if (g >= 0 && g <= rch[p] + rch[q]) {
        pick = q;
        break;
      }
    }
    if (pick == count) pick = first;
    order[no++] = p;
    if (pick < count) used[pick] = 1, order[no++] = pick;
  }
  /* the monomers in pair order: x, r, m copied through tmp */
  agg_cluster *moved = malloc(count * sizeof *moved);
  if (!moved) return free(rch), free(used), -1;
  size_t at = 0;
  double *x = tmp, *r = tmp + 3 * s->n, *m = tmp + 4 * s->n;
  for (size_t k = 0; k < count; k++) {
    agg_cluster *a = &c[order[k]];
    memcpy(x + 3 * at, s->x + 3 * a->first, 3 * a->n * sizeof *x);
    memcpy(r + at, s->r + a->first, a->n * sizeof *r);
    memcpy(m + at, s->m + a->first, a->n * sizeof *m);
    moved[k] = *a;
    moved[k].first = at;
    at += a->n;
  }
  memcpy(s->x, x, 3 * s->n * sizeof *x);
  memcpy(s->r, r, s->n * sizeof *r);
  memcpy(s->m, m, s->n * sizeof *m);
  memcpy(c, moved, count * sizeof *c);
  free(moved), free(rch), free(used);
  return 0;
}

int agg_build_cluster_cluster(agg_state *s, char *err, size_t errlen) {
  size_t n = s->n;
  const agglo_aggregate_options *o = s->o;
  agg_cluster *c = malloc(n * sizeof *c);
  double *tmp = malloc(5 * n * sizeof *tmp);
  size_t *order = malloc(n * sizeof *order);
  if (!c || !tmp || !order) return free(c), free(tmp), free(order), agglo_fail(err, errlen, "cluster-cluster: out of memory for %zu monomers", n), -2;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) s->x[3 * i + k] = 0;
    agg_cluster_measure(s, i, 1, &c[i]);
  }
  size_t count = n;
  int rc = 0, level = 0;
  while (count > 1 && rc == 0) {
    size_t out = 0;
    level++;
    if (pair_up(s, c, count, tmp, order) != 0) {
      rc = agglo_fail(err, errlen, "cluster-cluster: out of memory for %zu monomers", n);
      rc = -2;
      break;
    }
    for (size_t p = 0; p + 1 < count && rc == 0; p += 2) {
      agg_cluster *a = &c[p], *b = &c[p + 1];
      size_t m = a->n + b->n;
      double rg, gamma = gamma_of(s, a, b, &rg);
      char what[200];
      snprintf(what, sizeof what, "cluster-cluster, level %d: clusters of %zu (R_g %.6g) and %zu "
               "(R_g %.6g) monomers joining into %zu of %zu", level, a->n, a->rg, b->n, b->rg, m, n);
      if (gamma < 0) {
        rc = agglo_fail(err, errlen, "%s: the prescribed R_g of the union, %.6g, is below what they "
                        "have at any distance: k_f = %g is too large for D_f = %g (lower k_f or raise D_f)",
                        what, rg, o->prefactor, o->fractal_dimension);
        break;
      }
      agg_cluster joined;
      rc = agg_join(s, a, b, gamma, NULL, &joined, what, err, errlen);
      if (rc == 0) c[out++] = joined;
    }
    if (rc == 0 && count % 2 == 1) c[out++] = c[count - 1];
    count = out;
  }
  free(c), free(tmp), free(order);
  return rc;
}
