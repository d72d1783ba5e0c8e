#include "io/xyz_read.h"
#include "core/error.h"
#include "core/files.h"
#include "io/h5md_read.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int agglo_xyz_open(agglo_xyz_reader *r, const char *path, double default_radius, char *err,
                   size_t errlen) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->default_radius = default_radius;
  FILE *f = agglo_open_read(path, "r", err, errlen);
  if (!f) return -1;
  fclose(f);
  if (agglo_is_hdf5(path)) {
    r->h5 = agglo_h5md_read_open(path, err, errlen);
    return r->h5 ? 0 : -1;
  }
  r->f = agglo_open_read(path, "r", err, errlen);
  r->buf = malloc(AGGLO_LINE_MAX);
  if (r->f && !r->buf) agglo_fail(err, errlen, "%s: out of memory", path);
  if (!r->f || !r->buf) {
    agglo_xyz_close(r);
    return -1;
  }
  return 0;
}

void agglo_xyz_close(agglo_xyz_reader *r) {
  agglo_frame_extras_free(&r->extras);
  if (r->f) fclose(r->f);
  r->f = NULL;
  free(r->buf);
  r->buf = NULL;
  agglo_h5md_read_close(r->h5);
  r->h5 = NULL;
}

/* The next line (at most AGGLO_LINE_MAX bytes): 1, 0 at the end of the file, -1 with the message
   for a line too long or not text. */
static int get_line(agglo_xyz_reader *r, char **line, char *err, size_t errlen) {
  long got = agglo_read_line(r->f, r->buf, AGGLO_LINE_MAX);
  *line = r->buf;
  if (got == 0) return 0;
  r->line++;
  if (got < 0) {
    char where[4200];
    snprintf(where, sizeof where, "%s:%ld: frame %d", r->path, r->line, r->frame + 1);
    return agglo_line_fail(err, errlen, where, got, AGGLO_LINE_MAX);
  }
  r->partial = r->buf[got - 1] != '\n'; /* the last line of a file cut mid-way */
  return 1;
}

/* Value of key=... in the comment line ("quoted" or bare), copied into out. */
static int comment_value(const char *line, const char *key, char *out, size_t n) {
  size_t kl = strlen(key);
  for (const char *p = line; (p = strstr(p, key)); p++) {
    if ((p != line && p[-1] != ' ' && p[-1] != '\t') || p[kl] != '=') continue;
    p += kl + 1;
    const char *end;
    if (*p == '"') {
      p++;
      end = strchr(p, '"');
      if (!end) return -1;
    } else {
      end = p + strcspn(p, " \t\r\n");
    }
    size_t l = (size_t)(end - p);
    if (l >= n) l = n - 1;
    memcpy(out, p, l);
    out[l] = 0;
    return 0;
  }
  return -1;
}

/* The key=value pairs of a comment line that are not agglo's own header keys and whose value is
   a number (observables, as agglo_xyz_write_frame_exact writes them; ASE's info), and units=. */
static void comment_extras(const char *line, agglo_frame_extras *x) {
  static const char *header[] = {"Lattice", "Origin", "Properties", "Time", "Step", "dim", "pbc", "units"};
  x->nobs = 0;
  x->units = AGGLO_UNITS_UNKNOWN;
  for (const char *p = line; *p;) {
    p += strspn(p, " \t\r\n");
    const char *eq = p + strcspn(p, "= \t\r\n");
    if (*eq != '=') {
      p = eq;
      continue;
    }
    const char *v = eq + 1, *end;
    if (*v == '"') v++, end = v + strcspn(v, "\"");
    else end = v + strcspn(v, " \t\r\n");
    char key[AGGLO_OBSERVABLE_NAME], val[64];
    size_t kl = (size_t)(eq - p), vl = (size_t)(end - v);
    p = *end == '"' ? end + 1 : end;
    if (kl == 0 || kl >= sizeof key || vl >= sizeof val) continue;
    memcpy(key, eq - kl, kl), key[kl] = 0;
    memcpy(val, v, vl), val[vl] = 0;
    if (!strcmp(key, "units")) x->units = agglo_units_parse(val);
    int own = 0;
    for (size_t k = 0; k < sizeof header / sizeof header[0]; k++) own |= !strcmp(key, header[k]);
    char *num_end;
    double d = strtod(val, &num_end);
    if (own || num_end == val || *num_end || x->nobs == AGGLO_MAX_OBSERVABLES) continue;
    snprintf(x->names[x->nobs], AGGLO_OBSERVABLE_NAME, "%s", key);
    x->values[x->nobs++] = d;
  }
}

