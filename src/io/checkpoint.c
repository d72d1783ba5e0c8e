/* The restart point on disk, safe against a kill at any moment, sealed, and the cut of the
   outputs that a resumed run continues.

   A restart point is a pair, state.xyz and contacts.txt, that must come from the same step. The
   last line of contacts.txt is its seal: the step, the particle count, the model, and checksums
   (64-bit FNV-1a) of the state's numbers and of the lines before the seal. A reader takes the pair
   only when both checksums match (the numbers, not the text: a state.xyz with its columns
   reordered still matches). state.h5 holds the same bytes, seal included, in model/contacts.

   Both files are written to .new files and synced (state.xyz.new appears only after
   contacts.txt.new is complete); then contacts.txt.new is renamed over contacts.txt and
   state.xyz.new over state.xyz. Recovery finishes what a kill interrupted: with both .new files
   (killed before the renames), the two renames once state.xyz.new matches the seal of
   contacts.txt.new, else the .new files are discarded and the old pair stands (the first restart
   point of a run has no old pair: discarding a complete one would leave none); with state.xyz.new
   alone (killed between the renames), its rename once it matches the seal of the new
   contacts.txt. */
#include "io/checkpoint.h"
#include "io/checkpoint_h5.h"
#include "config/config.h"
#include "core/checksum.h"
#include "core/error.h"
#include "core/files.h"
#include "io/xyz_write.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEAL "# agglo restart point: "

/* Every number a restart takes from the state, bit for bit (state.xyz's 17 digits read back to
   the same doubles): count, dimension, step, time, box, and per particle position, velocity,
   radius, mass, id and cluster. */
static uint64_t state_checksum(const agglo_system *s) {
  uint64_t h = agglo_fnv_word(agglo_fnv_word(AGGLO_FNV_OFFSET, s->n), (uint64_t)s->dim);
  h = agglo_fnv_double(agglo_fnv_word(h, (uint64_t)s->step), s->t);
  for (int k = 0; k < 3; k++)
    h = agglo_fnv_word(agglo_fnv_double(agglo_fnv_double(h, s->box.lo[k]), s->box.len[k]),
                       (uint64_t)s->box.periodic[k]);
  for (size_t i = 0; i < s->n; i++) {
    for (int k = 0; k < 3; k++)
      h = agglo_fnv_double(agglo_fnv_double(h, s->x[3 * i + k]), s->v[3 * i + k]);
    h = agglo_fnv_double(agglo_fnv_double(h, s->r[i]), s->m[i]);
    h = agglo_fnv_word(agglo_fnv_word(h, (uint64_t)s->id[i]), (uint32_t)s->cluster[i]);
  }
  return h;
}

void agglo_checkpoint_seal(FILE *f, const agglo_system *s, const char *model, const char *data,
                           size_t len) {
  /* before f grows: data may move */
  unsigned long long lines = agglo_fnv_bytes(AGGLO_FNV_OFFSET, data, len);
  fprintf(f, SEAL "step=%lld particles=%zu state=%016llx contacts=%016llx model=%s\n",
          (long long)s->step, s->n, (unsigned long long)state_checksum(s), lines, model);
}

static const char pending_line[] = "# run: solver iterations since the last stats row: %lld in %lld steps\n";

int agglo_checkpoint_save_model(FILE *f, const agglo_model *m, const void *state,
                                agglo_pending_iterations pending) {
  if (pending.steps > 0 && fprintf(f, pending_line, (long long)pending.sum, (long long)pending.steps) < 0)
    return -1;
  if (pending.writers && fputs(pending.writers, f) == EOF) return -1;
  return m && m->save ? m->save(state, f) : 0;
}

#define WRITER_LINE "# writer: "

