/* The user's writers (io/user_writers.h, agglo_sim_add_writer). */
#include "io/user_writers.h"
#include "core/error.h"
#include "core/simulation.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE "# writer: "

struct agglo_writer_output {
  char *text;
  size_t len, cap;
};

agglo_status agglo_writer_append(agglo_writer_output *out, const char *text, size_t len) {
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_writer_append: out is NULL (only inside a writer's callback)");
  if (len && !text) return agglo_error(AGGLO_ERROR_INPUT, "agglo_writer_append: text is NULL with len = %zu", len);
  if (len > ((size_t)1 << 40) - out->len)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_writer_append: %zu bytes (allowed: at most 2^40 a record)", len);
  if (out->len + len > out->cap) {
    size_t cap = out->cap ? out->cap : 256;
    while (cap < out->len + len) cap *= 2;
    char *t = realloc(out->text, cap);
    if (!t) return agglo_error(AGGLO_ERROR_MEMORY, "agglo_writer_append: out of memory");
    out->text = t, out->cap = cap;
  }
  if (len) memcpy(out->text + out->len, text, len);
  out->len += len;
  return AGGLO_OK;
}

/* ---- the class ----------------------------------------------------------------------------- */

static int user_open(void *self, agglo_sim *sim) {
  agglo_user_writer *w = self;
  const agglo_outputs *o = &sim->out;
  const agglo_system *s = &sim->sys;
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", o->dir, w->at.file);
  struct stat st;
  int there = stat(path, &st) == 0;
  int cont = agglo_writer_continuing(sim);
  agglo_trigger_resume(&w->when, s->step, s->t, cont);
  w->last = cont ? s->step : -1;
  if (w->restored && o->continuing) { /* the file as the restart point left it */
    if (!there || (long long)st.st_size < w->at.bytes)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: %s, but the restart point (step %lld) records %lld "
                         "bytes of the user writer '%s': the resumed run would lack its records (put "
                         "the file back, or start the run again)", path, there ? "shorter" : "missing",
                         (long long)s->step, w->at.bytes, w->at.name), -2;
    if (truncate(path, (off_t)w->at.bytes) != 0)
      return agglo_error(AGGLO_ERROR_IO, "%s: cannot truncate: %s", path, strerror(errno));
    w->when.next = w->at.next, w->when.next_time = w->at.index;
    if (!(w->f = agglo_writer_open_file(o->dir, w->at.file, "a"))) return -1;
    return 1;
  }
  if (there && st.st_size > 0 && !o->overwrite)
    return agglo_error(AGGLO_ERROR_IO, "%s holds another run's file (the user writer '%s' writes it): "
                       "give another file name or output directory, or AGGLO_OUTPUT_OVERWRITE to "
                       "replace it", path, w->at.name);
  if (!(w->f = agglo_writer_open_file(o->dir, w->at.file, "w"))) return -1;
  w->at.bytes = 0;
  return 1;
}

static int user_due(void *self, agglo_sim *sim, int final) {
  agglo_user_writer *w = self;
  return agglo_trigger_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static int user_would(const void *self, const agglo_sim *sim, int final) {
  const agglo_user_writer *w = self;
  return agglo_trigger_would_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static double user_next_time(const void *self) { return agglo_trigger_next_time(&((const agglo_user_writer *)self)->when); }

static int user_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  agglo_user_writer *w = self;
  agglo_writer_output out = {0};
  int rc = w->fn(sim, sim->sys.step, &out, w->user);
  if (rc != 0) {
    free(out.text);
    return agglo_error(AGGLO_ERROR_IO, "the user writer '%s' (%s/%s) failed at step %lld (its "
                       "callback returned %d)", w->at.name, sim->out.dir, w->at.file,
                       (long long)sim->sys.step, rc);
  }
  int bad = out.len && fwrite(out.text, 1, out.len, w->f) != out.len;
  free(out.text);
  if (bad || fflush(w->f) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s/%s: write failed (disk full?)", sim->out.dir, w->at.file);
  w->at.bytes += (long long)out.len;
  w->last = sim->sys.step;
  return 0;
}

static int user_flush(void *self, agglo_sim *sim) {
  agglo_user_writer *w = self;
  if (w->f && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0))
    return agglo_error(AGGLO_ERROR_IO, "%s/%s: write failed (disk full?)", sim->out.dir, w->at.file);
  return 0;
}

static int user_close(void *self, agglo_sim *sim) {
  agglo_user_writer *w = self;
  int rc = w->f && fclose(w->f) != 0 ? agglo_error(AGGLO_ERROR_IO, "%s/%s: write failed", sim->out.dir, w->at.file) : 0;
  w->f = NULL;
  return rc;
}

const agglo_writer_class agglo_writer_user = {
    .name = "user writer", .size = sizeof(agglo_user_writer), .open = user_open, .due = user_due,
    .would = user_would, .next_time = user_next_time, .write = user_write, .flush = user_flush,
    .close = user_close};

/* ---- registration -------------------------------------------------------------------------- */

static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > AGGLO_WRITER_NAME) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '.' || *s == '-'))
      return 0;
  return 1;
}

