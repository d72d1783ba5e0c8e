/* Shaded pictures: spheres lit as spheres (ambient + Lambert + a highlight, from a light fixed in
   the picture's frame), a thin dark rim, fog toward the background with depth, seen in
   perspective or orthographic projection along a view direction. Spheres are drawn back to front
   into the pixels of a cairo image with a depth buffer (so spheres that touch or overlap cut each
   other where they meet) and anti-aliased rims; cairo draws the box's edges and the caption. */
#include "picture/picture.h"
#include "core/error.h"
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void unit3(double *a) {
  double n = sqrt(dot3(a, a));
  for (int k = 0; k < 3; k++) a[k] /= n;
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The camera: screen axes ex (right), ey (up), ez (toward the viewer) about the box centre c. */
typedef struct {
  double c[3], ex[3], ey[3], ez[3];
  double eye;          /* distance of the eye from c (perspective), 0 = orthographic */
  double scale;        /* pixels per length unit in the plane through c */
  double ox, oy;       /* pixel position of c */
  double radius;       /* the box's bounding sphere: depths lie in [-radius, radius] */
} camera;

/* Screen position, depth (toward the viewer) and magnification of a point; 0 behind the eye. */
static int project(const camera *k, const double *p, double *sx, double *sy, double *z, double *mag) {
  double q[3] = {p[0] - k->c[0], p[1] - k->c[1], p[2] - k->c[2]};
  double X = dot3(q, k->ex), Y = dot3(q, k->ey), Z = dot3(q, k->ez), m = 1;
  if (k->eye > 0) {
    double d = k->eye - Z;
    if (!(d > 1e-6 * k->eye)) return 0;
    m = k->eye / d;
  }
  *sx = k->ox + k->scale * m * X;
  *sy = k->oy - k->scale * m * Y;
  *z = Z;
  *mag = m;
  return isfinite(*sx) && isfinite(*sy);
}

static void corner(const agglo_box *b, int i, double p[3]) {
  for (int a = 0; a < 3; a++) p[a] = (i >> a) & 1 ? b->hi[a] : b->lo[a];
}

typedef struct {
  int w, h;
  double margin, font, top;
} layout;

/* Orientation from view and up, eye distance from the field of view, and the scale that fits the
   box's projected corners in the width (the height follows, at most 1.5 times the width). */
static void make_camera(const agglo_shaded_options *o, const agglo_box *b, camera *k, layout *L) {
  memset(k, 0, sizeof *k);
  for (int a = 0; a < 3; a++) {
    k->c[a] = b->lo[a] + 0.5 * b->len[a];
    k->ez[a] = o->view[a];
  }
  unit3(k->ez);
  cross3(o->up, k->ez, k->ex);
  unit3(k->ex);
  cross3(k->ez, k->ex, k->ey);
  k->radius = 0.5 * sqrt(b->len[0] * b->len[0] + b->len[1] * b->len[1] + b->len[2] * b->len[2]);
  if (o->perspective) k->eye = k->radius / sin(0.5 * o->fov_deg * 3.141592653589793 / 180);
  k->scale = 1;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int i = 0; i < 8; i++) {
    double p[3], sx, sy, z, m;
    corner(b, i, p);
    if (!project(k, p, &sx, &sy, &z, &m)) continue;
    x0 = fmin(x0, sx), x1 = fmax(x1, sx), y0 = fmin(y0, sy), y1 = fmax(y1, sy);
  }
  L->w = o->width;
  L->margin = fmax(8.0, L->w / 50.0);
  L->font = fmax(10.0, L->w / 70.0);
  L->top = L->margin + 1.6 * L->font;
  double dx = fmax(x1 - x0, 1e-300), dy = fmax(y1 - y0, 1e-300);
  double s = (L->w - 2 * L->margin) / dx;
  if (dy * s > 1.5 * L->w) s = 1.5 * L->w / dy;
  double plot_h = dy * s;
  L->h = (int)ceil(L->top + plot_h + L->margin);
  k->scale = s * o->zoom;
  k->ox = 0.5 * L->w - k->scale * 0.5 * (x0 + x1);
  k->oy = L->top + 0.5 * plot_h - k->scale * 0.5 * (y0 + y1);
}

/* ---- the spheres ---- */

typedef struct {
  uint32_t *px;
  float *depth;
  int w, h, stride; /* stride in pixels */
  double light[3], half[3], fog, bg;
} canvas;

static uint32_t pack(const double c[3]) {
  uint32_t v = 0;
  for (int a = 0; a < 3; a++) {
    double x = c[a] < 0 ? 0 : c[a] > 1 ? 1 : c[a];
    v = (v << 8) | (uint32_t)(255 * x + 0.5);
  }
  return v;
}

