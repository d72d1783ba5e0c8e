/* libFuzzer target: particles.from = a fuzzed extended XYZ file (columns by Properties=, the
   file's box against the scenario's, the start checks), through the public API. One simulation
   per input, 2D or 3D by the input's length (odd: 3D; a mutation's byte more or less switches),
   lighter than both for the 10^6 executions of issue 28. The file goes to /dev/shm (no disk), the
   two scenarios are made once. */
#include "agglo/agglo.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  static agglo_config *cfg[2]; /* made once: 2D and 3D */
  if (!path[0]) {
    snprintf(path, sizeof path, "/dev/shm/agglo_fuzz_from_%d.xyz", (int)getpid());
    static const char *dims[] = {"2", "3"};
    for (int d = 0; d < 2; d++) {
      agglo_config *c = cfg[d] = agglo_config_new();
      agglo_config_set(c, "particles.from", path);
      agglo_config_set(c, "box.size", "0.2");
      agglo_config_set(c, "run.dim", dims[d]);
      agglo_config_set(c, "solver.max_iter", "100"); /* the reader is the target, not a stiff solve */
    }
  }
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  agglo_sim *sim = NULL;
  if (agglo_sim_create(cfg[size & 1], &sim) == AGGLO_OK) agglo_sim_step(sim, 1);
  else if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n", agglo_last_error());
  agglo_sim_destroy(sim);
  return 0;
}
