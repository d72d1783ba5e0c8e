/* Rendering time of one 3D frame of N spheres (public API: agglo_picture_render), best of R.
   usage: picture_bench [N=100000] [WIDTH=800] [REPEATS=3] [OUT.png]
   The spheres: N radii in [0.85, 1.15] at random in a cube at volume fraction 0.1, labelled in
   clusters of about 20 neighbours (one per cell of a grid) (so a cluster is one colour in one place);
   the picture's defaults (perspective, fog, colour by cluster). */
#include "agglo/picture.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atoll(argv[1]) : 100000;
  int width = argc > 2 ? atoi(argv[2]) : 800, repeats = argc > 3 ? atoi(argv[3]) : 3;
  const char *out = argc > 4 ? argv[4] : "picture_bench.png";
  double *x = malloc(3 * n * sizeof *x), *r = malloc(n * sizeof *r);
  int32_t *label = malloc(n * sizeof *label);
  if (!x || !r || !label) return 1;
  double side = 1;
  while (side * side * side * 0.1 < (double)n * 4.18879) side *= 1.01; /* fraction 0.1, r ~ 1 */
  unsigned long long seed = 12345;
  /* cells of about 20 spheres, filled in order: a label per cell */
  int cells = 1;
  while ((size_t)(cells * cells * cells) * 20 < n) cells++;
  for (size_t i = 0; i < n; i++) {
    size_t c = (size_t)((double)i * cells * cells * cells / (double)n); /* every cell filled */
    int cx = (int)(c % cells), cy = (int)(c / cells % cells), cz = (int)(c / cells / cells % cells);
    double h = side / cells;
    x[3 * i] = (cx + uniform(&seed)) * h;
    x[3 * i + 1] = (cy + uniform(&seed)) * h;
    x[3 * i + 2] = (cz + uniform(&seed)) * h;
    r[i] = 0.85 + 0.3 * uniform(&seed);
    label[i] = (int32_t)c;
  }
  agglo_config *cfg = agglo_config_new();
  char w[32];
  snprintf(w, sizeof w, "%d", width);
  agglo_config_set(cfg, "output.png_width", w);
  agglo_picture_frame f = {.n = n, .dim = 3, .positions = x, .radii = r, .clusters = label, .time = 0};
  for (int k = 0; k < 3; k++) f.box.hi[k] = f.box.len[k] = side, f.box.periodic[k] = AGGLO_PERIODIC;
  double best = 1e300;
  for (int k = 0; k < repeats; k++) {
    double t0 = now();
    if (agglo_picture_render(cfg, &f, out) != AGGLO_OK) {
      fprintf(stderr, "%s\n", agglo_last_error());
      return 1;
    }
    double t = now() - t0;
    best = t < best ? t : best;
  }
  printf("N = %zu  width = %d px  best of %d: %.3f s  (%s)\n", n, width, repeats, best, out);
  agglo_config_destroy(cfg);
  free(x), free(r), free(label);
  return 0;
}
