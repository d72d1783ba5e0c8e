/* Pictures of a frame: the [picture] keys read into what the renderers need, the colour of each
   particle (cluster, cluster size, species, speed), slab and hidden monomers, and the renderer:
   flat discs (png_write.c, the look of 2D snapshots) or shaded spheres (picture_shaded.c). */
#include "picture/picture.h"
#include "picture/colors.h"
#include "config/config.h"
#include "core/error.h"
#include "core/model.h"
#include "picture/png_write.h"
#include "core/compare.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STYLE_AUTO = 0, STYLE_FLAT = 1, STYLE_SHADED = 2 };
enum { COLOR_CLUSTER = 0, COLOR_SIZE = 1, COLOR_SPECIES = 2, COLOR_SPEED = 3 };
enum { PROJECTION_PERSPECTIVE = 0, PROJECTION_ORTHOGRAPHIC = 1 };
enum { MONOMERS_SHOW = 0, MONOMERS_HIDE = 1 };
enum { BOX_ON = 0, BOX_OFF = 1 };

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static int three(const agglo_list *l, const char *name, int nonzero, char *err, size_t errlen) {
  if (l->n != 3)
    return agglo_fail(err, errlen, "picture.%s has %d values: give 3 (x, y, z)", name, l->n);
  for (int k = 0; k < 3; k++)
    if (!isfinite(l->v[k])) return agglo_fail(err, errlen, "picture.%s: %g is not finite", name, l->v[k]);
  if (nonzero && !(norm3(l->v) > 0)) return agglo_fail(err, errlen, "picture.%s is the zero vector", name);
  return 0;
}

int agglo_picture_check(const agglo_config *c, char *err, size_t errlen) {
  if (three(&c->pic_view, "view", 1, err, errlen) || three(&c->pic_up, "up", 1, err, errlen) ||
      three(&c->pic_light, "light", 1, err, errlen) ||
      three(&c->pic_slab_normal, "slab_normal", 1, err, errlen))
    return -1;
  const double *v = c->pic_view.v, *u = c->pic_up.v;
  double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  if (!(norm3(x) > 1e-9 * norm3(u) * norm3(v)))
    return agglo_fail(err, errlen, "picture.up (%g, %g, %g) is along picture.view (%g, %g, %g): "
                      "give an up direction across the view", u[0], u[1], u[2], v[0], v[1], v[2]);
  if (c->pic_slab_center.n > 1)
    return agglo_fail(err, errlen, "picture.slab_center has %d values: give one (or none: the "
                      "centre of the box)", c->pic_slab_center.n);
  return 0;
}

/* ---- cluster sizes of arbitrary labels ---- */

typedef struct { int32_t label; uint32_t i; } tagged;

static int cmp_tagged(const void *a, const void *b) {
  const tagged *p = a, *q = b;
  if (p->label != q->label) return (p->label > q->label) - (p->label < q->label);
  return (p->i > q->i) - (p->i < q->i);
}

/* size[i] = the size of i's cluster (1 without labels); returns the number of clusters or -1. */
static long cluster_sizes(const agglo_picture_frame *f, uint32_t *size) {
  if (!f->clusters) {
    for (size_t i = 0; i < f->n; i++) size[i] = 1;
    return (long)f->n;
  }
  tagged *t = malloc((f->n ? f->n : 1) * sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < f->n; i++) t[i] = (tagged){f->clusters[i], (uint32_t)i};
  qsort(t, f->n, sizeof *t, cmp_tagged);
  long nc = 0;
  for (size_t a = 0, b; a < f->n; a = b) {
    for (b = a; b < f->n && t[b].label == t[a].label; b++) {}
    for (size_t k = a; k < b; k++) size[t[k].i] = (uint32_t)(b - a);
    nc++;
  }
  free(t);
  return nc;
}

/* ---- colours (cluster labels: colors.c) ---- */


/* viridis at t in [0, 1], by linear interpolation between nine of its colours */
static void viridis(double t, double rgb[3]) {
  static const double c[9][3] = {{0.267, 0.005, 0.329}, {0.279, 0.175, 0.483}, {0.230, 0.322, 0.546},
                                 {0.173, 0.449, 0.558}, {0.128, 0.567, 0.551}, {0.157, 0.684, 0.502},
                                 {0.369, 0.789, 0.383}, {0.678, 0.864, 0.190}, {0.993, 0.906, 0.144}};
  t = isfinite(t) ? fmin(1, fmax(0, t)) : 0;
  double s = 8 * t;
  int k = (int)s;
  if (k >= 8) k = 7;
  double u = s - k;
  for (int a = 0; a < 3; a++) rgb[a] = (1 - u) * c[k][a] + u * c[k + 1][a];
}

