/* PNG snapshots: render small hand-made systems and inspect the pixels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cairo.h>
#include <stdio.h>
#include <string.h>

#include "picture/png_write.h"

#define WIDTH 400
#define L 10.0
#define WHITE 0xffffffu

/* A decoded image plus the box position found in it, so tests don't depend on the layout. */
typedef struct {
  cairo_surface_t *surf;
  const uint8_t *data;
  int w, h, stride;
  double left, right, bottom, scale;
} image;

static void make_system(agglo_system *s, int dim, size_t n, int periodic) {
  assert_int_equal(agglo_system_alloc(s, dim, n), 0);
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = 0;
    s->box.hi[k] = s->box.len[k] = L;
    s->box.periodic[k] = periodic ? AGGLO_PERIODIC : AGGLO_WALL;
  }
}

static void place(agglo_system *s, size_t i, double x, double y, double z, double r) {
  s->x[3 * i] = x, s->x[3 * i + 1] = y, s->x[3 * i + 2] = z;
  s->r[i] = r;
}

static uint32_t pixel(const image *im, int x, int y) {
  assert_true(x >= 0 && x < im->w && y >= 0 && y < im->h);
  return *(const uint32_t *)(im->data + (size_t)y * im->stride + 4 * (size_t)x) & 0xffffffu;
}

/* Pixel under a point of the box (y up). */
static uint32_t at(const image *im, double x, double y) {
  return pixel(im, (int)(im->left + x * im->scale), (int)(im->bottom - y * im->scale));
}

static int brightness(uint32_t p) { return (int)((p >> 16) & 255) + (int)((p >> 8) & 255) + (int)(p & 255); }

/* First non-white pixel along a line; scanning a band of lines steps over gaps of dashed edges. */
static int first_dark_x(const image *im, int y, int from, int step) {
  for (int x = from; x >= 0 && x < im->w; x += step)
    if (pixel(im, x, y) != WHITE) return x;
  return -1;
}

static int first_dark_y(const image *im, int x, int from, int step) {
  for (int y = from; y >= 0 && y < im->h; y += step)
    if (pixel(im, x, y) != WHITE) return y;
  return -1;
}

/* Box edges: outermost dark pixels near the middle of the left, right and bottom sides. */
static void find_box(image *im) {
  int left = im->w, right = -1, bottom = -1;
  for (int d = -12; d <= 12; d++) {
    int y = im->h / 2 + d, x = im->w / 2 + d, a;
    if ((a = first_dark_x(im, y, 0, 1)) >= 0 && a < left) left = a;
    if ((a = first_dark_x(im, y, im->w - 1, -1)) > right) right = a;
    if ((a = first_dark_y(im, x, im->h - 1, -1)) > bottom) bottom = a;
  }
  assert_true(left < right && bottom > 0);
  im->left = left + 0.5, im->right = right, im->bottom = bottom;
  im->scale = (im->right - im->left) / L;
}

static image load(const char *path) {
  image im = {0};
  im.surf = cairo_image_surface_create_from_png(path);
  assert_int_equal(cairo_surface_status(im.surf), CAIRO_STATUS_SUCCESS);
  cairo_surface_flush(im.surf);
  im.data = cairo_image_surface_get_data(im.surf);
  im.w = cairo_image_surface_get_width(im.surf);
  im.h = cairo_image_surface_get_height(im.surf);
  im.stride = cairo_image_surface_get_stride(im.surf);
  find_box(&im);
  return im;
}

static image render(const char *path, const agglo_system *s, const agglo_link_lines *links) {
  char err[256] = "";
  int rc = agglo_png_write(path, s, WIDTH, links, NULL, err, sizeof err);
  if (rc) print_error("%s\n", err);
  assert_int_equal(rc, 0);
  return load(path);
}

/* Two glued discs share a colour, the lone one is grey, empty space is white. */
static void test_2d_clusters(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 3, 0);
  place(&s, 0, 2.0, 2.0, 0, 1.0);
  place(&s, 1, 4.0, 2.0, 0, 1.0);
  place(&s, 2, 7.0, 7.0, 0, 1.5);
  s.cluster[1] = 0; /* 0 and 1 form a cluster labelled 0; 2 is alone */
  image im = render("test_output_png_2d.png", &s, NULL);
  assert_int_equal(im.w, WIDTH);
  assert_true(im.h > im.w / 2); /* square box: roughly square image */
  uint32_t a = at(&im, 2, 2), b = at(&im, 4, 2), c = at(&im, 7, 7);
  assert_int_not_equal(a, WHITE);
  assert_int_not_equal(c, WHITE);
  assert_int_equal(a, b);
  assert_int_not_equal(a, c);
  assert_int_equal((c >> 16) & 255, c & 255); /* grey: r == b */
  assert_int_equal(at(&im, 8, 2), WHITE);
  assert_int_equal(at(&im, 2, 8), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_system_free(&s);
}