int agglo_checkpoint_load_model(FILE *f, const agglo_model *m, void *state, const agglo_system *s,
                                agglo_pending_iterations *pending, char **writers, char *err,
                                size_t errlen) {
  char line[1024];
  long long sum, steps;
  *pending = (agglo_pending_iterations){0, 0, NULL};
  *writers = NULL;
  int skipped = 0; /* lines before the model's own */
  if (fgets(line, sizeof line, f) && sscanf(line, pending_line, &sum, &steps) == 2) {
    if (sum < 0 || steps < 1 || steps > AGGLO_MAX_STEPS)
      return agglo_fail(err, errlen, "line 1: %lld solver iterations in %lld steps (allowed: 0 "
                        "or more in 1 to 2^53 steps)", sum, steps);
    *pending = (agglo_pending_iterations){sum, steps, NULL};
    skipped = 1;
  } else if (fseek(f, 0, SEEK_SET) != 0) {
    return agglo_fail(err, errlen, "cannot read: %s", strerror(errno));
  }
  /* the user writers' lines (bounded: io/user_writers.h's count of writers) */
  size_t len = 0;
  for (long at = ftell(f); at >= 0 && fgets(line, sizeof line, f); at = ftell(f)) {
    if (strncmp(line, WRITER_LINE, strlen(WRITER_LINE)) || skipped > 1 + 64) {
      if (fseek(f, at, SEEK_SET) != 0) return agglo_fail(err, errlen, "cannot read: %s", strerror(errno));
      break;
    }
    size_t l = strlen(line);
    char *grown = realloc(*writers, len + l + 1);
    if (!grown) {
      free(*writers), *writers = NULL;
      return agglo_fail(err, errlen, "out of memory");
    }
    memcpy(grown + len, line, l + 1);
    *writers = grown, len += l;
    skipped++;
  }
  if (!m || !m->load || m->load(state, s, f, err, errlen) == 0) return 0;
  free(*writers), *writers = NULL;
  size_t k = strlen(err); /* the model counts its lines from its own first one */
  if (skipped > 0 && k < errlen)
    snprintf(err + k, errlen - k, " (the line after the %s counted as line 1)",
             len ? "user writers' lines" : "solver iterations line");
  return -1;
}

char *agglo_checkpoint_bytes(const agglo_system *s, const agglo_model *m, const void *state,
                             agglo_pending_iterations pending, size_t *len, char *err,
                             size_t errlen) {
  char *bytes = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&bytes, &n);
  if (!f) {
    agglo_fail(err, errlen, "out of memory for the model's restart state");
    return NULL;
  }
  int rc = agglo_checkpoint_save_model(f, m, state, pending);
  if (fflush(f) != 0) rc = -1;
  agglo_checkpoint_seal(f, s, m->name, bytes, n);
  if (fclose(f) != 0 || rc != 0) {
    free(bytes);
    agglo_fail(err, errlen, "the %s model's restart state could not be saved (out of memory)", m->name);
    return NULL;
  }
  *len = n;
  return bytes;
}

/* A seal read back: its numbers and model, and where its line starts (the model's bytes end). */
typedef struct {
  long long step;
  unsigned long long n, state, lines;
  char model[128];
  size_t start;
} seal;

/* The seal at the end of bytes: 0, or -1 when the last line is not one. */
static int seal_of(const char *bytes, size_t len, seal *z) {
  size_t end = len && bytes[len - 1] == '\n' ? len - 1 : len;
  z->start = end;
  while (z->start && bytes[z->start - 1] != '\n') z->start--;
  char line[512];
  int off = -1;
  if (end - z->start < sizeof line) {
    memcpy(line, bytes + z->start, end - z->start);
    line[end - z->start] = 0;
    sscanf(line, SEAL "step=%lld particles=%llu state=%16llx contacts=%16llx model=%n", &z->step,
           &z->n, &z->state, &z->lines, &off);
  }
  if (off < 0) return -1;
  snprintf(z->model, sizeof z->model, "%s", line + off);
  return 0;
}

static int no_seal(const char *bytes_name, char *err, size_t errlen) {
  return agglo_fail(err, errlen, "%s: no seal at its end (its last line is not '" SEAL "...'): cut "
                    "short or damaged, or written before agglo sealed its restart points", bytes_name);
}

int agglo_checkpoint_data_length(const char *bytes, size_t len, const char *bytes_name,
                                 size_t *data_len, char *err, size_t errlen) {
  seal z;
  if (seal_of(bytes, len, &z) != 0) return no_seal(bytes_name, err, errlen);
  *data_len = z.start;
  return 0;
}

