/* The restart point as one HDF5 file, state.h5 (docs/formats.md). One file needs no pair
   protocol: it is written as state.h5.new, synced and renamed, so a kill leaves either the old
   state.h5 or the new one (a leftover state.h5.new is removed by agglo_checkpoint_recover).

   Layout: particles/{position, velocity} (n x 3 float64), particles/{radius, mass} (n float64),
   particles/id (n int64), particles/cluster (n int32); box/{lo, hi, len} (3 float64),
   box/periodic (3 int32); time (float64), step (int64), dim (int32) scalars; model/contacts
   (uint8, the exact bytes of contacts.txt: the model's save and the seal, checkpoint.h). Root
   attributes: format = "agglo-checkpoint", version = 1, model = the model's name. */
#include "io/checkpoint_h5.h"
#include "io/checkpoint.h"
#include "core/error.h"
#include "core/files.h"
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Object creation without modification times: the same state writes the same bytes. */
static hid_t untimed(hid_t cls) {
  hid_t pl = H5Pcreate(cls);
  if (pl >= 0) H5Pset_obj_track_times(pl, 0);
  return pl;
}

static hid_t group(hid_t f, const char *name) {
  hid_t pl = untimed(H5P_GROUP_CREATE), g = H5Gcreate2(f, name, H5P_DEFAULT, pl, H5P_DEFAULT);
  H5Pclose(pl);
  return g;
}

static int put(hid_t loc, const char *name, hid_t type, int rank, hsize_t d0, hsize_t d1,
               const void *data) {
  hsize_t dims[2] = {d0, d1};
  hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  if (sp < 0) return -1;
  hid_t pl = untimed(H5P_DATASET_CREATE);
  hid_t ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
  H5Pclose(pl);
  H5Sclose(sp);
  if (ds < 0) return -1;
  int rc = (rank && d0 == 0) ? 0 : (H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ? -1 : 0);
  if (H5Dclose(ds) < 0) rc = -1;
  return rc;
}

static int put_attr_str(hid_t loc, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(value) + 1);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 || H5Awrite(a, t, value) < 0 ? -1 : 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  return rc;
}

static int put_attr_int(hid_t loc, const char *name, int value) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(loc, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 || H5Awrite(a, H5T_NATIVE_INT, &value) < 0 ? -1 : 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return rc;
}

static int write_file(const char *path, const agglo_system *s, const agglo_model *m,
                      const char *bytes, size_t len) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return -1;
  int rc = 0;
  hid_t g = group(f, "particles");
  size_t n = s->n;
  rc |= g < 0;
  if (g >= 0) {
    rc |= put(g, "position", H5T_NATIVE_DOUBLE, 2, n, 3, s->x);
    rc |= put(g, "velocity", H5T_NATIVE_DOUBLE, 2, n, 3, s->v);
    rc |= put(g, "radius", H5T_NATIVE_DOUBLE, 1, n, 0, s->r);
    rc |= put(g, "mass", H5T_NATIVE_DOUBLE, 1, n, 0, s->m);
    rc |= put(g, "id", H5T_NATIVE_INT64, 1, n, 0, s->id);
    rc |= put(g, "cluster", H5T_NATIVE_INT32, 1, n, 0, s->cluster);
    H5Gclose(g);
  }
  g = group(f, "box");
  rc |= g < 0;
  if (g >= 0) {
    int32_t per[3] = {s->box.periodic[0], s->box.periodic[1], s->box.periodic[2]};
    rc |= put(g, "lo", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.lo);
    rc |= put(g, "hi", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.hi);
    rc |= put(g, "len", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.len);
    rc |= put(g, "periodic", H5T_NATIVE_INT32, 1, 3, 0, per);
    H5Gclose(g);
  }
  int32_t dim = s->dim;
  int64_t step = s->step;
  rc |= put(f, "time", H5T_NATIVE_DOUBLE, 0, 0, 0, &s->t);
  rc |= put(f, "step", H5T_NATIVE_INT64, 0, 0, 0, &step);
  rc |= put(f, "dim", H5T_NATIVE_INT32, 0, 0, 0, &dim);
  g = group(f, "model");
  rc |= g < 0;
  if (g >= 0) {
    rc |= put(g, "contacts", H5T_NATIVE_UINT8, 1, len, 0, bytes);
    H5Gclose(g);
  }
  rc |= put_attr_str(f, "format", "agglo-checkpoint");
  rc |= put_attr_int(f, "version", 1);
  rc |= put_attr_str(f, "model", m && m->name ? m->name : "");
  if (H5Fclose(f) < 0) rc = -1;
  return rc ? -1 : 0;
}

