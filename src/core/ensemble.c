/* Ensembles (include/agglo/ensemble.h): the member grid (seeds x varied keys), one member run
   through the public simulation API into its directory, and the summary over members read back
   from their directories (so members may run in any process, in any order). */
#include "agglo/ensemble.h"
#include "core/checksum.h"
#include "core/files.h"
#include "core/integer.h"
#include "models/ballistic_compare.h"
#include "core/error.h"
#include "analysis/frame_summary.h"
#include "core/simulation.h"
#include "core/timing.h"
#include "core/text.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  char *key;
  char **values;
  size_t n;
} vary_dim;

struct agglo_ensemble {
  agglo_config *base;
  char *dir;
  long *seeds;
  size_t nseeds;
  vary_dim *dims;
  size_t ndims;
  unsigned which;
  int prepared;
  agglo_lock lock; /* dir, held from prepare to destroy (not by a process that joins) */
  size_t npoints, count;
  char **names; /* per member */
};

/* The fields of a member's marker, in the order of members.csv. */
enum { F_STATUS, F_FINISHED, F_T_FINAL, F_STEPS, F_ITER, F_NCLUS, F_MAXCLUS, F_T_ONE, F_NC, F_DF,
       F_DFM, F_AR, F_RG, F_OVERLAP, F_WARN, F_PR, F_ERROR = F_PR + AGGLO_BALL_NPR, F_CPU, F_WALL,
       F_COUNT };
static const char *field_names[F_COUNT] = {
    "status", "finished", "t_final", "steps", "iterations", "n_clusters", "max_cluster_size",
    "t_one_cluster", "nc", "df_box", "df_mass", "aspect_ratio", "rg_largest", "max_overlap",
    "warnings", "P2.5r", "P4r", "P6r", "P10r", "P15r", "P20r", "error", "cpu_s", "wall_s"};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}


static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void fmt_num(char *buf, size_t len, double x) {
  if (isnan(x)) snprintf(buf, len, "nan");
  else if (isinf(x)) snprintf(buf, len, x > 0 ? "inf" : "-inf");
  else snprintf(buf, len, "%.10g", x);
}

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputc('"', f);
}

/* ---- the grid ----------------------------------------------------------------------------- */

