/* The initial state from the settings: box, radii, masses, non-overlapping placement. */
#ifndef AGGLO_SETUP_H
#define AGGLO_SETUP_H
#include "config/config.h"
#include "core/system.h"

int agglo_setup(agglo_system *s, const agglo_config *c, char *err, size_t errlen);

#endif
