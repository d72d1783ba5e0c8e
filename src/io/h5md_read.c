/* H5MD reader (docs/formats.md): the first group under particles/, each element either a fixed
   dataset or a time series (step, time, value); vectors of D components (D = box dimension). */
#include "io/h5md_read.h"
#include "core/error.h"
#include "core/files.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  hid_t value, time, step; /* value only: a fixed element */
  int rank;                /* of value */
} element;

/* An observable: its values and steps, read row by row as the frames go by. */
typedef struct {
  char name[AGGLO_OBSERVABLE_NAME];
  hid_t value, step;
  size_t rows, next; /* next: the first row not before the frame read last */
} observable;

struct agglo_h5md_reader {
  hid_t file;
  char *path;
  char group[256];
  element pos, vel, rad, mass, id, clu, edges, species;
  agglo_units units;
  observable obs[AGGLO_MAX_OBSERVABLES];
  size_t nobs;
  int dim;      /* components of the vectors */
  int run_dim;  /* 2 or 3 (agglo's parameters/dimension, else the box dimension) */
  int periodic[3];
  double origin[3]; /* the box's lower corner (agglo's parameters/box_origin, else 0) */
  size_t n, frames;
  int cut; /* the frame after the last complete one was cut by a killed write */
};

int agglo_is_hdf5(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char sig[8] = {0};
  size_t got = fread(sig, 1, 8, f);
  fclose(f);
  return got == 8 && !memcmp(sig, "\211HDF\r\n\032\n", 8);
}

static hsize_t extent(hid_t ds, int *rank, hsize_t *dims) {
  hid_t sp = H5Dget_space(ds);
  *rank = H5Sget_simple_extent_ndims(sp);
  H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  return dims[0];
}

/* An element under the particle group: a dataset (fixed) or a group with value (and step, time). */
static int element_open(hid_t g, const char *name, element *e) {
  memset(e, 0, sizeof *e);
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return 0;
  H5O_info_t info;
  if (H5Oget_info_by_name(g, name, &info, H5P_DEFAULT) < 0) return 0;
  hsize_t dims[8];
  if (info.type == H5O_TYPE_DATASET) {
    e->value = H5Dopen2(g, name, H5P_DEFAULT);
  } else {
    char p[512];
    snprintf(p, sizeof p, "%s/value", name);
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0 || (e->value = H5Dopen2(g, p, H5P_DEFAULT)) < 0) return e->value = 0;
    snprintf(p, sizeof p, "%s/time", name);
    if (H5Lexists(g, p, H5P_DEFAULT) > 0) e->time = H5Dopen2(g, p, H5P_DEFAULT);
    snprintf(p, sizeof p, "%s/step", name);
    if (H5Lexists(g, p, H5P_DEFAULT) > 0) e->step = H5Dopen2(g, p, H5P_DEFAULT);
  }
  if (e->value < 0) return e->value = 0;
  extent(e->value, &e->rank, dims);
  return 1;
}

static void element_close(element *e) {
  if (e->value > 0) H5Dclose(e->value);
  if (e->time > 0) H5Dclose(e->time);
  if (e->step > 0) H5Dclose(e->step);
  memset(e, 0, sizeof *e);
}

static int series(const element *e) { return e->value > 0 && (e->time > 0 || e->step > 0); }

void agglo_h5md_read_close(agglo_h5md_reader *r) {
  if (!r) return;
  element *all[] = {&r->pos, &r->vel, &r->rad, &r->mass, &r->id, &r->clu, &r->edges, &r->species};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) element_close(all[k]);
  for (size_t k = 0; k < r->nobs; k++) H5Dclose(r->obs[k].value), H5Dclose(r->obs[k].step);
  if (r->file > 0) H5Fclose(r->file);
  free(r->path);
  free(r);
}

static herr_t first_group(hid_t g, const char *name, const H5L_info_t *info, void *out) {
  (void)g, (void)info;
  snprintf(out, 256, "%s", name);
  return 1;
}