static const double species_palette[8][3] = {
    {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50}};

/* A particle's species: the frame's (a run's snapshot: the system's), else what the settings'
   model gives its id (a trajectory drawn again: the run's scenario), else 0. */
static int species_of(const agglo_config *c, const agglo_picture_frame *f, size_t i) {
  if (f->species) return f->species[i] < 0 ? 0 : f->species[i];
  if (!f->ids || !c->model || !c->model->species_of) return 0;
  return c->model->species_of(c, f->ids[i], f->n); /* as the model assigns them */
}

/* The speed at the top of the scale: picture.speed_max, or the 99th percentile of the frame. */
static double top_speed(const agglo_config *c, const agglo_picture_frame *f) {
  if (c->pic_speed_max > 0) return c->pic_speed_max;
  double *s = malloc((f->n ? f->n : 1) * sizeof *s);
  if (!s) return 1;
  size_t m = 0;
  for (size_t i = 0; i < f->n; i++) {
    double v = norm3(f->velocities + 3 * i);
    if (isfinite(v)) s[m++] = v;
  }
  qsort(s, m, sizeof *s, agglo_cmp_double);
  double top = m ? s[(size_t)(0.99 * (double)(m - 1))] : 1;
  free(s);
  return top > 0 ? top : 1;
}

/* ---- the frame as the flat renderer's system ---- */

static void as_system(const agglo_picture_frame *f, agglo_system *s) {
  memset(s, 0, sizeof *s);
  s->dim = f->dim;
  s->n = f->n;
  s->x = (double *)f->positions; /* read only: agglo_png_write takes a const system */
  s->r = (double *)f->radii;
  s->cluster = (int32_t *)f->clusters;
  s->box = f->box;
  s->t = f->time;
}

/* A box without extent along an axis (open space, a 2D box's z) takes the particles' extent. */
static void fill_box(agglo_picture_frame *f) {
  for (int k = 0; k < 3; k++) {
    if (f->box.len[k] > 0 && isfinite(f->box.len[k])) continue;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < f->n; i++) {
      double x = f->positions[3 * i + k], r = f->radii[i];
      if (!isfinite(x) || !isfinite(r)) continue;
      lo = fmin(lo, x - r), hi = fmax(hi, x + r);
    }
    if (!(hi > lo)) lo = -1, hi = 1;
    if (k == 2 && f->dim == 2) lo = hi = 0;
    f->box.lo[k] = lo, f->box.hi[k] = hi, f->box.len[k] = hi - lo;
  }
}

static int check_frame(const agglo_picture_frame *f, const char *path, char *err, size_t errlen) {
  if (!f || !path) return agglo_fail(err, errlen, "agglo_picture_render: NULL frame or path");
  if (f->dim != 2 && f->dim != 3)
    return agglo_fail(err, errlen, "%s: the frame's dim is %d (2 or 3)", path, f->dim);
  if (f->n && (!f->positions || !f->radii))
    return agglo_fail(err, errlen, "%s: the frame has no positions or radii", path);
  if (f->n > UINT32_MAX) return agglo_fail(err, errlen, "%s: more than 2^32 particles", path);
  return 0;
}

