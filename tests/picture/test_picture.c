/* Pictures through the public API (agglo/picture.h): known configurations rendered and checked by
   their pixels. The box [0, 10]^3 seen along -z in orthographic projection fills the picture's
   width; its edges give the mapping from box to pixels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cairo.h>
#include <stdio.h>
#include <string.h>

#include "agglo/picture.h"

#define L 10.0
#define WHITE 0xffffffu

typedef struct {
  cairo_surface_t *surf;
  const uint8_t *data;
  int w, h, stride;
  double left, top, scale; /* pixel of box (0, L) and pixels per length */
} image;

static uint32_t pixel(const image *im, int x, int y) {
  assert_true(x >= 0 && x < im->w && y >= 0 && y < im->h);
  return *(const uint32_t *)(im->data + (size_t)y * im->stride + 4 * (size_t)x) & 0xffffffu;
}
static int red(uint32_t p) { return (p >> 16) & 255; }
static int blue(uint32_t p) { return p & 255; }
static int brightness(uint32_t p) { return red(p) + (int)((p >> 8) & 255) + blue(p); }

/* Pixel under box point (x, y), seen along -z. */
static uint32_t at(const image *im, double x, double y) {
  return pixel(im, (int)(im->left + x * im->scale), (int)(im->top + (L - y) * im->scale));
}

/* The square of the box's edges: outermost non-white pixels of the middle row, top one of a column. */
static void find_box(image *im) {
  int left = -1, right = -1, top = -1;
  for (int x = 0; x < im->w && left < 0; x++)
    if (pixel(im, x, im->h / 2) != WHITE) left = x;
  for (int x = im->w - 1; x >= 0 && right < 0; x--)
    if (pixel(im, x, im->h / 2) != WHITE) right = x;
  for (int y = 0; y < im->h && top < 0; y++) /* near the right edge: the caption is short */
    if (pixel(im, right - 3, y) != WHITE) top = y;
  assert_true(left >= 0 && right > left && top > 0);
  im->left = left + 0.5, im->top = top + 0.5;
  im->scale = (right - left) / L;
}

static agglo_config *settings(const char *extra) {
  agglo_config *c = agglo_config_new();
  assert_non_null(c);
  assert_int_equal(agglo_config_set(c, "picture.view", "0, 0, 1"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "picture.up", "0, 1, 0"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "picture.projection", "orthographic"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "output.png_width", "400"), AGGLO_OK);
  if (extra) assert_int_equal(agglo_config_assign(c, extra), AGGLO_OK);
  return c;
}

static image render(const agglo_config *c, const double *x, const double *r, const int32_t *species,
                    size_t n, const char *path) {
  agglo_picture_frame f = {.n = n, .dim = 3, .positions = x, .radii = r, .species = species, .time = 1};
  for (int k = 0; k < 3; k++) f.box.hi[k] = f.box.len[k] = L;
  agglo_status st = agglo_picture_render(c, &f, path);
  if (st != AGGLO_OK) print_error("%s\n", agglo_last_error());
  assert_int_equal(st, AGGLO_OK);
  image im = {0};
  im.surf = cairo_image_surface_create_from_png(path);
  assert_int_equal(cairo_surface_status(im.surf), CAIRO_STATUS_SUCCESS);
  im.data = cairo_image_surface_get_data(im.surf);
  im.w = cairo_image_surface_get_width(im.surf);
  im.h = cairo_image_surface_get_height(im.surf);
  im.stride = cairo_image_surface_get_stride(im.surf);
  find_box(&im);
  return im;
}

/* One sphere in the centre: lit from the upper left, so its centre is bright, its lower right rim
   dark; the corners of the box are background. */
static void test_one_sphere(void **state) {
  (void)state;
  agglo_config *c = settings(NULL);
  double x[3] = {5, 5, 5}, r[1] = {2};
  image im = render(c, x, r, NULL, 1, "test_picture_one.png");
  assert_int_equal(im.w, 400);
  assert_true(im.scale > 30 && im.scale < 40);
  uint32_t centre = at(&im, 5, 5), rim = at(&im, 5 + 1.3, 5 - 1.3);
  assert_int_not_equal(centre, WHITE);
  assert_true(brightness(centre) > 400);
  assert_true(brightness(centre) > brightness(rim) + 100);
  assert_int_equal(at(&im, 0.5, 0.5), WHITE);
  assert_int_equal(at(&im, 9.5, 9.5), WHITE);
  assert_int_equal(at(&im, 5, 7.5), WHITE); /* just outside the sphere */
  assert_int_not_equal(at(&im, 5, 6.7), WHITE); /* just inside */
  cairo_surface_destroy(im.surf);
  agglo_config_destroy(c);
}

/* Two spheres of two species at known places: blue left, orange right, white between; where
   two overlap on screen the one nearer the viewer (larger z) is seen. */