agglo_status agglo_ensemble_new(const agglo_config *base, const char *dir, agglo_ensemble **out) {
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_new: NULL result pointer");
  *out = NULL;
  if (!base || !dir || !*dir)
    return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_new: NULL settings or empty directory");
  agglo_ensemble *e = calloc(1, sizeof *e);
  if (!e) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  e->base = agglo_config_copy(base);
  e->dir = dup_str(dir);
  e->which = AGGLO_OUTPUT_ALL;
  if (!e->base || !e->dir || agglo_ensemble_set_seeds(e, "1-10") != AGGLO_OK) {
    agglo_ensemble_destroy(e);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  *out = e;
  return AGGLO_OK;
}

void agglo_ensemble_destroy(agglo_ensemble *e) {
  if (!e) return;
  agglo_lock_release(&e->lock);
  agglo_config_destroy(e->base);
  free(e->dir);
  free(e->seeds);
  for (size_t d = 0; d < e->ndims; d++) {
    free(e->dims[d].key);
    for (size_t k = 0; k < e->dims[d].n; k++) free(e->dims[d].values[k]);
    free(e->dims[d].values);
  }
  free(e->dims);
  if (e->names)
    for (size_t i = 0; i < e->count; i++) free(e->names[i]);
  free(e->names);
  free(e);
}

#define NEED_OPEN(e)                                                                              \
  do {                                                                                            \
    if (!(e)) return agglo_error(AGGLO_ERROR_USAGE, "%s: the ensemble handle is NULL", __func__); \
    if ((e)->prepared)                                                                            \
      return agglo_error(AGGLO_ERROR_USAGE, "%s: the ensemble is already prepared", __func__);   \
  } while (0)

/* run.seed's range (config/config.c), and at most this many seeds in an ensemble */
#define SEED_MAX 9200000000000000000LL
enum { MAX_SEEDS = 1000000 };

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

agglo_status agglo_ensemble_set_seeds(agglo_ensemble *e, const char *spec) {
  NEED_OPEN(e);
  if (!spec || !*spec) return agglo_error(AGGLO_ERROR_INPUT, "--seeds: empty list");
  size_t cap = 16, n = 0;
  long *s = malloc(cap * sizeof *s);
  if (!s) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  const char *p = spec;
  while (*p) {
    /* seeds are run.seed values: 0 to SEED_MAX (a range to LONG_MAX once looped forever) */
    long long a, b;
    int rc = agglo_integer_prefix(p, 0, SEED_MAX, &a, &p);
    b = a;
    if (rc == AGGLO_INT_OK && *p == '-') rc = agglo_integer_prefix(p + 1, 0, SEED_MAX, &b, &p);
    if (rc == AGGLO_INT_OUT_OF_RANGE) {
      free(s);
      return agglo_error(AGGLO_ERROR_INPUT, "--seeds %s: a seed is out of range (allowed: 0 to %lld, "
                         "the range of run.seed)", spec, (long long)SEED_MAX);
    }
    if (rc != AGGLO_INT_OK || b < a) goto bad;
    if (*p == ',') p++;
    else if (*p) goto bad;
    if (b - a >= MAX_SEEDS || n + (size_t)(b - a) >= MAX_SEEDS) {
      free(s);
      return agglo_error(AGGLO_ERROR_INPUT, "--seeds %s: more than %d seeds", spec, MAX_SEEDS);
    }
    for (long v = (long)a; v <= (long)b; v++) {
      if (n == cap) {
        long *t = realloc(s, 2 * cap * sizeof *s);
        if (!t) {
          free(s);
          return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
        }
        s = t;
        cap *= 2;
      }
      s[n++] = v;
    }
  }
  /* no seed twice (sorted copy: O(n log n)) */
  long *sorted = malloc(n * sizeof *sorted);
  if (!sorted) {
    free(s);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  memcpy(sorted, s, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_long);
  for (size_t k = 1; k < n; k++)
    if (sorted[k] == sorted[k - 1]) {
      long v = sorted[k];
      free(sorted);
      free(s);
      return agglo_error(AGGLO_ERROR_INPUT, "--seeds %s: seed %ld given twice", spec, v);
    }
  free(sorted);
  free(e->seeds);
  e->seeds = s;
  e->nseeds = n;
  return AGGLO_OK;
bad:
  free(s);
  return agglo_error(AGGLO_ERROR_INPUT,
                     "--seeds %s: expected seeds >= 0 and ranges, e.g. 1-20 or 1,4,10-12", spec);
}

/* A varied value that is a number, as the settings write it (0.020 -> 0.02, 1e-1 -> 0.1): the
   member's directory, grid.txt and --resume then compare values by value, as base.ini does for
   -s. Other text, and a number the key refuses (the member reports it), stays as given. v is
   freed when replaced; NULL when out of memory. */
static char *canonical_number(agglo_config *probe, const char *key, char *v) {
  char *end, buf[1024];
  errno = 0;
  (void)strtod(v, &end);
  if (end == v || *end || errno || agglo_config_set(probe, key, v) != AGGLO_OK ||
      agglo_config_get(probe, key, buf, sizeof buf) != AGGLO_OK || !strcmp(buf, v))
    return v;
  strtod(buf, &end);
  if (*end) return v; /* a key that writes the number otherwise (a list): keep the user's */
  char *c = dup_str(buf);
  free(v);
  return c;
}

agglo_status agglo_ensemble_vary(agglo_ensemble *e, const char *key, const char *values) {
  NEED_OPEN(e);
  if (!key || !values) return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_vary: NULL key or values");
  char buf[1024];
  if (agglo_config_get(e->base, key, buf, sizeof buf) != AGGLO_OK)
    return agglo_error(AGGLO_ERROR_INPUT, "--vary %s: %s", key, agglo_last_error());
  if (!strcmp(key, "run.seed"))
    return agglo_error(AGGLO_ERROR_INPUT, "--vary run.seed: give the seeds with --seeds");
  for (size_t d = 0; d < e->ndims; d++)
    if (!strcmp(e->dims[d].key, key))
      return agglo_error(AGGLO_ERROR_INPUT, "--vary %s: the key is varied twice", key);
  char sep = strchr(values, ';') ? ';' : ',';
  vary_dim dim = {.key = dup_str(key)};
  size_t cap = 1;
  for (const char *p = values; *p; p++) cap += *p == sep;
  dim.values = calloc(cap, sizeof *dim.values);
  vary_dim *dims = realloc(e->dims, (e->ndims + 1) * sizeof *dims);
  if (!dim.key || !dim.values || !dims) {
    free(dim.key);
    free(dim.values);
    if (dims) e->dims = dims;
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  e->dims = dims;
  agglo_config *probe = agglo_config_copy(e->base);
  const char *p = values;
  for (;;) {
    const char *q = strchr(p, sep);
    size_t len = q ? (size_t)(q - p) : strlen(p);
    while (len && (*p == ' ' || *p == '\t')) p++, len--;
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    char *v = malloc(len + 1);
    if (!v) break;
    memcpy(v, p, len);
    v[len] = 0;
    if (len && probe && (v = canonical_number(probe, key, v)) == NULL) break;
    if (!len) { /* a member with an empty value was the default's, unnamed */
      agglo_error(AGGLO_ERROR_INPUT, "--vary %s=%s: value %zu is empty (allowed: values separated "
                  "by ',', or by ';' when they hold commas)", key, values, dim.n + 1);
      free(v);
      goto fail;
    }
    for (size_t k = 0; k < dim.n; k++)
      if (!strcmp(dim.values[k], v)) {
        agglo_error(AGGLO_ERROR_INPUT, "--vary %s: value '%s' given twice", key, v);
        free(v);
        v = NULL;
        break;
      }
    if (!v) goto fail;
    dim.values[dim.n++] = v;
    if (!q) break;
    p = q + 1;
  }
  if (dim.n < cap) {
    agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    goto fail;
  }
  agglo_config_destroy(probe);
  e->dims[e->ndims++] = dim;
  return AGGLO_OK;
fail:
  agglo_config_destroy(probe);
  for (size_t k = 0; k < dim.n; k++) free(dim.values[k]);
  free(dim.values);
  free(dim.key);
  return AGGLO_ERROR_INPUT;
}

agglo_status agglo_ensemble_set_outputs(agglo_ensemble *e, unsigned which) {
  NEED_OPEN(e);
  if (which > AGGLO_OUTPUT_ALL) return agglo_error(AGGLO_ERROR_INPUT, "outputs: %u is not a sum of AGGLO_OUTPUT_* flags", which);
  e->which = which;
  return AGGLO_OK;
}

/* Value index of dimension d at grid point p (the last dimension varies fastest). */
static size_t value_index(const agglo_ensemble *e, size_t p, size_t d) {
  for (size_t k = e->ndims; k-- > d + 1;) p /= e->dims[k].n;
  return p % e->dims[d].n;
}

/* A value as a path component: letters, digits and . _ + - = kept, anything else '_'. */
static void path_value(char *out, size_t len, const char *v) {
  size_t k = 0;
  if (!*v || !strcmp(v, ".") || !strcmp(v, "..")) out[k++] = '_';
  for (; *v && k + 1 < len; v++) {
    char c = *v;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             strchr("._+-=", c);
    out[k++] = ok ? c : '_';
  }
  out[k] = 0;
}

static agglo_status make_names(agglo_ensemble *e) {
  if (e->names) /* an earlier prepare that failed */
    for (size_t i = 0; i < e->count; i++) free(e->names[i]);
  free(e->names);
  e->names = NULL;
  e->count = 0;
  e->npoints = 1;
  for (size_t d = 0; d < e->ndims; d++) {
    if (e->npoints > 100000000 / e->dims[d].n)
      return agglo_error(AGGLO_ERROR_INPUT, "the grid has more than 10^8 points");
    e->npoints *= e->dims[d].n;
  }
  if (e->npoints > 100000000 / e->nseeds)
    return agglo_error(AGGLO_ERROR_INPUT, "the ensemble has more than 10^8 members");
  e->count = e->npoints * e->nseeds;
  e->names = calloc(e->count, sizeof *e->names);
  if (!e->names) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  for (size_t i = 0; i < e->count; i++) {
    char name[4096] = "", part[1024];
    size_t p = i / e->nseeds, used = 0;
    for (size_t d = 0; d < e->ndims; d++) {
      path_value(part, sizeof part, e->dims[d].values[value_index(e, p, d)]);
      used += (size_t)snprintf(name + used, sizeof name - used, "%s=%s/", e->dims[d].key, part);
      if (used >= sizeof name) return agglo_error(AGGLO_ERROR_INPUT, "member name too long");
    }
    snprintf(name + used, sizeof name - used, "seed=%ld", e->seeds[i % e->nseeds]);
    if (!(e->names[i] = dup_str(name))) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  /* two values that differ only in characters a path cannot hold would share a directory */
  for (size_t d = 0; d < e->ndims; d++)
    for (size_t a = 0; a < e->dims[d].n; a++)
      for (size_t b = a + 1; b < e->dims[d].n; b++) {
        char pa[1024], pb[1024];
        path_value(pa, sizeof pa, e->dims[d].values[a]);
        path_value(pb, sizeof pb, e->dims[d].values[b]);
        if (!strcmp(pa, pb))
          return agglo_error(AGGLO_ERROR_INPUT, "--vary %s: values '%s' and '%s' give the same "
                             "directory name '%s'", e->dims[d].key, e->dims[d].values[a],
                             e->dims[d].values[b], pa);
      }
  return AGGLO_OK;
}

static void grid_text(const agglo_ensemble *e, FILE *f) {
  fprintf(f, "# agglo ensemble: the grid of this directory (agglo ensemble --resume checks it)\n");
  fprintf(f, "seeds =");
  for (size_t k = 0; k < e->nseeds; k++) fprintf(f, "%s%ld", k ? "," : " ", e->seeds[k]);
  fprintf(f, "\noutputs = %u\n", e->which);
  for (size_t d = 0; d < e->ndims; d++) {
    fprintf(f, "vary %s =", e->dims[d].key);
    for (size_t k = 0; k < e->dims[d].n; k++) fprintf(f, " [%s]", e->dims[d].values[k]);
    fputc('\n', f);
  }
}

/* 1 if files a and b have the same bytes. */
static int same_file(const char *a, const char *b) {
  char err[256]; /* regular files: a device would never end */
  FILE *fa = agglo_open_read(a, "rb", err, sizeof err), *fb = agglo_open_read(b, "rb", err, sizeof err);
  int same = fa && fb;
  while (same) {
    int ca = getc(fa), cb = getc(fb);
    if (ca != cb) same = 0;
    if (ca == EOF) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

static agglo_status write_or_check(const agglo_ensemble *e, const char *name, int is_grid, int resume) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/%s", e->dir, name);
  /* per process: the ranks of an MPI ensemble check the same directory at once */
  snprintf(tmp, sizeof tmp, "%s.%ld.new", path, (long)getpid());
  if (is_grid) {
    FILE *f = fopen(tmp, "w");
    if (!f) return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", tmp, strerror(errno));
    grid_text(e, f);
    if (fclose(f) != 0) return agglo_error(AGGLO_ERROR_IO, "%s: write failed", tmp);
  } else if (agglo_config_save(e->base, tmp) != AGGLO_OK) {
    return AGGLO_ERROR_IO;
  }
  if (resume) {
    int same = same_file(tmp, path);
    remove(tmp);
    if (!same)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: --resume: this ensemble was made with other %s; "
                         "give the same scenario, -s, --seeds, --vary and --outputs, or another -o",
                         path, is_grid ? "seeds, varied keys or outputs" : "settings");
    return AGGLO_OK;
  }
  if (rename(tmp, path) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
  return AGGLO_OK;
}

static void member_path(const agglo_ensemble *e, size_t i, const char *file, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s%s%s", e->dir, e->names[i], file ? "/" : "", file ? file : "");
}

/* A file of an earlier ensemble in dir: refused, or removed (overwrite). Its summary, and the
   markers of this grid's members, which would otherwise be taken as this ensemble's. */
static agglo_status earlier_file(const char *path, int overwrite) {
  if (!file_exists(path)) return AGGLO_OK;
  if (!overwrite)
    return agglo_error(AGGLO_ERROR_INPUT, "%s is a file of an earlier ensemble: --overwrite "
                       "(AGGLO_ENSEMBLE_OVERWRITE) replaces that ensemble, or give another -o", path);
  if (remove(path) != 0) return agglo_error(AGGLO_ERROR_IO, "%s: cannot delete: %s", path, strerror(errno));
  return AGGLO_OK;
}

static agglo_status earlier_ensemble(const agglo_ensemble *e, int overwrite) {
  static const char *summary[] = {"members.csv", "ensemble.csv"};
  char path[8192];
  agglo_status st = AGGLO_OK;
  for (int k = 0; k < 2 && st == AGGLO_OK; k++) {
    snprintf(path, sizeof path, "%s/%s", e->dir, summary[k]);
    st = earlier_file(path, overwrite);
  }
  for (size_t i = 0; i < e->count && st == AGGLO_OK; i++) {
    member_path(e, i, "done", path, sizeof path);
    if ((st = earlier_file(path, overwrite)) != AGGLO_OK) break;
    member_path(e, i, "failed", path, sizeof path);
    st = earlier_file(path, overwrite);
  }
  return st;
}

/* Under --overwrite of an earlier ensemble: its members that this grid lacks (seeds 1-4, now
   1-2: seed=3, seed=4), removed with what they hold, so that the directory holds one ensemble.
   rel: a directory of dir/ named as members are (KEY=VALUE/.../seed=N), depth: its parts. */
static int is_prefix(const agglo_ensemble *e, const char *rel) {
  size_t l = strlen(rel);
  for (size_t i = 0; i < e->count; i++)
    if (!strncmp(e->names[i], rel, l) && (e->names[i][l] == 0 || e->names[i][l] == '/')) return 1;
  return 0;
}

static int remove_tree(const char *path, int depth) {
  struct stat st;
  if (lstat(path, &st) != 0) return -1;
  if (S_ISDIR(st.st_mode) && depth < 80) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int rc = 0;
    for (struct dirent *f; rc == 0 && (f = readdir(d));) {
      if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, "..")) continue;
      char sub[8400];
      snprintf(sub, sizeof sub, "%s/%s", path, f->d_name);
      rc = remove_tree(sub, depth + 1);
    }
    closedir(d);
    return rc == 0 ? rmdir(path) : rc;
  }
  return unlink(path);
}

static agglo_status stale_members(const agglo_ensemble *e, const char *rel, int depth) {
  char path[8192];
  snprintf(path, sizeof path, "%s%s%s", e->dir, *rel ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) return AGGLO_OK;
  agglo_status st = AGGLO_OK;
  for (struct dirent *f; st == AGGLO_OK && (f = readdir(d));) {
    if (!strchr(f->d_name, '=')) continue; /* not a member's name: not agglo's */
    char sub[8192], full[8400];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", f->d_name);
    snprintf(full, sizeof full, "%s/%s", e->dir, sub);
    struct stat s;
    if (lstat(full, &s) != 0 || !S_ISDIR(s.st_mode)) continue;
    if (!is_prefix(e, sub)) {
      if (remove_tree(full, 0) != 0)
        st = agglo_error(AGGLO_ERROR_IO, "%s: a member of the earlier ensemble that this one does "
                         "not have: cannot delete it: %s", full, strerror(errno));
    } else if (depth < 64) {
      st = stale_members(e, sub, depth + 1);
    }
  }
  closedir(d);
  return st;
}

static agglo_status prepare(agglo_ensemble *e, int mode) {
  agglo_status st = make_names(e);
  if (st != AGGLO_OK) return st;
  int resume = mode == AGGLO_ENSEMBLE_RESUME || mode == AGGLO_ENSEMBLE_JOIN;
  char path[4200];
  snprintf(path, sizeof path, "%s/grid.txt", e->dir);
  if (resume && !file_exists(path))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: --resume: no ensemble here (no grid.txt)", e->dir);
  if (mode != AGGLO_ENSEMBLE_JOIN && (agglo_make_dir(e->dir) != 0 || agglo_lock_take(&e->lock, e->dir) != 0))
    return AGGLO_ERROR_IO;
  if (mode == AGGLO_ENSEMBLE_NEW && file_exists(path))
    return agglo_error(AGGLO_ERROR_INPUT, "%s holds an ensemble already: --resume continues it, "
                       "--overwrite replaces it; or give another -o", e->dir);
  if (!resume) { /* a run's outputs, an earlier ensemble: refused, or deleted */
    int overwrite = mode == AGGLO_ENSEMBLE_OVERWRITE;
    if (agglo_outputs_claim(e->dir, overwrite, "AGGLO_ENSEMBLE_OVERWRITE", NULL) != 0) return AGGLO_ERROR_INPUT;
    if ((st = earlier_ensemble(e, overwrite)) != AGGLO_OK) return st;
    if (overwrite && file_exists(path) && (st = stale_members(e, "", 0)) != AGGLO_OK) return st;
  }
  if ((st = write_or_check(e, "base.ini", 0, resume)) != AGGLO_OK) return st;
  return write_or_check(e, "grid.txt", 1, resume);
}

agglo_status agglo_ensemble_prepare(agglo_ensemble *e, int mode) {
  NEED_OPEN(e);
  if (mode < AGGLO_ENSEMBLE_NEW || mode > AGGLO_ENSEMBLE_OVERWRITE)
    return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_prepare: mode %d (allowed: AGGLO_ENSEMBLE_NEW, "
                       "_RESUME, _JOIN, _OVERWRITE)", mode);
  agglo_status st = prepare(e, mode);
  if (st != AGGLO_OK) agglo_lock_release(&e->lock); /* prepare may be tried again */
  e->prepared = st == AGGLO_OK;
  return st;
}

size_t agglo_ensemble_count(const agglo_ensemble *e) { return e && e->prepared ? e->count : 0; }

const char *agglo_ensemble_member_name(const agglo_ensemble *e, size_t i) {
  if (!e || !e->prepared || i >= e->count) {
    agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_member_name: no member %zu", i);
    return NULL;
  }
  return e->names[i];
}

/* Files of a finished member, listed in its done marker: every regular file of its directory
   but the markers and the lock, in name order, with its size and checksum (FNV-1a of its bytes,
   as the restart points' seals: a file edited in place keeps its size). */
static int skip_file(const struct dirent *d) {
  return strcmp(d->d_name, "agglo.lock") && strncmp(d->d_name, "done", 4) && strncmp(d->d_name, "failed", 6);
}

static void list_files(FILE *f, const char *dir) {
  struct dirent **names;
  int n = scandir(dir, &names, skip_file, alphasort);
  for (int k = 0; k < n; k++) {
    char path[8192 + 512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[k]->d_name);
    uint64_t h;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && agglo_fnv_file(path, &h) == 0)
      fprintf(f, "file=%s %lld %016llx\n", names[k]->d_name, (long long)st.st_size,
              (unsigned long long)h);
    free(names[k]);
  }
  if (n >= 0) free(names);
}

/* Member i's done marker: -1 none; 1 every file it lists has its listed size and checksum (the
   member is complete); 0 one does not (why says which: cut, appended to, edited, deleted since),
   or the marker lists no checksums (written before agglo took them): run again. */
static int done_complete(const agglo_ensemble *e, size_t i, char *why, size_t len) {
  char path[8192];
  member_path(e, i, "done", path, sizeof path);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024], *sp;
  int ok = 1;
  while (ok && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, "file=", 5) || !(sp = strrchr(line, ' '))) continue;
    char *hex = sp + 1, *end;
    *sp = 0;
    errno = 0;
    unsigned long long sum = strtoull(hex, &end, 16);
    if (end == hex || *end || strlen(hex) != 16 || errno || !(sp = strrchr(line, ' '))) {
      snprintf(why, len, "its done marker lists no checksum of %.120s (written by an older agglo)",
               line + 5), ok = 0;
      break;
    }
    *sp = 0;
    long long want = strtoll(sp + 1, NULL, 10);
    struct stat st;
    uint64_t h;
    member_path(e, i, line + 5, path, sizeof path);
    if (stat(path, &st) != 0)
      snprintf(why, len, "%.120s is missing", line + 5), ok = 0;
    else if ((long long)st.st_size != want)
      snprintf(why, len, "%.120s has %lld bytes, not the %lld its done marker lists", line + 5,
               (long long)st.st_size, want), ok = 0;
    else if (agglo_fnv_file(path, &h) != 0)
      snprintf(why, len, "%.120s cannot be read", line + 5), ok = 0;
    else if (h != sum)
      snprintf(why, len, "%.120s has checksum %016llx, not the %016llx its done marker lists "
               "(edited in place)", line + 5, (unsigned long long)h, sum), ok = 0;
  }
  fclose(f);
  return ok;
}