static void blend(uint32_t *p, const double c[3], double cov) {
  if (cov >= 1) {
    *p = pack(c);
    return;
  }
  double old[3] = {((*p >> 16) & 255) / 255.0, ((*p >> 8) & 255) / 255.0, (*p & 255) / 255.0}, mix[3];
  for (int a = 0; a < 3; a++) mix[a] = cov * c[a] + (1 - cov) * old[a];
  *p = pack(mix);
}

/* Colour of the sphere's surface with normal n (picture frame) at fog share f. */
static void shade(const canvas *cv, const float *rgb, const double n[3], double rim, double f, double out[3]) {
  double lam = fmax(0, dot3(n, cv->light)), s = fmax(0, dot3(n, cv->half));
  s *= s, s *= s, s *= s, s *= s, s *= s; /* ^32 */
  double k = 0.40 + 0.62 * lam;
  for (int a = 0; a < 3; a++) {
    double c = (rgb[a] * k + 0.35 * s) * rim;
    out[a] = (1 - f) * c + f * cv->bg;
  }
}

/* One sphere at pixel (cx, cy) with pixel radius rp, depth z of its centre and radius r (length). */
static void splat(canvas *cv, double cx, double cy, double rp, double z, double r, const float *rgb, double f) {
  if (rp < 0.7) { /* sub-pixel: its area's share of one pixel */
    int x = (int)floor(cx), y = (int)floor(cy);
    if (x < 0 || y < 0 || x >= cv->w || y >= cv->h) return;
    size_t i = (size_t)y * (size_t)cv->stride + (size_t)x;
    if (z + r <= cv->depth[i]) return;
    double n[3] = {0, 0, 1}, c[3];
    shade(cv, rgb, n, 1, f, c);
    blend(cv->px + i, c, fmin(1, 3.14159 * rp * rp));
    return;
  }
  int x0 = (int)floor(cx - rp - 1), x1 = (int)ceil(cx + rp + 1);
  int y0 = (int)floor(cy - rp - 1), y1 = (int)ceil(cy + rp + 1);
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > cv->w - 1) x1 = cv->w - 1;
  if (y1 > cv->h - 1) y1 = cv->h - 1;
  double inv = 1 / rp, rim_px = rp >= 2.5 ? fmin(1.2, 0.12 * rp) : 0;
  for (int y = y0; y <= y1; y++) {
    double dy = y + 0.5 - cy;
    for (int x = x0; x <= x1; x++) {
      double dx = x + 0.5 - cx, d2 = dx * dx + dy * dy;
      if (d2 > (rp + 0.5) * (rp + 0.5)) continue;
      double d = sqrt(d2), cov = rp - d + 0.5;
      if (cov <= 0) continue;
      double u = dx * inv, v = -dy * inv, s2 = u * u + v * v;
      if (s2 > 1) u /= sqrt(s2), v /= sqrt(s2), s2 = 1;
      double nz = sqrt(1 - s2), depth = z + r * nz;
      size_t i = (size_t)y * (size_t)cv->stride + (size_t)x;
      if (depth <= cv->depth[i]) continue;
      double n[3] = {u, v, nz}, c[3];
      double rim = rim_px > 0 ? 0.62 + 0.38 * fmin(1, fmax(0, (rp - d) / rim_px)) : 1;
      shade(cv, rgb, n, rim, f, c);
      blend(cv->px + i, c, fmin(1, cov));
      if (cov >= 0.5) cv->depth[i] = (float)depth;
    }
  }
}

typedef struct { float z; uint32_t i; } key;

static int cmp_key(const void *a, const void *b) {
  const key *p = a, *q = b;
  if (p->z != q->z) return (p->z > q->z) - (p->z < q->z);
  return (p->i > q->i) - (p->i < q->i);
}

static int draw_spheres(canvas *cv, const camera *k, const agglo_picture_frame *f, const float *rgb) {
  key *order = malloc((f->n ? f->n : 1) * sizeof *order);
  if (!order) return -1;
  size_t m = 0;
  for (size_t i = 0; i < f->n; i++) {
    if (rgb[3 * i] < 0 || !(f->radii[i] > 0)) continue;
    double sx, sy, z, mag;
    if (!project(k, f->positions + 3 * i, &sx, &sy, &z, &mag)) continue;
    order[m++] = (key){(float)z, (uint32_t)i};
  }
  qsort(order, m, sizeof *order, cmp_key); /* back (far) first */
  double span = 2 * k->radius > 0 ? 2 * k->radius : 1;
  for (size_t q = 0; q < m; q++) {
    size_t i = order[q].i;
    double sx, sy, z, mag, r = f->radii[i];
    project(k, f->positions + 3 * i, &sx, &sy, &z, &mag);
    double rp = r * k->scale * mag;
    if (sx + rp < 0 || sx - rp > cv->w || sy + rp < 0 || sy - rp > cv->h) continue;
    double fog = cv->fog * fmin(1, fmax(0, (k->radius - z) / span));
    splat(cv, sx, sy, rp, z, r, rgb + 3 * i, fog);
  }
  free(order);
  return 0;
}

