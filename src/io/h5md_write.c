/* H5MD 1.1 writer (docs/formats.md): a time series per element (step, time, value) under
   particles/all, the fixed per-particle data once, observables/ for the stats columns, h5md/
   metadata; an XDMF file beside it, rewritten after every frame, so ParaView sees every frame
   written so far. */
#include "io/h5md_write.h"
#include "core/error.h"
#include "core/files.h"
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef AGGLO_VERSION
#define AGGLO_VERSION "unknown"
#endif
enum { MAX_OBS = 96, DEFLATE_LEVEL = 1 }; /* of the integer series and the fixed data */

typedef struct { hid_t step, time, value; } series;

struct agglo_h5md {
  hid_t file;
  char *path, *xdmf;
  const char *base; /* the file name without its directory, as the XDMF refers to it */
  size_t n;
  int dim;
  series pos, vel, clu, edges;
  hsize_t frames, obs_rows;
  double *times;
  size_t cap;
  float *fbuf;
  int nobs;
  series obs[MAX_OBS];
  int deflate; /* level of positions and velocities (0: stored raw) */
  int64_t step0; /* the step the writer started at */
};

/* A chunked dataset of rank dims, extensible along the first axis; compressed if asked. */
static hid_t make_dataset(hid_t g, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const hsize_t *chunk, int level) {
  hsize_t maxd[4];
  for (int k = 0; k < rank; k++) maxd[k] = k == 0 ? H5S_UNLIMITED : dims[k];
  hid_t sp = H5Screate_simple(rank, dims, maxd), pl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(pl, rank, chunk);
  if (level > 0) {
    H5Pset_shuffle(pl);
    H5Pset_deflate(pl, (unsigned)level);
  }
  hid_t ds = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
  H5Pclose(pl);
  H5Sclose(sp);
  return ds;
}

/* A time-dependent element: name/{step, time, value}; value has shape [frames, tail...]. */
static int series_create(hid_t parent, const char *name, hid_t type, int tail_rank,
                         const hsize_t *tail, int level, series *s) {
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return -1;
  hsize_t zero = 0, ch = 256, dims[4] = {0}, chunk[4] = {1};
  for (int k = 0; k < tail_rank; k++) dims[k + 1] = chunk[k + 1] = tail[k];
  s->step = make_dataset(g, "step", H5T_STD_I64LE, 1, &zero, &ch, 0);
  s->time = make_dataset(g, "time", H5T_IEEE_F64LE, 1, &zero, &ch, 0);
  if (tail_rank == 0) chunk[0] = 256;
  s->value = make_dataset(g, "value", type, tail_rank + 1, dims, chunk, tail_rank > 0 ? level : 0);
  H5Gclose(g);
  return s->step < 0 || s->time < 0 || s->value < 0 ? -1 : 0;
}

static int series_open(hid_t parent, const char *name, series *s) {
  char p[512];
  snprintf(p, sizeof p, "%s/step", name), s->step = H5Dopen2(parent, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/time", name), s->time = H5Dopen2(parent, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/value", name), s->value = H5Dopen2(parent, p, H5P_DEFAULT);
  return s->step < 0 || s->time < 0 || s->value < 0 ? -1 : 0;
}

static void series_close(series *s) {
  if (s->step > 0) H5Dclose(s->step);
  if (s->time > 0) H5Dclose(s->time);
  if (s->value > 0) H5Dclose(s->value);
  s->step = s->time = s->value = 0;
}

/* Row `index` of ds (rank 1 + rank of a row) set to data, extending ds to index + 1 rows. */
static int put_row(hid_t ds, hid_t memtype, const void *data, hsize_t index) {
  hid_t fs = H5Dget_space(ds);
  int rank = H5Sget_simple_extent_ndims(fs);
  hsize_t dims[4], start[4] = {index, 0, 0, 0}, count[4];
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  dims[0] = index + 1;
  if (H5Dset_extent(ds, dims) < 0) return -1;
  fs = H5Dget_space(ds);
  count[0] = 1;
  for (int k = 1; k < rank; k++) count[k] = dims[k];
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t ms = H5Screate_simple(rank, count, NULL);
  herr_t rc = H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, data);
  H5Sclose(ms);
  H5Sclose(fs);
  return rc < 0 ? -1 : 0;
}

