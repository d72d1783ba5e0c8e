/* PNG snapshots with cairo: discs at their true radius, coloured by cluster. */
#include "picture/png_write.h"
#include "picture/colors.h"
#include "core/error.h"
#include "core/compare.h"
#include <cairo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define TWO_PI 6.283185307179586 /* M_PI is not in strict C11 */

/* Mapping from box coordinates to pixels; y points up in the box, down in the image. */
typedef struct {
  const agglo_box *box;
  double scale;             /* pixels per length unit */
  double left, bottom;      /* pixel position of (lo[0], lo[1]) */
  double right, top;        /* pixel position of (hi[0], hi[1]) */
  int w, h;
  double margin, font;
} view;

/* What the colouring needs to know about cluster labels. */
typedef struct {
  const int32_t *label; /* may be NULL: every particle is alone */
  uint32_t *size;       /* size[l] for labels 0 <= l < n */
  size_t n;
  int nclusters;
} clusters;

static double px(const view *v, double x) { return v->left + (x - v->box->lo[0]) * v->scale; }
static double py(const view *v, double y) { return v->bottom - (y - v->box->lo[1]) * v->scale; }

/* ---- layout ---- */

static int make_view(view *v, const agglo_box *b, int width_px) {
  v->box = b;
  v->w = width_px;
  v->margin = fmax(8.0, width_px / 50.0);
  v->font = fmax(10.0, width_px / 70.0);
  v->scale = (width_px - 2 * v->margin) / b->len[0];
  v->left = v->margin;
  v->right = width_px - v->margin;
  v->top = v->margin + 1.6 * v->font; /* the caption sits above the box */
  v->bottom = v->top + b->len[1] * v->scale;
  double h = ceil(v->bottom + v->margin);
  if (!(h >= 1 && h <= 32767)) return -1; /* cairo's surface size limit */
  v->h = (int)h;
  return 0;
}

/* ---- cluster labels and colours ---- */

/* Labels outside [0, n) have no slot in size[]; count them apart by sorting a copy. */
static int count_odd_labels(const clusters *c, size_t nodd) {
  int32_t *odd = malloc(nodd * sizeof *odd);
  if (!odd) return -1;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->label[i] < 0 || (size_t)c->label[i] >= c->n) odd[k++] = c->label[i];
  qsort(odd, nodd, sizeof *odd, agglo_cmp_i32);
  int distinct = 0;
  for (size_t i = 0; i < nodd; i++) distinct += (i == 0 || odd[i] != odd[i - 1]);
  free(odd);
  return distinct;
}

static int count_clusters(clusters *c) {
  if (!c->label) return c->nclusters = (int)c->n, 0;
  size_t nodd = 0;
  for (size_t i = 0; i < c->n; i++) {
    int32_t l = c->label[i];
    if (l >= 0 && (size_t)l < c->n) c->size[l]++;
    else nodd++;
  }
  int distinct = nodd ? count_odd_labels(c, nodd) : 0;
  if (distinct < 0) return -1;
  for (size_t l = 0; l < c->n; l++) distinct += (c->size[l] != 0);
  c->nclusters = distinct;
  return 0;
}



/* Lone particles are grey; a cluster's colour depends only on its label, so it is stable across frames. */
static void particle_colour(const clusters *c, size_t i, double rgb[3]) {
  int32_t l = c->label ? c->label[i] : (int32_t)i;
  int in_range = l >= 0 && (size_t)l < c->n;
  if (!c->label || (in_range && c->size[l] <= 1)) {
    rgb[0] = rgb[1] = rgb[2] = 0.80;
    return;
  }
  agglo_label_rgb(l, rgb);
}

/* ---- drawing ---- */

static void fill_background(cairo_t *cr) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
}

/* Periodic axes clip to the box so wrapped images don't spill out; wall axes don't clip. */
static void clip_to_box(cairo_t *cr, const view *v) {
  double x0 = v->box->periodic[0] ? v->left : 0, x1 = v->box->periodic[0] ? v->right : v->w;
  double y0 = v->box->periodic[1] ? v->top : 0, y1 = v->box->periodic[1] ? v->bottom : v->h;
  cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
  cairo_clip(cr);
}

/* Consecutive discs of one colour without outlines share a single fill: cairo's cost is per fill,
   and filling the union in one colour looks the same as filling the discs one by one. */
typedef struct {
  cairo_t *cr;
  double rgb[3];
  size_t pending; /* discs in the current path, not yet filled */
} painter;

