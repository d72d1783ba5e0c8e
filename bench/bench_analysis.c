/* Time each indicator of `agglo analyze` on one frame: bench_analysis FILE.xyz */
#include "analysis.h"
#include "clusters.h"
#include "xyz_read.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_analysis FILE.xyz\n");
    return 2;
  }
  char err[1024];
  agglo_xyz_reader rd;
  agglo_system s = {0};
  double t = now();
  if (agglo_xyz_open(&rd, argv[1], 0, err, sizeof err) || agglo_xyz_next(&rd, &s, err, sizeof err) != 1) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  printf("read frame (%zu particles)      %.3f s\n", s.n, now() - t);
  double r = 0;
  for (size_t i = 0; i < s.n; i++) r += s.r[i];
  r /= (double)s.n;
  agglo_cluster_stats cs;
  t = now();
  agglo_clusters_label(&s, NULL, 0.1 * r, &cs);
  printf("cluster labels (union-find)     %.3f s  (%zu clusters)\n", now() - t, cs.n_clusters);
  agglo_cluster_info *c;
  size_t nc;
  t = now();
  agglo_cluster_infos(&s, 0.1 * r, &c, &nc);
  printf("per-cluster geometry (R_g, G)   %.3f s\n", now() - t);
  t = now();
  double dm = agglo_mass_radius_dimension(c, nc, 2);
  printf("mass-radius dimension           %.3f s  (D = %.3f)\n", now() - t, dm);
  t = now();
  double db = agglo_box_counting(s.x, s.n, s.dim, 3 * r, NULL, NULL, NULL);
  printf("box counting (all centres)      %.3f s  (D = %.3f)\n", now() - t, db);
  t = now();
  double nc_ = agglo_contacts_per_sphere(&s, 2.1 * r);
  printf("contacts per sphere             %.3f s  (N_c = %.4f)\n", now() - t, nc_);
  double radii[40], p[40];
  for (int k = 0; k < 40; k++) radii[k] = 2 * r * (1 + 9.0 * k / 39);
  t = now();
  agglo_pair_distribution(&s, radii, 40, 20000, p);
  printf("P(r), 2r..20r, 20000 references %.3f s\n", now() - t);
  free(c);
  agglo_system_free(&s);
  agglo_xyz_close(&rd);
  return 0;
}