static void test_two_spheres(void **state) {
  (void)state;
  agglo_config *c = settings("picture.color=species");
  double x[12] = {2.5, 5, 5, 7.5, 5, 5, 4.5, 2, 1, 5.5, 2, 9}, r[4] = {1, 1, 1, 1};
  int32_t sp[4] = {0, 1, 0, 1};
  image im = render(c, x, r, sp, 4, "test_picture_two.png");
  uint32_t a = at(&im, 2.5, 5), b = at(&im, 7.5, 5);
  assert_true(blue(a) > red(a) + 40);
  assert_true(red(b) > blue(b) + 40);
  assert_int_equal(at(&im, 5, 5), WHITE);
  uint32_t overlap = at(&im, 5, 2), back = at(&im, 4, 2);
  assert_true(red(overlap) > blue(overlap) + 40); /* the orange one, at z = 9 */
  assert_true(blue(back) > red(back) + 40);       /* the blue one, at z = 1, where alone */
  cairo_surface_destroy(im.surf);
  agglo_config_destroy(c);
}

/* A slab |z - 2| < 1 keeps the sphere at z = 2 and hides the one at z = 8. */
static void test_slab(void **state) {
  (void)state;
  agglo_config *c = settings("picture.slab_width=1");
  assert_int_equal(agglo_config_set(c, "picture.slab_center", "2"), AGGLO_OK);
  double x[6] = {3, 5, 2, 7, 5, 8}, r[2] = {1, 1};
  image im = render(c, x, r, NULL, 2, "test_picture_slab.png");
  assert_int_not_equal(at(&im, 3, 5), WHITE);
  assert_int_equal(at(&im, 7, 5), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_config_destroy(c);
  /* without the slab both are drawn */
  c = settings(NULL);
  im = render(c, x, r, NULL, 2, "test_picture_noslab.png");
  assert_int_not_equal(at(&im, 7, 5), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_config_destroy(c);
}

/* Perspective: of two equal spheres, the one nearer the eye is drawn larger. */
static void test_perspective(void **state) {
  (void)state;
  agglo_config *c = settings("picture.projection=perspective");
  assert_int_equal(agglo_config_set(c, "picture.box", "off"), AGGLO_OK);
  double x[6] = {2.5, 5, 9, 7.5, 5, 1}, r[2] = {1, 1};
  agglo_picture_frame f = {.n = 2, .dim = 3, .positions = x, .radii = r};
  for (int k = 0; k < 3; k++) f.box.hi[k] = f.box.len[k] = L;
  assert_int_equal(agglo_picture_render(c, &f, "test_picture_persp.png"), AGGLO_OK);
  cairo_surface_t *s = cairo_image_surface_create_from_png("test_picture_persp.png");
  const uint8_t *d = cairo_image_surface_get_data(s);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s), y = 0, best = 0;
  for (int yy = 40; yy < h; yy++) { /* the row crossing both spheres at their widest */
    int cnt = 0;
    for (int xx = 0; xx < w; xx++) cnt += (*(const uint32_t *)(d + (size_t)yy * stride + 4 * xx) & WHITE) != WHITE;
    if (cnt > best) best = cnt, y = yy;
  }
  int left = 0, right = 0;
  for (int xx = 0; xx < w; xx++)
    if ((*(const uint32_t *)(d + (size_t)y * stride + 4 * xx) & WHITE) != WHITE) *(xx < w / 2 ? &left : &right) += 1;
  assert_true(left > right + 4);
  cairo_surface_destroy(s);
  agglo_config_destroy(c);
}

static void test_errors(void **state) {
  (void)state;
  agglo_config *c = agglo_config_new();
  agglo_config_set(c, "picture.view", "1, 2"); /* lists are checked across keys */
  assert_int_equal(agglo_config_check(c), AGGLO_ERROR_INPUT);
  assert_non_null(strstr(agglo_last_error(), "picture.view"));
  double x[3] = {1, 1, 1}, r[1] = {1};
  agglo_picture_frame f = {.n = 1, .dim = 3, .positions = x, .radii = r};
  assert_int_equal(agglo_picture_render(c, &f, "test_picture_bad.png"), AGGLO_ERROR_INPUT);
  agglo_config_destroy(c);
  c = agglo_config_new();
  f.box.hi[0] = f.box.hi[1] = f.box.hi[2] = f.box.len[0] = f.box.len[1] = f.box.len[2] = 2;
  assert_int_equal(agglo_picture_render(c, &f, "/nonexistent-dir/x.png"), AGGLO_ERROR_IO);
  assert_non_null(strstr(agglo_last_error(), "/nonexistent-dir/x.png"));
  f.dim = 4;
  assert_int_equal(agglo_picture_render(c, &f, "x.png"), AGGLO_ERROR_INPUT);
  agglo_config_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_sphere),  cmocka_unit_test(test_two_spheres),
      cmocka_unit_test(test_slab),        cmocka_unit_test(test_perspective),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
