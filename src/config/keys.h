/* A scenario key is one row of a key table: its section and name, type, where agglo_config holds
   its value, default, allowed range and meaning. The shared keys are config.c's; each model's are
   in src/models/<model>_config.c, reached from its registry entry (core/model.h). The rows drive
   the INI reader, -s, `agglo run --help`, docs/config.md and the resolved scenario.ini. */
#ifndef AGGLO_CONFIG_KEYS_H
#define AGGLO_CONFIG_KEYS_H
#include "config/config.h"
#include <stddef.h>

/* T_INT values are int64_t (run.dim: int); T_ENUM and T_ENUMLIST: indices into choices;
   T_MODEL: run.model, a registry entry (its names are the choices) */
typedef enum { T_DOUBLE, T_INT, T_ENUM, T_LIST, T_ENUMLIST, T_STRING, T_MODEL } agglo_key_type;

typedef struct {
  const char *section, *name;
  agglo_key_type type;
  size_t offset;       /* of the value in agglo_config: OFF(member) */
  const char *def;     /* default, as written in a scenario file */
  double lo, hi;       /* allowed range (numbers and list entries) */
  int lo_open;         /* 1: the lower bound itself is not allowed */
  const char *choices; /* enums: "a|b|c" */
  const char *help;
} agglo_key;

#define OFF(member) offsetof(agglo_config, member)
#define BIG 1e300 /* "any number": the bound of a range that has none */

#endif