/* Lattice="a b c d e f g h i": agglo's boxes are orthogonal, so only a diagonal of finite sides
   not below 0 is taken (a skewed cell's tilt, or a negative side, would be dropped silently),
   and d, the x of the second vector: the Lees-Edwards offset shear_x of a sheared run
   (docs/dpd.md, "Shear"; checked against pbc= by the caller). */
static int lattice_parse(const char *val, double lat[9]) {
  int used = 0;
  if (sscanf(val, "%lg %lg %lg %lg %lg %lg %lg %lg %lg %n", &lat[0], &lat[1], &lat[2], &lat[3], &lat[4],
             &lat[5], &lat[6], &lat[7], &lat[8], &used) != 9 || val[used])
    return -1;
  for (int q = 0; q < 9; q++)
    if (!isfinite(lat[q]) || (q % 4 == 0 ? lat[q] < 0 : q != 3 && lat[q] != 0)) return -1;
  return 0;
}

/* One set of checks on every frame, XYZ or H5MD, so that analyze, convert, render, particles.from
   and a restart take or refuse the same files: finite centres, velocities and time, positive
   finite radii and masses, centres inside a walled box the file gives (to 1e-6 of its side, a
   file's rounding) and at most AGGLO_WRAP_MAX_SIDES sides from a periodic one. first_line: the
   line of particle 0 (0: no lines, H5MD). */
static int check_frame(const agglo_xyz_reader *r, const agglo_system *s, int frame, long first_line,
                       char *err, size_t errlen) {
  char where[4300];
  if (r->has_time && !isfinite(s->t))
    return agglo_fail(err, errlen, "%s: frame %d: time %g (allowed: finite)", r->path, frame, s->t);
  for (size_t i = 0; i < s->n; i++) {
    char id[48] = "";
    if (r->has_id) snprintf(id, sizeof id, " (id %lld)", (long long)s->id[i]);
    if (first_line) snprintf(where, sizeof where, "%s:%ld: frame %d: particle %zu%s", r->path, first_line + (long)i, frame, i, id);
    else snprintf(where, sizeof where, "%s: frame %d: particle %zu%s", r->path, frame, i, id);
    for (int k = 0; k < 3; k++) {
      double x = s->x[3 * i + k], y = x - s->box.lo[k], L = s->box.len[k];
      if (!isfinite(x) || (r->has_velocity && !isfinite(s->v[3 * i + k])))
        return agglo_fail(err, errlen, "%s: %s %c is %g (allowed: finite)", where,
                          isfinite(x) ? "velocity" : "position", "xyz"[k], isfinite(x) ? s->v[3 * i + k] : x);
      if (!r->has_box) continue;
      if (s->box.periodic[k] && !(y >= -AGGLO_WRAP_MAX_SIDES * L && y <= (AGGLO_WRAP_MAX_SIDES + 1) * L))
        return agglo_fail(err, errlen, "%s: %c = %g, more than %g box lengths from the periodic box "
                          "[%g, %g) (wrapping it would keep none of its digits)", where, "xyz"[k], x,
                          AGGLO_WRAP_MAX_SIDES, s->box.lo[k], s->box.hi[k]);
      if (!s->box.periodic[k] && !(y >= -1e-6 * L && y <= (1 + 1e-6) * L))
        return agglo_fail(err, errlen, "%s: %c = %g is outside the walled box [%g, %g] the file gives",
                          where, "xyz"[k], x, s->box.lo[k], s->box.hi[k]);
    }
    if (!(s->r[i] > 0) || !isfinite(s->r[i]))
      return agglo_fail(err, errlen, "%s: radius %g (allowed: positive and finite)", where, s->r[i]);
    if (r->has_mass && (!(s->m[i] > 0) || !isfinite(s->m[i])))
      return agglo_fail(err, errlen, "%s: mass %g (allowed: positive and finite)", where, s->m[i]);
  }
  return 0;
}

typedef struct { int pos, radius, velo, mass, id, cluster, type, ncols; } columns;

/* Properties=name:type:count:... -> column offsets of the columns agglo reads (OVITO's and ASE's
   names: velo/vel/velocities, mass/masses). */