int agglo_ensemble_member_done(const agglo_ensemble *e, size_t i) {
  if (!e || !e->prepared || i >= e->count) return 0;
  char why[256];
  return done_complete(e, i, why, sizeof why) == 1;
}

int agglo_ensemble_member_state(const agglo_ensemble *e, size_t i) {
  if (!e || !e->prepared || i >= e->count) return 0;
  if (agglo_ensemble_member_done(e, i)) return 1;
  char path[8192];
  member_path(e, i, "failed", path, sizeof path);
  return file_exists(path) ? -1 : 0;
}

/* ---- one member ---------------------------------------------------------------------------- */

typedef struct {
  char f[F_COUNT][512];
} marker;

static void set_num(marker *m, int k, double x) { fmt_num(m->f[k], sizeof m->f[k], x); }

/* Write dir/name/{done|failed} atomically (a temporary file renamed). */
static agglo_status write_marker(const agglo_ensemble *e, size_t i, const marker *m) {
  char path[8192], tmp[8300];
  int ok = !strcmp(m->f[F_STATUS], "ok");
  member_path(e, i, ok ? "done" : "failed", path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  for (int k = 0; k < F_COUNT; k++) fprintf(f, "%s=%s\n", field_names[k], m->f[k]);
  if (ok) { /* what the member vouches for: checked by agglo_ensemble_member_done */
    member_path(e, i, NULL, path, sizeof path);
    list_files(f, path);
    member_path(e, i, "done", path, sizeof path);
  }
  if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 || rename(tmp, path) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
  return AGGLO_OK;
}

static int read_marker(const agglo_ensemble *e, size_t i, marker *m) {
  memset(m, 0, sizeof *m);
  char path[8192], why[256];
  int done = done_complete(e, i, why, sizeof why);
  if (done == 0) {
    snprintf(m->f[F_STATUS], sizeof m->f[F_STATUS], "incomplete");
    snprintf(m->f[F_ERROR], sizeof m->f[F_ERROR], "%s: its done marker no longer vouches for it, "
             "--resume runs it again", why);
    return 0;
  }
  member_path(e, i, done == 1 ? "done" : "failed", path, sizeof path);
  char err[256];
  FILE *f = agglo_open_read(path, "r", err, sizeof err);
  if (!f) {
    snprintf(m->f[F_STATUS], sizeof m->f[F_STATUS], "missing");
    snprintf(m->f[F_ERROR], sizeof m->f[F_ERROR], "not run (or interrupted): --resume runs it");
    return 0;
  }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *eq = strchr(line, '=');
    if (!eq) continue;
    *eq = 0;
    for (int k = 0; k < F_COUNT; k++)
      if (!strcmp(line, field_names[k])) snprintf(m->f[k], sizeof m->f[k], "%s", eq + 1);
  }
  fclose(f);
  return 1;
}

