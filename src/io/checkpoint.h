/* The restart point on disk, safe against a kill at any moment (state.xyz and contacts.txt from
   one step), and the cut of the outputs that a resumed run continues. */
#ifndef AGGLO_CHECKPOINT_H
#define AGGLO_CHECKPOINT_H
#include "core/model.h"
#include "core/system.h"

/* The run's solver iterations summed over the steps since its last stats row (the next row's
   mean): none in a restart point written at a row, some in one written between rows (a stop). */
typedef struct { int64_t sum, steps; } agglo_pending_iterations;

/* Write the pair into dir: .new files synced, then renamed (contacts first). 0 or -1. */
int agglo_checkpoint_write(const char *dir, const agglo_system *s, const agglo_model *m,
                           const void *state, agglo_pending_iterations pending, char *err,
                           size_t errlen);
/* The model's part of a restart point (contacts.txt, or state.h5's model/contacts): a line of
   the pending iterations when there are any, then the model's own state. Save: 0 or -1; load
   (path names the file in messages): 0, or -1 with the message. */
int agglo_checkpoint_save_model(FILE *f, const agglo_model *m, const void *state,
                                agglo_pending_iterations pending);
int agglo_checkpoint_load_model(FILE *f, const char *path, const agglo_model *m, void *state,
                                agglo_pending_iterations *pending, char *err, size_t errlen);
/* Before reading the pair in dir: finish or discard a write that a kill interrupted (and remove a
   leftover state.h5.new: state.h5 is renamed whole). */
int agglo_checkpoint_recover(const char *dir, char *err, size_t errlen);
/* The restart point a restart from dir reads, for the scenario's output.checkpoint_format
   (AGGLO_CHECKPOINT_TEXT or _HDF5): 1 = dir/state.h5, 0 = the text pair. The only one present;
   if both are, the one of the later step (a tie, or an unreadable state.h5: the format's own). */
int agglo_checkpoint_uses_h5(const char *dir, int format);
/* The step of that restart point, or -1 (none, unreadable). */
int64_t agglo_checkpoint_step(const char *dir, int format);
/* Cut dir/trajectory.xyz and dir/stats.csv after the given step (and any partial frame or row). */
int agglo_checkpoint_truncate(const char *dir, int64_t step, char *err, size_t errlen);

#endif