static int parse_properties(const char *props, columns *c) {
  c->pos = c->radius = c->velo = c->mass = c->id = c->cluster = c->type = -1;
  c->ncols = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", props);
  char *save = NULL;
  for (char *name = strtok_r(buf, ":", &save); name; name = strtok_r(NULL, ":", &save)) {
    char *type = strtok_r(NULL, ":", &save), *count = strtok_r(NULL, ":", &save);
    if (!type || !count) return -1;
    int k = atoi(count);
    if (k < 1 || k > 64) return -1;
    if (!strcmp(name, "pos")) {
      if (k != 3) return -1;
      c->pos = c->ncols;
    }
    int *one = !strcmp(name, "radius") || !strcmp(name, "radii") ? &c->radius
               : !strcmp(name, "mass") || !strcmp(name, "masses")   ? &c->mass
               : !strcmp(name, "id")                                ? &c->id
               : !strcmp(name, "cluster")                           ? &c->cluster
               : !strcmp(name, "type") && !strcmp(type, "I")        ? &c->type
                                                                    : NULL;
    if (one) {
      if (k != 1) return -1;
      *one = c->ncols;
    }
    if (!strcmp(name, "velo") || !strcmp(name, "vel") || !strcmp(name, "velocities")) {
      if (k != 3) return -1;
      c->velo = c->ncols;
    }
    if (!strcmp(name, "id") && k == 1) c->id = c->ncols;
    c->ncols += k;
  }
  return c->pos >= 0 ? 0 : -1;
}

