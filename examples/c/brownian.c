/* Maury's Brownian aggregation from C: run to t = 2, print the clusters every 50 steps. */
#include <agglo/agglo.h>
#include <stdio.h>

static int report(agglo_sim *sim, void *user) {
  printf("t = %5.2f  clusters %zu\n", agglo_sim_time(sim), agglo_sim_cluster_count(sim));
  return user != NULL; /* non-zero stops the run */
}

int main(void) {
  agglo_config *c = agglo_config_new();
  agglo_sim *sim = NULL;
  if (agglo_config_load_default(c) || agglo_config_set(c, "particles.n", "500") || agglo_sim_create(c, &sim) ||
      agglo_sim_set_callback(sim, 50, report, NULL) || agglo_sim_run_until(sim, 2.0))
    return fprintf(stderr, "agglo: %s\n", agglo_last_error()), 1;
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  return 0;
}