typedef struct {
  agglo_callback fn;
  void *user;
  double iterations, max_overlap, rmean;
} member_run;

static int member_step(agglo_sim *sim, void *user) {
  member_run *r = user;
  agglo_sim_report rep;
  agglo_sim_get_report(sim, &rep);
  r->iterations += rep.iterations;
  if (rep.max_violation / r->rmean > r->max_overlap) r->max_overlap = rep.max_violation / r->rmean;
  return r->fn ? r->fn(sim, r->user) : 0;
}

/* The time of the first stats.csv row with one cluster (NaN if none). */
static double time_to_one_cluster(const char *stats) {
  char err[256], *line = malloc(AGGLO_LINE_MAX);
  FILE *f = line ? agglo_open_read(stats, "r", err, sizeof err) : NULL;
  double t = NAN;
  if (!f) {
    free(line);
    return t;
  }
  int first = 1;
  while (agglo_read_line(f, line, AGGLO_LINE_MAX) > 0) {
    if (first) { first = 0; continue; }
    char *p = line, *end;
    double time = strtod(p, &end);
    if (*end != ',') continue;
    p = strchr(end + 1, ',');          /* past step */
    if (!p) continue;
    if (strtod(p + 1, NULL) == 1) {
      t = time;
      break;
    }
  }
  free(line);
  fclose(f);
  return t;
}

