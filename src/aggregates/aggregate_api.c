/* The public calls of include/agglo/aggregates.h: options, their checks (ranges, and the bounds
   of the first joinings for equal radii), and the build with its restarts. */
#include "agglo/aggregates.h"
#include "aggregates/cluster.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void agglo_aggregate_defaults(agglo_aggregate_options *o) {
  if (!o) return;
  *o = (agglo_aggregate_options){.n = 100, .fractal_dimension = 1.8, .prefactor = 1.3,
                                 .method = AGGLO_AGGREGATE_CC, .dim = 3, .radius = 1,
                                 .radius_distribution = AGGLO_RADII_UNIFORM, .radius_spread = 0,
                                 .radius_sigma = 1.25, .seed = 1, .index = 0, .max_trials = 100000,
                                 .max_restarts = 3};
}

#define AGGLO_AGGREGATE_MAX_N 100000000

/* Equal radii: the first joining the law governs has a closed-form range of distances.
   Particle-cluster, the third monomer (also cluster-cluster with N = 3): a dimer of R_g a, so
   Gamma^2 = 4.5 R_3^2 - 3 a^2 from its centre, where touching one monomer without overlapping the
   other reaches sqrt(3) a to 3 a: 4/3 <= (R_3/a)^2 <= 8/3, i.e. k_f from 3 (3/8)^(D_f/2) to
   3 (3/4)^(D_f/2). Cluster-cluster, two dimers into 4: Gamma^2 = 4 R_4^2 - 4 a^2 <= (4 a)^2 (the
   dimers end to end), i.e. k_f >= 4 / 5^(D_f/2). */
static agglo_status check_first_joinings(const agglo_aggregate_options *o) {
  int equal = o->radius_distribution == AGGLO_RADII_UNIFORM ? o->radius_spread == 0 : o->radius_sigma == 1;
  double df = o->fractal_dimension, kf = o->prefactor;
  if (!equal || o->n < 3) return AGGLO_OK;
  if (o->method == AGGLO_AGGREGATE_PC || o->n == 3) {
    double lo = 3 * pow(3.0 / 8.0, df / 2), hi = 3 * pow(3.0 / 4.0, df / 2);
    if (kf < lo || kf > hi)
      return agglo_error(AGGLO_ERROR_INPUT, "aggregate: k_f = %g cannot be built by %s at D_f = %g: "
                         "the third monomer must sit %.4g radii from the dimer's centre of mass, "
                         "where touching one monomer without overlapping the other reaches 1.732 to "
                         "3 radii (allowed at this D_f: k_f from %.4g to %.4g%s)", kf,
                         o->n == 3 && o->method == AGGLO_AGGREGATE_CC ? "cluster-cluster with N = 3"
                                                                      : "particle-cluster",
                         df, sqrt(4.5 * pow(3 / kf, 2 / df) - 3), lo, hi,
                         o->method == AGGLO_AGGREGATE_PC ? "; or the cluster-cluster method" : "");
  } else {
    double lo = 4 / pow(5.0, df / 2);
    if (kf < lo)
      return agglo_error(AGGLO_ERROR_INPUT, "aggregate: k_f = %g cannot be built by cluster-cluster "
                         "at D_f = %g: two dimers must join with their centres of mass %.4g radii "
                         "apart, and they reach at most 4 radii end to end (allowed at this D_f: "
                         "k_f >= %.4g)", kf, df, sqrt(4 * pow(4 / kf, 2 / df) - 4), lo);
  }
  return AGGLO_OK;
}

