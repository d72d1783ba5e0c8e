/* The user's writers (agglo_sim_add_writer, include/agglo/agglo.h): a callback whose text the
   library appends to a file of the run's directory when its trigger fires. The library owns the
   file: created with the outputs, held with the directory, flushed before every restart point,
   which records its length and its trigger's position ("# writer: ..." lines before the model's
   state, io/checkpoint.c); a run resumed from that restart point cuts it back to that length and
   goes on with the same trigger once the same name is registered again. */
#ifndef AGGLO_IO_USER_WRITERS_H
#define AGGLO_IO_USER_WRITERS_H
#include "agglo/agglo.h"
#include "io/trigger.h"
#include "io/writer.h"
#include <stdio.h>

enum { AGGLO_WRITER_NAME = 64, AGGLO_WRITER_FILE = 255, AGGLO_MAX_USER_WRITERS = 64 };

/* A user writer's position as a restart point records it. */
typedef struct {
  char name[AGGLO_WRITER_NAME + 1], file[AGGLO_WRITER_FILE + 1];
  long long bytes;   /* its file's length */
  double next;       /* its trigger's next time (by time) */
  size_t index;      /* its trigger's next time in its list */
  int claimed;       /* registered again in this run */
} agglo_saved_writer;

typedef struct agglo_user_writer {
  agglo_saved_writer at;  /* name, file, and the position (bytes: the file's length) */
  agglo_trigger when;
  double *times;          /* the trigger's times (a copy) */
  agglo_writer_fn fn;
  void *user;
  FILE *f;                /* open while the outputs are */
  int64_t last;           /* the step of its last record */
  int restored;           /* its position came from the restart point */
} agglo_user_writer;

/* The class the outputs open each user writer with (self: its agglo_user_writer). */
extern const agglo_writer_class agglo_writer_user;

/* The "# writer: ..." lines of the user writers (registered and open: their position now;
   saved in the restart point and not registered again: as saved), malloc'd ("" when none); NULL
   out of memory (the message set). */
char *agglo_user_writers_lines(struct agglo_sim *sim);
/* Their files' records on disk: 0 or -1 with the message. */
int agglo_user_writers_flush(struct agglo_sim *sim);
/* The lines of a restart point into sim's saved writers: 0, or -1 with a message naming the
   line (where: the restart point's name). */
int agglo_user_writers_load(struct agglo_sim *sim, const char *lines, const char *where);
/* Before the first step: a saved writer not registered again is refused (its file would lose
   the resumed run's records): AGGLO_OK or AGGLO_ERROR_INPUT naming it. */
agglo_status agglo_user_writers_check(const struct agglo_sim *sim);
void agglo_user_writers_free(struct agglo_sim *sim);

#endif