int agglo_checkpoint_h5_write(const char *dir, const agglo_system *s, const agglo_model *m,
                              const void *state, agglo_pending_iterations pending, char *err,
                              size_t errlen) {
  char path[4200], tmp[4200];
  snprintf(path, sizeof path, "%s/state.h5", dir);
  snprintf(tmp, sizeof tmp, "%s/state.h5.new", dir);
  /* the model's state, byte for byte as contacts.txt holds it (its seal included) */
  size_t len = 0;
  char *bytes = agglo_checkpoint_bytes(s, m, state, pending, &len, err, errlen);
  if (!bytes) return -1;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  errno = 0;
  int rc = write_file(tmp, s, m, bytes, len), e = errno;
  free(bytes);
  if (rc != 0) {
    unlink(tmp);
    return agglo_fail(err, errlen, "%s: write failed: %s", tmp,
                      e ? strerror(e) : "the HDF5 library refused it (disk full or quota?)");
  }
  int fd = open(tmp, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) {
    e = errno;
    if (fd >= 0) close(fd);
    return agglo_fail(err, errlen, "%s: sync failed: %s", tmp, strerror(e));
  }
  close(fd);
  if (rename(tmp, path) != 0)
    return agglo_fail(err, errlen, "%s: cannot rename the restart point: %s", path, strerror(errno));
  fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) fsync(fd), close(fd); /* the rename itself survives a power cut */
  return 0;
}