/* 3D: the disc nearest the viewer (largest z) is on top whatever the storage order, and brighter. */
static void test_3d_depth_order(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 3, 2, 0);
  place(&s, 0, 5.5, 5.0, 9.0, 1.5); /* front, stored first */
  place(&s, 1, 4.5, 5.0, 1.0, 1.5); /* back */
  image im = render("test_output_png_3d.png", &s, NULL);
  uint32_t front = at(&im, 5.5, 5.0), back = at(&im, 3.5, 5.0), overlap = at(&im, 5.0, 5.0);
  assert_int_not_equal(front, WHITE);
  assert_int_not_equal(back, WHITE);
  assert_int_equal(overlap, front);
  assert_true(brightness(front) > brightness(back));
  cairo_surface_destroy(im.surf);
  agglo_system_free(&s);
}

/* Periodic: a disc over the right boundary reappears at the left, clipped to the box. */
static void test_periodic_image(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 1, 1);
  place(&s, 0, 9.7, 5.0, 0, 1.0);
  image im = render("test_output_png_periodic.png", &s, NULL);
  assert_int_not_equal(at(&im, 9.5, 5.0), WHITE);
  assert_int_equal(at(&im, 0.3, 5.0), at(&im, 9.5, 5.0));
  assert_int_equal(at(&im, 1.2, 5.0), WHITE);
  assert_int_equal(pixel(&im, (int)im.left - 4, (int)(im.bottom - 5.0 * im.scale)), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_system_free(&s);
}

/* Links: a direct link is drawn, one that would cross a periodic wrap is not. */
static void test_links(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 4, 1);
  place(&s, 0, 3.0, 3.0, 0, 0.5);
  place(&s, 1, 7.0, 3.0, 0, 0.5);
  place(&s, 2, 0.8, 7.0, 0, 0.5);
  place(&s, 3, 9.2, 7.0, 0, 0.5);
  int32_t i[] = {0, 2}, j[] = {1, 3};
  double strength[] = {1.0, 1.0};
  agglo_link_lines links = {i, j, strength, 2};
  image im = render("test_output_png_links.png", &s, &links);
  assert_int_not_equal(at(&im, 5.0, 3.0), WHITE);
  assert_int_equal(at(&im, 5.0, 7.0), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_system_free(&s);
}

/* Obstacles: a grey disc and a wall line, drawn under the particles. */
static void test_obstacles(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 1, 0);
  place(&s, 0, 8.0, 8.0, 0, 0.5);
  double seg[] = {1.0, 2.0, 9.0, 2.0}, disc[] = {5.0, 6.0, 1.0};
  agglo_obstacle_shapes ob = {seg, 1, disc, 1};
  char err[256] = "";
  assert_int_equal(agglo_png_write("test_output_png_obstacles.png", &s, WIDTH, NULL, &ob, err, sizeof err), 0);
  image im = load("test_output_png_obstacles.png");
  uint32_t g = at(&im, 5.0, 6.0);
  assert_int_not_equal(g, WHITE);
  assert_int_equal((g >> 16) & 255, g & 255); /* grey */
  assert_true(brightness(at(&im, 5.0, 2.0)) < 3 * 128);
  assert_int_equal(at(&im, 5.0, 3.5), WHITE);
  cairo_surface_destroy(im.surf);
  agglo_system_free(&s);
}

static void test_unwritable_path(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 1, 0);
  place(&s, 0, 5, 5, 0, 1);
  char err[256] = "";
  assert_int_equal(agglo_png_write("/nonexistent/dir/x.png", &s, WIDTH, NULL, NULL, err, sizeof err), -1);
  assert_true(strlen(err) > 0);
  assert_non_null(strstr(err, "/nonexistent/dir/x.png"));
  agglo_system_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_2d_clusters),
      cmocka_unit_test(test_3d_depth_order),
      cmocka_unit_test(test_periodic_image),
      cmocka_unit_test(test_links),
      cmocka_unit_test(test_obstacles),
      cmocka_unit_test(test_unwritable_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