enum { BATCH_MAX = 4096 }; /* bounds the path cairo has to hold */
#define OUTLINE_MIN_PX 3.0 /* below this an outline would swamp the disc, and it is slow */

static void painter_flush(painter *p) {
  if (!p->pending) return;
  cairo_set_source_rgb(p->cr, p->rgb[0], p->rgb[1], p->rgb[2]);
  cairo_fill(p->cr);
  p->pending = 0;
}

static void painter_colour(painter *p, const double rgb[3]) {
  if (rgb[0] == p->rgb[0] && rgb[1] == p->rgb[1] && rgb[2] == p->rgb[2] && p->pending < BATCH_MAX) return;
  painter_flush(p);
  for (int a = 0; a < 3; a++) p->rgb[a] = rgb[a];
}

/* Sub-pixel discs become squares of equal area: they look the same and fill several times faster. */
static void add_shape(cairo_t *cr, double cx, double cy, double rp) {
  if (rp < 1.0) {
    double h = 0.886226925452758 * rp; /* half side: sqrt(pi)/2 * r */
    cairo_rectangle(cr, cx - h, cy - h, 2 * h, 2 * h);
    return;
  }
  cairo_new_sub_path(cr);
  cairo_arc(cr, cx, cy, rp, 0, TWO_PI);
}

/* Queue a shape; it is filled when the colour changes (see painter). */
static void fill_shape(painter *p, double cx, double cy, double rp, const double rgb[3]) {
  painter_colour(p, rgb);
  add_shape(p->cr, cx, cy, rp);
  p->pending++;
}

/* The outline is a dark disc under a lighter one: it stays inside the true radius and is cheaper than a
   stroke. */
static void draw_disc(painter *p, const view *v, double x, double y, double r, const double rgb[3]) {
  double cx = px(v, x), cy = py(v, y), rp = r * v->scale;
  if (!(rp > 0) || !isfinite(cx) || !isfinite(cy)) return; /* one NaN would put cairo in an error state */
  if (cx + rp < 0 || cx - rp > v->w || cy + rp < 0 || cy - rp > v->h) return;
  if (rp < OUTLINE_MIN_PX) {
    fill_shape(p, cx, cy, rp, rgb);
    return;
  }
  double dark[3] = {0.55 * rgb[0], 0.55 * rgb[1], 0.55 * rgb[2]};
  fill_shape(p, cx, cy, rp, dark);
  fill_shape(p, cx, cy, rp - fmin(1.5, fmax(0.6, 0.08 * rp)), rgb);
}

/* Shifts (0 and at most one of +-len) that bring a disc's periodic images into the box along axis k. */
static int image_shifts(const agglo_box *b, int k, double x, double r, double shift[2]) {
  int n = 0;
  shift[n++] = 0;
  if (!b->periodic[k]) return n;
  if (x - r < b->lo[k]) shift[n++] = b->len[k];
  else if (x + r > b->hi[k]) shift[n++] = -b->len[k];
  return n;
}

static void draw_particle(painter *p, const view *v, const agglo_system *s, size_t i, const double rgb[3]) {
  const double *x = s->x + 3 * i;
  double sx[2], sy[2];
  int nx = image_shifts(&s->box, 0, x[0], s->r[i], sx);
  int ny = image_shifts(&s->box, 1, x[1], s->r[i], sy);
  for (int a = 0; a < nx; a++)
    for (int b = 0; b < ny; b++) { /* (Lees-Edwards: the image across a y face is shifted along x) */
      double le = sy[b] > 0 ? s->box.shear_x : sy[b] < 0 ? -s->box.shear_x : 0;
      draw_disc(p, v, x[0] + sx[a] + le, x[1] + sy[b], s->r[i], rgb);
    }
}

/* Deeper discs (smaller z, further from a viewer looking down -z) are darker. */
static double depth_shade(const agglo_system *s, size_t i) {
  if (s->dim != 3 || !(s->box.len[2] > 0)) return 1.0;
  double f = (s->x[3 * i + 2] - s->box.lo[2]) / s->box.len[2];
  return 0.6 + 0.4 * fmin(1.0, fmax(0.0, f));
}

typedef struct { double z; size_t i; } depth_key;

static int cmp_depth(const void *a, const void *b) {
  const depth_key *p = a, *q = b;
  if (p->z != q->z) return (p->z > q->z) - (p->z < q->z);
  return (p->i > q->i) - (p->i < q->i); /* ties by index keep the output deterministic */
}

