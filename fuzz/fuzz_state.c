/* libFuzzer target: a restart from a fuzzed restart point (the input is contacts.txt, a NUL byte,
   then state.xyz): the reader by Properties=, the restart checks and the models' contact readers,
   through the public API. One simulation per input (lighter than one per model: issue 28 asked for
   10^6 executions): DPD when the contacts part starts as the DPD model's file does ("# dpd"), else
   contact. A state the reader takes is given the scenario and the seal that match it (count, box,
   time step; io/checkpoint.h), so that the checks behind them and one step are reached too. The
   files go to /dev/shm (no disk). */
#include "agglo/agglo.h"
#include "io/checkpoint.h"
#include "io/xyz_write.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static FILE *open_in_dir(const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return fopen(path, "wb");
}

/* Settings for the model, matching the state s when it was read (parsed). */
static agglo_config *settings(const char *model, const agglo_system *s, int parsed) {
  agglo_config *c = agglo_config_new();
  char v[128];
  agglo_config_set(c, "run.model", model);
  agglo_config_set(c, "run.dim", parsed ? (s->dim == 2 ? "2" : "3") : strcmp(model, "dpd") ? "2" : "3");
  if (!strcmp(model, "contact")) /* the readers are the target, not a stiff solve */
    agglo_config_set(c, "solver.max_iter", "100");
  if (!parsed) {
    agglo_config_set(c, "particles.n", "3");
    agglo_config_set(c, "box.size", "2");
    return c;
  }
  snprintf(v, sizeof v, "%zu", s->n ? s->n : 1);
  agglo_config_set(c, "particles.n", v);
  snprintf(v, sizeof v, "%.17g, %.17g, %.17g", s->box.len[0], s->box.len[1], s->box.len[2]);
  if (s->dim == 2) snprintf(v, sizeof v, "%.17g, %.17g", s->box.len[0], s->box.len[1]);
  agglo_config_set(c, "box.size", v);
  snprintf(v, sizeof v, "%s %s %s", s->box.periodic[0] ? "periodic" : "wall",
           s->box.periodic[1] ? "periodic" : "wall", s->box.periodic[2] ? "periodic" : "wall");
  if (s->dim == 2) *strrchr(v, ' ') = 0;
  agglo_config_set(c, "box.boundary", v);
  if (s->step > 0 && s->t > 0) { /* time = step x run.dt; one step more */
    snprintf(v, sizeof v, "%.17g", s->t / (double)s->step);
    agglo_config_set(c, "run.dt", v);
    snprintf(v, sizeof v, "%.17g", s->t + s->t / (double)s->step);
    agglo_config_set(c, "run.t_end", v);
  }
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/dev/shm/agglo_fuzz_state_%d", (int)getpid());
    mkdir(dir, 0777);
  }
  const uint8_t *nul = memchr(data, 0, size);
  size_t nc = nul ? (size_t)(nul - data) : 0, skip = nul ? nc + 1 : 0;
  FILE *f = open_in_dir("state.xyz");
  if (!f) return 0;
  fwrite(data + skip, 1, size - skip, f);
  fclose(f);
  char path[128], err[256];
  snprintf(path, sizeof path, "%s/state.xyz", dir);
  agglo_system s = {0};
  int parsed = agglo_xyz_read_state(path, &s, err, sizeof err) == 0;
  /* the model whose memory file this resembles */
  const char *model = nc >= 5 && !memcmp(data, "# dpd", 5) ? "dpd" : "contact";
  agglo_config *c = settings(model, &s, parsed);
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  agglo_config_save(c, path);
  if ((f = open_in_dir("contacts.txt"))) {
    fwrite(data, 1, nc, f);
    if (parsed) agglo_checkpoint_seal(f, &s, model, (const char *)data, nc);
    fclose(f);
  }
  agglo_sim *sim = NULL;
  if (agglo_sim_create_from_restart(c, dir, &sim) == AGGLO_OK) agglo_sim_step(sim, 1);
  else if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n", agglo_last_error());
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  agglo_system_free(&s);
  return 0;
}
