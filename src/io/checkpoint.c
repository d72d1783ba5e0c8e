/* The restart point on disk, safe against a kill at any moment, and the cut of the outputs that
   a resumed run continues.

   A restart point is a pair, state.xyz and contacts.txt, that must come from the same step. Both
   are written to .new files and synced; then contacts.txt.new is renamed over contacts.txt and
   state.xyz.new over state.xyz. A kill before the first rename leaves the old pair (the .new files
   are discarded at recovery); a kill between the renames leaves state.xyz.new complete without
   contacts.txt.new, and recovery finishes the rename. */
#include "io/checkpoint.h"
#include "io/checkpoint_h5.h"
#include "config/config.h"
#include "core/error.h"
#include "core/files.h"
#include "io/xyz_write.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static const char pending_line[] = "# run: solver iterations since the last stats row: %lld in %lld steps\n";

int agglo_checkpoint_save_model(FILE *f, const agglo_model *m, const void *state,
                                agglo_pending_iterations pending) {
  if (pending.steps > 0 && fprintf(f, pending_line, (long long)pending.sum, (long long)pending.steps) < 0)
    return -1;
  return m && m->save ? m->save(state, f) : 0;
}

int agglo_checkpoint_load_model(FILE *f, const char *path, const agglo_model *m, void *state,
                                agglo_pending_iterations *pending, char *err, size_t errlen) {
  char line[256];
  long long sum, steps;
  *pending = (agglo_pending_iterations){0, 0};
  if (fgets(line, sizeof line, f) && sscanf(line, pending_line, &sum, &steps) == 2) {
    if (sum < 0 || steps < 1 || steps > AGGLO_MAX_STEPS)
      return agglo_fail(err, errlen, "%s: line 1: %lld solver iterations in %lld steps (allowed: "
                        "0 or more in 1 to 2^53 steps)", path, sum, steps);
    *pending = (agglo_pending_iterations){sum, steps};
  } else if (fseek(f, 0, SEEK_SET) != 0) {
    return agglo_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
  }
  return m && m->load ? m->load(state, f, err, errlen) : 0;
}

int agglo_checkpoint_write(const char *dir, const agglo_system *s, const agglo_model *m,
                           const void *state, agglo_pending_iterations pending, char *err,
                           size_t errlen) {
  char state_new[4200], state_path[4200], con_new[4200], con_path[4200];
  snprintf(state_path, sizeof state_path, "%s/state.xyz", dir);
  snprintf(state_new, sizeof state_new, "%s/state.xyz.new", dir);
  snprintf(con_path, sizeof con_path, "%s/contacts.txt", dir);
  snprintf(con_new, sizeof con_new, "%s/contacts.txt.new", dir);
  FILE *f = fopen(con_new, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", con_new, strerror(errno));
  int rc = agglo_checkpoint_save_model(f, m, state, pending);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0) rc = -1;
  if (fclose(f) != 0 || rc != 0) return agglo_fail(err, errlen, "%s: write failed (disk full?)", con_new);
  if (agglo_xyz_write_state(state_new, s, err, errlen) != 0) return -1;
  if (sync_path(state_new, 0) != 0) return agglo_fail(err, errlen, "%s: sync failed", state_new);
  if (rename(con_new, con_path) != 0 || rename(state_new, state_path) != 0)
    return agglo_fail(err, errlen, "%s: cannot rename the restart point: %s", dir, strerror(errno));
  sync_path(dir, 1); /* the renames themselves survive a power cut */
  return 0;
}

int agglo_checkpoint_recover(const char *dir, char *err, size_t errlen) {
  char state_new[4200], state_path[4200], con_new[4200], h5_new[4200];
  snprintf(h5_new, sizeof h5_new, "%s/state.h5.new", dir);
  unlink(h5_new); /* state.h5 is renamed whole: a leftover .new never completes */
  snprintf(state_path, sizeof state_path, "%s/state.xyz", dir);
  snprintf(state_new, sizeof state_new, "%s/state.xyz.new", dir);
  snprintf(con_new, sizeof con_new, "%s/contacts.txt.new", dir);
  if (exists(state_new) && !exists(con_new)) { /* killed between the two renames */
    if (rename(state_new, state_path) != 0)
      return agglo_fail(err, errlen, "%s: cannot complete the interrupted restart point: %s",
                        state_new, strerror(errno));
    return 0;
  }
  unlink(state_new); /* killed before the renames: the previous pair stands */
  unlink(con_new);
  return 0;
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
static int cut_trajectory(const char *path, int64_t step, char *err, size_t errlen) {
  FILE *f;
  char *line;
  int open = open_cut(path, &f, &line, err, errlen);
  if (open <= 0) return open;
  long keep = 0;
  for (;;) {
    long long n;
    if (!whole_line(f, line) || sscanf(line, "%lld", &n) != 1 || n < 0) break;
    if (!whole_line(f, line) || frame_step(line) > step) break;
    long long k = 0;
    while (k < n && whole_line(f, line)) k++;
    if (k < n) break; /* cut mid-frame */
    keep = ftell(f);
  }
  free(line);
  int rc = cut(f, keep, path, err, errlen);
  fclose(f);
  return rc;
}

/* stats.csv: the header, then rows whose second column (step) is <= step. */
static int cut_stats(const char *path, int64_t step, char *err, size_t errlen) {
  FILE *f;
  char *line;
  int open = open_cut(path, &f, &line, err, errlen);
  if (open <= 0) return open;
  long keep = 0;
  if (whole_line(f, line)) {
    keep = ftell(f);
    while (whole_line(f, line)) {
      const char *comma = strchr(line, ',');
      if (!comma || strtoll(comma + 1, NULL, 10) > step) break;
      keep = ftell(f);
    }
  }
  free(line);
  int rc = cut(f, keep, path, err, errlen);
  fclose(f);
  return rc;
}

int agglo_checkpoint_truncate(const char *dir, int64_t step, char *err, size_t errlen) {
  char path[4200];
  snprintf(path, sizeof path, "%s/trajectory.xyz", dir);
  if (cut_trajectory(path, step, err, errlen) != 0) return -1;
  snprintf(path, sizeof path, "%s/stats.csv", dir);
  return cut_stats(path, step, err, errlen);
}