agglo_status agglo_aggregate_check(const agglo_aggregate_options *o) {
  if (!o) return agglo_error(AGGLO_ERROR_USAGE, "agglo_aggregate_check: the options are NULL");
  if (o->dim != 2 && o->dim != 3)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: dim = %d (allowed: 2 or 3)", o->dim);
  if (o->n < 1 || o->n > AGGLO_AGGREGATE_MAX_N)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: n = %lld monomers (allowed: 1 to %d)",
                       (long long)o->n, AGGLO_AGGREGATE_MAX_N);
  if (!(o->fractal_dimension >= 1 && o->fractal_dimension <= o->dim))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: fractal dimension D_f = %g (allowed: 1 to %d, "
                       "the space dimension)", o->fractal_dimension, o->dim);
  if (!(o->prefactor > 0) || !isfinite(o->prefactor))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: prefactor k_f = %g (allowed: positive and finite)",
                       o->prefactor);
  if (o->method != AGGLO_AGGREGATE_PC && o->method != AGGLO_AGGREGATE_CC)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: method %d (allowed: pc or cc)", o->method);
  if (!(o->radius > 0) || !isfinite(o->radius))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: radius = %g (allowed: positive and finite)", o->radius);
  if (o->radius_distribution != AGGLO_RADII_UNIFORM && o->radius_distribution != AGGLO_RADII_LOGNORMAL)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: radius_distribution %d (allowed: uniform or lognormal)",
                       o->radius_distribution);
  if (!(o->radius_spread >= 0 && o->radius_spread <= 0.99))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: radius_spread = %g (allowed: 0 to 0.99)", o->radius_spread);
  if (!(o->radius_sigma >= 1 && o->radius_sigma <= 10))
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: radius_sigma = %g (allowed: 1 to 10)", o->radius_sigma);
  if (o->max_trials < 1 || o->max_trials > 1000000000)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: max_trials = %lld (allowed: 1 to 10^9)",
                       (long long)o->max_trials);
  if (o->max_restarts < 0 || o->max_restarts > 1000)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: max_restarts = %d (allowed: 0 to 1000)", o->max_restarts);
  if (o->index < 0)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: index = %lld (allowed: >= 0)", (long long)o->index);
  /* memory at the peak: AGGLO_AGGREGATE_BYTES per monomer (measured: docs/performance.md),
     refused up front rather than by the OOM killer */
  double bytes = AGGLO_AGGREGATE_BYTES * (double)o->n;
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys > 0 && bytes > 0.8 * phys)
    return agglo_error(AGGLO_ERROR_INPUT, "aggregate: n = %lld monomers need about %.3g GB of memory "
                       "(%d bytes each); this machine has %.3g GB, of which 80 %% may be used: lower n",
                       (long long)o->n, bytes / 1e9, AGGLO_AGGREGATE_BYTES, phys / 1e9);
  return check_first_joinings(o);
}

void agglo_aggregate_free(agglo_aggregate *a) {
  if (!a) return;
  free(a->x), free(a->r);
  a->x = NULL, a->r = NULL, a->n = 0;
}

agglo_status agglo_aggregate_build(const agglo_aggregate_options *o, agglo_aggregate *out) {
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_aggregate_build: out is NULL");
  memset(out, 0, sizeof *out);
  agglo_status st = agglo_aggregate_check(o);
  if (st != AGGLO_OK) return st;
  size_t n = (size_t)o->n;
  agg_state s = {.o = o, .dim = o->dim, .n = n, .rng = {.seed = o->seed, .index = (uint64_t)o->index}};
  s.x = malloc(3 * n * sizeof *s.x), s.r = malloc(n * sizeof *s.r), s.m = malloc(n * sizeof *s.m);
  if (!s.x || !s.r || !s.m) {
    free(s.x), free(s.r), free(s.m);
    return agglo_error(AGGLO_ERROR_MEMORY, "aggregate: out of memory for %zu monomers", n);
  }
  for (size_t i = 0; i < n; i++) {
    s.r[i] = agg_monomer_radius(o, i);
    s.m[i] = s.r[i] * s.r[i] * s.r[i];
    if (s.r[i] > s.r_max) s.r_max = s.r[i];
  }
  char *err = agglo_error_buffer();
  int rc = -1, restarts = 0;
  for (;;) {
    rc = o->method == AGGLO_AGGREGATE_PC ? agg_build_particle_cluster(&s, err, AGGLO_ERROR_LEN)
                                         : agg_build_cluster_cluster(&s, err, AGGLO_ERROR_LEN);
    /* a joining that found no place within max_trials: begin again with the next random
       numbers; one whose search ran through its lists is not retried (a restart seldom rescues
       it, docs/aggregates.md) */
    if (rc != -1 || restarts >= o->max_restarts || s.exhausted) break;
    restarts++;
  }
  if (rc != 0) {
    free(s.x), free(s.r), free(s.m);
    if (rc == -2) return AGGLO_ERROR_MEMORY;
    if (rc == -3) return AGGLO_STOPPED;
    size_t len = strlen(err);
    if (restarts > 0 && len + 80 < AGGLO_ERROR_LEN)
      snprintf(err + len, AGGLO_ERROR_LEN - len, " [after %d restarts of the aggregate, max_restarts]", restarts);
    return AGGLO_ERROR_RUN;
  }
  agg_cluster all;
  agg_cluster_measure(&s, 0, n, &all);
  for (size_t i = 0; i < n; i++) /* the centre of mass at the origin */
    for (int k = 0; k < s.dim; k++) s.x[3 * i + k] -= all.c[k];
  agg_cluster_measure(&s, 0, n, &all);
  free(s.m);
  *out = (agglo_aggregate){.n = o->n, .dim = o->dim, .x = s.x, .r = s.r, .rg = all.rg,
                           .rg_target = n >= 3 ? agg_rg_target(n, all.log_a, o->fractal_dimension, o->prefactor) : all.rg,
                           .radius_geo = exp(all.log_a / (double)n), .trials = s.trials, .restarts = restarts};
  return AGGLO_OK;
}