int agglo_picture_draw(const agglo_config *cfg, const agglo_picture_frame *frame,
                       const agglo_link_lines *links, const agglo_obstacle_shapes *obstacles,
                       const char *path, char *err, size_t errlen) {
  if (check_frame(frame, path, err, errlen)) return -1;
  agglo_config defaults;
  if (!cfg) agglo_config_defaults(&defaults), cfg = &defaults;
  if (agglo_picture_check(cfg, err, errlen)) return -1;
  agglo_picture_frame f = *frame;
  int shaded = cfg->pic_style == STYLE_SHADED || (cfg->pic_style == STYLE_AUTO && f.dim == 3);
  int color = cfg->pic_color;
  if (color == COLOR_SPEED && !f.velocities) color = COLOR_CLUSTER;
  int slab = cfg->pic_slab_width > 0, hide = cfg->pic_monomers == MONOMERS_HIDE;
  agglo_system s;
  if (!shaded && color == COLOR_CLUSTER && !slab && !hide) { /* the flat snapshots' own colours */
    as_system(&f, &s);
    return agglo_png_write(path, &s, (int)cfg->png_width, links, obstacles, err, errlen);
  }
  fill_box(&f);
  uint32_t *size = malloc((f.n ? f.n : 1) * sizeof *size);
  float *rgb = malloc((f.n ? f.n : 1) * 3 * sizeof *rgb);
  long nc = size ? cluster_sizes(&f, size) : -1;
  if (nc < 0 || !rgb) {
    free(size), free(rgb);
    return agglo_fail(err, errlen, "%s: out of memory", path);
  }
  uint32_t smax = 1;
  for (size_t i = 0; i < f.n; i++) smax = size[i] > smax ? size[i] : smax;
  double vtop = color == COLOR_SPEED ? top_speed(cfg, &f) : 1;
  double n[3], c = 0, nn = norm3(cfg->pic_slab_normal.v);
  for (int k = 0; k < 3; k++) n[k] = cfg->pic_slab_normal.v[k] / nn;
  if (cfg->pic_slab_center.n) c = cfg->pic_slab_center.v[0];
  else
    for (int k = 0; k < 3; k++) c += n[k] * (f.box.lo[k] + 0.5 * f.box.len[k]);
  size_t shown = 0;
  for (size_t i = 0; i < f.n; i++) {
    const double *x = f.positions + 3 * i;
    double col[3] = {0.84, 0.84, 0.86}; /* monomers: light grey */
    if ((hide && size[i] <= 1) || (slab && !(fabs(n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - c) < cfg->pic_slab_width))) {
      rgb[3 * i] = -1;
      continue;
    }
    shown++;
    if (color == COLOR_CLUSTER && size[i] > 1) agglo_label_rgb(f.clusters[i], col);
    else if (color == COLOR_SIZE)
      viridis(smax > 1 ? log((double)size[i]) / log((double)smax) : 0, col);
    else if (color == COLOR_SPECIES)
      for (int a = 0; a < 3; a++) col[a] = species_palette[species_of(cfg, &f, i) % 8][a];
    else if (color == COLOR_SPEED)
      viridis(norm3(f.velocities + 3 * i) / vtop, col);
    for (int a = 0; a < 3; a++) rgb[3 * i + a] = (float)col[a];
  }
  char caption[256];
  int len = snprintf(caption, sizeof caption, "t = %.4g   N = %zu   clusters = %ld", f.time, f.n, nc);
  if (slab || hide) len += snprintf(caption + len, sizeof caption - (size_t)len, "   shown = %zu", shown);
  if (color == COLOR_SIZE)
    snprintf(caption + len, sizeof caption - (size_t)len, "   colour: cluster size 1-%u (log)", smax);
  else if (color == COLOR_SPEED)
    snprintf(caption + len, sizeof caption - (size_t)len, "   colour: speed 0-%.3g", vtop);
  int rc;
  if (shaded) {
    agglo_shaded_options o = {cfg->pic_projection == PROJECTION_PERSPECTIVE, cfg->pic_box == BOX_ON, (int)cfg->png_width,
                              {0}, {0}, {0}, cfg->pic_fov, cfg->pic_zoom,
                              f.dim == 2 ? 0 : cfg->pic_fog}; /* 2D: no depth to cue */
    for (int k = 0; k < 3; k++) {
      o.view[k] = f.dim == 2 ? (k == 2) : cfg->pic_view.v[k];
      o.up[k] = f.dim == 2 ? (k == 1) : cfg->pic_up.v[k];
      o.light[k] = cfg->pic_light.v[k];
    }
    rc = agglo_shaded_write(path, &o, &f, rgb, caption, err, errlen);
  } else {
    as_system(&f, &s);
    rc = agglo_png_write_colours(path, &s, (int)cfg->png_width, links, obstacles, rgb, caption, err, errlen);
  }
  free(size), free(rgb);
  return rc;
}

agglo_status agglo_picture_render(const agglo_config *settings, const agglo_picture_frame *frame,
                                  const char *path) {
  if (agglo_picture_draw(settings, frame, NULL, NULL, path, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    return strstr(agglo_error_buffer(), "cannot write") ? AGGLO_ERROR_IO : AGGLO_ERROR_INPUT;
  return AGGLO_OK;
}