/* A string attribute (fixed or variable length) into out; -1 if absent or not a string. */
static int attr_text(hid_t obj, const char *name, char *out, size_t len) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a), sp = H5Aget_space(a);
  int rc = -1;
  if (H5Tget_class(t) == H5T_STRING && H5Sget_simple_extent_npoints(sp) == 1) {
    if (H5Tis_variable_str(t)) {
      char *v = NULL;
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      if (H5Aread(a, mt, &v) >= 0 && v) rc = 0, snprintf(out, len, "%s", v);
      H5free_memory(v);
      H5Tclose(mt);
    } else {
      size_t sz = H5Tget_size(t);
      char *v = calloc(1, sz + 1);
      if (v && H5Aread(a, t, v) >= 0) rc = 0, snprintf(out, len, "%s", v);
      free(v);
    }
  }
  H5Sclose(sp);
  H5Tclose(t);
  H5Aclose(a);
  return rc;
}

/* Each observables/<name> with a value and a step series of one number per row. */
static herr_t add_observable(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)info;
  agglo_h5md_reader *r = data;
  if (r->nobs == AGGLO_MAX_OBSERVABLES || strlen(name) >= AGGLO_OBSERVABLE_NAME) return 0;
  element e;
  if (!element_open(g, name, &e)) return 0;
  int rank, srank;
  hsize_t dims[8], sdims[8];
  if (e.rank == 1 && e.step > 0 && extent(e.step, &srank, sdims) == extent(e.value, &rank, dims) && srank == 1) {
    observable *o = &r->obs[r->nobs++];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->value = e.value, o->step = e.step, o->rows = dims[0], o->next = 0;
    e.value = e.step = 0;
  }
  element_close(&e);
  return 0;
}

