/* A writer: one output of a run (a file, or a family of files), written when its trigger fires.
   The step loop asks each writer's trigger once per step and calls each writer that is due once
   (io/outputs.c); a writer owns its file from open to close. The built-in writers are listed in
   io/writer_list.h, one line each, in the order they write at a step; a new one is a file of
   its own (a class below) and one line there. docs/architecture.md, "Adding a writer or a
   trigger", walks through one. */
#ifndef AGGLO_IO_WRITER_H
#define AGGLO_IO_WRITER_H
#include "io/checkpoint.h"
#include "io/trigger.h"
#include <stdio.h>

struct agglo_sim;

typedef struct agglo_writer_class {
  const char *name; /* what it writes, for messages (e.g. "trajectory.xyz") */
  /* optional: the files it writes, blank separated ("toy.csv"): another run's are refused or
     deleted when the outputs are attached to a directory (agglo_outputs_claim) */
  const char *files;
  size_t size;      /* bytes of its own state, handed zeroed to open */
  /* Open in sim->out.dir for the outputs asked for (sim->out.which, AGGLO_OUTPUT_*): 1 open, 0
     not asked for (the writer is dropped), -1 failed, -2 its file does not reach the restart
     point a restarted run continues (bad input); the message set on failure. A restarted run
     continues the file its restart point left (sim->restarted; the cut of the files a run killed
     after its last restart point wrote more is done before: sim->out.kept). Its trigger is set as
     an uninterrupted run has it (agglo_trigger_resume). */
  int (*open)(void *self, struct agglo_sim *sim);
  /* Ask the trigger: is it due at the current step (final: the run ends here)? Called once a
     step, in list order, before any writer writes; a trigger by time moves on when it fires. */
  int (*due)(void *self, struct agglo_sim *sim, int final);
  /* Optional: the same question without moving the trigger (fixed-step models: whether the
     ranks must gather the state for this step); NULL: due's answer would be 0. */
  int (*would)(const void *self, const struct agglo_sim *sim, int final);
  /* Optional: the time it is next due, by time (INFINITY: none): an event-driven step ends
     there so that records fall on their times. */
  double (*next_time)(const void *self);
  /* Write the record of the current step (the clusters are labelled): 0, -1 with the message,
     or AGGLO_ERROR_RUN (the state is not a result: a non-finite stats value). A record is
     flushed when written: a killed run leaves every complete record readable. */
  int (*write)(void *self, struct agglo_sim *sim, int final);
  /* Optional: what it wrote is on disk (before a restart point records it). 0 or -1. */
  int (*flush)(void *self, struct agglo_sim *sim);
  /* Close its file: 0 or -1 with the message. Always called once after open returned 1. */
  int (*close)(void *self, struct agglo_sim *sim);
} agglo_writer_class;

/* One writer of a run: its class and its state. */
typedef struct {
  const agglo_writer_class *cls;
  void *self;
  int due;   /* due at the current step */
  int owned; /* self was allocated with the outputs (freed when they close) */
} agglo_writer;

/* The built-in writers in the order they write at a step (io/writers.c, from io/writer_list.h),
   and their count. */
extern const agglo_writer_class *const agglo_writer_list[];
extern const size_t agglo_writer_count;

/* Helpers for writers (io/outputs.c). dir/name opened with mode ("w", "a"): the file, or NULL
   with the message. */
FILE *agglo_writer_open_file(const char *dir, const char *name, const char *mode);
/* A restarted run continues name, whose last record (kept) must be the last one the schedule
   every `interval` put at or before the restart point (rows: an interval of 0 is every step,
   else the first and last records only): 0, or -2 with a message naming dir/name (records
   missing: the resumed run would lack them). */
int agglo_writer_check_reach(const struct agglo_sim *sim, const char *name, double interval, int rows,
                             agglo_kept_record kept);
/* dir/scenario.ini, whole or not at all (a resumed run reads it back): 0 or -1. */
int agglo_writer_scenario(const struct agglo_sim *sim, const char *dir);
/* Open a writer of class cls into the run's outputs (self: its state, owned by the caller, or
   NULL: allocated and freed with the outputs): 0 (added, or not asked for), -1 or -2. */
int agglo_outputs_add(struct agglo_sim *sim, const agglo_writer_class *cls, void *self);
/* Every writer's records on disk (before a restart point records their positions): 0 or -1. */
int agglo_outputs_flush(struct agglo_sim *sim);
/* Does the run continue a restart point in its directory (the records of the current step are
   already written)? */
int agglo_writer_continuing(const struct agglo_sim *sim);
/* A trajectory's schedule, either format: every output.trajectory_interval, the start and the
   end, never twice at one step (a stop or an error must not repeat a frame). */
typedef struct {
  agglo_trigger when;
  int64_t last; /* the step of the last frame */
} agglo_frame_schedule;
void agglo_frame_schedule_start(agglo_frame_schedule *f, const struct agglo_sim *sim);
int agglo_frame_schedule_due(agglo_frame_schedule *f, const struct agglo_sim *sim, int final);
int agglo_frame_schedule_would(const agglo_frame_schedule *f, const struct agglo_sim *sim, int final);

#endif
