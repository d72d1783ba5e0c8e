#include "io/xyz_write.h"
#include "core/error.h"
#include "core/files.h"
#include "io/xyz_read.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* x as the shortest of %.15g, %.16g, %.17g that reads back to the same double (0.7, not
   0.69999999999999996): exact for a restart, and the text a person wrote stays as written. */
typedef struct {
  char s[32];
} num_text;
static num_text num(double x) {
  num_text t;
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(t.s, sizeof t.s, "%.*g", digits, x);
    if (digits == 17 || strtod(t.s, NULL) == x) break; /* (17 digits always do; NaN never) */
  }
  return t;
}

/* The count and the comment line; extra: appended to it (starting with a space). */
static void header(FILE *f, const agglo_system *s, const char *props, const char *extra) {
  const agglo_box *b = &s->box;
  fprintf(f, "%zu\n", s->n);
  /* Lees-Edwards shear: the second lattice vector is (shear_x, L_y, 0), the image across the
     upper y face (docs/dpd.md, "Shear"); "0" unsheared */
  fprintf(f, "Lattice=\"%s 0 0 %s %s 0 0 0 %s\" Origin=\"%s %s %s\" "
          "Properties=%s Time=%s Step=%lld dim=%d pbc=\"%c %c %c\"%s\n",
          num(b->len[0]).s, b->shear_x != 0 ? num(b->shear_x).s : "0", num(b->len[1]).s, num(b->len[2]).s, num(b->lo[0]).s, num(b->lo[1]).s,
          num(b->lo[2]).s, props, num(s->t).s, (long long)s->step, s->dim,
          b->periodic[0] ? 'T' : 'F', b->periodic[1] ? 'T' : 'F', b->periodic[2] ? 'T' : 'F', extra);
}

#define FRAME_COLUMNS "species:S:1:pos:R:3:velocities:R:3:momenta:R:3:masses:R:1:radius:R:1:cluster:I:1:id:I:1"

/* Column names as ASE and OVITO read them: velocities (OVITO's Velocity; ASE >= 3.23), momenta
   (ASE 3.22 derives get_velocities() from momenta / masses), masses (both), radius, id, cluster.
   Species X is ASE's placeholder element (no chemistry implied). */
int agglo_xyz_write_frame(FILE *f, const agglo_system *s) {
  header(f, s, FRAME_COLUMNS, "");
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i;
    double m = s->m[i];
    fprintf(f, "X %.9g %.9g %.9g %.7g %.7g %.7g %.7g %.7g %.7g %.7g %.9g %d %lld\n", x[0], x[1], x[2],
            v[0], v[1], v[2], m * v[0], m * v[1], m * v[2], m, s->r[i], s->cluster[i], (long long)s->id[i]);
  }
  return ferror(f) ? -1 : 0;
}

int agglo_xyz_write_frame_exact(FILE *f, const agglo_system *s, const agglo_frame_extras *x) {
  char *extra = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&extra, &len);
  if (!m) return -1;
  const char *units = agglo_units_name(x->units);
  if (units) fprintf(m, " units=%s", units);
  for (size_t k = 0; k < x->nobs; k++) /* a name a key=value pair cannot hold is left out */
    if (!strpbrk(x->names[k], " \t\r\n=\"")) fprintf(m, " %s=%s", x->names[k], num(x->values[k]).s);
  if (fclose(m) != 0) return free(extra), -1;
  header(f, s, x->species ? FRAME_COLUMNS ":type:I:1" : FRAME_COLUMNS, extra);
  free(extra);
  for (size_t i = 0; i < s->n; i++) {
    const double *p = s->x + 3 * i, *v = s->v + 3 * i;
    double mi = s->m[i];
    fprintf(f, "X %s %s %s %s %s %s %s %s %s %s %s %d %lld", num(p[0]).s, num(p[1]).s, num(p[2]).s,
            num(v[0]).s, num(v[1]).s, num(v[2]).s, num(mi * v[0]).s, num(mi * v[1]).s,
            num(mi * v[2]).s, num(mi).s, num(s->r[i]).s, s->cluster[i], (long long)s->id[i]);
    if (x->species) fprintf(f, " %d", x->species[i]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

int agglo_xyz_write_state(const char *path, const agglo_system *s, char *err, size_t errlen) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
  errno = 0;
  header(f, s, "species:S:1:pos:R:3:velocities:R:3:radius:R:1:masses:R:1:id:I:1:cluster:I:1", "");
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i;
    fprintf(f, "X %s %s %s %s %s %s %s %s %lld %d\n", num(x[0]).s, num(x[1]).s, num(x[2]).s,
            num(v[0]).s, num(v[1]).s, num(v[2]).s, num(s->r[i]).s, num(s->m[i]).s,
            (long long)s->id[i], s->cluster[i]);
  }
  if (agglo_file_finish(f, tmp, 1, err, errlen) != 0) return -1;
  if (rename(tmp, path) != 0) return agglo_fail(err, errlen, "%s: cannot rename: %s", path, strerror(errno));
  return 0;
}

/* Nothing but blank lines left in the reader's file (rd->line counts the first other line). */
static int at_end(agglo_xyz_reader *rd) {
  char *line = NULL;
  size_t cap = 0;
  int end = 1;
  while (end && rd->f && getline(&line, &cap, rd->f) >= 0) {
    rd->line++;
    end = strspn(line, " \t\r\n") == strlen(line);
  }
  free(line);
  return end;
}

/* The state through the trajectory reader: columns found by Properties= (any order); every one
   a restart needs must be there, with positive radii and masses. */
int agglo_xyz_read_state(const char *path, agglo_system *s, char *err, size_t errlen) {
  agglo_xyz_reader rd;
  if (agglo_xyz_open(&rd, path, 0, err, errlen) != 0) return -1;
  agglo_system t = {0};
  int got = agglo_xyz_next(&rd, &t, err, errlen), rc = -1;
  const char *missing = !rd.has_velocity ? "velocities (or velo)" : !rd.has_mass ? "masses (or mass)"
                        : !rd.has_id     ? "id"
                        : !rd.has_cluster ? "cluster"
                        : !rd.has_box     ? "the box (Lattice=)"
                                          : NULL;
  if (got == 0) agglo_fail(err, errlen, "%s: empty: no state to restart from", path);
  else if (got == 1 && missing)
    agglo_fail(err, errlen, "%s: frame 1: no %s column in Properties=: not a restart state", path, missing);
  else if (got == 1 && !at_end(&rd))
    agglo_fail(err, errlen, "%s:%ld: a line after the %zu particle lines that line 1 announces (the "
               "count does not match the lines; allowed: one frame, as agglo writes it)", path,
               rd.line, t.n);
  else if (got == 1) {
    rc = 0;
    for (size_t i = 0; i < t.n && rc == 0; i++)
      if (!(t.m[i] > 0) || !isfinite(t.m[i]))
        rc = agglo_fail(err, errlen, "%s: frame 1: particle %zu (id %lld): mass %g (allowed: positive "
                        "and finite)", path, i, (long long)t.id[i], t.m[i]);
  }
  agglo_xyz_close(&rd);
  if (rc == 0) *s = t;
  else agglo_system_free(&t);
  return rc;
}
