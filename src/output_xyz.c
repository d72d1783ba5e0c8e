#include "output_xyz.h"
#include "error.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void header(FILE *f, const agglo_system *s, const char *props) {
  const agglo_box *b = &s->box;
  fprintf(f, "%zu\n", s->n);
  fprintf(f, "Lattice=\"%.17g 0 0 0 %.17g 0 0 0 %.17g\" Origin=\"%.17g %.17g %.17g\" "
          "Properties=%s Time=%.17g Step=%lld dim=%d pbc=\"%c %c %c\"\n",
          b->len[0], b->len[1], b->len[2], b->lo[0], b->lo[1], b->lo[2], props, s->t,
          (long long)s->step, s->dim, b->periodic[0] ? 'T' : 'F', b->periodic[1] ? 'T' : 'F',
          b->periodic[2] ? 'T' : 'F');
}

int agglo_xyz_write_frame(FILE *f, const agglo_system *s) {
  header(f, s, "species:S:1:pos:R:3:radius:R:1:velo:R:3:cluster:I:1:id:I:1");
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i;
    fprintf(f, "P %.9g %.9g %.9g %.9g %.7g %.7g %.7g %d %lld\n", x[0], x[1], x[2], s->r[i], v[0],
            v[1], v[2], s->cluster[i], (long long)s->id[i]);
  }
  return ferror(f) ? -1 : 0;
}

int agglo_xyz_write_state(const char *path, const agglo_system *s, char *err, size_t errlen) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
  header(f, s, "species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1:id:I:1:cluster:I:1");
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i;
    fprintf(f, "P %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %lld %d\n", x[0], x[1], x[2],
            v[0], v[1], v[2], s->r[i], s->m[i], (long long)s->id[i], s->cluster[i]);
  }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) return agglo_fail(err, errlen, "%s: write failed", tmp);
  if (rename(tmp, path) != 0) return agglo_fail(err, errlen, "%s: cannot rename: %s", path, strerror(errno));
  return 0;
}

static int read_quoted(const char *line, const char *key, double *out, int count) {
  const char *p = strstr(line, key);
  if (!p) return -1;
  p += strlen(key);
  char *end;
  for (int k = 0; k < count; k++) {
    out[k] = strtod(p, &end);
    if (end == p) return -1;
    p = end;
  }
  return 0;
}

int agglo_xyz_read_state(const char *path, agglo_system *s, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) return agglo_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  size_t n;
  double lat[9], org[3], t;
  long long step;
  int dim;
  char pbc[3];
  int rc = -1;
  if (!fgets(line, sizeof line, f) || sscanf(line, "%zu", &n) != 1) {
    agglo_fail(err, errlen, "%s:1: expected the number of particles", path);
    goto out;
  }
  if (!fgets(line, sizeof line, f) || read_quoted(line, "Lattice=\"", lat, 9) ||
      read_quoted(line, "Origin=\"", org, 3) || read_quoted(line, "Time=", &t, 1) ||
      !strstr(line, "Step=") || sscanf(strstr(line, "Step="), "Step=%lld", &step) != 1 ||
      !strstr(line, "dim=") || sscanf(strstr(line, "dim="), "dim=%d", &dim) != 1 ||
      !strstr(line, "pbc=\"") ||
      sscanf(strstr(line, "pbc=\""), "pbc=\"%c %c %c", &pbc[0], &pbc[1], &pbc[2]) != 3) {
    agglo_fail(err, errlen, "%s:2: not an agglo state header (Lattice, Origin, Time, Step, dim, pbc)", path);
    goto out;
  }
  if (agglo_system_alloc(s, dim, n) != 0) {
    agglo_fail(err, errlen, "%s: out of memory for %zu particles", path, n);
    goto out;
  }
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = org[k];
    s->box.len[k] = lat[4 * k];
    s->box.hi[k] = org[k] + lat[4 * k];
    s->box.periodic[k] = pbc[k] == 'T';
  }
  s->t = t;
  s->step = step;
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    long long id;
    int cl;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%*s %lg %lg %lg %lg %lg %lg %lg %lg %lld %d", &x[0], &x[1], &x[2], &v[0], &v[1],
               &v[2], &s->r[i], &s->m[i], &id, &cl) != 10) {
      agglo_fail(err, errlen, "%s:%zu: expected 'P x y z vx vy vz radius mass id cluster'", path, i + 3);
      agglo_system_free(s);
      goto out;
    }
    s->id[i] = id;
    s->cluster[i] = cl;
    s->inv_m[i] = s->m[i] > 0 && isfinite(s->m[i]) ? 1.0 / s->m[i] : 0;
  }
  rc = 0;
out:
  fclose(f);
  return rc;
}
