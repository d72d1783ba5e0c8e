/* Least squares of y = a + b x, accumulated point by point: the one fit behind the slopes of
   box counting, the mass-radius dimension, the growth exponent and the MSD's diffusion. */
#ifndef AGGLO_LINE_FIT_H
#define AGGLO_LINE_FIT_H
#include <math.h>

typedef struct {
  double n, sx, sy, sxx, sxy, syy;
} agglo_line_fit;

static inline void agglo_line_fit_add(agglo_line_fit *f, double x, double y) {
  f->n += 1, f->sx += x, f->sy += y, f->sxx += x * x, f->sxy += x * y, f->syy += y * y;
}

/* The slope b: NAN with fewer than two points or all x equal. */
static inline double agglo_line_fit_slope(const agglo_line_fit *f) {
  double den = f->n * f->sxx - f->sx * f->sx;
  return f->n >= 2 && den > 0 ? (f->n * f->sxy - f->sx * f->sy) / den : NAN;
}

/* The intercept a of the line of slope b. */
static inline double agglo_line_fit_intercept(const agglo_line_fit *f, double b) {
  return (f->sy - b * f->sx) / f->n;
}

/* The standard error of the slope b: residual variance over the x's sum of squared deviations
   (NAN with fewer than three points). */
static inline double agglo_line_fit_slope_se(const agglo_line_fit *f, double b) {
  if (!(f->n > 2)) return NAN;
  double a = agglo_line_fit_intercept(f, b);
  double rss = f->syy - 2 * a * f->sy - 2 * b * f->sxy + f->n * a * a + 2 * a * b * f->sx +
               b * b * f->sxx;
  return sqrt(fmax(rss, 0) / (f->n - 2) / (f->sxx - f->sx * f->sx / f->n));
}

#endif