/* ---- box and caption ---- */

/* The 12 edges of the box: the three at its farthest corner go behind the spheres (back = 1),
   the others over them. Walls solid, periodic boundaries dashed (the edge along that axis). */
static void draw_edges(cairo_t *cr, const camera *k, const agglo_box *b, const layout *L, int back) {
  double zmin = INFINITY;
  int far = 0;
  for (int i = 0; i < 8; i++) {
    double p[3];
    corner(b, i, p);
    double q[3] = {p[0] - k->c[0], p[1] - k->c[1], p[2] - k->c[2]}, z = dot3(q, k->ez);
    if (z < zmin) zmin = z, far = i;
  }
  double lw = fmax(1.0, L->w / 700.0), dash[2] = {5 * lw, 4 * lw};
  cairo_set_line_width(cr, lw);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  double grey = back ? 0.62 : 0.25;
  cairo_set_source_rgb(cr, grey, grey, grey);
  for (int i = 0; i < 8; i++)
    for (int a = 0; a < 3; a++) {
      int j = i | (1 << a);
      if (j == i) continue;
      if ((i == far || j == far) != back) continue;
      if (!(b->len[a] > 0)) continue;
      int flat = 0; /* a box without depth (2D): its one face only */
      for (int q = 0; q < 3; q++) flat |= !(b->len[q] > 0) && ((i | j) >> q & 1);
      if (flat) continue;
      double p[3], q[3], x0, y0, x1, y1, z, m;
      corner(b, i, p), corner(b, j, q);
      if (!project(k, p, &x0, &y0, &z, &m) || !project(k, q, &x1, &y1, &z, &m)) continue;
      int periodic = b->periodic[(a + 1) % 3] || b->periodic[(a + 2) % 3];
      cairo_set_dash(cr, dash, periodic ? 2 : 0, 0);
      cairo_move_to(cr, x0, y0);
      cairo_line_to(cr, x1, y1);
      cairo_stroke(cr);
    }
  cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_caption(cairo_t *cr, const layout *L, const char *caption) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, L->font);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_move_to(cr, L->margin, 0.5 * L->margin + L->font);
  cairo_show_text(cr, caption);
}

int agglo_shaded_write(const char *path, const agglo_shaded_options *o, const agglo_picture_frame *f,
                       const float *rgb, const char *caption, char *err, size_t errlen) {
  if (o->width < 32 || o->width > 32767)
    return agglo_fail(err, errlen, "cannot write PNG '%s': width %d px out of range [32, 32767]", path, o->width);
  camera k;
  layout L;
  make_camera(o, &f->box, &k, &L);
  if (!(L.h >= 1 && L.h <= 32767) || !(k.scale > 0) || !isfinite(k.scale))
    return agglo_fail(err, errlen, "cannot write PNG '%s': the box gives no picture", path);
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, L.w, L.h);
  cairo_t *cr = cairo_create(surf);
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  if (o->draw_box) draw_edges(cr, &k, &f->box, &L, 1);
  cairo_surface_flush(surf);
  canvas cv = {(uint32_t *)cairo_image_surface_get_data(surf), NULL, L.w, L.h,
               cairo_image_surface_get_stride(surf) / 4, {0}, {0, 0, 1}, o->fog, 1.0};
  for (int a = 0; a < 3; a++) cv.light[a] = o->light[a];
  unit3(cv.light);
  for (int a = 0; a < 3; a++) cv.half[a] += cv.light[a];
  unit3(cv.half);
  int rc = 0;
  size_t npx = (size_t)cv.stride * (size_t)L.h;
  cv.depth = malloc(npx * sizeof *cv.depth);
  if (!cv.depth || !cv.px) rc = agglo_fail(err, errlen, "cannot write PNG '%s': out of memory", path);
  else {
    for (size_t i = 0; i < npx; i++) cv.depth[i] = -INFINITY;
    if (draw_spheres(&cv, &k, f, rgb) != 0) rc = agglo_fail(err, errlen, "cannot write PNG '%s': out of memory", path);
  }
  free(cv.depth);
  cairo_surface_mark_dirty(surf);
  if (o->draw_box) draw_edges(cr, &k, &f->box, &L, 0);
  draw_caption(cr, &L, caption);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (rc == 0 && st == CAIRO_STATUS_SUCCESS) st = cairo_surface_write_to_png(surf, path);
  cairo_surface_destroy(surf);
  if (rc == 0 && st != CAIRO_STATUS_SUCCESS)
    rc = agglo_fail(err, errlen, "cannot write PNG '%s': %s", path, cairo_status_to_string(st));
  return rc;
}