/* Painter's order for 3D: back (small z) to front. */
static depth_key *depth_order(const agglo_system *s) {
  depth_key *key = malloc((s->n ? s->n : 1) * sizeof *key);
  if (!key) return NULL;
  for (size_t i = 0; i < s->n; i++) key[i] = (depth_key){s->x[3 * i + 2], i};
  qsort(key, s->n, sizeof *key, cmp_depth);
  return key;
}

static void draw_particles(cairo_t *cr, const view *v, const agglo_system *s, const clusters *c,
                           const depth_key *order, const float *colours) {
  painter p = {cr, {-1, -1, -1}, 0};
  for (size_t k = 0; k < s->n; k++) {
    size_t i = order ? order[k].i : k;
    double rgb[3], f = depth_shade(s, i);
    if (colours && colours[3 * i] < 0) continue; /* hidden */
    if (colours)
      for (int a = 0; a < 3; a++) rgb[a] = colours[3 * i + a];
    else
      particle_colour(c, i, rgb);
    for (int a = 0; a < 3; a++) rgb[a] *= f;
    draw_particle(&p, v, s, i, rgb);
  }
  painter_flush(&p);
}

/* A link is drawn only when the minimum image is the direct segment, never across a wrap. */
static void draw_links(cairo_t *cr, const view *v, const agglo_system *s, const agglo_link_lines *l) {
  cairo_set_line_width(cr, fmin(3.0, fmax(0.5, 0.25 * agglo_min_radius(s) * v->scale)));
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  for (size_t k = 0; k < l->n; k++) {
    int32_t i = l->i[k], j = l->j[k];
    if (i < 0 || j < 0 || (size_t)i >= s->n || (size_t)j >= s->n) continue;
    const double *xi = s->x + 3 * (size_t)i, *xj = s->x + 3 * (size_t)j;
    double d[3];
    agglo_box_delta(&s->box, xi, xj, d);
    if (d[0] != xj[0] - xi[0] || d[1] != xj[1] - xi[1]) continue;
    if (!isfinite(d[0]) || !isfinite(d[1])) continue;
    double st = l->strength ? fmin(1.0, fmax(0.0, l->strength[k])) : 1.0;
    cairo_set_source_rgba(cr, 0, 0, 0, 0.3 + 0.7 * st);
    cairo_move_to(cr, px(v, xi[0]), py(v, xi[1]));
    cairo_line_to(cr, px(v, xj[0]), py(v, xj[1]));
    cairo_stroke(cr);
  }
}

/* Obstacles: grey discs with a darker rim, dark grey wall lines; they are not clipped to a wall box
   (a plane or segment is given already clipped). */
static void draw_obstacles(cairo_t *cr, const view *v, const agglo_obstacle_shapes *o) {
  painter p = {cr, {-1, -1, -1}, 0};
  const double grey[3] = {0.62, 0.62, 0.62};
  for (size_t k = 0; k < o->ndisc; k++) {
    const double *d = o->disc + 3 * k;
    draw_disc(&p, v, d[0], d[1], d[2], grey);
  }
  painter_flush(&p);
  cairo_set_line_width(cr, fmax(1.5, v->w / 400.0));
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  for (size_t k = 0; k < o->nseg; k++) {
    const double *g = o->seg + 4 * k;
    double a = px(v, g[0]), b = py(v, g[1]), c = px(v, g[2]), d = py(v, g[3]);
    if (!isfinite(a) || !isfinite(b) || !isfinite(c) || !isfinite(d)) continue;
    cairo_move_to(cr, a, b);
    cairo_line_to(cr, c, d);
  }
  cairo_stroke(cr);
}