static int series_put(series *s, hsize_t index, int64_t step, double t, hid_t memtype, const void *v) {
  return put_row(s->step, H5T_NATIVE_INT64, &step, index) || put_row(s->time, H5T_NATIVE_DOUBLE, &t, index) ||
                 put_row(s->value, memtype, v, index)
             ? -1
             : 0;
}

static hsize_t rows(hid_t ds) {
  hid_t fs = H5Dget_space(ds);
  hsize_t dims[4] = {0};
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  return dims[0];
}

static int attr_string(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(value) + 1);
  hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, t, value);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  return rc < 0 ? -1 : 0;
}

static int attr_ints(hid_t obj, const char *name, const int *v, hsize_t count) {
  hid_t sp = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, NULL);
  hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_INT, v);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return rc < 0 ? -1 : 0;
}

/* A fixed per-particle dataset of n values (compressed). */
static int fixed(hid_t g, const char *name, hid_t filetype, hid_t memtype, size_t n, const void *v) {
  hsize_t dims = n, chunk = n;
  hid_t sp = H5Screate_simple(1, &dims, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(pl, 1, &chunk);
  H5Pset_shuffle(pl);
  H5Pset_deflate(pl, DEFLATE_LEVEL);
  hid_t ds = H5Dcreate2(g, name, filetype, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
  herr_t rc = ds < 0 ? -1 : H5Dwrite(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  if (ds >= 0) H5Dclose(ds);
  H5Pclose(pl);
  H5Sclose(sp);
  return rc < 0 ? -1 : 0;
}

/* The layout of a new file. */
static int create_layout(agglo_h5md *h, const agglo_system *s) {
  hid_t f = h->file;
  int rc = 0;
  hid_t g = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int version[2] = {1, 1};
  rc |= attr_ints(g, "version", version, 2);
  hid_t a = H5Gcreate2(g, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char *user = getenv("USER");
  rc |= attr_string(a, "name", user && *user ? user : "unknown");
  H5Gclose(a);
  a = H5Gcreate2(g, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  rc |= attr_string(a, "name", "agglo");
  rc |= attr_string(a, "version", AGGLO_VERSION);
  H5Gclose(a);
  H5Gclose(g);
  /* agglo's own parameters: the run's dimension (vectors always have 3 components) */
  g = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  rc |= attr_ints(g, "dimension", &s->dim, 1);
  H5Gclose(g);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t all = H5Gcreate2(f, "particles/all", lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(lcpl);
  if (all < 0) return -1;
  hid_t box = H5Gcreate2(all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int three = 3;
  rc |= attr_ints(box, "dimension", &three, 1);
  char bnd[3][9];
  for (int k = 0; k < 3; k++) snprintf(bnd[k], sizeof bnd[k], "%s", s->box.periodic[k] ? "periodic" : "none");
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, 9);
  hsize_t three_h = 3;
  hid_t sp = H5Screate_simple(1, &three_h, NULL);
  hid_t at = H5Acreate2(box, "boundary", t, sp, H5P_DEFAULT, H5P_DEFAULT);
  rc |= at < 0 || H5Awrite(at, t, bnd) < 0;
  if (at >= 0) H5Aclose(at);
  H5Sclose(sp);
  H5Tclose(t);
  hsize_t mat[2] = {3, 3}, vec[2] = {s->n, 3}, one[1] = {s->n};
  rc |= series_create(box, "edges", H5T_IEEE_F64LE, 2, mat, 0, &h->edges);
  H5Gclose(box);
  rc |= series_create(all, "position", H5T_IEEE_F32LE, 2, vec, h->deflate, &h->pos);
  rc |= series_create(all, "velocity", H5T_IEEE_F32LE, 2, vec, h->deflate, &h->vel);
  rc |= series_create(all, "cluster", H5T_STD_I32LE, 1, one, DEFLATE_LEVEL, &h->clu);
  rc |= fixed(all, "radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->n, s->r);
  rc |= fixed(all, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->n, s->m);
  rc |= fixed(all, "id", H5T_STD_I64LE, H5T_NATIVE_INT64, s->n, s->id);
  H5Gclose(all);
  return rc ? -1 : 0;
}

/* Rows of a step series at or before step (a run killed after its restart point wrote more: the
   continuation overwrites them). */
static hsize_t rows_upto(hid_t step_ds, hsize_t rows_have, int64_t step) {
  if (!rows_have) return 0;
  int64_t *st = malloc(rows_have * sizeof *st);
  if (!st || H5Dread(step_ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, st) < 0) {
    free(st);
    return rows_have;
  }
  hsize_t k = 0;
  while (k < rows_have && st[k] <= step) k++;
  free(st);
  return k;
}

/* The observables named in a comma-separated list: created, or opened in an appended file. */
static int observables_setup(agglo_h5md *h, const char *names, int append) {
  if (!names || !*names) return 0;
  char *list = strdup(names), *save = NULL;
  if (!list) return -1;
  hid_t g = H5Lexists(h->file, "observables", H5P_DEFAULT) > 0
                ? H5Gopen2(h->file, "observables", H5P_DEFAULT)
                : H5Gcreate2(h->file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g < 0 ? -1 : 0;
  for (char *name = strtok_r(list, ",", &save); name && rc == 0; name = strtok_r(NULL, ",", &save)) {
    if (!strcmp(name, "time") || !strcmp(name, "step")) continue; /* the series' own step, time */
    if (h->nobs == MAX_OBS) break;
    series *s = &h->obs[h->nobs++];
    if (append && H5Lexists(g, name, H5P_DEFAULT) > 0) rc = series_open(g, name, s);
    else rc = series_create(g, name, H5T_IEEE_F64LE, 0, NULL, 0, s);
  }
  if (g >= 0) H5Gclose(g);
  if (h->nobs && rc == 0) {
    hsize_t have = rows(h->obs[0].value);
    for (int k = 1; k < h->nobs; k++) have = rows(h->obs[k].value) < have ? rows(h->obs[k].value) : have;
    h->obs_rows = append ? rows_upto(h->obs[0].step, have, h->step0) : have;
  }
  free(list);
  return rc;
}

static int write_xdmf(agglo_h5md *h, char *err, size_t errlen);


agglo_h5md *agglo_h5md_open(const char *path, const agglo_system *s, int append, int deflate,
                            const char *observables, char *err, size_t errlen) {
  agglo_h5md *h = calloc(1, sizeof *h);
  if (h) h->deflate = deflate, h->step0 = s->step;
  size_t len = strlen(path);
  if (!h || !(h->path = strdup(path)) || !(h->xdmf = malloc(len + 8)) ||
      !(h->fbuf = malloc((s->n ? 3 * s->n : 1) * sizeof(float)))) {
    agglo_fail(err, errlen, "%s: out of memory", path);
    agglo_h5md_close(h);
    return NULL;
  }
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : len;
  snprintf(h->xdmf, len + 8, "%.*s.xdmf", (int)stem, path);
  h->base = slash ? h->path + (slash - path) + 1 : h->path;
  h->n = s->n, h->dim = s->dim;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* readers (h5py, ParaView) may open the file while the run writes it */
  H5Pset_file_locking(fapl, 0, 1);
  FILE *pf = append ? fopen(path, "rb") : NULL;
  int probe = pf != NULL;
  if (pf) fclose(pf);
  int rc;
  if (probe) {
    h->file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    rc = h->file < 0 || series_open(h->file, "particles/all/position", &h->pos) ||
         series_open(h->file, "particles/all/velocity", &h->vel) ||
         series_open(h->file, "particles/all/cluster", &h->clu) ||
         series_open(h->file, "particles/all/box/edges", &h->edges);
    if (rc) {
      H5Pclose(fapl);
      agglo_fail(err, errlen, "%s: cannot continue this file: not an H5MD trajectory of agglo", path);
      agglo_h5md_close(h);
      return NULL;
    }
    hid_t fs = H5Dget_space(h->pos.value);
    hsize_t dims[3] = {0};
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    if (dims[1] != s->n) {
      H5Pclose(fapl);
      agglo_fail(err, errlen, "%s: has %llu particles, the run %zu: cannot continue it", path,
                 (unsigned long long)dims[1], s->n);
      agglo_h5md_close(h);
      return NULL;
    }
    /* the complete frames (a frame cut by a kill has fewer rows in a later element) */
    h->frames = dims[0];
    hsize_t r[] = {rows(h->pos.step), rows(h->pos.time), rows(h->vel.value), rows(h->clu.value),
                   rows(h->edges.value)};
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) h->frames = r[k] < h->frames ? r[k] : h->frames;
    if (h->frames == r[0]) h->frames = rows_upto(h->pos.step, h->frames, s->step);
    /* the frames announced must be in the file (positions as floats, time, step:
       AGGLO_DEFLATE_MAX_RATIO), as the readers check */
    hsize_t size = 0;
    H5Fget_filesize(h->file, &size);
    if ((double)h->frames * (12.0 * (double)s->n + 16) > (double)AGGLO_DEFLATE_MAX_RATIO * (double)size) {
      H5Pclose(fapl);
      agglo_fail(err, errlen, "%s: announces %llu frames of %zu particles, more than a file of %llu "
                 "bytes holds: cannot continue it", path, (unsigned long long)h->frames, s->n,
                 (unsigned long long)size);
      agglo_h5md_close(h);
      return NULL;
    }
    h->cap = h->frames + 64;
    h->times = malloc(h->cap * sizeof *h->times);
    if (!h->times) {
      H5Pclose(fapl);
      agglo_fail(err, errlen, "%s: out of memory", path);
      agglo_h5md_close(h);
      return NULL;
    }
    if (h->times && h->frames) {
      hid_t ms = H5Screate_simple(1, &h->frames, NULL), fs2 = H5Dget_space(h->pos.time);
      hsize_t start = 0;
      H5Sselect_hyperslab(fs2, H5S_SELECT_SET, &start, NULL, &h->frames, NULL);
      H5Dread(h->pos.time, H5T_NATIVE_DOUBLE, ms, fs2, H5P_DEFAULT, h->times);
      H5Sclose(ms);
      H5Sclose(fs2);
    }
  } else {
    h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    rc = h->file < 0 || create_layout(h, s);
    if (rc) {
      H5Pclose(fapl);
      agglo_fail(err, errlen, "%s: cannot create the H5MD file (directory writable? disk full?)", path);
      agglo_h5md_close(h);
      return NULL;
    }
  }
  H5Pclose(fapl);
  if (observables_setup(h, observables, probe) != 0 || H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0) {
    agglo_fail(err, errlen, "%s: cannot write the observables group", path);
    agglo_h5md_close(h);
    return NULL;
  }
  return h;
}

int agglo_h5md_frame(agglo_h5md *h, const agglo_system *s, char *err, size_t errlen) {
  if (s->n != h->n) return agglo_fail(err, errlen, "%s: the particle count changed", h->path);
  hsize_t k = h->frames;
  int64_t step = s->step;
  double t = s->t, box[9] = {0};
  for (int a = 0; a < 3; a++) box[4 * a] = s->box.len[a];
  int rc = series_put(&h->edges, k, step, t, H5T_NATIVE_DOUBLE, box);
  for (size_t i = 0; i < 3 * s->n; i++) h->fbuf[i] = (float)s->x[i];
  rc = rc || series_put(&h->pos, k, step, t, H5T_NATIVE_FLOAT, h->fbuf);
  for (size_t i = 0; i < 3 * s->n; i++) h->fbuf[i] = (float)s->v[i];
  rc = rc || series_put(&h->vel, k, step, t, H5T_NATIVE_FLOAT, h->fbuf);
  rc = rc || series_put(&h->clu, k, step, t, H5T_NATIVE_INT32, s->cluster);
  if (rc || H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
    return agglo_fail(err, errlen, "%s: write failed (disk full?)", h->path);
  if (k + 1 > h->cap) {
    size_t cap = 2 * h->cap + 64;
    double *t2 = realloc(h->times, cap * sizeof *t2);
    if (!t2) return agglo_fail(err, errlen, "%s: out of memory", h->path);
    h->times = t2, h->cap = cap;
  }
  h->times[k] = t;
  h->frames = k + 1;
  return write_xdmf(h, err, errlen);
}

int agglo_h5md_observables(agglo_h5md *h, int64_t step, double t, const char *row, char *err,
                           size_t errlen) {
  if (!h->nobs) return 0;
  /* the row starts with time and step, which the series carry themselves */
  const char *p = row;
  for (int skip = 0; skip < 2 && p; skip++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  int rc = 0;
  for (int k = 0; k < h->nobs && rc == 0; k++) {
    double v = NAN;
    if (p && *p && *p != ',' && *p != '\n') {
      char *end;
      v = strtod(p, &end);
      if (end == p) v = NAN;
    }
    rc = series_put(&h->obs[k], h->obs_rows, step, t, H5T_NATIVE_DOUBLE, &v);
    p = p ? strchr(p, ',') : NULL;
    if (p) p++;
  }
  if (rc || H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
    return agglo_fail(err, errlen, "%s: write of the observables failed (disk full?)", h->path);
  h->obs_rows++;
  return 0;
}

/* The XDMF description of the frames written so far (written aside, then renamed). */
static int write_xdmf(agglo_h5md *h, char *err, size_t errlen) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", h->xdmf);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
  size_t n = h->n;
  unsigned long long T = h->frames;
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
             "<!-- agglo: the particles of %s, frame by frame (docs/formats.md) -->\n"
             "<Xdmf Version=\"3.0\">\n <Domain>\n"
             "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          h->base);
  const char *all = "/particles/all";
  for (unsigned long long k = 0; k < T; k++) {
    fprintf(f, "   <Grid Name=\"frame %llu\" GridType=\"Uniform\">\n    <Time Value=\"%.17g\"/>\n"
               "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%zu\" NodesPerElement=\"1\"/>\n",
            k, h->times[k], n);
    /* row k of [frames, n, 3] and [frames, n] series */
    const char *vec[][3] = {{"Geometry", "position", ""}, {"Attribute", "velocity", "Vector"}};
    for (int q = 0; q < 2; q++) {
      if (q == 0) fprintf(f, "    <Geometry GeometryType=\"XYZ\">\n");
      else fprintf(f, "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n");
      fprintf(f, "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %zu 3\" Type=\"HyperSlab\">\n"
                 "      <DataItem Dimensions=\"3 3\" Format=\"XML\">%llu 0 0 1 1 1 1 %zu 3</DataItem>\n"
                 "      <DataItem Dimensions=\"%llu %zu 3\" NumberType=\"Float\" Precision=\"4\" "
                 "Format=\"HDF\">%s:%s/%s/value</DataItem>\n     </DataItem>\n    </%s>\n",
              n, k, n, T, n, h->base, all, vec[q][1], vec[q][0]);
    }
    fprintf(f, "    <Attribute Name=\"cluster\" AttributeType=\"Scalar\" Center=\"Node\">\n"
               "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %zu\" Type=\"HyperSlab\">\n"
               "      <DataItem Dimensions=\"3 2\" Format=\"XML\">%llu 0 1 1 1 %zu</DataItem>\n"
               "      <DataItem Dimensions=\"%llu %zu\" NumberType=\"Int\" Precision=\"4\" "
               "Format=\"HDF\">%s:%s/cluster/value</DataItem>\n     </DataItem>\n    </Attribute>\n",
            n, k, n, T, n, h->base, all);
    const char *fixed_names[] = {"radius", "mass", "id"};
    for (int q = 0; q < 3; q++)
      fprintf(f, "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                 "     <DataItem Dimensions=\"%zu\" NumberType=\"%s\" Precision=\"8\" "
                 "Format=\"HDF\">%s:%s/%s</DataItem>\n    </Attribute>\n",
              fixed_names[q], n, q == 2 ? "Int" : "Float", h->base, all, fixed_names[q]);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, h->xdmf) != 0)
    return agglo_fail(err, errlen, "%s: write failed", h->xdmf);
  return 0;
}

int agglo_h5md_close(agglo_h5md *h) {
  if (!h) return 0;
  int rc = 0;
  series_close(&h->pos), series_close(&h->vel), series_close(&h->clu), series_close(&h->edges);
  for (int k = 0; k < h->nobs; k++) series_close(&h->obs[k]);
  if (h->file > 0 && H5Fclose(h->file) < 0) rc = -1;
  free(h->path);
  free(h->xdmf);
  free(h->times);
  free(h->fbuf);
  free(h);
  return rc;
}