static void clean_message(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src);
  for (char *p = dst; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
}

agglo_status agglo_ensemble_run_member(agglo_ensemble *e, size_t i, agglo_callback fn, void *user) {
  if (!e || !e->prepared || i >= e->count)
    return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_run_member: no member %zu (prepare first)", i);
  double w0 = agglo_wall_seconds();
  char path[8400], dir[8192];
  member_path(e, i, NULL, dir, sizeof dir);
  /* the member's directory is this process's from before its old marker goes to after its new
     one is written: a member another process runs is left to it, untouched */
  agglo_lock lock = {0};
  if (agglo_make_dir(dir) != 0 || agglo_lock_take(&lock, dir) != 0) return AGGLO_ERROR_IO;
  member_path(e, i, "done", path, sizeof path);
  remove(path);
  member_path(e, i, "failed", path, sizeof path);
  remove(path);
  marker m;
  memset(&m, 0, sizeof m);
  for (int k = F_FINISHED; k < F_COUNT; k++) m.f[k][0] = 0;
  char err[AGGLO_ERROR_LEN] = "";
  agglo_status st = AGGLO_OK;
  agglo_sim *sim = NULL;
  agglo_config *c = agglo_config_copy(e->base);
  if (!c) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  char seed[32];
  snprintf(seed, sizeof seed, "%ld", e->seeds[i % e->nseeds]);
  if (st == AGGLO_OK && agglo_config_set(c, "run.seed", seed) != AGGLO_OK) st = AGGLO_ERROR_INPUT;
  for (size_t d = 0; d < e->ndims && st == AGGLO_OK; d++)
    if ((st = agglo_config_set(c, e->dims[d].key, e->dims[d].values[value_index(e, i / e->nseeds, d)])) != AGGLO_OK)
      snprintf(err, sizeof err, "%s", agglo_last_error());
  if (st == AGGLO_OK && (st = agglo_config_check(c)) != AGGLO_OK)
    snprintf(err, sizeof err, "%s", agglo_last_error());
  if (st == AGGLO_OK && (st = agglo_sim_create(c, &sim)) != AGGLO_OK)
    snprintf(err, sizeof err, "%s", agglo_last_error());
  if (st == AGGLO_OK) {
    if (e->which) st = agglo_sim_attach_outputs_held(sim, dir, e->which | AGGLO_OUTPUT_OVERWRITE); /* a member run again */
    else {
      snprintf(path, sizeof path, "%s/scenario.ini", dir);
      st = agglo_config_save(c, path);
    }
    if (st != AGGLO_OK) snprintf(err, sizeof err, "%s", agglo_last_error());
  }
  member_run r = {.fn = fn, .user = user, .rmean = 1};
  if (st == AGGLO_OK) {
    size_t n = agglo_sim_count(sim);
    const double *rad = agglo_sim_radii(sim);
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += rad[k];
    if (n && sum > 0) r.rmean = sum / (double)n;
    agglo_sim_set_callback(sim, 1, member_step, &r);
    double c0 = agglo_cpu_seconds();
    st = agglo_sim_run(sim);
    if (st == AGGLO_STOPPED) snprintf(err, sizeof err, "stopped by its callback at t = %g", agglo_sim_time(sim));
    else if (st != AGGLO_OK) snprintf(err, sizeof err, "%s", agglo_last_error());
    agglo_status sc = agglo_sim_close_outputs(sim);
    set_num(&m, F_CPU, agglo_cpu_seconds() - c0);
    if (sc != AGGLO_OK && (st == AGGLO_OK || st == AGGLO_STOPPED)) {
      snprintf(err, sizeof err, "%s", agglo_last_error());
      st = sc;
    }
    if (st == AGGLO_STOPPED) st = AGGLO_ERROR_RUN;
    /* the final indicators (also of a failed run: its last good state) */
    agglo_sim_report rep;
    agglo_sim_get_report(sim, &rep);
    snprintf(m.f[F_FINISHED], sizeof m.f[F_FINISHED], "%d", agglo_sim_finished(sim));
    set_num(&m, F_T_FINAL, agglo_sim_time(sim));
    snprintf(m.f[F_STEPS], sizeof m.f[F_STEPS], "%lld", (long long)agglo_sim_step_count(sim));
    set_num(&m, F_ITER, r.iterations);
    set_num(&m, F_OVERLAP, r.max_overlap);
    snprintf(m.f[F_WARN], sizeof m.f[F_WARN], "%lld", (long long)rep.warnings);
    size_t nclus = agglo_sim_cluster_count(sim);
    snprintf(m.f[F_NCLUS], sizeof m.f[F_NCLUS], "%zu", nclus);
    agglo_frame_summary a;
    agglo_indicator_settings how = agglo_indicators_of(&sim->cfg);
    if (agglo_frame_summarize(&sim->sys, sim->model->contact_gap(sim->state), &how, &a, NULL, NULL) == 0) {
      snprintf(m.f[F_MAXCLUS], sizeof m.f[F_MAXCLUS], "%zu", a.max_cluster_size);
      set_num(&m, F_NC, a.contacts_per_sphere);
      set_num(&m, F_DF, a.fractal_dimension_box);
      set_num(&m, F_DFM, a.fractal_dimension_mass);
      set_num(&m, F_AR, a.aspect_ratio);
      set_num(&m, F_RG, a.rg_largest);
    }
    sim->labelled_step = -1; /* the summary relabelled with its own contact notion */
    double radii[AGGLO_BALL_NPR], pr[AGGLO_BALL_NPR];
    for (int k = 0; k < AGGLO_BALL_NPR; k++) radii[k] = agglo_ball_pr_radii[k] * r.rmean;
    if (agglo_pair_distribution(&sim->sys, radii, AGGLO_BALL_NPR, 2000, pr) == 0)
      for (int k = 0; k < AGGLO_BALL_NPR; k++) set_num(&m, F_PR + k, pr[k]);
    double t1 = NAN;
    if (e->which & AGGLO_OUTPUT_STATS) {
      snprintf(path, sizeof path, "%s/stats.csv", dir);
      t1 = time_to_one_cluster(path);
    }
    if (isnan(t1) && nclus == 1) t1 = agglo_sim_time(sim);
    set_num(&m, F_T_ONE, t1);
  }
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
  snprintf(m.f[F_STATUS], sizeof m.f[F_STATUS], "%s", st == AGGLO_OK ? "ok" : "failed");
  clean_message(m.f[F_ERROR], sizeof m.f[F_ERROR], st == AGGLO_OK ? "" : err);
  set_num(&m, F_WALL, agglo_wall_seconds() - w0);
  agglo_status sm = write_marker(e, i, &m);
  agglo_lock_release(&lock);
  if (sm != AGGLO_OK) return sm;
  if (st != AGGLO_OK) agglo_error(st, "%s: %s", e->names[i], m.f[F_ERROR]);
  return st;
}

