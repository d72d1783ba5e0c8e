/* DPD benchmarks and validation measurements on the Groot-Warren fluid (rho = 3, a = 25,
   gamma = 4.5, kT = 1, rc = 1, dt = 0.04, lambda = 0.65 unless overridden):
     dpd_bench perf L STEPS [THREADS] [key=value ...]
         times STEPS steps after setup (wall and process CPU time), N = 3 L^3
     dpd_bench rdf L EQUIL SAMPLES EVERY [key=value ...]
         radial distribution function g(r), 0 < r < 3 (60 bins), averaged over SAMPLES frames
         taken every EVERY steps after EQUIL steps; also <kT> over the same frames
   key=value: any scenario override (e.g. dpd.lambda=0.5). */
#include "config.h"
#include "model.h"
#include "model_dpd.h"
#include "setup.h"
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

static int setup(agglo_config *c, double L, int argc, char **argv, agglo_system *s, void **state) {
  char err[512];
  agglo_config_defaults(c);
  c->model = MODEL_DPD;
  c->dim = 3;
  c->dt = 0.04;
  c->n = (int64_t)llround(3 * L * L * L);
  c->radius = 0.1, c->radius_spread = 0, c->mass = 1;
  c->size.n = 1, c->size.v[0] = L;
  c->boundary.n = 1, c->boundary.v[0] = 1;
  c->seed = 12345;
  for (int i = 0; i < argc; i++)
    if (agglo_config_read_assignment(c, argv[i], err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return -1;
    }
  if (agglo_config_validate(c, err, sizeof err) != 0 || agglo_setup(s, c, err, sizeof err) != 0 ||
      agglo_model_dpd.init(state, s, c, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

static int step(void *state, agglo_system *s) {
  char err[256];
  agglo_step_info info;
  if (agglo_model_dpd.step(state, s, &info, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: dpd_bench perf L STEPS [THREADS] [key=value..] | rdf L EQUIL SAMPLES EVERY [key=value..]\n");
    return 2;
  }
  double L = atof(argv[2]);
  agglo_config c;
  agglo_system s;
  void *state = NULL;
  memset(&s, 0, sizeof s);
  if (!strcmp(argv[1], "perf")) {
    int steps = atoi(argv[3]), threads = argc > 4 ? atoi(argv[4]) : 1;
    omp_set_num_threads(threads);
    if (setup(&c, L, argc > 5 ? argc - 5 : 0, argv + 5, &s, &state) != 0) return 1;
    double w0 = omp_get_wtime(), c0 = cpu_now();
    for (int k = 0; k < steps; k++)
      if (step(state, &s) != 0) return 1;
    double wall = omp_get_wtime() - w0, cpu = cpu_now() - c0;
    double ps = (double)s.n * steps;
    printf("agglo N=%zu steps=%d threads=%d wall=%.3f s cpu=%.3f s  %.3g particle-steps/s (wall), "
           "%.3g per CPU-second, kT=%.4f\n", s.n, steps, threads, wall, cpu, ps / wall, ps / cpu,
           agglo_dpd_temperature(&s));
  } else if (!strcmp(argv[1], "rdf") && argc >= 6) {
    int equil = atoi(argv[3]), samples = atoi(argv[4]), every = atoi(argv[5]);
    if (setup(&c, L, argc - 6, argv + 6, &s, &state) != 0) return 1;
    enum { NB = 60 };
    double rmax = 3.0, hist[NB] = {0}, tsum = 0;
    for (int k = 0; k < equil; k++)
      if (step(state, &s) != 0) return 1;
    for (int q = 0; q < samples; q++) {
      for (int k = 0; k < every; k++)
        if (step(state, &s) != 0) return 1;
      tsum += agglo_dpd_temperature(&s);
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : hist[:NB])
      for (size_t i = 0; i < s.n; i++)
        for (size_t j = i + 1; j < s.n; j++) {
          double d[3];
          agglo_box_delta(&s.box, s.x + 3 * i, s.x + 3 * j, d);
          double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          if (r < rmax) hist[(int)(r / rmax * NB)] += 2;
        }
    }
    double rho = (double)s.n / (L * L * L), dr = rmax / NB;
    printf("# agglo Groot-Warren fluid, N = %zu, L = %g, %d samples every %d steps after %d; "
           "<kT> = %.4f\n# r g(r)\n", s.n, L, samples, every, equil, tsum / samples);
    for (int b = 0; b < NB; b++) {
      double r0 = b * dr, r1 = r0 + dr, shell = 4.0 / 3.0 * M_PI * (r1 * r1 * r1 - r0 * r0 * r0);
      printf("%.4f %.5f\n", r0 + 0.5 * dr, hist[b] / ((double)samples * (double)s.n * rho * shell));
    }
  } else {
    fprintf(stderr, "dpd_bench: unknown command %s\n", argv[1]);
    return 2;
  }
  agglo_model_dpd.destroy(state);
  agglo_system_free(&s);
  return 0;
}