int agglo_checkpoint_unseal(const char *bytes, size_t len, const agglo_system *s, const char *model,
                            const char *bytes_name, const char *state_name, char *err, size_t errlen) {
  seal z;
  if (seal_of(bytes, len, &z) != 0) return no_seal(bytes_name, err, errlen);
  uint64_t lines = agglo_fnv_bytes(AGGLO_FNV_OFFSET, bytes, z.start);
  if (lines != z.lines)
    return agglo_fail(err, errlen, "%s: the lines before its seal are not those written (checksum "
                      "%016llx, sealed %016llx): damaged or edited", bytes_name,
                      (unsigned long long)lines, z.lines);
  if (model && strcmp(z.model, model))
    return agglo_fail(err, errlen, "%s: the restart point of a run of the %s model, not of the %s "
                      "model (run.model and ballistic.method are fixed by the restart point)",
                      bytes_name, z.model, model);
  if (z.step != s->step || z.n != s->n)
    return agglo_fail(err, errlen, "%s holds step %lld with %zu particles, but %s was sealed with "
                      "step %lld and %llu particles: the two come from different restart points",
                      state_name, (long long)s->step, s->n, bytes_name, z.step, z.n);
  if (state_checksum(s) != z.state)
    return agglo_fail(err, errlen, "%s: its numbers are not those sealed in %s at step %lld (edited "
                      "or damaged: a restart point is taken only as written)", state_name,
                      bytes_name, z.step);
  return 0;
}

