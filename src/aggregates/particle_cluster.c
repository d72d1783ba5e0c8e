/* Tunable particle-cluster aggregation (Filippov, Zurita & Rosner 2000): monomers join one at a
   time; monomer k + 1 is placed touching one monomer of the first k, its centre at the distance
   Gamma from their centre of mass that gives the k + 1 the prescribed R_g (gyration_rule.c). The
   second monomer only touches the first: a dimer's R_g is fixed by contact. */
#include "aggregates/cluster.h"
#include "aggregates/contact_grid.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int agg_build_particle_cluster(agg_state *s, char *err, size_t errlen) {
  size_t n = s->n;
  const agglo_aggregate_options *o = s->o;
  memset(s->x, 0, 3 * n * sizeof *s->x);
  agg_cluster a, b, joined;
  agg_cluster_measure(s, 0, 1, &a);
  if (n == 1) return 0;
  agg_grid grid;
  if (agg_grid_init(&grid, s->dim, 2 * s->r_max, s->x, s->r, 0, n) != 0)
    return agglo_fail(err, errlen, "particle-cluster: out of memory for %zu monomers", n), -2;
  agg_grid_insert(&grid, 0);
  int rc = 0;
  for (size_t k = 1; k < n && rc == 0; k++) {
    agg_cluster_measure(s, k, 1, &b);
    double gamma = s->r[0] + s->r[1], rg = 0;
    if (k >= 2) {
      rg = agg_rg_target(k + 1, a.log_a + b.log_a, o->fractal_dimension, o->prefactor);
      gamma = agg_gamma(a.mass, a.rg, b.mass, 0, rg);
    }
    char what[160];
    snprintf(what, sizeof what, "particle-cluster, monomer %zu of %zu (radius %.6g) joining %zu of R_g %.6g",
             k + 1, n, s->r[k], k, a.rg);
    if (gamma < 0) {
      rc = agglo_fail(err, errlen, "%s: the prescribed R_g of the %zu, %.6g, is below the %.6g they "
                      "have at any distance: k_f = %g is too large for D_f = %g (lower k_f or raise D_f)",
                      what, k + 1, rg, a.rg * sqrt(a.mass / (a.mass + b.mass)), o->prefactor,
                      o->fractal_dimension);
      break;
    }
    rc = agg_join(s, &a, &b, gamma, &grid, &joined, what, err, errlen);
    if (rc == 0) a = joined, agg_grid_insert(&grid, k);
  }
  agg_grid_free(&grid);
  return rc;
}
