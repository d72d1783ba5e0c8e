/* Time each function of the public analysis toolkit on one frame: bench_analysis FILE.xyz */
#define _GNU_SOURCE /* qsort_r */
#include "agglo/analysis.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_label(const void *a, const void *b, void *labels) {
  const int32_t *l = labels;
  int32_t x = l[*(const size_t *)a], y = l[*(const size_t *)b];
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_analysis FILE.xyz\n");
    return 2;
  }
  agglo_trajectory *tr;
  int got = 0;
  double t = now();
  if (agglo_trajectory_open(argv[1], 0, &tr) != AGGLO_OK || agglo_trajectory_next(tr, &got) != AGGLO_OK || !got) {
    fprintf(stderr, "%s\n", got ? agglo_last_error() : "no frame");
    return 1;
  }
  size_t n = agglo_trajectory_count(tr), nc;
  int dim = agglo_trajectory_dim(tr);
  const double *x = agglo_trajectory_positions(tr), *rad = agglo_trajectory_radii(tr);
  agglo_box box;
  agglo_trajectory_box(tr, &box);
  printf("read frame (%zu particles)      %.3f s\n", n, now() - t);
  double r = 0;
  for (size_t i = 0; i < n; i++) r += rad[i];
  r /= (double)n;
  int32_t *labels = malloc(n * sizeof *labels);
  size_t *sizes = malloc(n * sizeof *sizes), *order = malloc(n * sizeof *order);
  double *rg = malloc(n * sizeof *rg), *pts = malloc(3 * n * sizeof *pts);
  t = now();
  agglo_analysis_cluster_labels(x, rad, n, dim, &box, 0.1 * r, labels, &nc);
  printf("cluster labels (union-find)     %.3f s  (%zu clusters)\n", now() - t, nc);
  /* R_g of every cluster: members gathered by label (clusters that wrap are not unfolded here) */
  t = now();
  for (size_t i = 0; i < n; i++) order[i] = i;
  qsort_r(order, n, sizeof *order, cmp_label, labels);
  size_t m = 0;
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a; b < n && labels[order[b]] == labels[order[a]]; b++)
      memcpy(pts + 3 * (b - a), x + 3 * order[b], 3 * sizeof *pts);
    double g[9];
    agglo_analysis_gyration(pts, NULL, b - a, g, &rg[m]);
    sizes[m++] = b - a;
  }
  printf("per-cluster R_g and tensor      %.3f s\n", now() - t);
  double d;
  t = now();
  agglo_analysis_mass_radius(sizes, rg, m, 2, &d);
  printf("mass-radius dimension           %.3f s  (D = %.3f)\n", now() - t, d);
  t = now();
  agglo_analysis_box_counting(x, n, dim, 3 * r, &d, NULL, NULL, NULL);
  printf("box counting (all centres)      %.3f s  (D = %.3f)\n", now() - t, d);
  t = now();
  agglo_analysis_contacts_per_sphere(x, n, dim, &box, 2.1 * r, &d);
  printf("contacts per sphere             %.3f s  (N_c = %.4f)\n", now() - t, d);
  double radii[40], p[40];
  for (int k = 0; k < 40; k++) radii[k] = 2 * r * (1 + 9.0 * k / 39);
  t = now();
  agglo_analysis_pair_distribution(x, n, dim, &box, radii, 40, p);
  printf("P(r), 2r..20r, all references   %.3f s\n", now() - t);
  free(labels), free(sizes), free(order), free(rg), free(pts);
  agglo_trajectory_close(tr);
  return 0;
}