agglo_status agglo_ensemble_mark_failed(agglo_ensemble *e, size_t i, const char *message) {
  if (!e || !e->prepared || i >= e->count)
    return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_mark_failed: no member %zu", i);
  char path[8192];
  member_path(e, i, "done", path, sizeof path);
  if (file_exists(path)) return AGGLO_OK;
  member_path(e, i, "failed", path, sizeof path);
  if (file_exists(path)) return AGGLO_OK;
  member_path(e, i, NULL, path, sizeof path);
  if (agglo_make_dir(path) != 0) return AGGLO_ERROR_IO;
  marker m;
  memset(&m, 0, sizeof m);
  snprintf(m.f[F_STATUS], sizeof m.f[F_STATUS], "failed");
  clean_message(m.f[F_ERROR], sizeof m.f[F_ERROR], message ? message : "failed");
  return write_marker(e, i, &m);
}

/* ---- the summary --------------------------------------------------------------------------- */

typedef struct {
  char **names;
  size_t n, cap;
} name_list;

static long name_index(name_list *l, const char *name, int add) {
  for (size_t k = 0; k < l->n; k++)
    if (!strcmp(l->names[k], name)) return (long)k;
  if (!add) return -1;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    char **t = realloc(l->names, cap * sizeof *t);
    if (!t) return -1;
    l->names = t;
    l->cap = cap;
  }
  if (!(l->names[l->n] = dup_str(name))) return -1;
  return (long)l->n++;
}

/* Split a CSV line (no quoting: stats.csv) in place; returns the field count. */
static size_t split(char *line, char **fields, size_t max) {
  size_t n = 0;
  line[strcspn(line, "\r\n")] = 0;
  char *p = line;
  while (n < max) {
    fields[n++] = p;
    char *q = strchr(p, ',');
    if (!q) break;
    *q = 0;
    p = q + 1;
  }
  return n;
}

enum { MAX_COLS = 256 };

/* A member's stats.csv: rows keyed by output index, values by the union's column index. */
typedef struct {
  long *key;
  double *v; /* nrows x ncols */
  size_t nrows;
} member_table;

/* 0, or an agglo_status with the message (a line too long, out of memory). */
static agglo_status load_table(const char *path, name_list *cols, double interval, member_table *t) {
  memset(t, 0, sizeof *t);
  char *line = malloc(AGGLO_LINE_MAX), *fields[MAX_COLS], *err = agglo_error_buffer();
  if (!line) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  FILE *f = agglo_open_read(path, "r", err, AGGLO_ERROR_LEN);
  if (!f) {
    free(line);
    return errno == ENOENT ? AGGLO_OK : AGGLO_ERROR_INPUT;
  }
  size_t rcap = 0;
  long map[MAX_COLS], got, lineno = 1;
  size_t nf = 0;
  agglo_status rc = AGGLO_OK;
  if ((got = agglo_read_line(f, line, AGGLO_LINE_MAX)) > 0) {
    nf = split(line, fields, MAX_COLS);
    for (size_t k = 0; k < nf; k++) map[k] = name_index(cols, fields[k], 0);
  }
  size_t nc = cols->n;
  while (nf && (got = agglo_read_line(f, line, AGGLO_LINE_MAX)) > 0) {
    lineno++;
    size_t n = split(line, fields, MAX_COLS);
    if (n < 2) continue;
    char *end;
    double time = strtod(fields[0], &end);
    long key = interval > 0 ? (long)llround(time / interval) : (long)t->nrows;
    if (t->nrows && t->key[t->nrows - 1] == key) t->nrows--; /* keep the last row of an output time */
    if (t->nrows == rcap) {
      rcap = rcap ? 2 * rcap : 64;
      long *k2 = realloc(t->key, rcap * sizeof *k2);
      if (k2) t->key = k2;
      double *v2 = realloc(t->v, rcap * nc * sizeof *v2);
      if (v2) t->v = v2;
      if (!k2 || !v2) {
        rc = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
        break;
      }
    }
    double *row = t->v + t->nrows * nc;
    for (size_t k = 0; k < nc; k++) row[k] = NAN;
    for (size_t k = 0; k < n && k < nf; k++) {
      if (map[k] < 0 || !*fields[k]) continue;
      double x = strtod(fields[k], &end);
      if (end != fields[k]) row[map[k]] = x;
    }
    t->key[t->nrows++] = key;
  }
  if (got < 0 && rc == AGGLO_OK) { /* the line after the last one read */
    char where[8300];
    snprintf(where, sizeof where, "%s:%ld", path, lineno + 1);
    agglo_line_fail(err, AGGLO_ERROR_LEN, where, got, AGGLO_LINE_MAX);
    rc = AGGLO_ERROR_INPUT;
  }
  free(line);
  fclose(f);
  return rc;
}

static void print_stat(FILE *f, const double *x, size_t n) {
  if (n == 0) {
    fputs(",,,,,", f);
    return;
  }
  double s = 0, lo = x[0], hi = x[0];
  for (size_t k = 0; k < n; k++) {
    s += x[k];
    if (x[k] < lo) lo = x[k];
    if (x[k] > hi) hi = x[k];
  }
  double mean = s / (double)n, q = 0;
  for (size_t k = 0; k < n; k++) q += (x[k] - mean) * (x[k] - mean);
  char a[64], b[64], c[64], d[64], g[64];
  fmt_num(a, sizeof a, mean);
  if (n > 1) {
    double sd = sqrt(q / (double)(n - 1));
    fmt_num(b, sizeof b, sd);
    fmt_num(c, sizeof c, sd / sqrt((double)n));
  } else {
    b[0] = c[0] = 0;
  }
  fmt_num(d, sizeof d, lo);
  fmt_num(g, sizeof g, hi);
  fprintf(f, ",%s,%s,%s,%s,%s", a, b, c, d, g);
}