/* Read dataset name of loc (rank and dims as expected, dims[1] = 0 for rank 1) into buf. */
static int get(hid_t loc, const char *path, const char *name, hid_t type, int rank, hsize_t d0,
               hsize_t d1, void *buf, char *err, size_t errlen) {
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
    return agglo_fail(err, errlen, "%s: dataset %s missing: not an agglo restart point (damaged?)", path, name);
  hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
  if (ds < 0) return agglo_fail(err, errlen, "%s: dataset %s: cannot open (damaged file?)", path, name);
  hid_t sp = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int r = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
  if (r >= 0 && r <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  int rc = 0;
  if (r != rank || (rank >= 1 && dims[0] != d0) || (rank == 2 && dims[1] != d1))
    rc = agglo_fail(err, errlen, "%s: dataset %s: shape (rank %d, %llu x %llu), expected (rank %d, "
                    "%llu x %llu)", path, name, r, (unsigned long long)dims[0], (unsigned long long)dims[1],
                    rank, (unsigned long long)d0, (unsigned long long)d1);
  else if (!(rank && d0 == 0) && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = agglo_fail(err, errlen, "%s: dataset %s: cannot read (damaged file?)", path, name);
  H5Dclose(ds);
  return rc;
}

/* The length of a 1-D dataset, or -1 with a message. */
static long long length(hid_t loc, const char *path, const char *name, char *err, size_t errlen) {
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) {
    agglo_fail(err, errlen, "%s: dataset %s missing: not an agglo restart point (damaged?)", path, name);
    return -1;
  }
  hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
  hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int r = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
  if (r >= 1 && r <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  if (ds >= 0) H5Dclose(ds);
  if (r < 1 || r > 2) {
    agglo_fail(err, errlen, "%s: dataset %s: cannot read its shape (damaged file?)", path, name);
    return -1;
  }
  return (long long)dims[0];
}

static hid_t open_file(const char *path) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_file_locking(fapl, 0, 1);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  return f;
}

int agglo_checkpoint_h5_read(const char *path, agglo_system *s, char **model, size_t *model_len,
                             char *err, size_t errlen) {
  *model = NULL, *model_len = 0;
  memset(s, 0, sizeof *s);
  hid_t f = open_file(path);
  if (f < 0)
    return agglo_fail(err, errlen, "%s: cannot open as HDF5 (truncated or damaged, or not an HDF5 "
                      "file): no state to restart from", path);
  int32_t dim = 0;
  int64_t step = 0;
  double t = 0;
  long long n = -1, nbytes = -1;
  int rc = get(f, path, "dim", H5T_NATIVE_INT32, 0, 0, 0, &dim, err, errlen);
  if (rc == 0 && dim != 2 && dim != 3) rc = agglo_fail(err, errlen, "%s: dataset dim: %d (allowed: 2 or 3)", path, (int)dim);
  if (rc == 0) rc = get(f, path, "step", H5T_NATIVE_INT64, 0, 0, 0, &step, err, errlen);
  if (rc == 0) rc = get(f, path, "time", H5T_NATIVE_DOUBLE, 0, 0, 0, &t, err, errlen);
  if (rc == 0 && !isfinite(t)) rc = agglo_fail(err, errlen, "%s: dataset time: %g is not finite", path, t);
  if (rc == 0 && (n = length(f, path, "particles/id", err, errlen)) < 0) rc = -1;
  if (rc == 0 && (nbytes = length(f, path, "model/contacts", err, errlen)) < 0) rc = -1;
  hsize_t size = 0; /* what is announced must fit in the file (AGGLO_DEFLATE_MAX_RATIO) */
  H5Fget_filesize(f, &size);
  if (rc == 0 && (n > 2147483647 || 76.0 * (double)n + (double)nbytes >
                                        (double)AGGLO_DEFLATE_MAX_RATIO * (double)size))
    rc = agglo_fail(err, errlen, "%s: announces %lld particles (76 bytes each) and %lld bytes of "
                    "model/contacts, more than a file of %llu bytes holds (at most %d bytes a stored "
                    "byte, and 2^31 - 1 particles)", path, n, nbytes, (unsigned long long)size,
                    AGGLO_DEFLATE_MAX_RATIO);
  if (rc == 0 && (unsigned long long)nbytes > agglo_checkpoint_max_bytes((size_t)n))
    rc = agglo_fail(err, errlen, "%s: dataset model/contacts: %lld bytes, more than the restart "
                    "point of %lld particles holds (at most %zu): damaged", path, nbytes, n,
                    agglo_checkpoint_max_bytes((size_t)n));
  if (rc == 0 && agglo_system_alloc(s, dim, (size_t)n) != 0)
    rc = agglo_fail(err, errlen, "%s: out of memory for %lld particles", path, n);
  if (rc == 0) {
    hsize_t N = (hsize_t)n;
    rc = get(f, path, "particles/position", H5T_NATIVE_DOUBLE, 2, N, 3, s->x, err, errlen);
    if (rc == 0) rc = get(f, path, "particles/velocity", H5T_NATIVE_DOUBLE, 2, N, 3, s->v, err, errlen);
    if (rc == 0) rc = get(f, path, "particles/radius", H5T_NATIVE_DOUBLE, 1, N, 0, s->r, err, errlen);
    if (rc == 0) rc = get(f, path, "particles/mass", H5T_NATIVE_DOUBLE, 1, N, 0, s->m, err, errlen);
    if (rc == 0) rc = get(f, path, "particles/id", H5T_NATIVE_INT64, 1, N, 0, s->id, err, errlen);
    if (rc == 0) rc = get(f, path, "particles/cluster", H5T_NATIVE_INT32, 1, N, 0, s->cluster, err, errlen);
    int32_t per[3] = {0, 0, 0};
    if (rc == 0) rc = get(f, path, "box/lo", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.lo, err, errlen);
    if (rc == 0) rc = get(f, path, "box/hi", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.hi, err, errlen);
    if (rc == 0) rc = get(f, path, "box/len", H5T_NATIVE_DOUBLE, 1, 3, 0, s->box.len, err, errlen);
    if (rc == 0) rc = get(f, path, "box/periodic", H5T_NATIVE_INT32, 1, 3, 0, per, err, errlen);
    for (int k = 0; k < 3; k++) s->box.periodic[k] = per[k] != 0;
    for (int k = 0; k < 3 && rc == 0; k++)
      if (!isfinite(s->box.lo[k]) || !isfinite(s->box.len[k]) || !(s->box.len[k] >= 0) ||
          (k < dim && !(s->box.len[k] > 0)))
        rc = agglo_fail(err, errlen, "%s: dataset box/len: axis %c: lo %g, length %g (allowed: "
                        "finite, positive)", path, "xyz"[k], s->box.lo[k], s->box.len[k]);
    for (size_t i = 0; i < (size_t)(rc == 0 ? n : 0) && rc == 0; i++) {
      for (int k = 0; k < 3; k++)
        if (!isfinite(s->x[3 * i + k]) || !isfinite(s->v[3 * i + k]))
          rc = agglo_fail(err, errlen, "%s: dataset particles/%s: particle %zu (id %lld): not finite",
                          path, isfinite(s->x[3 * i + k]) ? "velocity" : "position", i, (long long)s->id[i]);
      if (rc == 0 && (!(s->r[i] > 0) || !isfinite(s->r[i])))
        rc = agglo_fail(err, errlen, "%s: dataset particles/radius: particle %zu (id %lld): %g "
                        "(allowed: positive and finite)", path, i, (long long)s->id[i], s->r[i]);
      if (rc == 0 && (!(s->m[i] > 0) || !isfinite(s->m[i])))
        rc = agglo_fail(err, errlen, "%s: dataset particles/mass: particle %zu (id %lld): %g "
                        "(allowed: positive and finite)", path, i, (long long)s->id[i], s->m[i]);
      if (rc == 0) s->inv_m[i] = 1 / s->m[i];
    }
    s->t = t, s->step = step;
  }
  if (rc == 0) {
    *model = malloc((size_t)nbytes + 1);
    if (!*model) rc = agglo_fail(err, errlen, "%s: out of memory", path);
    else if ((rc = get(f, path, "model/contacts", H5T_NATIVE_UINT8, 1, (hsize_t)nbytes, 0, *model, err, errlen)) == 0)
      (*model)[nbytes] = 0, *model_len = (size_t)nbytes;
  }
  H5Fclose(f);
  if (rc != 0) {
    agglo_system_free(s);
    free(*model);
    *model = NULL, *model_len = 0;
  }
  return rc;
}

int64_t agglo_checkpoint_h5_step(const char *path) {
  if (access(path, F_OK) != 0) return -1;
  hid_t f = open_file(path);
  if (f < 0) return -1;
  int64_t step = -1;
  char err[256];
  if (get(f, path, "step", H5T_NATIVE_INT64, 0, 0, 0, &step, err, sizeof err) != 0) step = -1;
  H5Fclose(f);
  return step;
}