int agglo_xyz_next(agglo_xyz_reader *r, agglo_system *s, char *err, size_t errlen) {
  if (r->h5) {
    size_t frames = agglo_h5md_read_frames(r->h5);
    if ((size_t)r->frame >= frames && agglo_h5md_read_cut(r->h5)) { /* as an XYZ file cut in a frame */
      r->truncated = 1;
      return agglo_fail(err, errlen, "%s: frame %d: incomplete (some of its series lack their row: a run "
                        "killed while writing it)", r->path, r->frame + 1);
    }
    if ((size_t)r->frame >= frames) return 0;
    if (agglo_h5md_read_frame(r->h5, (size_t)r->frame, s, r->default_radius, &r->extras, err, errlen) != 0)
      return -1;
    agglo_h5md_has h = agglo_h5md_read_has(r->h5);
    r->has_velocity = h.velocity, r->has_radius = h.radius, r->has_mass = h.mass, r->has_id = h.id, r->has_cluster = h.cluster;
    r->has_box = h.box, r->has_time = h.time;
    if (check_frame(r, s, r->frame + 1, 0, err, errlen) != 0) return -1;
    r->frame++;
    return 1;
  }
  int rc = -1, got, whole = 0;
  r->truncated = r->partial = 0;
  char *line;
  while ((got = get_line(r, &line, err, errlen)) > 0 && strspn(line, " \t\r\n") == strlen(line)) {}
  if (got <= 0) return got;
  int frame = r->frame + 1;
  char *end;
  long long n = strtoll(line, &end, 10);
  if (end == line || n < 0 || strspn(end, " \t\r\n") != strlen(end)) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: expected the number of particles, got '%.40s'", r->path,
         r->line, frame, line);
    goto out;
  }
  /* a particle line takes at least 8 bytes ("P 0 0 0\n"): refuse counts the file cannot hold
     before allocating for them */
  long here = ftell(r->f), end_pos = -1;
  if (here >= 0 && fseek(r->f, 0, SEEK_END) == 0) {
    end_pos = ftell(r->f);
    fseek(r->f, here, SEEK_SET);
  }
  if (end_pos >= 0 && n > (end_pos - here) / 8 + 1) {
    r->truncated = 1;
    agglo_fail(err, errlen, "%s:%ld: frame %d: announces %lld particles but only %ld bytes follow, "
         "room for at most %ld particle lines of 8 bytes (truncated or not an XYZ file)", r->path,
         r->line, frame, n, end_pos - here, (end_pos - here) / 8 + 1);
    goto out;
  }
  if ((got = get_line(r, &line, err, errlen)) < 0) goto out;
  if (!got) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: file ends before the comment line (truncated?)", r->path,
         r->line + 1, frame);
    goto out;
  }
  char props[1024] = "species:S:1:pos:R:3", val[1024];
  comment_value(line, "Properties", props, sizeof props);
  columns col;
  if (parse_properties(props, &col) != 0) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: Properties='%s' has no pos:R:3 column", r->path, r->line,
         frame, props);
    goto out;
  }
  if (col.radius < 0 && r->default_radius <= 0) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: no radius column; give --radius R", r->path, r->line, frame);
    goto out;
  }
  double lat[9] = {0}, org[3] = {0, 0, 0};
  int have_lattice = comment_value(line, "Lattice", val, sizeof val) == 0;
  if (have_lattice && lattice_parse(val, lat) != 0) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: Lattice=\"%.200s\" (allowed: 9 numbers of an orthogonal "
               "box: finite sides, not negative (0: no box along that axis), off-diagonal entries 0 but the 4th, "
               "the Lees-Edwards offset)",
               r->path, r->line, frame, val);
    goto out;
  }
  if (comment_value(line, "Origin", val, sizeof val) == 0 &&
      (sscanf(val, "%lg %lg %lg", &org[0], &org[1], &org[2]) != 3 || !isfinite(org[0]) ||
       !isfinite(org[1]) || !isfinite(org[2]))) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: Origin=\"%.200s\" (allowed: 3 finite numbers)", r->path,
               r->line, frame, val);
    goto out;
  }
  char pbc[3] = {'F', 'F', 'F'};
  if (comment_value(line, "pbc", val, sizeof val) == 0) sscanf(val, " %c %c %c", &pbc[0], &pbc[1], &pbc[2]);
  if (lat[3] != 0 && !(pbc[0] == 'T' && pbc[1] == 'T' && lat[0] > 0 && lat[4] > 0)) {
    agglo_fail(err, errlen, "%s:%ld: frame %d: Lattice= has the Lees-Edwards offset %g (4th number) in a "
               "box that is not periodic along x and y (pbc=\"%c %c %c\"; allowed: 0 there)", r->path,
               r->line, frame, lat[3], pbc[0], pbc[1], pbc[2]);
    goto out;
  }
  if (fabs(lat[3]) > lat[0]) { /* (agglo writes it in [0, L_x); a tilt beyond a side means nothing more) */
    agglo_fail(err, errlen, "%s:%ld: frame %d: Lattice= has the Lees-Edwards offset %g (4th number) "
               "beyond the box's side along x, %g (allowed: -L_x to L_x)", r->path, r->line, frame,
               lat[3], lat[0]);
    goto out;
  }
  double t = 0;
  long long step = 0;
  int have_time = comment_value(line, "Time", val, sizeof val) == 0;
  if (have_time) {
    char *tend;
    t = strtod(val, &tend);
    if (tend == val || strspn(tend, " \t\r") != strlen(tend) || !isfinite(t)) {
      agglo_fail(err, errlen, "%s: frame %d, line %ld: Time=%s is not a finite number", r->path,
                 frame, r->line, val);
      goto out;
    }
  }
  if (comment_value(line, "Step", val, sizeof val) == 0) step = atoll(val);
  int dim = 3;
  if (comment_value(line, "dim", val, sizeof val) == 0) dim = atoi(val) == 2 ? 2 : 3;
  comment_extras(line, &r->extras);
  agglo_system_free(s);
  if (agglo_system_alloc(s, dim, (size_t)n) != 0) {
    agglo_fail(err, errlen, "%s: frame %d: out of memory for %lld particles", r->path, frame, n);
    goto out;
  }
  s->t = t;
  s->step = step;
  r->has_velocity = col.velo >= 0, r->has_radius = col.radius >= 0, r->has_mass = col.mass >= 0, r->has_id = col.id >= 0;
  r->has_cluster = col.cluster >= 0, r->has_box = have_lattice, r->has_time = have_time;
  free(r->extras.species);
  r->extras.species = NULL;
  double *vals = malloc(((size_t)col.ncols + 1) * sizeof *vals);
  if (!vals || (col.type >= 0 && !(r->extras.species = malloc(((size_t)n + 1) * sizeof *r->extras.species)))) {
    free(vals);
    agglo_fail(err, errlen, "%s: frame %d: out of memory for %lld particles", r->path, frame, n);
    goto out;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (long long i = 0; i < n; i++) {
    if ((got = get_line(r, &line, err, errlen)) <= 0) {
      if (got < 0) {
        free(vals);
        goto out;
      }
      agglo_fail(err, errlen, "%s:%ld: frame %d: file ends after %lld of %lld particle lines (truncated)",
           r->path, r->line + 1, frame, i, n);
      free(vals);
      goto out;
    }
    char *p = line, *e;
    for (int k = 0; k < col.ncols; k++) {
      p += strspn(p, " \t");
      e = p + strcspn(p, " \t\r\n");
      if (e == p) {
        agglo_fail(err, errlen, "%s:%ld: frame %d: particle line has fewer than the %d columns of "
             "Properties", r->path, r->line, frame, col.ncols);
        free(vals);
        goto out;
      }
      char save = *e;
      *e = 0;
      char *q;
      vals[k] = strtod(p, &q);
      int numeric = q != p && *q == 0;
      *e = save;
      int needed = (k >= col.pos && k < col.pos + 3) || k == col.radius || k == col.mass || k == col.id ||
                   k == col.cluster || k == col.type || (col.velo >= 0 && k >= col.velo && k < col.velo + 3);
      if (needed && (!numeric || !isfinite(vals[k]))) {
        agglo_fail(err, errlen, "%s:%ld: frame %d: particle %lld: column %d is '%.*s', not a finite "
                   "number", r->path, r->line, frame, i, k + 1, (int)(e - p < 40 ? e - p : 40), p);
        free(vals);
        goto out;
      }
      p = e;
    }
    if (p[strspn(p, " \t\r\n")]) { /* Properties= short of a column: the others misread */
      agglo_fail(err, errlen, "%s:%ld: frame %d: particle line has more than the %d columns of "
                 "Properties", r->path, r->line, frame, col.ncols);
      free(vals);
      goto out;
    }
    double *x = s->x + 3 * (size_t)i;
    for (int k = 0; k < 3; k++) {
      x[k] = vals[col.pos + k];
      lo[k] = fmin(lo[k], x[k]);
      hi[k] = fmax(hi[k], x[k]);
    }
    s->r[i] = col.radius >= 0 ? vals[col.radius] : r->default_radius;
    if (!(s->r[i] > 0)) {
      agglo_fail(err, errlen, "%s:%ld: frame %d: radius %g is not positive", r->path, r->line, frame, s->r[i]);
      free(vals);
      goto out;
    }
    double rr = s->r[i];
    s->m[i] = col.mass >= 0 ? vals[col.mass] : rr * rr * rr;
    s->inv_m[i] = s->m[i] > 0 ? 1 / s->m[i] : 0;
    if (col.velo >= 0)
      for (int k = 0; k < 3; k++) s->v[3 * (size_t)i + k] = vals[col.velo + k];
    /* ids and labels are integers: refuse what does not fit (a cast would be undefined) */
    double id = col.id >= 0 ? vals[col.id] : 0, cl = col.cluster >= 0 ? vals[col.cluster] : 0;
    int id_ok = id >= 0 && id <= 0x1p53 && id == floor(id);
    int cl_ok = cl >= INT32_MIN && cl <= INT32_MAX && cl == floor(cl);
    if (!id_ok || !cl_ok) {
      agglo_fail(err, errlen, "%s:%ld: frame %d: particle %lld: %s %g is not an integer from %s",
                 r->path, r->line, frame, i, id_ok ? "cluster" : "id", id_ok ? cl : id,
                 id_ok ? "-2^31 to 2^31 - 1" : "0 to 2^53");
      free(vals);
      goto out;
    }
    if (col.id >= 0) s->id[i] = (int64_t)id;
    if (col.type >= 0) {
      double ty = vals[col.type];
      if (!(ty >= 0 && ty <= INT32_MAX && ty == floor(ty))) {
        agglo_fail(err, errlen, "%s:%ld: frame %d: particle %lld: type %g is not an integer from 0 to "
                   "2^31 - 1", r->path, r->line, frame, i, ty);
        free(vals);
        goto out;
      }
      r->extras.species[i] = (int32_t)ty;
    }
    s->cluster[i] = col.cluster >= 0 ? (int32_t)cl : (int32_t)s->id[i];
  }
  free(vals);
  for (int k = 0; k < 3; k++) {
    if (have_lattice && lat[4 * k] > 0) {
      s->box.lo[k] = org[k];
      s->box.len[k] = lat[4 * k];
      s->box.periodic[k] = pbc[k] == 'T';
    } else { /* no box: the bounding box with walls */
      s->box.lo[k] = n ? lo[k] : 0;
      s->box.len[k] = n ? fmax(hi[k] - lo[k], 1e-300) : 1;
      s->box.periodic[k] = 0;
    }
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
  }
  s->box.shear_x = lat[3]; /* (0 without a Lattice=) */
  if (s->dim == 3 && !have_lattice && n && hi[2] == lo[2]) s->dim = 2;
  whole = 1; /* every line read: what fails now is not a cut */
  if (check_frame(r, s, frame, r->line - (long)n + 1, err, errlen) != 0) goto out;
  r->frame = frame;
  rc = 1;
out:
  if (rc < 0 && !whole && (feof(r->f) || r->partial)) r->truncated = 1; /* the file ends inside this frame */
  return rc;
}