static void draw_edge(cairo_t *cr, double x0, double y0, double x1, double y1, int periodic, double lw) {
  double dash[2] = {5 * lw, 4 * lw};
  cairo_set_dash(cr, dash, periodic ? 2 : 0, 0);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

/* Walls solid, periodic boundaries dashed: x boundaries are the vertical edges. */
static void draw_box(cairo_t *cr, const view *v) {
  double lw = fmax(1.0, v->w / 800.0);
  cairo_set_line_width(cr, lw);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  draw_edge(cr, v->left, v->top, v->left, v->bottom, v->box->periodic[0], lw);
  draw_edge(cr, v->right, v->top, v->right, v->bottom, v->box->periodic[0], lw);
  draw_edge(cr, v->left, v->top, v->right, v->top, v->box->periodic[1], lw);
  draw_edge(cr, v->left, v->bottom, v->right, v->bottom, v->box->periodic[1], lw);
  cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_caption(cairo_t *cr, const view *v, const agglo_system *s, int nclusters, const char *caption) {
  char text[256];
  if (caption) snprintf(text, sizeof text, "%s", caption);
  else snprintf(text, sizeof text, "t = %.3g   N = %zu   clusters = %d", s->t, s->n, nclusters);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, v->font);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_move_to(cr, v->margin, 0.5 * v->margin + v->font);
  cairo_show_text(cr, text);
}

/* ---- entry point ---- */

/* How a caller chooses the colours and the caption (NULL: by cluster, and t, N, clusters). */
typedef struct { const float *rgb; const char *caption; } custom;

static void draw_all(cairo_t *cr, const view *v, const agglo_system *s, const clusters *c,
                     const depth_key *order, const agglo_link_lines *links, const agglo_obstacle_shapes *obs,
                     const custom *u) {
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD);
  fill_background(cr);
  cairo_save(cr);
  clip_to_box(cr, v);
  if (obs && ((obs->nseg && obs->seg) || (obs->ndisc && obs->disc))) {
    agglo_obstacle_shapes o = *obs;
    if (!o.seg) o.nseg = 0;
    if (!o.disc) o.ndisc = 0;
    draw_obstacles(cr, v, &o);
  }
  draw_particles(cr, v, s, c, order, u->rgb);
  if (links && links->n && links->i && links->j) draw_links(cr, v, s, links);
  cairo_restore(cr);
  draw_box(cr, v);
  draw_caption(cr, v, s, c->nclusters, u->caption);
}

static int render(const char *path, const agglo_system *s, const view *v, const clusters *c,
                  const depth_key *order, const agglo_link_lines *links, const agglo_obstacle_shapes *obs,
                  const custom *u, char *err, size_t errlen) {
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, v->w, v->h);
  cairo_t *cr = cairo_create(surf);
  draw_all(cr, v, s, c, order, links, obs, u);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_write_to_png(surf, path);
  cairo_surface_destroy(surf);
  if (st != CAIRO_STATUS_SUCCESS)
    return agglo_fail(err, errlen, "cannot write PNG '%s': %s", path, cairo_status_to_string(st));
  return 0;
}

static int check_args(const char *path, const agglo_system *s, int width_px, char *err, size_t errlen) {
  if (!path || !s) return agglo_fail(err, errlen, "agglo_png_write: NULL path or system");
  if (width_px < 32 || width_px > 32767)
    return agglo_fail(err, errlen, "cannot write PNG '%s': width %d px out of range [32, 32767]", path, width_px);
  if (!(s->box.len[0] > 0) || !(s->box.len[1] > 0))
    return agglo_fail(err, errlen, "cannot write PNG '%s': box has no extent in x or y", path);
  if (s->n && (!s->x || !s->r))
    return agglo_fail(err, errlen, "cannot write PNG '%s': system has no positions or radii", path);
  return 0;
}

static int write_png(const char *path, const agglo_system *s, int width_px, const agglo_link_lines *links,
                     const agglo_obstacle_shapes *obstacles, const custom *u, char *err, size_t errlen) {
  if (check_args(path, s, width_px, err, errlen)) return -1;
  view v;
  if (make_view(&v, &s->box, width_px))
    return agglo_fail(err, errlen, "cannot write PNG '%s': box aspect ratio gives an image too tall", path);
  clusters c = {s->cluster, calloc(s->n ? s->n : 1, sizeof(uint32_t)), s->n, 0};
  depth_key *order = s->dim == 3 ? depth_order(s) : NULL;
  int rc;
  if (!c.size || (s->dim == 3 && !order) || count_clusters(&c))
    rc = agglo_fail(err, errlen, "cannot write PNG '%s': out of memory", path);
  else
    rc = render(path, s, &v, &c, order, links, obstacles, u, err, errlen);
  free(order);
  free(c.size);
  return rc;
}

int agglo_png_write(const char *path, const agglo_system *s, int width_px, const agglo_link_lines *links,
                    const agglo_obstacle_shapes *obstacles, char *err, size_t errlen) {
  custom u = {NULL, NULL};
  return write_png(path, s, width_px, links, obstacles, &u, err, errlen);
}

int agglo_png_write_colours(const char *path, const agglo_system *s, int width_px,
                            const agglo_link_lines *links, const agglo_obstacle_shapes *obstacles,
                            const float *rgb, const char *caption, char *err, size_t errlen) {
  custom u = {rgb, caption};
  return write_png(path, s, width_px, links, obstacles, &u, err, errlen);
}
