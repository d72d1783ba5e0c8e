/* libFuzzer target: a restart from a fuzzed restart point (the input is contacts.txt, a NUL byte,
   then state.xyz): the reader by Properties=, the restart checks and the models' contact readers,
   through the public API. One simulation per input (lighter than one per model: issue 28 asked for
   10^6 executions): DPD in 3D when the contacts part starts as the DPD model's file does ("# dpd"),
   else contact in 2D. The files go to /dev/shm (no disk), the two scenarios are made once. */
#include "agglo/agglo.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int write_file(const char *name, const void *data, size_t size) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(data, 1, size, f);
  return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static agglo_config *cfg[2];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/dev/shm/agglo_fuzz_state_%d", (int)getpid());
    mkdir(dir, 0777);
    static const char *models[] = {"contact", "dpd"}, *dims[] = {"2", "3"};
    for (int m = 0; m < 2; m++) {
      agglo_config *c = cfg[m] = agglo_config_new();
      agglo_config_set(c, "run.model", models[m]);
      agglo_config_set(c, "run.dim", dims[m]);
      agglo_config_set(c, "particles.n", "3");
      agglo_config_set(c, "box.size", "2");
      agglo_config_set(c, "solver.max_iter", "100"); /* the readers are the target, not a stiff solve */
      if (m == 1) agglo_config_set(c, "box.boundary", "periodic");
    }
  }
  const uint8_t *nul = memchr(data, 0, size);
  size_t nc = nul ? (size_t)(nul - data) : 0, skip = nul ? nc + 1 : 0;
  if (write_file("contacts.txt", data, nc) != 0 || write_file("state.xyz", data + skip, size - skip) != 0)
    return 0;
  int m = nc >= 5 && !memcmp(data, "# dpd", 5); /* the model whose memory file this resembles */
  agglo_sim *sim = NULL;
  if (agglo_sim_create_from_restart(cfg[m], dir, &sim) == AGGLO_OK) agglo_sim_step(sim, 1);
  else if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n", agglo_last_error());
  agglo_sim_destroy(sim);
  return 0;
}