agglo_h5md_reader *agglo_h5md_read_open(const char *path, char *err, size_t errlen) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  agglo_h5md_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    agglo_fail(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_file_locking(fapl, 0, 1); /* a run may still be writing it */
  r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (r->file < 0) {
    agglo_fail(err, errlen, "%s: cannot open as HDF5 (damaged, or not an HDF5 file)", path);
    agglo_h5md_read_close(r);
    return NULL;
  }
  hid_t parts = H5Lexists(r->file, "particles", H5P_DEFAULT) > 0 ? H5Gopen2(r->file, "particles", H5P_DEFAULT) : -1;
  if (parts < 0 || H5Literate(parts, H5_INDEX_NAME, H5_ITER_INC, NULL, first_group, r->group) <= 0) {
    if (parts >= 0) H5Gclose(parts);
    agglo_fail(err, errlen, "%s: not an H5MD file (no particles/ group)", path);
    agglo_h5md_read_close(r);
    return NULL;
  }
  hid_t g = H5Gopen2(parts, r->group, H5P_DEFAULT);
  H5Gclose(parts);
  int ok = element_open(g, "position", &r->pos) && series(&r->pos) && r->pos.rank == 3;
  element_open(g, "velocity", &r->vel);
  element_open(g, "radius", &r->rad);
  element_open(g, "mass", &r->mass);
  element_open(g, "id", &r->id);
  element_open(g, "cluster", &r->clu);
  element_open(g, "box/edges", &r->edges);
  element_open(g, "species", &r->species);
  int bdim = 3;
  if (H5Lexists(g, "box", H5P_DEFAULT) > 0) {
    hid_t box = H5Gopen2(g, "box", H5P_DEFAULT);
    if (H5Aexists(box, "dimension") > 0) {
      hid_t a = H5Aopen(box, "dimension", H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_INT, &bdim);
      H5Aclose(a);
    }
    if (H5Aexists(box, "boundary") > 0 && bdim >= 1 && bdim <= 3) {
      hid_t a = H5Aopen(box, "boundary", H5P_DEFAULT), t = H5Aget_type(a);
      if (H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
        size_t sz = H5Tget_size(t);
        char *buf = calloc((size_t)bdim, sz + 1);
        if (buf && H5Aread(a, t, buf) >= 0)
          for (int k = 0; k < bdim; k++) r->periodic[k] = !strncmp(buf + k * sz, "periodic", sz < 8 ? sz : 8);
        free(buf);
      } else if (H5Tget_class(t) == H5T_STRING) {
        char *v[3] = {0};
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        if (H5Aread(a, mt, v) >= 0)
          for (int k = 0; k < bdim; k++) r->periodic[k] = v[k] && !strcmp(v[k], "periodic");
        for (int k = 0; k < bdim; k++) H5free_memory(v[k]);
        H5Tclose(mt);
      }
      H5Tclose(t);
      H5Aclose(a);
    }
    H5Gclose(box);
  }
  H5Gclose(g);
  hsize_t dims[8];
  if (ok) {
    r->frames = extent(r->pos.value, &r->pos.rank, dims);
    r->n = dims[1];
    r->dim = (int)dims[2];
    ok = r->dim >= 1 && r->dim <= 3;
  }
  if (!ok) {
    agglo_fail(err, errlen, "%s: no particles/%s/position time series of shape [frames, particles, "
               "dimension]", path, r->group);
    agglo_h5md_read_close(r);
    return NULL;
  }
  r->run_dim = bdim == 2 ? 2 : 3;
  if (H5Lexists(r->file, "parameters", H5P_DEFAULT) > 0) {
    hid_t par = H5Gopen2(r->file, "parameters", H5P_DEFAULT);
    if (H5Aexists(par, "dimension") > 0) {
      hid_t a = H5Aopen(par, "dimension", H5P_DEFAULT);
      int d = 3;
      H5Aread(a, H5T_NATIVE_INT, &d);
      H5Aclose(a);
      r->run_dim = d == 2 ? 2 : 3;
    }
    if (H5Aexists(par, "box_origin") > 0) {
      hid_t a = H5Aopen(par, "box_origin", H5P_DEFAULT), sp = H5Aget_space(a);
      double o[3];
      if (H5Sget_simple_extent_npoints(sp) == 3 && H5Aread(a, H5T_NATIVE_DOUBLE, o) >= 0)
        for (int q = 0; q < 3; q++) r->origin[q] = isfinite(o[q]) && fabs(o[q]) < 1e300 ? o[q] : 0;
      H5Sclose(sp);
      H5Aclose(a);
    }
    char units[32];
    if (attr_text(par, "units", units, sizeof units) == 0) r->units = agglo_units_parse(units);
    H5Gclose(par);
  }
  if (H5Lexists(r->file, "observables", H5P_DEFAULT) > 0) {
    hid_t obs = H5Gopen2(r->file, "observables", H5P_DEFAULT);
    H5Literate(obs, H5_INDEX_NAME, H5_ITER_INC, NULL, add_observable, r);
    H5Gclose(obs);
  }
  /* the complete frames: every series has its row. A killed write leaves the last frame without
     some of its rows (agglo writes step, time, edges, position, velocity, cluster in turn); a
     series shorter by more than that is damage, refused rather than read as fewer frames */
  int rank;
  hid_t sets[] = {r->pos.time, r->pos.step, series(&r->vel) ? r->vel.value : 0,
                  series(&r->clu) ? r->clu.value : 0, series(&r->rad) ? r->rad.value : 0,
                  series(&r->edges) ? r->edges.value : 0};
  static const char *set_name[] = {"position/time", "position/step", "velocity/value", "cluster/value",
                                   "radius/value", "box/edges/value"};
  size_t longest = r->frames;
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
    if (sets[k] > 0) {
      hsize_t rows = extent(sets[k], &rank, dims);
      if (rows + 1 < longest) {
        agglo_fail(err, errlen, "%s: particles/%s/%s has %llu rows, position/value %zu (allowed: the "
                   "same, or one fewer for a last frame cut by a killed write): damaged", path, r->group,
                   set_name[k], (unsigned long long)rows, longest);
        agglo_h5md_read_close(r);
        return NULL;
      }
      if (rows < r->frames) r->frames = rows;
    }
  r->cut = r->frames < longest;
  /* the bound on what is read: the positions must fit in the file (AGGLO_DEFLATE_MAX_RATIO) */
  hsize_t size = 0;
  H5Fget_filesize(r->file, &size);
  double bytes = (double)r->frames * (double)r->n * r->dim * 8;
  if (r->n > 2147483647 || bytes > (double)AGGLO_DEFLATE_MAX_RATIO * (double)size) {
    agglo_fail(err, errlen, "%s: particles/%s/position announces %zu frames of %zu particles (%.3g "
               "bytes), more than a file of %llu bytes holds (at most %d bytes a stored byte, and "
               "2^31 - 1 particles)", path, r->group, r->frames, r->n, bytes, (unsigned long long)size,
               AGGLO_DEFLATE_MAX_RATIO);
    agglo_h5md_read_close(r);
    return NULL;
  }
  return r;
}