static int sync_path(const char *path, int dir) {
  int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* A whole file of at most max bytes, with a NUL after them (malloc'd), or NULL with a message. */
static char *read_whole(const char *path, size_t max, size_t *len, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    agglo_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  char *buf = NULL;
  if (fstat(fileno(f), &st) != 0 || st.st_size < 0)
    agglo_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
  else if ((unsigned long long)st.st_size > max)
    agglo_fail(err, errlen, "%s: %lld bytes, more than the restart point of this state holds (at "
               "most %zu): not a restart point", path, (long long)st.st_size, max);
  else if (!(buf = malloc((size_t)st.st_size + 1)))
    agglo_fail(err, errlen, "%s: out of memory", path);
  else if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
    agglo_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    free(buf);
    buf = NULL;
  } else {
    buf[st.st_size] = 0;
    *len = (size_t)st.st_size;
  }
  fclose(f);
  return buf;
}

int agglo_checkpoint_write(const char *dir, const agglo_system *s, const agglo_model *m,
                           const void *state, agglo_pending_iterations pending, char *err,
                           size_t errlen) {
  char state_new[4200], state_path[4200], con_new[4200], con_path[4200];
  snprintf(state_path, sizeof state_path, "%s/state.xyz", dir);
  snprintf(state_new, sizeof state_new, "%s/state.xyz.new", dir);
  snprintf(con_path, sizeof con_path, "%s/contacts.txt", dir);
  snprintf(con_new, sizeof con_new, "%s/contacts.txt.new", dir);
  size_t len = 0;
  char *bytes = agglo_checkpoint_bytes(s, m, state, pending, &len, err, errlen);
  if (!bytes) return -1;
  FILE *f = fopen(con_new, "w");
  if (!f) {
    free(bytes);
    return agglo_fail(err, errlen, "%s: cannot write: %s", con_new, strerror(errno));
  }
  errno = 0;
  fwrite(bytes, 1, len, f);
  free(bytes);
  if (agglo_file_finish(f, con_new, 1, err, errlen) != 0) return -1;
  if (agglo_xyz_write_state(state_new, s, err, errlen) != 0) return -1; /* synced */
  sync_path(dir, 1); /* the .new names are on disk before the renames */
  if (rename(con_new, con_path) != 0 || rename(state_new, state_path) != 0)
    return agglo_fail(err, errlen, "%s: cannot rename the restart point: %s", dir, strerror(errno));
  sync_path(dir, 1); /* the renames themselves survive a power cut */
  return 0;
}

/* Is the state of state_path the one con_path was sealed with? 0, or -1 with why not. */
static int pair_matches(const char *state_path, const char *con_path, char *err, size_t errlen) {
  agglo_system s = {0};
  char *bytes = NULL;
  size_t len = 0;
  int rc = agglo_xyz_read_state(state_path, &s, err, errlen);
  if (rc == 0 && !(bytes = read_whole(con_path, agglo_checkpoint_max_bytes(s.n), &len, err, errlen)))
    rc = -1;
  if (rc == 0) rc = agglo_checkpoint_unseal(bytes, len, &s, NULL, con_path, state_path, err, errlen);
  free(bytes);
  agglo_system_free(&s);
  return rc;
}

int agglo_checkpoint_recover(const char *dir, char *err, size_t errlen) {
  char state_new[4200], state_path[4200], con_new[4200], con_path[4200], path[4300];
  snprintf(path, sizeof path, "%s/state.h5.new", dir);
  unlink(path); /* state.h5 is renamed whole: a leftover .new never completes */
  snprintf(path, sizeof path, "%s/state.xyz.new.tmp", dir);
  unlink(path); /* the state of a write killed before its first rename */
  snprintf(state_path, sizeof state_path, "%s/state.xyz", dir);
  snprintf(state_new, sizeof state_new, "%s/state.xyz.new", dir);
  snprintf(con_path, sizeof con_path, "%s/contacts.txt", dir);
  snprintf(con_new, sizeof con_new, "%s/contacts.txt.new", dir);
  char why[AGGLO_ERROR_LEN / 2];
  if (exists(state_new) && exists(con_new) && pair_matches(state_new, con_new, why, sizeof why) == 0) {
    /* killed before the renames, both files complete: the renames the write had left */
    if (rename(con_new, con_path) != 0 || rename(state_new, state_path) != 0)
      return agglo_fail(err, errlen, "%s: cannot complete the interrupted restart point: %s", dir,
                        strerror(errno));
    return 0;
  }
  if (exists(state_new) && !exists(con_new)) { /* killed between the renames: contacts.txt is new */
    if (pair_matches(state_new, con_path, why, sizeof why) == 0) {
      if (rename(state_new, state_path) != 0)
        return agglo_fail(err, errlen, "%s: cannot complete the interrupted restart point: %s",
                          state_new, strerror(errno));
      return 0;
    }
    char other[AGGLO_ERROR_LEN / 2];
    int old_ok = pair_matches(state_path, con_path, other, sizeof other) == 0;
    return agglo_fail(err, errlen, "%s: left by an interrupted write of the restart point, but not "
                      "the state %s was sealed with (%s). Nothing was changed; %s", state_new,
                      con_path, why, old_ok ? "state.xyz is: delete state.xyz.new to restart from "
                      "state.xyz" : "state.xyz is not either: the restart point is damaged");
  }
  unlink(state_new); /* killed before the renames, the pair incomplete: the previous one stands */
  unlink(con_new);
  return 0;
}

int agglo_checkpoint_read(const char *dir, int format, agglo_system *s, char **bytes, size_t *len,
                          agglo_checkpoint_names *nm, char *err, size_t errlen) {
  *bytes = NULL, *len = 0;
  if (agglo_checkpoint_uses_h5(dir, format)) {
    snprintf(nm->state, sizeof nm->state, "%s/state.h5", dir);
    snprintf(nm->bytes, sizeof nm->bytes, "%s: dataset model/contacts", nm->state);
    return agglo_checkpoint_h5_read(nm->state, s, bytes, len, err, errlen);
  }
  snprintf(nm->state, sizeof nm->state, "%s/state.xyz", dir);
  snprintf(nm->bytes, sizeof nm->bytes, "%s/contacts.txt", dir);
  if (agglo_xyz_read_state(nm->state, s, err, errlen) != 0) return -1;
  if ((*bytes = read_whole(nm->bytes, agglo_checkpoint_max_bytes(s->n), len, err, errlen))) return 0;
  agglo_system_free(s);
  return -1;
}

/* The step of dir/state.xyz (-1 if none). */
static int64_t text_step(const char *dir) {
  char path[4200], line[4096];
  snprintf(path, sizeof path, "%s/state.xyz", dir);
  FILE *f = fopen(path, "r");
  long long step = -1;
  if (f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f)) {
    const char *p = strstr(line, " Step=");
    if (p) step = atoll(p + 6);
  }
  if (f) fclose(f);
  return step;
}

int agglo_checkpoint_uses_h5(const char *dir, int format) {
  char h5[4200], xyz[4200];
  snprintf(h5, sizeof h5, "%s/state.h5", dir);
  snprintf(xyz, sizeof xyz, "%s/state.xyz", dir);
  int has_h5 = exists(h5), has_xyz = exists(xyz);
  if (has_h5 != has_xyz) return has_h5;
  if (!has_h5) return format == AGGLO_CHECKPOINT_HDF5;
  int64_t sh = agglo_checkpoint_h5_step(h5), sx = text_step(dir);
  if (sh < 0 || sh == sx) return format == AGGLO_CHECKPOINT_HDF5;
  return sh > sx;
}

