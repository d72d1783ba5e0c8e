/* Public reading of trajectories, frame by frame (include/agglo/analysis.h), over xyz_read.c
   (extended XYZ or H5MD), and their conversion. */
#include "agglo/analysis.h"
#include "core/error.h"
#include "core/files.h"
#include "io/h5md_write.h"
#include "io/xyz_write.h"
#include "io/xyz_read.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct agglo_trajectory {
  agglo_xyz_reader rd;
  agglo_system s;
  char *path;
};

agglo_status agglo_trajectory_open(const char *path, double default_radius, agglo_trajectory **out) {
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_trajectory_open: out is NULL");
  *out = NULL;
  if (!path) return agglo_error(AGGLO_ERROR_INPUT, "agglo_trajectory_open: the path is NULL");
  agglo_trajectory *tr = calloc(1, sizeof *tr);
  if (!tr || !(tr->path = strdup(path))) {
    free(tr);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  if (agglo_xyz_open(&tr->rd, tr->path, default_radius, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0) {
    free(tr->path);
    free(tr);
    return AGGLO_ERROR_INPUT;
  }
  *out = tr;
  return AGGLO_OK;
}

agglo_status agglo_trajectory_next(agglo_trajectory *tr, int *got) {
  if (!tr || !got) return agglo_error(AGGLO_ERROR_USAGE, "agglo_trajectory_next: NULL handle or got");
  int r = agglo_xyz_next(&tr->rd, &tr->s, agglo_error_buffer(), AGGLO_ERROR_LEN);
  *got = r == 1;
  return r < 0 ? AGGLO_ERROR_INPUT : AGGLO_OK;
}

#define GET(type, name, expr, none)                                                      \
  type agglo_trajectory_##name(const agglo_trajectory *tr) {                             \
    if (!tr) {                                                                           \
      agglo_error(AGGLO_ERROR_USAGE, "agglo_trajectory_" #name ": the handle is NULL");  \
      return none;                                                                       \
    }                                                                                    \
    return expr;                                                                         \
  }
GET(size_t, count, tr->s.n, 0)
GET(int, dim, tr->s.dim, 0)
GET(double, time, tr->s.t, 0)
GET(int64_t, step, tr->s.step, 0)
GET(const double *, positions, tr->s.x, NULL)
GET(const double *, velocities, tr->s.v, NULL)
GET(const double *, radii, tr->s.r, NULL)
GET(const int64_t *, ids, tr->s.id, NULL)
GET(const int32_t *, clusters, tr->s.cluster, NULL)

agglo_status agglo_trajectory_box(const agglo_trajectory *tr, agglo_box *box) {
  if (!tr || !box) return agglo_error(AGGLO_ERROR_USAGE, "agglo_trajectory_box: NULL handle or box");
  *box = tr->s.box;
  return AGGLO_OK;
}

void agglo_trajectory_close(agglo_trajectory *tr) {
  if (!tr) return;
  agglo_xyz_close(&tr->rd);
  agglo_system_free(&tr->s);
  free(tr->path);
  free(tr);
}

static int ends_with(const char *s, const char *tail) {
  size_t l = strlen(s), t = strlen(tail);
  return l >= t && !strcmp(s + l - t, tail);
}

/* The writer of out for the first frame: H5MD in double precision (a converted frame keeps its
   values bit for bit), with the reader's units, species and observables. */
static agglo_h5md *h5md_for(const char *out, const agglo_system *s, const agglo_frame_extras *x) {
  char names[AGGLO_MAX_OBSERVABLES * (AGGLO_OBSERVABLE_NAME + 1) + 1] = "";
  for (size_t k = 0; k < x->nobs; k++)
    if (strcmp(x->names[k], "dt")) strcat(strcat(names, ","), x->names[k]); /* dt: the writer's own */
  agglo_h5md_options o = {.precision64 = 1, .units = x->units, .species = x->species, .observables = names};
  return agglo_h5md_open(out, s, 0, &o, agglo_error_buffer(), AGGLO_ERROR_LEN);
}

/* The frame's observables in the order the writer has them (its first frame's; NaN if absent). */
static int h5md_observables(agglo_h5md *w, const agglo_system *s, const agglo_frame_extras *first,
                            const agglo_frame_extras *x) {
  double v[AGGLO_MAX_OBSERVABLES];
  size_t q = 0;
  for (size_t k = 0; k < first->nobs; k++) {
    if (!strcmp(first->names[k], "dt")) continue;
    v[q] = NAN;
    for (size_t j = 0; j < x->nobs; j++)
      if (!strcmp(x->names[j], first->names[k])) v[q] = x->values[j];
    q++;
  }
  return agglo_h5md_observables(w, s->step, v, agglo_error_buffer(), AGGLO_ERROR_LEN);
}

static agglo_status convert(const char *in, const char *out, double default_radius);

agglo_status agglo_trajectory_convert(const char *in, const char *out, double default_radius) {
  if (!in || !out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_trajectory_convert: NULL path");
  struct stat si, so; /* the same file under two names would be emptied before it is read */
  if (!strcmp(in, out) || (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
                           si.st_ino == so.st_ino))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: input and output (%s) are the same file", in, out);
  /* out's directory is held as a run holds it: a convert onto a running run's trajectory.xyz
     would become that run's trajectory */
  char dir[4200];
  const char *slash = strrchr(out, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - out > 0 ? slash - out : 1), out);
  agglo_lock lock = {0};
  struct stat sd;
  if (stat(dir, &sd) == 0 && S_ISDIR(sd.st_mode) && agglo_lock_take(&lock, dir) != 0) return AGGLO_ERROR_IO;
  agglo_status st = convert(in, out, default_radius);
  agglo_lock_release(&lock);
  return st;
}

static agglo_status convert(const char *in, const char *out, double default_radius) {
  char *err = agglo_error_buffer();
  agglo_xyz_reader rd;
  if (agglo_xyz_open(&rd, in, default_radius, err, AGGLO_ERROR_LEN) != 0) return AGGLO_ERROR_INPUT;
  int h5 = ends_with(out, ".h5md") || ends_with(out, ".h5");
  agglo_h5md *w = NULL;
  FILE *f = NULL;
  agglo_system s = {0};
  agglo_frame_extras *first = calloc(1, sizeof *first); /* the observables the H5MD file has */
  agglo_status st = first ? AGGLO_OK : agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  int got = 0, frames = 0;
  if (st == AGGLO_OK && !h5 && !(f = fopen(out, "w")))
    st = agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", out, strerror(errno));
  while (st == AGGLO_OK && (got = agglo_xyz_next(&rd, &s, err, AGGLO_ERROR_LEN)) == 1) {
    if (h5 && !w) {
      memcpy(first->names, rd.extras.names, sizeof first->names);
      first->nobs = rd.extras.nobs;
      if (!(w = h5md_for(out, &s, &rd.extras))) st = AGGLO_ERROR_IO;
    }
    frames++;
    if (st != AGGLO_OK) break;
    if (h5 && (agglo_h5md_frame(w, &s, err, AGGLO_ERROR_LEN) != 0 || h5md_observables(w, &s, first, &rd.extras) != 0))
      st = AGGLO_ERROR_IO;
    else if (!h5 && agglo_xyz_write_frame_exact(f, &s, &rd.extras) != 0)
      st = agglo_error(AGGLO_ERROR_IO, "%s: write failed (disk full?)", out);
  }
  if (st == AGGLO_OK && got < 0) st = AGGLO_ERROR_INPUT;
  if (st == AGGLO_OK && frames == 0) st = agglo_error(AGGLO_ERROR_INPUT, "%s: no frame to convert", in);
  if (w && agglo_h5md_close(w) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", out);
  if (f && fclose(f) != 0 && st == AGGLO_OK) st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", out);
  if (st != AGGLO_OK && (f || (h5 && frames > 0))) { /* a part of a trajectory must not pass for the whole one */
    remove(out);
    char x[4200];
    if (h5 && agglo_h5md_xdmf_path(out, x, sizeof x) == 0) remove(x);
  }
  free(first);
  agglo_system_free(&s);
  agglo_xyz_close(&rd);
  return st;
}