size_t agglo_h5md_read_frames(const agglo_h5md_reader *r) { return r->frames; }

int agglo_h5md_read_cut(const agglo_h5md_reader *r) { return r->cut; }

agglo_h5md_has agglo_h5md_read_has(const agglo_h5md_reader *r) {
  return (agglo_h5md_has){r->vel.value > 0, r->rad.value > 0, r->mass.value > 0, r->id.value > 0,
                          r->clu.value > 0, r->edges.value > 0, r->pos.time > 0};
}

/* Row k of a series (or the fixed dataset) as doubles or int64, count values expected. */
static int read_row(const element *e, size_t k, hid_t memtype, void *out, size_t count) {
  hsize_t dims[8], start[8] = {0}, cnt[8];
  int rank;
  extent(e->value, &rank, dims);
  int is_series = series(e);
  size_t total = 1;
  for (int q = is_series; q < rank; q++) total *= dims[q];
  if (total != count) return -1;
  hid_t fs = H5Dget_space(e->value);
  for (int q = 0; q < rank; q++) cnt[q] = dims[q];
  if (is_series) start[0] = k, cnt[0] = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
  hsize_t flat = count;
  hid_t ms = H5Screate_simple(1, &flat, NULL);
  herr_t rc = H5Dread(e->value, memtype, ms, fs, H5P_DEFAULT, out);
  H5Sclose(ms);
  H5Sclose(fs);
  return rc < 0 ? -1 : 0;
}

static int read_scalar(hid_t ds, size_t k, hid_t memtype, void *out) {
  hid_t fs = H5Dget_space(ds);
  hsize_t start = k, one = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
  hid_t ms = H5Screate_simple(1, &one, NULL);
  herr_t rc = H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, out);
  H5Sclose(ms);
  H5Sclose(fs);
  return rc < 0 ? -1 : 0;
}

/* The extras of the frame just read (its step in s): units, observables at that step, species. */
static int read_extras(agglo_h5md_reader *r, const agglo_system *s, agglo_frame_extras *x) {
  x->units = r->units;
  x->nobs = 0;
  for (size_t q = 0; q < r->nobs; q++) {
    observable *o = &r->obs[q];
    int64_t step = INT64_MIN;
    if (o->next > 0 && (read_scalar(o->step, o->next - 1, H5T_NATIVE_INT64, &step) != 0 || step >= s->step))
      o->next = 0; /* frames read out of order: from the start */
    for (; o->next < o->rows; o->next++)
      if (read_scalar(o->step, o->next, H5T_NATIVE_INT64, &step) != 0 || step >= s->step) break;
    if (o->next == o->rows || step != s->step) continue;
    snprintf(x->names[x->nobs], AGGLO_OBSERVABLE_NAME, "%s", o->name);
    if (read_scalar(o->value, o->next++, H5T_NATIVE_DOUBLE, &x->values[x->nobs]) != 0) return -1;
    x->nobs++;
  }
  free(x->species);
  x->species = NULL;
  if (!r->species.value || r->species.rank != 1) return 0;
  if (!(x->species = malloc((s->n + 1) * sizeof *x->species))) return -1;
  return read_row(&r->species, 0, H5T_NATIVE_INT32, x->species, s->n);
}

