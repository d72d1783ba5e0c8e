/* DPD benchmarks and validation measurements on the Groot-Warren fluid (rho = 3, a = 25,
   gamma = 4.5, kT = 1, rc = 1, dt = 0.04, lambda = 0.65 unless overridden):
     dpd_bench perf L STEPS [THREADS] [key=value ...]
         times STEPS steps after setup (wall and process CPU time), N = 3 L^3
     dpd_bench rdf L EQUIL SAMPLES EVERY [key=value ...]
         radial distribution function g(r), 0 < r < 3 (60 bins), averaged over SAMPLES frames
         taken every EVERY steps after EQUIL steps; also <kT> over the same frames
   key=value: any scenario override (e.g. dpd.lambda=0.5). */
#include "agglo/agglo.h"
#include "agglo/analysis.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The Groot-Warren fluid in a periodic cube of side L, then the user's overrides. */
static agglo_sim *setup(double L, int argc, char **argv) {
  agglo_config *c = agglo_config_new();
  char n[32], side[32];
  snprintf(n, sizeof n, "%lld", (long long)llround(3 * L * L * L));
  snprintf(side, sizeof side, "%.17g", L);
  const char *keys[][2] = {{"run.model", "dpd"}, {"run.dim", "3"}, {"run.dt", "0.04"},
                           {"particles.n", n}, {"particles.radius", "0.1"},
                           {"particles.radius_spread", "0"}, {"particles.mass", "1"},
                           {"box.size", side}, {"box.boundary", "periodic"}, {"run.seed", "12345"}};
  agglo_status st = AGGLO_OK;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0] && st == AGGLO_OK; k++)
    st = agglo_config_set(c, keys[k][0], keys[k][1]);
  for (int i = 0; i < argc && st == AGGLO_OK; i++) st = agglo_config_assign(c, argv[i]);
  agglo_sim *sim = NULL;
  if (st == AGGLO_OK) st = agglo_sim_create(c, &sim);
  if (st != AGGLO_OK) fprintf(stderr, "%s\n", agglo_last_error());
  agglo_config_destroy(c);
  return sim;
}

/* kT of the peculiar velocities (under dpd.shear_rate: less the streaming velocity, as stats.csv) */
static double temperature(const agglo_sim *sim) {
  double kT = 0;
  agglo_box box;
  agglo_sim_box(sim, &box);
  agglo_analysis_peculiar_temperature(agglo_sim_positions(sim), agglo_sim_velocities(sim),
                                      agglo_sim_masses(sim), agglo_sim_count(sim), agglo_sim_dim(sim),
                                      &box, &kT);
  return kT;
}

static int step(agglo_sim *sim, int n) {
  if (agglo_sim_step(sim, n) == AGGLO_OK) return 0;
  fprintf(stderr, "%s\n", agglo_last_error());
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: dpd_bench perf L STEPS [THREADS] [key=value..] | rdf L EQUIL SAMPLES EVERY [key=value..]\n");
    return 2;
  }
  double L = atof(argv[2]);
  agglo_sim *sim = NULL;
  if (!strcmp(argv[1], "perf")) {
    int steps = atoi(argv[3]), threads = argc > 4 ? atoi(argv[4]) : 1;
    omp_set_num_threads(threads);
    if (!(sim = setup(L, argc > 5 ? argc - 5 : 0, argv + 5))) return 1;
    double w0 = omp_get_wtime(), c0 = cpu_now();
    if (step(sim, steps) != 0) return 1;
    double wall = omp_get_wtime() - w0, cpu = cpu_now() - c0;
    size_t n = agglo_sim_count(sim);
    double ps = (double)n * steps;
    printf("agglo N=%zu steps=%d threads=%d wall=%.3f s cpu=%.3f s  %.3g particle-steps/s (wall), "
           "%.3g per CPU-second, kT=%.4f\n", n, steps, threads, wall, cpu, ps / wall, ps / cpu,
           temperature(sim));
  } else if (!strcmp(argv[1], "rdf") && argc >= 6) {
    int equil = atoi(argv[3]), samples = atoi(argv[4]), every = atoi(argv[5]);
    if (!(sim = setup(L, argc - 6, argv + 6))) return 1;
    size_t n = agglo_sim_count(sim);
    const double *x = agglo_sim_positions(sim);
    agglo_box box;
    agglo_sim_box(sim, &box);
    enum { NB = 60 };
    double rmax = 3.0, hist[NB] = {0}, tsum = 0;
    if (step(sim, equil) != 0) return 1;
    for (int q = 0; q < samples; q++) {
      if (step(sim, every) != 0) return 1;
      tsum += temperature(sim);
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : hist[:NB])
      for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
          double d[3]; /* minimum image */
          for (int k = 0; k < 3; k++) {
            d[k] = x[3 * j + k] - x[3 * i + k];
            d[k] -= box.len[k] * round(d[k] / box.len[k]);
          }
          double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          if (r < rmax) hist[(int)(r / rmax * NB)] += 2;
        }
    }
    double rho = (double)n / (L * L * L), dr = rmax / NB;
    printf("# agglo Groot-Warren fluid, N = %zu, L = %g, %d samples every %d steps after %d; "
           "<kT> = %.4f\n# r g(r)\n", n, L, samples, every, equil, tsum / samples);
    for (int b = 0; b < NB; b++) {
      double r0 = b * dr, r1 = r0 + dr, shell = 4.0 / 3.0 * M_PI * (r1 * r1 * r1 - r0 * r0 * r0);
      printf("%.4f %.5f\n", r0 + 0.5 * dr, hist[b] / ((double)samples * (double)n * rho * shell));
    }
  } else {
    fprintf(stderr, "dpd_bench: unknown command %s\n", argv[1]);
    return 2;
  }
  agglo_sim_destroy(sim);
  return 0;
}
