/* Which model reads which key: a key set away from its default for a model that does not read it
   is an error (agglo_config_validate), so no input is silently ignored. */
#include "config/config.h"
#include <string.h>

#define ALL ((1u << MODEL_CONTACT) | (1u << MODEL_BALLISTIC) | (1u << MODEL_DPD) | (1u << MODEL_GLUEY))
#define ONLY(m) (1u << (m))

/* Most specific first: "section.key", then "section." for the rest of a section. */
static const struct {
  const char *prefix;
  unsigned models;
} readers[] = {
    {"run.dt", ALL & ~ONLY(MODEL_BALLISTIC)}, /* ballistic models choose their own steps */
    {"ballistic.velocity", ONLY(MODEL_BALLISTIC)},
    {"ballistic.speed", ONLY(MODEL_BALLISTIC)},
    {"gravity.", ONLY(MODEL_CONTACT) | ONLY(MODEL_GLUEY)},
    {"solver.", ONLY(MODEL_CONTACT) | ONLY(MODEL_GLUEY)},
    {"drag.", ONLY(MODEL_CONTACT)},
    {"flow.", ONLY(MODEL_CONTACT)},
    {"attraction.", ONLY(MODEL_CONTACT)},
    {"brownian.", ONLY(MODEL_CONTACT)},
    {"ballistic.", ONLY(MODEL_BALLISTIC)},
    {"dpd.", ONLY(MODEL_DPD)},
    {"parallel.", ONLY(MODEL_DPD) | ONLY(MODEL_CONTACT)}, /* domain decomposition */
    {"gluey.", ONLY(MODEL_GLUEY)},
    {"obstacles.", ONLY(MODEL_GLUEY)},
};

unsigned agglo_config_key_models(const char *section, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "%s.%s", section, name);
  for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++) {
    size_t len = strlen(readers[k].prefix);
    if (readers[k].prefix[len - 1] == '.' ? !strncmp(key, readers[k].prefix, len)
                                          : !strcmp(key, readers[k].prefix))
      return readers[k].models;
  }
  return ALL; /* run, particles, box, output: every model */
}