int agglo_h5md_read_frame(agglo_h5md_reader *r, size_t k, agglo_system *s, double default_radius,
                          agglo_frame_extras *x, char *err, size_t errlen) {
  if (k >= r->frames)
    return agglo_fail(err, errlen, "%s: frame %zu: the file has %zu complete frames", r->path, k + 1, r->frames);
  if (!r->rad.value && default_radius <= 0)
    return agglo_fail(err, errlen, "%s: frame %zu: no radius element; give --radius R", r->path, k + 1);
  agglo_system_free(s);
  if (agglo_system_alloc(s, r->run_dim, r->n) != 0)
    return agglo_fail(err, errlen, "%s: frame %zu: out of memory for %zu particles", r->path, k + 1, r->n);
  size_t n = r->n, D = (size_t)r->dim;
  double *buf = malloc((n * D > 0 ? n * D : 1) * sizeof *buf);
  if (!buf) return agglo_fail(err, errlen, "%s: out of memory", r->path);
  int rc = read_row(&r->pos, k, H5T_NATIVE_DOUBLE, buf, n * D);
  for (size_t i = 0; i < n && rc == 0; i++)
    for (size_t q = 0; q < D; q++) s->x[3 * i + q] = buf[D * i + q];
  if (rc == 0 && r->vel.value) {
    rc = read_row(&r->vel, k, H5T_NATIVE_DOUBLE, buf, n * D);
    for (size_t i = 0; i < n && rc == 0; i++)
      for (size_t q = 0; q < D; q++) s->v[3 * i + q] = buf[D * i + q];
  }
  free(buf);
  if (rc == 0 && r->rad.value) rc = read_row(&r->rad, k, H5T_NATIVE_DOUBLE, s->r, n);
  else for (size_t i = 0; i < n; i++) s->r[i] = default_radius;
  if (rc == 0 && r->mass.value) rc = read_row(&r->mass, k, H5T_NATIVE_DOUBLE, s->m, n);
  else for (size_t i = 0; i < n; i++) s->m[i] = s->r[i] * s->r[i] * s->r[i];
  if (rc == 0 && r->id.value) rc = read_row(&r->id, k, H5T_NATIVE_INT64, s->id, n);
  if (rc == 0 && r->clu.value) rc = read_row(&r->clu, k, H5T_NATIVE_INT32, s->cluster, n);
  else for (size_t i = 0; i < n; i++) s->cluster[i] = (int32_t)s->id[i];
  if (rc == 0 && r->pos.time > 0) rc = read_scalar(r->pos.time, k, H5T_NATIVE_DOUBLE, &s->t);
  if (rc == 0 && r->pos.step > 0) rc = read_scalar(r->pos.step, k, H5T_NATIVE_INT64, &s->step);
  if (rc == 0 && x) rc = read_extras(r, s, x);
  if (rc != 0) return agglo_fail(err, errlen, "%s: frame %zu: cannot read (damaged, or shapes that "
                                 "do not match %zu particles)", r->path, k + 1, n);
  for (size_t i = 0; i < n; i++) {
    s->inv_m[i] = s->m[i] > 0 && isfinite(s->m[i]) ? 1 / s->m[i] : 0;
    if (!(s->r[i] > 0) || !isfinite(s->r[i]))
      return agglo_fail(err, errlen, "%s: frame %zu: particle %zu: radius %g is not positive", r->path,
                        k + 1, i, s->r[i]);
  }
  double edges[9] = {0};
  if (r->edges.value) {
    int rank;
    hsize_t dims[8];
    extent(r->edges.value, &rank, dims);
    size_t cnt = (size_t)dims[rank - 1] * (rank - series(&r->edges) == 2 ? dims[rank - 1] : 1);
    if ((cnt > 4 && cnt != 9) || read_row(&r->edges, k, H5T_NATIVE_DOUBLE, edges, cnt) != 0)
      return agglo_fail(err, errlen, "%s: frame %zu: particles/%s/box/edges: cannot read (damaged, or "
                        "not D or D x D numbers)", r->path, k + 1, r->group);
    /* the same box as an XYZ Lattice= may give: orthogonal, sides finite and not negative (0: none),
       but for the x component of the second edge vector (row 1, column 0): the Lees-Edwards
       offset shear_x of a sheared run (docs/dpd.md, "Shear") */
    for (size_t q = 0; q < cnt; q++) {
      int diagonal = cnt <= 3 || q % (cnt == 4 ? 3 : 4) == 0, shear = cnt > 3 && q == (cnt == 4 ? 2 : 3);
      if (!isfinite(edges[q]) || (diagonal ? edges[q] < 0 : !shear && edges[q] != 0))
        return agglo_fail(err, errlen, "%s: frame %zu: particles/%s/box/edges: value %zu is %g (allowed: "
                          "an orthogonal box: finite sides, not negative; off-diagonal entries 0 but the "
                          "Lees-Edwards offset, row 2 column 1)", r->path, k + 1, r->group, q + 1, edges[q]);
    }
    if (cnt <= 3) {
      double v[3] = {edges[0], edges[1], edges[2]};
      memset(edges, 0, sizeof edges);
      for (size_t q = 0; q < cnt; q++) edges[4 * q] = v[q];
    } else if (cnt == 4) { /* a 2 x 2 matrix */
      double m[4] = {edges[0], edges[1], edges[2], edges[3]};
      memset(edges, 0, sizeof edges);
      edges[0] = m[0], edges[3] = m[2], edges[4] = m[3];
    }
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; i++)
    for (int q = 0; q < 3; q++) lo[q] = fmin(lo[q], s->x[3 * i + q]), hi[q] = fmax(hi[q], s->x[3 * i + q]);
  for (int q = 0; q < 3; q++) {
    if (edges[4 * q] > 0) {
      s->box.lo[q] = r->origin[q], s->box.len[q] = edges[4 * q], s->box.periodic[q] = r->periodic[q];
    } else { /* no box along this axis: the bounding box, walls */
      s->box.lo[q] = n ? lo[q] : 0, s->box.len[q] = n ? hi[q] - lo[q] : 0, s->box.periodic[q] = 0;
    }
    s->box.hi[q] = s->box.lo[q] + s->box.len[q];
  }
  s->box.shear_x = edges[3];
  if (edges[3] != 0 && !(s->box.periodic[0] && s->box.periodic[1] && edges[0] > 0 && edges[4] > 0))
    return agglo_fail(err, errlen, "%s: frame %zu: particles/%s/box/edges: Lees-Edwards offset %g (row 2 "
                      "column 1) in a box that is not periodic along x and y (allowed: 0 there)", r->path,
                      k + 1, r->group, edges[3]);
  if (fabs(edges[3]) > edges[0]) /* (agglo writes it in [0, L_x); a tilt beyond a side means nothing more) */
    return agglo_fail(err, errlen, "%s: frame %zu: particles/%s/box/edges: Lees-Edwards offset %g (row 2 "
                      "column 1) beyond the box's side along x, %g (allowed: -L_x to L_x)", r->path,
                      k + 1, r->group, edges[3], edges[0]);
  return 0;
}