static agglo_status write_members(agglo_ensemble *e, size_t *failed, int *ok) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/members.csv", e->dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  fputs("member", f);
  for (size_t d = 0; d < e->ndims; d++) fprintf(f, ",%s", e->dims[d].key);
  fputs(",seed", f);
  for (int k = 0; k < F_COUNT; k++) fprintf(f, ",%s", field_names[k]);
  fputc('\n', f);
  *failed = 0;
  marker *m = malloc(sizeof *m);
  if (!m) {
    fclose(f);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < e->count; i++) {
    read_marker(e, i, m);
    ok[i] = !strcmp(m->f[F_STATUS], "ok");
    if (!ok[i]) (*failed)++;
    csv_field(f, e->names[i]);
    for (size_t d = 0; d < e->ndims; d++) {
      fputc(',', f);
      csv_field(f, e->dims[d].values[value_index(e, i / e->nseeds, d)]);
    }
    fprintf(f, ",%ld", e->seeds[i % e->nseeds]);
    for (int k = 0; k < F_COUNT; k++) {
      fputc(',', f);
      csv_field(f, m->f[k]);
    }
    fputc('\n', f);
  }
  free(m);
  if (fclose(f) != 0 || rename(tmp, path) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
  return AGGLO_OK;
}

static double point_interval(const agglo_ensemble *e, size_t p) {
  agglo_config *c = agglo_config_copy(e->base);
  double iv = 0;
  int ok = c != NULL;
  for (size_t d = 0; d < e->ndims && ok; d++)
    ok = agglo_config_set(c, e->dims[d].key, e->dims[d].values[value_index(e, p, d)]) == AGGLO_OK;
  char buf[64];
  if (ok && agglo_config_get(c, "output.stats_interval", buf, sizeof buf) == AGGLO_OK) iv = atof(buf);
  agglo_config_destroy(c);
  return iv;
}

static agglo_status write_ensemble_csv(agglo_ensemble *e, const int *ok) {
  char path[8192], outpath[4200], tmp[4300];
  name_list cols = {0};
  agglo_status st = AGGLO_OK;
  /* the union of the members' stats columns, in order of first appearance */
  for (size_t i = 0; i < e->count && st == AGGLO_OK; i++) {
    if (!ok[i]) continue;
    member_path(e, i, "stats.csv", path, sizeof path);
    char *line = malloc(AGGLO_LINE_MAX), *fields[MAX_COLS];
    FILE *f = line ? agglo_open_read(path, "r", agglo_error_buffer(), AGGLO_ERROR_LEN) : NULL;
    long got = f ? agglo_read_line(f, line, AGGLO_LINE_MAX) : 0;
    if (!line) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    else if (!f && errno != ENOENT) st = AGGLO_ERROR_INPUT;
    else if (got < 0) {
      char where[8300];
      snprintf(where, sizeof where, "%s:1", path);
      agglo_line_fail(agglo_error_buffer(), AGGLO_ERROR_LEN, where, got, AGGLO_LINE_MAX);
      st = AGGLO_ERROR_INPUT;
    }
    if (got > 0) {
      size_t n = split(line, fields, MAX_COLS);
      for (size_t k = 0; k < n; k++)
        if (name_index(&cols, fields[k], 1) < 0) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    }
    free(line);
    if (f) fclose(f);
  }
  snprintf(outpath, sizeof outpath, "%s/ensemble.csv", e->dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", outpath);
  FILE *out = st == AGGLO_OK ? fopen(tmp, "w") : NULL;
  if (st == AGGLO_OK && !out) st = agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  member_table *tab = calloc(e->nseeds, sizeof *tab);
  size_t *pos = calloc(e->nseeds, sizeof *pos);
  double *x = malloc(e->nseeds * sizeof *x);
  const double **rows = malloc(e->nseeds * sizeof *rows);
  if (st == AGGLO_OK && (!tab || !pos || !x || !rows)) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  if (st == AGGLO_OK) {
    for (size_t d = 0; d < e->ndims; d++) fprintf(out, "%s,", e->dims[d].key);
    fputs("output_time,members,running", out);
    for (size_t k = 0; k < cols.n; k++)
      fprintf(out, ",%s_mean,%s_sd,%s_se,%s_min,%s_max", cols.names[k], cols.names[k],
              cols.names[k], cols.names[k], cols.names[k]);
    fputc('\n', out);
  }
  size_t nc = cols.n;
  for (size_t p = 0; p < e->npoints && st == AGGLO_OK; p++) {
    double interval = point_interval(e, p);
    for (size_t s = 0; s < e->nseeds; s++) {
      size_t i = p * e->nseeds + s;
      pos[s] = 0;
      memset(&tab[s], 0, sizeof tab[s]);
      if (!ok[i]) continue;
      member_path(e, i, "stats.csv", path, sizeof path);
      st = load_table(path, &cols, interval, &tab[s]);
    }
    /* every output time of any member, in order. A member without a row there contributes its
       last row before it: a variable-step model (ballistic) that stepped over that output time,
       or a member that ended earlier (a finished model, e.g. one ballistic cluster) */
    for (;;) {
      long key = 0;
      int any = 0;
      for (size_t s = 0; s < e->nseeds; s++)
        if (pos[s] < tab[s].nrows && (!any || tab[s].key[pos[s]] < key)) key = tab[s].key[pos[s]], any = 1;
      if (!any || st != AGGLO_OK) break;
      size_t members = 0, running = 0;
      double tsum = 0;
      for (size_t s = 0; s < e->nseeds; s++) {
        while (pos[s] < tab[s].nrows && tab[s].key[pos[s]] <= key) pos[s]++;
        rows[s] = pos[s] ? tab[s].v + (pos[s] - 1) * nc : NULL;
        if (!rows[s]) continue;
        members++;
        running += tab[s].key[tab[s].nrows - 1] >= key;
        tsum += rows[s][0];
      }
      for (size_t d = 0; d < e->ndims; d++) {
        csv_field(out, e->dims[d].values[value_index(e, p, d)]);
        fputc(',', out);
      }
      char tb[64];
      fmt_num(tb, sizeof tb, interval > 0 ? (double)key * interval : tsum / (double)members);
      fprintf(out, "%s,%zu,%zu", tb, members, running);
      for (size_t k = 0; k < nc; k++) {
        size_t n = 0;
        for (size_t s = 0; s < e->nseeds; s++)
          if (rows[s] && !isnan(rows[s][k])) x[n++] = rows[s][k];
        print_stat(out, x, n);
      }
      fputc('\n', out);
    }
    for (size_t s = 0; s < e->nseeds; s++) {
      free(tab[s].key);
      free(tab[s].v);
    }
  }
  free(tab);
  free(pos);
  free(x);
  free(rows);
  for (size_t k = 0; k < cols.n; k++) free(cols.names[k]);
  free(cols.names);
  if (out && (fclose(out) != 0 || (st == AGGLO_OK && rename(tmp, outpath) != 0)) && st == AGGLO_OK)
    st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", outpath);
  return st;
}

agglo_status agglo_ensemble_write_summary(agglo_ensemble *e, size_t *failed) {
  if (!e || !e->prepared) return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_write_summary: prepare the ensemble first");
  size_t nf = 0;
  int *ok = calloc(e->count, sizeof *ok);
  if (!ok) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  agglo_status st = write_members(e, &nf, ok);
  if (st == AGGLO_OK) st = write_ensemble_csv(e, ok);
  free(ok);
  if (failed) *failed = nf;
  return st;
}

/* ---- agglo compare's report ---------------------------------------------------------------- */

/* over the defined values (an undefined one, nan, is left out: an aspect ratio of a dimer) */
static void mean_sd(const double *v, size_t n, double *mean, double *sd) {
  double s = 0, q = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i])) s += v[i], k++;
  *mean = k ? s / (double)k : NAN;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i])) q += (v[i] - *mean) * (v[i] - *mean);
  *sd = k > 1 ? sqrt(q / (double)(k - 1)) : 0;
}

