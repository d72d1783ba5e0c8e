/* A scenario key is one row of a key table: its section and name, type, where its value lives,
   default, allowed range and meaning. The shared keys are config.c's; each model's are in
   src/models/<model>_config.c, reached from its registry entry (core/model.h). The rows drive
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
  size_t offset;       /* where the value lives: OFF(member) or OWN(member), below */
  const char *def;     /* default, as written in a scenario file */
  double lo, hi;       /* allowed range (numbers and list entries) */
  int lo_open;         /* 1: the lower bound itself is not allowed */
  const char *choices; /* enums: "a|b|c" */
  const char *help;
} agglo_key;

/* A value lives in agglo_config, OFF(member): the shared keys, and the [gravity], [solver] and
   [parallel] keys a model's table holds; or in a model's own settings struct (its
   src/models/<model>_config.h), which agglo_config keeps in the room the registry gives each model
   (agglo_model_settings, core/model.h): SETTING(type, member), written OWN(member) in the model's
   key table. */
#define OFF(member) offsetof(agglo_config, member)
#define AGGLO_KEY_IN_SETTINGS ((size_t)1 << (8 * sizeof(size_t) - 1))
#define SETTING(type, member) (AGGLO_KEY_IN_SETTINGS | offsetof(type, member))
#define BIG 1e300 /* "any number": the bound of a range that has none */

/* A key renamed: its old name is refused with a message that names the new one and why (a
   scenario written for the old meaning must be read again, not silently reinterpreted). */
typedef struct { const char *section, *old, *now, *why; } agglo_renamed_key;

#endif