/* Is file one of the names agglo writes in an output directory? */
static int agglo_owns(const char *file) {
  static const char *ours[] = {"trajectory.", "stats.csv", "sizes.csv", "state.", "contacts.txt",
                               "scenario.ini", "snapshot_", "agglo.lock", "mpi_ranks.txt", "parallel.csv"};
  for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
    if (!strncmp(file, ours[k], strlen(ours[k]))) return 1;
  return 0;
}

static agglo_status check_trigger(const agglo_trigger_spec *t) {
  if (!t) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: the trigger is NULL");
  if (t->steps < 0 || t->steps > AGGLO_MAX_STEPS)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: steps = %lld (allowed: 0 to 2^53)", (long long)t->steps);
  if (!(t->interval >= 0) || !isfinite(t->interval))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: interval = %g (allowed: finite, >= 0)", t->interval);
  if (t->steps > 0 && t->interval > 0)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: steps = %lld and interval = %g "
                       "(allowed: one of the two)", (long long)t->steps, t->interval);
  if (t->n_times > 1000000 || (t->n_times && !t->times))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: %zu times%s (allowed: 0 to 10^6, "
                       "given)", t->n_times, t->times ? "" : " and times NULL");
  for (size_t k = 0; k < t->n_times; k++)
    if (!isfinite(t->times[k]) || t->times[k] < 0 || (k && t->times[k] < t->times[k - 1]))
      return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: times[%zu] = %g (allowed: finite, "
                         ">= 0, ascending)", k, t->times[k]);
  if (!t->steps && !(t->interval > 0) && !t->n_times && !t->at_start && !t->at_end)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: the trigger never fires (give steps, "
                       "interval, times, at_start or at_end)");
  return AGGLO_OK;
}

agglo_status agglo_sim_add_writer(agglo_sim *sim, const char *name, const char *file,
                                  const agglo_trigger_spec *when, agglo_writer_fn fn, void *user) {
  if (!sim) return agglo_error(AGGLO_ERROR_USAGE, "agglo_sim_add_writer: the simulation handle is NULL");
  if (!name || !name_ok(name))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: name '%s' (allowed: 1 to %d of "
                       "A-Z a-z 0-9 _ . -)", name ? name : "(NULL)", AGGLO_WRITER_NAME);
  if (!file || !name_ok(file) || !strcmp(file, ".") || !strcmp(file, "..") || agglo_owns(file))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: file '%s' of writer '%s' (allowed: a "
                       "plain file name of 1 to %d of A-Z a-z 0-9 _ . -, not one of agglo's own files)",
                       file ? file : "(NULL)", name, AGGLO_WRITER_NAME);
  if (!fn) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: the callback of writer '%s' is NULL", name);
  agglo_status st = check_trigger(when);
  if (st != AGGLO_OK) return st;
  if (sim->n_users >= AGGLO_MAX_USER_WRITERS)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: writer '%s': %d writers already "
                       "(allowed: at most %d)", name, AGGLO_MAX_USER_WRITERS, AGGLO_MAX_USER_WRITERS);
  for (size_t k = 0; k < sim->n_users; k++)
    if (!strcmp(sim->users[k]->at.name, name) || !strcmp(sim->users[k]->at.file, file))
      return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: writer '%s' (file %s): a writer "
                         "'%s' (file %s) is already added (allowed: one writer per name and file)",
                         name, file, sim->users[k]->at.name, sim->users[k]->at.file);
  agglo_saved_writer *saved = NULL;
  for (size_t k = 0; k < sim->n_saved; k++)
    if (!strcmp(sim->saved[k].name, name)) saved = &sim->saved[k];
  if (saved && strcmp(saved->file, file))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_add_writer: writer '%s' writes %s, but the "
                       "restart point records it writing %s (allowed: the same file)", name, file, saved->file);
  agglo_user_writer *w = calloc(1, sizeof *w);
  agglo_user_writer **grown = realloc(sim->users, (sim->n_users + 1) * sizeof *grown);
  double *times = when->n_times ? malloc(when->n_times * sizeof *times) : NULL;
  if (grown) sim->users = grown;
  if (!w || !grown || (when->n_times && !times)) {
    free(w), free(times);
    return agglo_error(AGGLO_ERROR_MEMORY, "agglo_sim_add_writer: out of memory");
  }
  if (when->n_times) memcpy(times, when->times, when->n_times * sizeof *times);
  snprintf(w->at.name, sizeof w->at.name, "%s", name);
  snprintf(w->at.file, sizeof w->at.file, "%s", file);
  int by_time = sim->model->variable_step;
  w->when = when->interval > 0 ? agglo_trigger_periodic(when->interval, sim->cfg.dt, by_time)
                               : agglo_trigger_steps(when->steps);
  w->when.by_time = by_time, w->when.dt = sim->cfg.dt;
  w->when.times = w->times = times, w->when.n_times = when->n_times;
  w->when.at_start = when->at_start != 0, w->when.at_end = when->at_end != 0;
  w->fn = fn, w->user = user, w->last = -1;
  if (saved) {
    w->at = *saved, w->restored = 1;
    saved->claimed = 1;
  }
  sim->users[sim->n_users++] = w;
  if (!sim->out.dir) return AGGLO_OK; /* opened with the outputs */
  int rc = agglo_outputs_add(sim, &agglo_writer_user, w);
  if (rc == 0) return AGGLO_OK;
  sim->n_users--; /* not added */
  if (saved) saved->claimed = 0;
  free(w->times), free(w);
  return rc == -2 ? AGGLO_ERROR_INPUT : AGGLO_ERROR_IO;
}

