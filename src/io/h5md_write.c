/* H5MD 1.1 writer (docs/formats.md): the particle group particles/trajectory (the name
   MDAnalysis builds its topology from) with position's step and time hard-linked by velocity,
   cluster and box/edges (the specification requires it of the box), the fixed per-particle data
   once, observables/ with one row per frame on their own step and time, unit attributes
   (src/io/units.c); an XDMF file beside it, rewritten after every frame, whose frames are plain
   datasets: xdmf/<element>/<frame>, virtual datasets mapping a frame of the H5MD series (every
   ParaView XDMF reader reads plain datasets; ParaView's Xdmf3 readers do not read hyperslabs). */
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
#define GROUP "/particles/trajectory"

typedef struct { hid_t step, time, value; } series;

struct agglo_h5md {
  hid_t file;
  char *path, *xdmf;
  const char *base; /* the file name without its directory, as the XDMF refers to it */
  size_t n;
  int dim, precision64, species;
  series pos;              /* the frames' step and time are position's */
  hid_t vel, clu, edges;   /* values of the elements sharing them */
  hsize_t frames;
  double *times;
  int64_t last_step;       /* of the last frame */
  size_t cap;
  void *buf;               /* one frame of vectors in the file's precision */
  double *r0, *m0;         /* the fixed data, checked every frame */
  int64_t *id0;
  int nobs;                /* obs[0] is dt, then the named observables */
  series obs[MAX_OBS];
  double kept[MAX_OBS];    /* the last observables given, at step kept_step */
  int64_t kept_step;
  int have_kept;
  int deflate;
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

/* A variable-length string attribute (the H5MD units module's type; h5py reads it as str). */
static int attr_vlstring(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, t, &value);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  return rc < 0 ? -1 : 0;
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

static int attr_doubles(hid_t obj, const char *name, const double *v, hsize_t count) {
  hid_t sp = H5Screate_simple(1, &count, NULL);
  hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, v);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
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

/* The unit attribute of a quantity (none in unknown units or for a name the table lacks). */
static int attr_unit(hid_t ds, const char *quantity, int dim, const agglo_h5md_options *o) {
  agglo_dimension d;
  char unit[64];
  if (o->units == AGGLO_UNITS_UNKNOWN || agglo_quantity_dimension(quantity, dim, o->gamma_weighted, &d) != 0)
    return 0;
  agglo_unit_string(d, o->units, unit, sizeof unit);
  return attr_vlstring(ds, "unit", unit);
}

/* A time-dependent element with its own step and time: name/{step, time, value}. */
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

/* A time-dependent element sampled with position: its step and time are hard links to
   position's; *value the new value dataset of shape [frames, tail]. */
static int linked_create(hid_t parent, const char *name, hid_t type, int tail_rank,
                         const hsize_t *tail, int level, hid_t *value) {
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return -1;
  hsize_t dims[4] = {0}, chunk[4] = {1};
  for (int k = 0; k < tail_rank; k++) dims[k + 1] = chunk[k + 1] = tail[k];
  int rc = H5Lcreate_hard(parent, GROUP "/position/step", g, "step", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
           H5Lcreate_hard(parent, GROUP "/position/time", g, "time", H5P_DEFAULT, H5P_DEFAULT) < 0;
  *value = make_dataset(g, "value", type, tail_rank + 1, dims, chunk, level);
  H5Gclose(g);
  return rc || *value < 0 ? -1 : 0;
}

static int series_open(hid_t parent, const char *name, series *s) {
  char p[512];
  snprintf(p, sizeof p, "%s/step", name), s->step = H5Dopen2(parent, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/time", name), s->time = H5Dopen2(parent, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/value", name), s->value = H5Dopen2(parent, p, H5P_DEFAULT);
  return s->step < 0 || s->time < 0 || s->value < 0 ? -1 : 0;
}

static void close_ds(hid_t *ds) {
  if (*ds > 0) H5Dclose(*ds);
  *ds = 0;
}

static void series_close(series *s) { close_ds(&s->step), close_ds(&s->time), close_ds(&s->value); }

/* Row `index` of ds (rank 1 + rank of a row) set to data; resize: ds made index + 1 rows long
   first (a continued run drops the rows a killed run wrote after its restart point). */
static int write_row(hid_t ds, hid_t memtype, const void *data, hsize_t index, int resize) {
  hid_t fs = H5Dget_space(ds);
  int rank = H5Sget_simple_extent_ndims(fs);
  hsize_t dims[4], start[4] = {index, 0, 0, 0}, count[4];
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  dims[0] = index + 1;
  if (resize && H5Dset_extent(ds, dims) < 0) return -1;
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

static int put_row(hid_t ds, hid_t memtype, const void *data, hsize_t index) {
  return write_row(ds, memtype, data, index, 1);
}

/* Value `index` of a one-dimensional dataset. */
static int read_at(hid_t ds, hsize_t index, hid_t memtype, void *out) {
  hid_t fs = H5Dget_space(ds);
  hsize_t one = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &index, NULL, &one, NULL);
  hid_t ms = H5Screate_simple(1, &one, NULL);
  herr_t rc = H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, out);
  H5Sclose(ms);
  H5Sclose(fs);
  return rc < 0 ? -1 : 0;
}

static hsize_t rows(hid_t ds) {
  hid_t fs = H5Dget_space(ds);
  hsize_t dims[4] = {0};
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  return dims[0];
}

/* A fixed per-particle dataset of n values (compressed). */
static hid_t fixed(hid_t g, const char *name, hid_t filetype, hid_t memtype, size_t n, const void *v) {
  hsize_t dims = n, chunk = n ? n : 1;
  hid_t sp = H5Screate_simple(1, &dims, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(pl, 1, &chunk);
  H5Pset_shuffle(pl);
  H5Pset_deflate(pl, DEFLATE_LEVEL);
  hid_t ds = H5Dcreate2(g, name, filetype, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
  if (ds >= 0 && H5Dwrite(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) H5Dclose(ds), ds = -1;
  H5Pclose(pl);
  H5Sclose(sp);
  return ds;
}

/* The fixed data with its unit (radius, mass) or without (id, species). */
static int fixed_quantity(hid_t g, const char *name, hid_t filetype, hid_t memtype, size_t n,
                          const void *v, int dim, const agglo_h5md_options *o) {
  hid_t ds = fixed(g, name, filetype, memtype, n, v);
  int rc = ds < 0 || (memtype == H5T_NATIVE_DOUBLE && attr_unit(ds, name, dim, o) != 0);
  if (ds >= 0) H5Dclose(ds);
  return rc ? -1 : 0;
}

/* The layout of a new file. */
static int create_layout(agglo_h5md *h, const agglo_system *s, const agglo_h5md_options *o) {
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
  if (o->units == AGGLO_UNITS_SI) { /* the units module: unit strings in the SI system */
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    a = H5Gcreate2(g, "modules/units", lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    int module_version[2] = {1, 0};
    rc |= a < 0 || attr_ints(a, "version", module_version, 2) || attr_vlstring(a, "system", "SI");
    if (a >= 0) H5Gclose(a);
  }
  H5Gclose(g);
  /* agglo's own parameters: the run's dimension (vectors always have 3 components), its units,
     the box's lower corner (H5MD's box is [0, edges); a 2D run's slab is centred on z = 0) */
  g = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  rc |= attr_ints(g, "dimension", &s->dim, 1);
  rc |= attr_doubles(g, "box_origin", s->box.lo, 3);
  if (o->units != AGGLO_UNITS_UNKNOWN) rc |= attr_vlstring(g, "units", agglo_units_name(o->units));
  H5Gclose(g);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t all = H5Gcreate2(f, GROUP, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(lcpl);
  if (all < 0) return -1;
  hid_t vec_type = h->precision64 ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
  hsize_t mat[2] = {3, 3}, vec[2] = {s->n, 3}, one[1] = {s->n};
  rc |= series_create(all, "position", vec_type, 2, vec, o->deflate, &h->pos);
  rc |= rc || attr_unit(h->pos.value, "position", s->dim, o) || attr_unit(h->pos.time, "time", s->dim, o);
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
  H5Gclose(box);
  rc |= rc || linked_create(all, "box/edges", H5T_IEEE_F64LE, 2, mat, 0, &h->edges) ||
        attr_unit(h->edges, "edges", s->dim, o);
  rc |= rc || linked_create(all, "velocity", vec_type, 2, vec, o->deflate, &h->vel) ||
        attr_unit(h->vel, "velocity", s->dim, o);
  rc |= rc || linked_create(all, "cluster", H5T_STD_I32LE, 1, one, DEFLATE_LEVEL, &h->clu);
  rc |= rc || fixed_quantity(all, "radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->n, s->r, s->dim, o);
  rc |= rc || fixed_quantity(all, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->n, s->m, s->dim, o);
  rc |= rc || fixed_quantity(all, "id", H5T_STD_I64LE, H5T_NATIVE_INT64, s->n, s->id, s->dim, o);
  if (o->species)
    rc |= rc || fixed_quantity(all, "species", H5T_STD_I32LE, H5T_NATIVE_INT32, s->n, o->species, s->dim, o);
  H5Gclose(all);
  return rc ? -1 : 0;
}

/* Rows of a step series at or before step (a run killed after its restart point wrote more: the
   continuation overwrites them). */
static hsize_t rows_upto(hid_t step_ds, hsize_t rows_have, int64_t step) {
  if (!rows_have) return 0;
  int64_t *st = malloc(rows_have * sizeof *st);
  hid_t ms = H5Screate_simple(1, &rows_have, NULL), fs = H5Dget_space(step_ds);
  hsize_t start = 0;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &rows_have, NULL);
  int ok = st && H5Dread(step_ds, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, st) >= 0;
  H5Sclose(ms);
  H5Sclose(fs);
  hsize_t k = 0;
  while (ok && k < rows_have && st[k] <= step) k++;
  free(st);
  return ok ? k : rows_have;
}

/* Observable `name` (a stats column, or dt): created with its unit, or opened in a continued file. */
static int observable_add(agglo_h5md *h, hid_t g, const char *name, const agglo_h5md_options *o,
                          int append, char *err, size_t errlen) {
  agglo_dimension d;
  if (o->known_observables && agglo_quantity_dimension(name, h->dim, 0, &d) != 0)
    return agglo_fail(err, errlen, "%s: observable '%s' has no unit in src/io/units.c", h->path, name);
  if (h->nobs == MAX_OBS) return agglo_fail(err, errlen, "%s: more than %d observables", h->path, MAX_OBS);
  series *s = &h->obs[h->nobs++];
  if (append)
    return H5Lexists(g, name, H5P_DEFAULT) > 0 && series_open(g, name, s) == 0
               ? 0
               : agglo_fail(err, errlen, "%s: cannot continue this file: it has no observable '%s' "
                            "(written by another scenario?)", h->path, name);
  if (series_create(g, name, H5T_IEEE_F64LE, 0, NULL, 0, s) != 0 || attr_unit(s->value, name, h->dim, o) != 0 ||
      attr_unit(s->time, "time", h->dim, o) != 0)
    return agglo_fail(err, errlen, "%s: cannot write the observables group", h->path);
  return 0;
}

/* The observables: dt, then the names of a comma-separated list (time and step are every
   series' own). A continued file keeps the frames that have their observables rows. */
static int observables_setup(agglo_h5md *h, const agglo_h5md_options *o, int append, char *err, size_t errlen) {
  char *list = strdup(o->observables ? o->observables : ""), *save = NULL;
  if (!list) return agglo_fail(err, errlen, "%s: out of memory", h->path);
  hid_t g = append ? H5Gopen2(h->file, "observables", H5P_DEFAULT)
                   : H5Gcreate2(h->file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g < 0 ? agglo_fail(err, errlen, "%s: no observables group", h->path)
                 : observable_add(h, g, "dt", o, append, err, errlen);
  for (char *name = strtok_r(list, ",", &save); name && rc == 0; name = strtok_r(NULL, ",", &save))
    if (strcmp(name, "time") && strcmp(name, "step")) rc = observable_add(h, g, name, o, append, err, errlen);
  if (g >= 0) H5Gclose(g);
  free(list);
  for (int q = 0; append && rc == 0 && q < h->nobs; q++) {
    hsize_t r[] = {rows(h->obs[q].step), rows(h->obs[q].time), rows(h->obs[q].value)};
    for (int k = 0; k < 3; k++) h->frames = r[k] < h->frames ? r[k] : h->frames;
  }
  return rc;
}

/* Read a fixed dataset of the continued file (the data every frame must repeat). */
static int read_fixed(hid_t file, const char *name, hid_t memtype, void *out) {
  hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  int rc = ds < 0 || H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0;
  if (ds >= 0) H5Dclose(ds);
  return rc ? -1 : 0;
}

static int write_xdmf(agglo_h5md *h, char *err, size_t errlen);

/* The file of a restarted run: its frames up to the restart point, which the run continues. */
static int continue_file(agglo_h5md *h, const agglo_system *s, hid_t fapl, char *err, size_t errlen) {
  const char *p = h->path;
  h->file = H5Fopen(p, H5F_ACC_RDWR, fapl);
  if (h->file < 0) return agglo_fail(err, errlen, "%s: cannot continue this file: not an HDF5 file", p);
  if (H5Lexists(h->file, "/particles", H5P_DEFAULT) <= 0 || H5Lexists(h->file, GROUP, H5P_DEFAULT) <= 0)
    return agglo_fail(err, errlen, "%s: cannot continue this file: no " GROUP " (an H5MD file of an older "
                      "agglo: give another output directory)", p);
  h->edges = H5Dopen2(h->file, GROUP "/box/edges/value", H5P_DEFAULT);
  h->vel = H5Dopen2(h->file, GROUP "/velocity/value", H5P_DEFAULT);
  h->clu = H5Dopen2(h->file, GROUP "/cluster/value", H5P_DEFAULT);
  if (series_open(h->file, GROUP "/position", &h->pos) || h->edges < 0 || h->vel < 0 || h->clu < 0)
    return agglo_fail(err, errlen, "%s: cannot continue this file: not an H5MD trajectory of agglo", p);
  hid_t fs = H5Dget_space(h->pos.value), type = H5Dget_type(h->pos.value);
  hsize_t dims[3] = {0};
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  int file64 = H5Tget_size(type) == 8;
  H5Tclose(type);
  if (dims[1] != s->n)
    return agglo_fail(err, errlen, "%s: has %llu particles, the run %zu: cannot continue it", p,
                      (unsigned long long)dims[1], s->n);
  if (file64 != h->precision64)
    return agglo_fail(err, errlen, "%s: positions in %s precision, the run asks %s (output.precision): "
                      "cannot continue it", p, file64 ? "double" : "single", h->precision64 ? "double" : "single");
  if (read_fixed(h->file, GROUP "/radius", H5T_NATIVE_DOUBLE, h->r0) || read_fixed(h->file, GROUP "/mass", H5T_NATIVE_DOUBLE, h->m0) ||
      read_fixed(h->file, GROUP "/id", H5T_NATIVE_INT64, h->id0))
    return agglo_fail(err, errlen, "%s: cannot continue this file: its radius, mass or id is unreadable", p);
  /* the complete frames (a frame cut by a kill has fewer rows in a later element) */
  hsize_t r[] = {rows(h->pos.step), rows(h->pos.time), dims[0], rows(h->vel), rows(h->clu), rows(h->edges)};
  h->frames = r[0];
  for (size_t k = 1; k < sizeof r / sizeof r[0]; k++) h->frames = r[k] < h->frames ? r[k] : h->frames;
  h->frames = rows_upto(h->pos.step, h->frames, s->step);
  /* the frames announced must be in the file (positions as floats, time, step:
     AGGLO_DEFLATE_MAX_RATIO), as the readers check */
  hsize_t size = 0;
  H5Fget_filesize(h->file, &size);
  if ((double)h->frames * (12.0 * (double)s->n + 16) > (double)AGGLO_DEFLATE_MAX_RATIO * (double)size)
    return agglo_fail(err, errlen, "%s: announces %llu frames of %zu particles, more than a file of %llu "
                      "bytes holds: cannot continue it", p, (unsigned long long)h->frames, s->n,
                      (unsigned long long)size);
  h->cap = h->frames + 64;
  h->times = malloc(h->cap * sizeof *h->times);
  if (!h->times) return agglo_fail(err, errlen, "%s: out of memory", p);
  for (hsize_t k = 0; k < h->frames; k++)
    if (read_at(h->pos.time, k, H5T_NATIVE_DOUBLE, &h->times[k]) != 0)
      return agglo_fail(err, errlen, "%s: cannot continue this file: its times are unreadable", p);
  return 0;
}

int agglo_h5md_xdmf_path(const char *path, char *buf, size_t len) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
  return (size_t)snprintf(buf, len, "%.*s.xdmf", (int)stem, path) < len ? 0 : -1;
}

agglo_h5md *agglo_h5md_open(const char *path, const agglo_system *s, int append,
                            const agglo_h5md_options *o, char *err, size_t errlen) {
  agglo_h5md *h = calloc(1, sizeof *h);
  size_t len = strlen(path), n = s->n ? s->n : 1;
  if (h) h->deflate = o->deflate, h->step0 = s->step, h->precision64 = o->precision64;
  if (!h || !(h->path = strdup(path)) || !(h->xdmf = malloc(len + 8)) ||
      !(h->buf = malloc(3 * n * sizeof(double))) || !(h->r0 = malloc(n * sizeof *h->r0)) ||
      !(h->m0 = malloc(n * sizeof *h->m0)) || !(h->id0 = malloc(n * sizeof *h->id0))) {
    agglo_fail(err, errlen, "%s: out of memory", path);
    agglo_h5md_close(h);
    return NULL;
  }
  agglo_h5md_xdmf_path(path, h->xdmf, len + 8);
  const char *slash = strrchr(path, '/');
  h->base = slash ? h->path + (slash - path) + 1 : h->path;
  h->n = s->n, h->dim = s->dim, h->species = o->species != NULL;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* readers (h5py, ParaView) may open the file while the run writes it */
  H5Pset_file_locking(fapl, 0, 1);
  FILE *pf = append ? fopen(path, "rb") : NULL;
  int probe = pf != NULL, rc;
  if (pf) fclose(pf);
  if (probe) {
    rc = continue_file(h, s, fapl, err, errlen);
  } else {
    memcpy(h->r0, s->r, s->n * sizeof *h->r0);
    memcpy(h->m0, s->m, s->n * sizeof *h->m0);
    memcpy(h->id0, s->id, s->n * sizeof *h->id0);
    h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    rc = h->file < 0 || create_layout(h, s, o) != 0;
    if (rc) agglo_fail(err, errlen, "%s: cannot create the H5MD file (directory writable? disk full?)", path);
  }
  H5Pclose(fapl);
  if (!rc) rc = observables_setup(h, o, probe, err, errlen);
  if (!rc && h->frames && read_at(h->pos.step, h->frames - 1, H5T_NATIVE_INT64, &h->last_step) != 0)
    rc = agglo_fail(err, errlen, "%s: cannot continue this file: its steps are unreadable", path);
  if (!rc && H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0) rc = agglo_fail(err, errlen, "%s: write failed (disk full?)", path);
  if (rc) {
    agglo_h5md_close(h);
    return NULL;
  }
  return h;
}

/* The view of frame k of element `el` as a plain dataset xdmf/<el>/<k> (a virtual dataset of
   the H5MD series: no copy), for the XDMF readers. Kept when it exists (a continued run). */
static int xdmf_view(agglo_h5md *h, const char *el, hid_t src, hsize_t k) {
  char name[128];
  snprintf(name, sizeof name, "/xdmf/%s/%llu", el, (unsigned long long)k);
  if (H5Lexists(h->file, "/xdmf", H5P_DEFAULT) > 0 && H5Lexists(h->file, name, H5P_DEFAULT) > 0) return 0;
  hid_t fs = H5Dget_space(src), type = H5Dget_type(src);
  int rank = H5Sget_simple_extent_ndims(fs);
  hsize_t dims[3], start[3] = {k, 0, 0}, count[3];
  H5Sget_simple_extent_dims(fs, dims, NULL);
  count[0] = 1;
  for (int q = 1; q < rank; q++) count[q] = dims[q];
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t vs = H5Screate_simple(rank - 1, count + 1, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
  char srcname[128];
  snprintf(srcname, sizeof srcname, GROUP "/%s/value", !strcmp(el, "edges") ? "box/edges" : el);
  int rc = H5Pset_virtual(pl, vs, ".", srcname, fs) < 0;
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t ds = rc ? -1 : H5Dcreate2(h->file, name, type, vs, lcpl, pl, H5P_DEFAULT);
  if (ds >= 0) H5Dclose(ds);
  H5Pclose(lcpl);
  H5Pclose(pl);
  H5Sclose(vs);
  H5Sclose(fs);
  H5Tclose(type);
  return ds < 0 ? -1 : 0;
}

/* Observables row k at (step, t): dt from the previous frame (frame 0: to the next, filled in
   with frame 1), the others the values kept for this step, else NaN. */
static int observables_row(agglo_h5md *h, hsize_t k, int64_t step, double t) {
  int rc = 0;
  for (int q = 0; q < h->nobs && rc == 0; q++) {
    double v = q == 0 ? (k ? t - h->times[k - 1] : NAN) : h->have_kept && h->kept_step == step ? h->kept[q] : NAN;
    rc = put_row(h->obs[q].step, H5T_NATIVE_INT64, &step, k) || put_row(h->obs[q].time, H5T_NATIVE_DOUBLE, &t, k) ||
         put_row(h->obs[q].value, H5T_NATIVE_DOUBLE, &v, k);
    if (rc == 0 && q == 0 && k == 1) rc = write_row(h->obs[0].value, H5T_NATIVE_DOUBLE, &v, 0, 0);
  }
  return rc;
}

int agglo_h5md_frame(agglo_h5md *h, const agglo_system *s, char *err, size_t errlen) {
  if (s->n != h->n) return agglo_fail(err, errlen, "%s: the particle count changed", h->path);
  hsize_t k = h->frames;
  for (size_t i = 0; i < s->n; i++)
    if (s->id[i] != h->id0[i] || memcmp(&s->r[i], &h->r0[i], sizeof(double)) || memcmp(&s->m[i], &h->m0[i], sizeof(double)))
      return agglo_fail(err, errlen, "%s: frame %llu: particle %zu (id %lld): its %s differs from the first "
                        "frame's, which H5MD stores once (docs/formats.md)", h->path, (unsigned long long)k + 1, i,
                        (long long)s->id[i], s->id[i] != h->id0[i] ? "id" : s->r[i] != h->r0[i] ? "radius" : "mass");
  if (k + 1 > h->cap) {
    size_t cap = 2 * h->cap + 64;
    double *t2 = realloc(h->times, cap * sizeof *t2);
    if (!t2) return agglo_fail(err, errlen, "%s: out of memory", h->path);
    h->times = t2, h->cap = cap;
  }
  int64_t step = s->step;
  double t = s->t, box[9] = {0};
  for (int a = 0; a < 3; a++) box[4 * a] = s->box.len[a];
  box[3] = s->box.shear_x; /* Lees-Edwards: the second edge vector (shear_x, L_y, 0), 0 unsheared */
  hid_t vec_mem = h->precision64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
  const double *vec[2] = {s->x, s->v};
  hid_t vec_ds[2] = {h->pos.value, h->vel};
  int rc = put_row(h->pos.step, H5T_NATIVE_INT64, &step, k) || put_row(h->pos.time, H5T_NATIVE_DOUBLE, &t, k) ||
           put_row(h->edges, H5T_NATIVE_DOUBLE, box, k);
  for (int q = 0; q < 2 && !rc; q++) {
    const void *data = vec[q];
    if (!h->precision64) {
      float *f = h->buf;
      for (size_t i = 0; i < 3 * s->n; i++) f[i] = (float)vec[q][i];
      data = f;
    }
    rc = put_row(vec_ds[q], vec_mem, data, k);
  }
  rc = rc || put_row(h->clu, H5T_NATIVE_INT32, s->cluster, k) || observables_row(h, k, step, t) ||
       xdmf_view(h, "position", h->pos.value, k) || xdmf_view(h, "velocity", h->vel, k) ||
       xdmf_view(h, "cluster", h->clu, k);
  if (rc || H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
    return agglo_fail(err, errlen, "%s: write failed (disk full?)", h->path);
  h->times[k] = t;
  h->last_step = step;
  h->frames = k + 1;
  return write_xdmf(h, err, errlen);
}

int agglo_h5md_observables(agglo_h5md *h, int64_t step, const double *values, char *err, size_t errlen) {
  for (int q = 1; q < h->nobs; q++) h->kept[q] = values[q - 1];
  h->kept_step = step, h->have_kept = 1;
  if (!h->frames || h->last_step != step) return 0;
  int rc = 0;
  for (int q = 1; q < h->nobs && rc == 0; q++) rc = write_row(h->obs[q].value, H5T_NATIVE_DOUBLE, &h->kept[q], h->frames - 1, 0);
  if (rc || H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
    return agglo_fail(err, errlen, "%s: write of the observables failed (disk full?)", h->path);
  return 0;
}

int agglo_h5md_observables_csv(agglo_h5md *h, const char *row, char *err, size_t errlen) {
  double v[MAX_OBS];
  int64_t step = 0;
  const char *p = strchr(row, ','); /* time, then step: the series carry them */
  if (p) step = strtoll(p + 1, NULL, 10), p = strchr(p + 1, ',');
  for (int q = 1; q < h->nobs; q++) {
    v[q - 1] = NAN;
    if (p) p++;
    if (p && *p && *p != ',' && *p != '\n') {
      char *end;
      double x = strtod(p, &end);
      if (end != p) v[q - 1] = x;
    }
    p = p ? strchr(p, ',') : NULL;
  }
  return agglo_h5md_observables(h, step, v, err, errlen);
}

/* The XDMF description of the frames written so far (written aside, then renamed). */
static int write_xdmf(agglo_h5md *h, char *err, size_t errlen) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", h->xdmf);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
  size_t n = h->n;
  int prec = h->precision64 ? 8 : 4;
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
             "<!-- agglo: the particles of %s, frame by frame (docs/formats.md) -->\n"
             "<Xdmf Version=\"3.0\">\n <Domain>\n"
             "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          h->base);
  for (unsigned long long k = 0; k < h->frames; k++) {
    fprintf(f, "   <Grid Name=\"frame %llu\" GridType=\"Uniform\">\n    <Time Value=\"%.17g\"/>\n"
               "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%zu\" NodesPerElement=\"1\"/>\n"
               "    <Geometry GeometryType=\"XYZ\">\n"
               "     <DataItem Dimensions=\"%zu 3\" NumberType=\"Float\" Precision=\"%d\" Format=\"HDF\">"
               "%s:/xdmf/position/%llu</DataItem>\n    </Geometry>\n"
               "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
               "     <DataItem Dimensions=\"%zu 3\" NumberType=\"Float\" Precision=\"%d\" Format=\"HDF\">"
               "%s:/xdmf/velocity/%llu</DataItem>\n    </Attribute>\n"
               "    <Attribute Name=\"cluster\" AttributeType=\"Scalar\" Center=\"Node\">\n"
               "     <DataItem Dimensions=\"%zu\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
               "%s:/xdmf/cluster/%llu</DataItem>\n    </Attribute>\n",
            k, h->times[k], n, n, prec, h->base, k, n, prec, h->base, k, n, h->base, k);
    const char *names[] = {"radius", "mass", "id", "species"};
    for (int q = 0; q < 3 + h->species; q++)
      fprintf(f, "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                 "     <DataItem Dimensions=\"%zu\" NumberType=\"%s\" Precision=\"%d\" "
                 "Format=\"HDF\">%s:" GROUP "/%s</DataItem>\n    </Attribute>\n",
              names[q], n, q < 2 ? "Float" : "Int", q == 3 ? 4 : 8, h->base, names[q]);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, h->xdmf) != 0)
    return agglo_fail(err, errlen, "%s: write failed", h->xdmf);
  return 0;
}

size_t agglo_h5md_last_frame(const agglo_h5md *h, int64_t *step, double *t) {
  *step = h->frames ? h->last_step : -1;
  *t = h->frames ? h->times[h->frames - 1] : -INFINITY;
  return h->frames;
}

int agglo_h5md_close(agglo_h5md *h) {
  if (!h) return 0;
  int rc = 0;
  series_close(&h->pos), close_ds(&h->vel), close_ds(&h->clu), close_ds(&h->edges);
  for (int k = 0; k < h->nobs; k++) series_close(&h->obs[k]);
  if (h->file > 0 && H5Fclose(h->file) < 0) rc = -1;
  free(h->path), free(h->xdmf), free(h->times), free(h->buf), free(h->r0), free(h->m0), free(h->id0);
  free(h);
  return rc;
}
