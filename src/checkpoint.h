/* The restart point on disk, safe against a kill at any moment (state.xyz and contacts.txt from
   one step), and the cut of the outputs that a resumed run continues. */
#ifndef AGGLO_CHECKPOINT_H
#define AGGLO_CHECKPOINT_H
#include "model.h"
#include "system.h"

/* Write the pair into dir: .new files synced, then renamed (contacts first). 0 or -1. */
int agglo_checkpoint_write(const char *dir, const agglo_system *s, const agglo_model *m,
                           const void *state, char *err, size_t errlen);
/* Before reading the pair in dir: finish or discard a write that a kill interrupted. */
int agglo_checkpoint_recover(const char *dir, char *err, size_t errlen);
/* Cut dir/trajectory.xyz and dir/stats.csv after the given step (and any partial frame or row). */
int agglo_checkpoint_truncate(const char *dir, int64_t step, char *err, size_t errlen);

#endif
