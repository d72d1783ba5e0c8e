/* The restart point on disk, safe against a kill at any moment (state.xyz and contacts.txt from
   one step), sealed so that a reader knows the two belong together, and the cut of the outputs
   that a resumed run continues. */
#ifndef AGGLO_CHECKPOINT_H
#define AGGLO_CHECKPOINT_H
#include "core/model.h"
#include "core/system.h"

/* The run's solver iterations summed over the steps since its last stats row (the next row's
   mean): none in a restart point written at a row, some in one written between rows (a stop);
   and the user writers' positions, "# writer: ..." lines (io/user_writers.h; NULL or "": none). */
typedef struct {
  int64_t sum, steps;
  const char *writers;
} agglo_pending_iterations;

/* Write the pair into dir: .new files synced, then renamed (contacts first). 0 or -1. */
int agglo_checkpoint_write(const char *dir, const agglo_system *s, const agglo_model *m,
                           const void *state, agglo_pending_iterations pending, char *err,
                           size_t errlen);
/* The model's part of a restart point, before its seal: a line of the pending iterations when
   there are any, the user writers' lines, then the model's own state. Save: 0 or -1. Load (the
   bytes before the seal, over the restart point's system s; the writers' lines into *writers,
   malloc'd, NULL when none): 0, or -1 with "line L: ..." (L counted in those bytes). */
int agglo_checkpoint_save_model(FILE *f, const agglo_model *m, const void *state,
                                agglo_pending_iterations pending);
int agglo_checkpoint_load_model(FILE *f, const agglo_model *m, void *state, const agglo_system *s,
                                agglo_pending_iterations *pending, char **writers, char *err,
                                size_t errlen);
/* Before reading the pair in dir: finish a write that a kill interrupted (state.xyz.new is
   adopted only when it matches the seal of contacts.txt.new, or without it of contacts.txt), or
   discard it (and remove a leftover state.h5.new: state.h5 is renamed whole). 0, or -1 (a
   state.xyz.new alone that does not match: nothing is changed). */
int agglo_checkpoint_recover(const char *dir, char *err, size_t errlen);
/* The restart point a restart from dir reads, for the scenario's output.checkpoint_format
   (AGGLO_CHECKPOINT_TEXT or _HDF5): 1 = dir/state.h5, 0 = the text pair. The only one present;
   if both are, the one of the later step (a tie, or an unreadable state.h5: the format's own). */
int agglo_checkpoint_uses_h5(const char *dir, int format);
/* The step of that restart point, or -1 (none, unreadable). */
int64_t agglo_checkpoint_step(const char *dir, int format);
/* What a cut kept of a file: whether it is there, and its last record's step and time (-1 and
   -inf: none). */
typedef struct {
  int present;
  int64_t step;
  double t;
} agglo_kept_record;
/* Cut dir/trajectory.xyz and dir/stats.csv after the given step (and any partial frame or row);
   kept (if not NULL): [0] trajectory.xyz, [1] stats.csv after the cut. */
int agglo_checkpoint_truncate(const char *dir, int64_t step, agglo_kept_record *kept, char *err,
                              size_t errlen);

/* ---- the seal: the last line of the model's bytes (contacts.txt, state.h5's model/contacts) ---- */

/* The model's restart bytes (agglo_checkpoint_save_model) followed by the seal (step, particle
   count, model, and checksums of the state's numbers and of the bytes before the seal): malloc'd,
   *len bytes and a NUL; NULL with a message. */
char *agglo_checkpoint_bytes(const agglo_system *s, const agglo_model *m, const void *state,
                             agglo_pending_iterations pending, size_t *len, char *err,
                             size_t errlen);
/* The seal of data (len bytes of the model's restart state) for the state s of the model named
   model: one line onto f, written after data. */
void agglo_checkpoint_seal(FILE *f, const agglo_system *s, const char *model, const char *data,
                           size_t len);
/* The model's bytes before the seal: 0 and their length in *data_len, or -1 when the last line
   of bytes (len; named bytes_name) is not a seal. */
int agglo_checkpoint_data_length(const char *bytes, size_t len, const char *bytes_name,
                                 size_t *data_len, char *err, size_t errlen);
/* Do bytes (len, the seal at their end) belong to the state s, and to the model named model
   (unless NULL)? 0, or -1 with what does not match (bytes_name, state_name: the two as the
   message names them). */
int agglo_checkpoint_unseal(const char *bytes, size_t len, const agglo_system *s, const char *model,
                            const char *bytes_name, const char *state_name, char *err, size_t errlen);
/* The most bytes a model's state of n particles takes (a reader refuses more before allocating). */
static inline size_t agglo_checkpoint_max_bytes(size_t n) { return 4096 * n + ((size_t)1 << 20); }

/* Where a restart point was read from, for messages: the state (state.xyz or state.h5) and the
   model's bytes (contacts.txt or state.h5's dataset model/contacts). */
typedef struct {
  char state[4200], bytes[4300];
} agglo_checkpoint_names;
/* Read dir's restart point (text or HDF5: agglo_checkpoint_uses_h5): the state into s (free with
   agglo_system_free), the model's bytes with their seal into *bytes (malloc'd, *len and a NUL).
   0, or -1 with a message naming the file. */
int agglo_checkpoint_read(const char *dir, int format, agglo_system *s, char **bytes, size_t *len,
                          agglo_checkpoint_names *names, char *err, size_t errlen);

#endif