/* ---- the restart point --------------------------------------------------------------------- */

static int put_line(FILE *f, const agglo_saved_writer *a) {
  return fprintf(f, LINE "%s file=%s bytes=%lld next=%.17g index=%zu\n", a->name, a->file, a->bytes,
                 a->next, a->index) < 0;
}

char *agglo_user_writers_lines(agglo_sim *sim) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory"), NULL;
  int bad = 0;
  for (size_t k = 0; k < sim->n_users; k++) {
    agglo_user_writer *w = sim->users[k];
    agglo_saved_writer a = w->at;
    if (w->f) a.next = w->when.next, a.index = w->when.next_time;
    if (w->f || w->restored) bad |= put_line(f, &a);
  }
  for (size_t k = 0; k < sim->n_saved; k++) /* kept for a resume that adds them again */
    if (!sim->saved[k].claimed) bad |= put_line(f, &sim->saved[k]);
  bad |= ferror(f) != 0;
  if (fclose(f) != 0 || bad || !text) {
    free(text);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory"), NULL;
  }
  return text;
}

int agglo_user_writers_flush(agglo_sim *sim) {
  for (size_t k = 0; k < sim->n_users; k++)
    if (user_flush(sim->users[k], sim) != 0) return -1;
  return 0;
}

int agglo_user_writers_load(agglo_sim *sim, const char *lines, const char *where) {
  int line = 0;
  while (lines && *lines) {
    line++;
    const char *end = strchr(lines, '\n');
    size_t n = end ? (size_t)(end - lines) : strlen(lines);
    char buf[512];
    agglo_saved_writer a = {0};
    int used = -1;
    if (n < sizeof buf) {
      memcpy(buf, lines, n), buf[n] = 0;
      sscanf(buf, LINE "%64s file=%255s bytes=%lld next=%lg index=%zu%n", a.name, a.file, &a.bytes,
             &a.next, &a.index, &used);
    }
    if (used != (int)n || !name_ok(a.name) || !name_ok(a.file) || sim->n_saved >= AGGLO_MAX_USER_WRITERS)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: user writer line %d is not '" LINE "NAME file=FILE "
                         "bytes=N next=T index=K' (at most %d)", where, line, AGGLO_MAX_USER_WRITERS);
    /* each field as agglo_sim_add_writer and the trigger allow it: a forged line is refused here,
       not met as a truncation or a trigger that never fires */
    const char *bad = a.bytes < 0 || a.bytes > AGGLO_MAX_STEPS ? "bytes (allowed: 0 to 2^53)"
                      : !isfinite(a.next) || a.next < 0    ? "next (allowed: finite, >= 0)"
                      : a.index > 1000000                 ? "index (allowed: 0 to 10^6)"
                      : !strcmp(a.file, ".") || !strcmp(a.file, "..") || agglo_owns(a.file)
                          ? "file (allowed: a plain file name, not one of agglo's own files)"
                          : NULL;
    for (size_t k = 0; !bad && k < sim->n_saved; k++)
      if (!strcmp(sim->saved[k].name, a.name) || !strcmp(sim->saved[k].file, a.file))
        bad = "name or file (allowed: one line per writer name and file)";
    if (bad)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: user writer line %d ('%.*s'): %s", where, line,
                         (int)(n < 200 ? n : 200), lines, bad);
    agglo_saved_writer *grown = realloc(sim->saved, (sim->n_saved + 1) * sizeof *grown);
    if (!grown) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    sim->saved = grown;
    sim->saved[sim->n_saved++] = a;
    lines += n + (end != NULL);
  }
  return 0;
}

agglo_status agglo_user_writers_check(const agglo_sim *sim) {
  for (size_t k = 0; k < sim->n_saved; k++)
    if (!sim->saved[k].claimed)
      return agglo_error(AGGLO_ERROR_INPUT, "the restart point this run continues (step %lld) has the "
                         "user writer '%s' (file %s, %lld bytes), not added again: add it "
                         "(agglo_sim_add_writer with the name '%s') before the first step, or its file "
                         "would lack the resumed run's records", (long long)sim->sys.step,
                         sim->saved[k].name, sim->saved[k].file, sim->saved[k].bytes, sim->saved[k].name);
  return AGGLO_OK;
}

void agglo_user_writers_free(agglo_sim *sim) {
  for (size_t k = 0; k < sim->n_users; k++) free(sim->users[k]->times), free(sim->users[k]);
  free(sim->users), free(sim->saved);
  sim->users = NULL, sim->saved = NULL, sim->n_users = sim->n_saved = 0;
}