agglo_status agglo_ensemble_compare_report(const agglo_ensemble *e, char **text,
                                           const char *csv_path) {
  if (!text) return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_compare_report: NULL text");
  *text = NULL;
  if (!e || !e->prepared)
    return agglo_error(AGGLO_ERROR_USAGE, "agglo_ensemble_compare_report: prepare the ensemble first");
  if (e->ndims != 1 || strcmp(e->dims[0].key, "ballistic.method"))
    return agglo_error(AGGLO_ERROR_INPUT, "the compare report needs ballistic.method as the only varied key");
  static const char *mname[2] = {"time_stepping", "event_driven"};
  /* the value index of each method (-1: not in the grid) */
  long mv[2] = {-1, -1};
  for (size_t k = 0; k < e->dims[0].n; k++)
    for (int m = 0; m < 2; m++)
      if (!strcmp(e->dims[0].values[k], mname[m])) mv[m] = (long)k;
  size_t ns = e->nseeds;
  /* indicators: N_c, D_f, A_r, t, CPU, steps, iterations, overlap, then P(r) */
  enum { NQ = 8 + AGGLO_BALL_NPR };
  static const int qfield[NQ] = {F_NC, F_DF, F_AR, F_T_FINAL, F_CPU, F_STEPS, F_ITER, F_OVERLAP,
                                 F_PR, F_PR + 1, F_PR + 2, F_PR + 3, F_PR + 4, F_PR + 5};
  double *v = calloc(2 * ns * NQ, sizeof *v);
  size_t nok[2] = {0, 0};
  marker *mk = malloc(sizeof *mk);
  FILE *csv = NULL;
  agglo_text report = {0};
  agglo_status st = !v || !mk ? agglo_error(AGGLO_ERROR_MEMORY, "out of memory")
                              : agglo_text_open(&report, "agglo_ensemble_compare_report");
  if (st == AGGLO_OK && csv_path && !(csv = fopen(csv_path, "w")))
    st = agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", csv_path, strerror(errno));
  if (st != AGGLO_OK) {
    free(v);
    free(mk);
    return report.f ? agglo_text_close(&report, st, text) : st;
  }
  FILE *out = report.f;
  if (csv) {
    fprintf(csv, "method,seed,t_final,cpu,steps,iterations,n_clusters,nc,df,ar,max_overlap");
    for (int k = 0; k < AGGLO_BALL_NPR; k++) fprintf(csv, ",P%g", agglo_ball_pr_radii[k]);
    fputc('\n', csv);
  }
  size_t failed = 0;
  for (int m = 0; m < 2; m++) {
    if (mv[m] < 0) continue;
    for (size_t s = 0; s < ns; s++) {
      read_marker(e, (size_t)mv[m] * ns + s, mk);
      if (strcmp(mk->f[F_STATUS], "ok")) {
        failed++;
        continue;
      }
      double *row = v + (m * ns + nok[m]) * NQ;
      for (int q = 0; q < NQ; q++) row[q] = atof(mk->f[qfield[q]]);
      nok[m]++;
      if (csv) {
        fprintf(csv, "%s,%ld,%.10g,%.6g,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%.4g", mname[m], e->seeds[s],
                row[3], row[4], row[5], row[6], atof(mk->f[F_NCLUS]), row[0], row[1], row[2], row[7]);
        for (int q = 0; q < AGGLO_BALL_NPR; q++) fprintf(csv, ",%.6g", row[8 + q]);
        fputc('\n', csv);
      }
    }
  }
  char n[64] = "?", dim[64] = "?";
  agglo_config_get(e->base, "particles.n", n, sizeof n);
  agglo_config_get(e->base, "run.dim", dim, sizeof dim);
  fprintf(out, "ballistic, N = %s, %sD, %zu seeds from %ld: mean (standard deviation)\n", n, dim,
          ns, e->seeds[0]);
  if (failed) fprintf(out, "(%zu runs failed and are left out: see %s/members.csv)\n", failed, e->dir);
  fprintf(out, "%-22s %-24s %-24s %s\n", "indicator", "time stepping", "event driven", "TS/ED - 1");
  static const char *names[8] = {"N_c", "D_f (box counting)", "A_r", "time to one cluster",
                                 "CPU time (s)", "steps / windows", "iterations / events",
                                 "max overlap / r"};
  double *col = malloc(ns * sizeof *col + 1);
  for (int q = 0; q < NQ && col; q++) {
    char name[64], a[64] = "-", b[64] = "-";
    if (q < 8) snprintf(name, sizeof name, "%s", names[q]);
    else snprintf(name, sizeof name, "P(%gr)", agglo_ball_pr_radii[q - 8]);
    double mean[2] = {NAN, NAN}, sd[2];
    for (int m = 0; m < 2; m++) {
      if (mv[m] < 0) continue;
      for (size_t s = 0; s < nok[m]; s++) col[s] = v[(m * ns + s) * NQ + q];
      mean_sd(col, nok[m], &mean[m], &sd[m]);
      snprintf(m ? b : a, 64, "%.5g (%.3g)", mean[m], sd[m]);
    }
    if (mv[0] < 0 || mv[1] < 0 || (q >= 5 && q <= 7)) fprintf(out, "%-22s %-24s %-24s\n", name, a, b);
    else fprintf(out, "%-22s %-24s %-24s %+.2f%%\n", name, a, b, 100 * (mean[0] / mean[1] - 1));
  }
  if (!col) st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  free(col);
  free(v);
  free(mk);
  if (csv) {
    int bad = ferror(csv);
    if ((fclose(csv) != 0 || bad) && st == AGGLO_OK)
      st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", csv_path);
  }
  return agglo_text_close(&report, st, text);
}