int64_t agglo_checkpoint_step(const char *dir, int format) {
  if (!agglo_checkpoint_uses_h5(dir, format)) return text_step(dir);
  char h5[4200];
  snprintf(h5, sizeof h5, "%s/state.h5", dir);
  return agglo_checkpoint_h5_step(h5);
}

/* The step of a trajectory frame's comment line (Step=K), or -1. */
static long long frame_step(const char *line) {
  const char *p = strstr(line, "Step=");
  return p ? strtoll(p + 5, NULL, 10) : -1;
}

/* Cut f (opened r+) at offset: everything from there is dropped. */
static int cut(FILE *f, long offset, const char *path, char *err, size_t errlen) {
  fflush(f);
  if (ftruncate(fileno(f), offset) != 0)
    return agglo_fail(err, errlen, "%s: cannot truncate: %s", path, strerror(errno));
  return 0;
}

/* Open path (r+) and a line buffer for a cut: 1, 0 if there is no such file, -1 with the message. */
static int open_cut(const char *path, FILE **f, char **line, char *err, size_t errlen) {
  if (!(*f = agglo_open_read(path, "r+", err, errlen))) return errno == ENOENT ? 0 : -1;
  if ((*line = malloc(AGGLO_LINE_MAX))) return 1;
  fclose(*f);
  return agglo_fail(err, errlen, "%s: out of memory", path);
}

/* A complete line (newline included) of at most AGGLO_LINE_MAX bytes: anything else (a line cut by
   the kill, the zeros a power cut leaves) ends what is kept. */
static int whole_line(FILE *f, char *line) {
  long len = agglo_read_line(f, line, AGGLO_LINE_MAX);
  return len > 0 && line[len - 1] == '\n';
}

/* trajectory.xyz: frames of N + 2 lines; keep the complete ones with Step <= step. */
static int cut_trajectory(const char *path, int64_t step, agglo_kept_record *kept, char *err,
                          size_t errlen) {
  FILE *f;
  char *line;
  int open = open_cut(path, &f, &line, err, errlen);
  if (open <= 0) return open;
  kept->present = 1;
  long keep = 0;
  for (;;) {
    long long n;
    if (!whole_line(f, line) || sscanf(line, "%lld", &n) != 1 || n < 0) break;
    if (!whole_line(f, line) || frame_step(line) > step) break;
    long long at = frame_step(line);
    const char *tp = strstr(line, "Time=");
    double t = tp ? strtod(tp + 5, NULL) : -INFINITY;
    long long k = 0;
    while (k < n && whole_line(f, line)) k++;
    if (k < n) break; /* cut mid-frame */
    keep = ftell(f);
    kept->step = at, kept->t = t;
  }
  free(line);
  int rc = cut(f, keep, path, err, errlen);
  fclose(f);
  return rc;
}

/* stats.csv: the header, then rows whose second column (step) is <= step. */
static int cut_stats(const char *path, int64_t step, agglo_kept_record *kept, char *err, size_t errlen) {
  FILE *f;
  char *line;
  int open = open_cut(path, &f, &line, err, errlen);
  if (open <= 0) return open;
  kept->present = 1;
  long keep = 0;
  if (whole_line(f, line)) {
    keep = ftell(f);
    while (whole_line(f, line)) {
      const char *comma = strchr(line, ',');
      if (!comma || strtoll(comma + 1, NULL, 10) > step) break;
      keep = ftell(f);
      kept->step = strtoll(comma + 1, NULL, 10), kept->t = strtod(line, NULL);
    }
  }
  free(line);
  int rc = cut(f, keep, path, err, errlen);
  fclose(f);
  return rc;
}

int agglo_checkpoint_truncate(const char *dir, int64_t step, agglo_kept_record *kept, char *err,
                              size_t errlen) {
  char path[4200];
  agglo_kept_record k[3];
  for (int q = 0; q < 3; q++) k[q] = (agglo_kept_record){0, -1, -INFINITY};
  snprintf(path, sizeof path, "%s/trajectory.xyz", dir);
  if (cut_trajectory(path, step, &k[0], err, errlen) != 0) return -1;
  snprintf(path, sizeof path, "%s/stats.csv", dir);
  if (cut_stats(path, step, &k[1], err, errlen) != 0) return -1;
  if (kept) kept[0] = k[0], kept[1] = k[1];
  snprintf(path, sizeof path, "%s/sizes.csv", dir); /* time, step, ...: cut the same way */
  return cut_stats(path, step, &k[2], err, errlen);
}
