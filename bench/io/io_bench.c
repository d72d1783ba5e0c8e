/* Trajectory formats: bytes per particle per frame and time to write a frame, extended XYZ
   against H5MD (docs/performance.md, "Data formats"). Public API only.

   io_bench N FRAMES DIR: N particles (3D, random placement, random velocities), one frame written
   by the trajectory writer, repeated FRAMES times into DIR/in.xyz and converted to DIR/in.h5md
   (fast to read); then the time to read that (agglo_trajectory_*), and to convert it to XYZ and to
   H5MD (agglo_trajectory_convert), best of 3. The write time of a frame is (convert - read) /
   FRAMES; the bytes of a frame are (size of FRAMES frames -
   size of one frame) / (FRAMES - 1), so that what is written once (H5MD: radius, mass, id) is not
   counted per frame. */
#include "agglo/agglo.h"
#include "agglo/analysis.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (double)st.st_size : -1;
}

static int die(const char *what) {
  fprintf(stderr, "io_bench: %s: %s\n", what, agglo_last_error());
  return 1;
}

/* Seconds to read every frame of path. */
static double read_all(const char *path) {
  agglo_trajectory *tr;
  double t0 = now();
  if (agglo_trajectory_open(path, 0, &tr) != AGGLO_OK) return -1;
  int got = 1;
  while (got && agglo_trajectory_next(tr, &got) == AGGLO_OK) {}
  agglo_trajectory_close(tr);
  return now() - t0;
}

static int repeat(const char *src, const char *dst, int times) {
  FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
  if (!in || !out) return -1;
  fseek(in, 0, SEEK_END);
  long len = ftell(in);
  fseek(in, 0, SEEK_SET);
  char *buf = malloc((size_t)len);
  if (!buf || fread(buf, 1, (size_t)len, in) != (size_t)len) return -1;
  for (int k = 0; k < times; k++) fwrite(buf, 1, (size_t)len, out);
  free(buf);
  fclose(in);
  return fclose(out);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: io_bench N FRAMES DIR\n");
    return 2;
  }
  long n = atol(argv[1]);
  int frames = atoi(argv[2]);
  const char *dir = argv[3];
  char buf[4300], p1[4300], pk[4300], out[4300];
  agglo_config *c = agglo_config_new();
  snprintf(buf, sizeof buf, "%ld", n);
  if (agglo_config_load_default(c) || agglo_config_set(c, "run.dim", "3") ||
      agglo_config_set(c, "particles.n", buf) || agglo_config_set(c, "box.size", "") || agglo_config_set(c, "particles.fraction", "0.1") ||
      agglo_config_set(c, "output.snapshots", ""))
    return die("settings");
  agglo_sim *sim;
  if (agglo_sim_create(c, &sim) != AGGLO_OK) return die("create");
  double *v = malloc(3 * (size_t)n * sizeof *v);
  srand(1);
  for (long i = 0; i < 3 * n; i++) v[i] = (double)rand() / RAND_MAX - 0.5;
  if (agglo_sim_set_velocities(sim, v, (size_t)n, 3) != AGGLO_OK) return die("velocities");
  snprintf(buf, sizeof buf, "%s/one", dir);
  if (agglo_sim_attach_outputs(sim, buf, AGGLO_OUTPUT_TRAJECTORY) != AGGLO_OK ||
      agglo_sim_close_outputs(sim) != AGGLO_OK)
    return die("write");
  snprintf(p1, sizeof p1, "%s/one/trajectory.xyz", dir);
  snprintf(pk, sizeof pk, "%s/in.xyz", dir);
  if (repeat(p1, pk, frames) != 0) return die("repeat");
  double t_xyz = read_all(pk);
  snprintf(buf, sizeof buf, "%s/in.h5md", dir);
  if (agglo_trajectory_convert(pk, buf, 0) != AGGLO_OK) return die("convert");
  snprintf(pk, sizeof pk, "%s", buf);
  double t_read = 1e300;
  for (int rep = 0; rep < 3; rep++) {
    double t = read_all(pk);
    if (t < t_read) t_read = t;
  }
  printf("N = %ld, %d frames; reading: XYZ %.3f s, H5MD %.4f s per frame\n", n, frames, t_xyz / frames,
         t_read / frames);
  printf("format  bytes/particle/frame  write s/frame  (first frame, with fixed data: bytes/particle)\n");
  const char *ext[] = {"xyz", "h5md"};
  for (int q = 0; q < 2; q++) {
    snprintf(out, sizeof out, "%s/out_k.%s", dir, ext[q]);
    double t_conv = 1e300;
    for (int rep = 0; rep < 3; rep++) {
      double t0 = now();
      if (agglo_trajectory_convert(pk, out, 0) != AGGLO_OK) return die("convert");
      if (now() - t0 < t_conv) t_conv = now() - t0;
    }
    double t_write = (t_conv - t_read) / frames, size_k = file_size(out);
    snprintf(out, sizeof out, "%s/out_1.%s", dir, ext[q]);
    if (agglo_trajectory_convert(p1, out, 0) != AGGLO_OK) return die("convert");
    double size_1 = file_size(out);
    printf("%-6s  %20.1f  %13.4f  (%.1f)\n", ext[q], (size_k - size_1) / (frames - 1) / (double)n,
           t_write, size_1 / (double)n);
  }
  free(v);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  return 0;
}
