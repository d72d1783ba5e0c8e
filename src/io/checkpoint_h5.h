/* The restart point as one HDF5 file, state.h5 (output.checkpoint_format = hdf5; layout in
   docs/formats.md): the particles and box as native numbers (bit for bit) and the model's state
   as the exact bytes of its text save (contacts.txt). */
#ifndef AGGLO_CHECKPOINT_H5_H
#define AGGLO_CHECKPOINT_H5_H
#include "core/model.h"
#include "core/system.h"
#include "io/checkpoint.h"

/* Write dir/state.h5: state.h5.new, synced, renamed over state.h5. 0 or -1. */
int agglo_checkpoint_h5_write(const char *dir, const agglo_system *s, const agglo_model *m,
                              const void *state, agglo_pending_iterations pending, char *err,
                              size_t errlen);
/* Read a state.h5 into s (allocated; free with agglo_system_free) and the model's bytes into
   *model (malloc'd, *model_len bytes; free it). 0 or -1 (the message names the file and the
   dataset). */
int agglo_checkpoint_h5_read(const char *path, agglo_system *s, char **model, size_t *model_len,
                             char *err, size_t errlen);
/* The step stored in a state.h5, or -1 (none, unreadable). */
int64_t agglo_checkpoint_h5_step(const char *path);

#endif
