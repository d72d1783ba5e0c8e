/* The structure factor and intensity of an aggregate (docs/scattering.md): Debye's sum over the
   monomer pairs, exact or with the distances in bins whose width bounds the error, and the
   Guinier and power-law fits of S(q). */
#include "analysis/spheres.h"
#include "analysis/structure_factor.h"
#include "analysis/line_fit.h"
#include "core/error.h"
#include "analysis/stop.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_TERMS_MAX 1e10 /* pairs (or bins) x q values of a sum: about two minutes */

double agglo_sphere_amplitude(double x) {
  if (fabs(x) < 1e-3) return 1 - x * x / 10; /* the series: the formula cancels there */
  return 3 * (sin(x) - x * cos(x)) / (x * x * x);
}

double agglo_disc_amplitude(double x) {
  if (fabs(x) < 1e-3) return 1 - x * x / 8;
  return 2 * j1(x) / x;
}

/* The orientation average of exp(i q.r): sin(x)/x in 3D, J0(x) in the plane. */
static inline double kernel(int d, double x) {
  if (d == 2) return j0(x);
  return fabs(x) < 1e-4 ? 1 - x * x / 6 : sin(x) / x;
}

static double dist(const double *x, size_t i, size_t j) {
  double a = x[3 * i] - x[3 * j], b = x[3 * i + 1] - x[3 * j + 1], c = x[3 * i + 2] - x[3 * j + 2];
  return sqrt(a * a + b * b + c * c);
}

/* The amplitudes w_i Phi(q_k r_i) of every monomer at every q (n x nq), w_i = v_i / mean v. */
static double *amplitudes(const double *r, size_t n, int dim, int amplitude, const double *q,
                          size_t nq) {
  double *a = malloc((n * nq + 1) * sizeof *a), vmean = 0;
  if (!a) return NULL;
  for (size_t i = 0; i < n; i++) vmean += pow(r[i], dim) / (double)n;
  for (size_t i = 0; i < n; i++) {
    double w = pow(r[i], dim) / vmean;
    for (size_t k = 0; k < nq; k++) {
      double phi = amplitude == AGGLO_AMPLITUDE_VOLUME ? 1
                   : dim == 2 ? agglo_disc_amplitude(q[k] * r[i]) : agglo_sphere_amplitude(q[k] * r[i]);
      a[i * nq + k] = w * phi;
    }
  }
  return a;
}

static int equal_radii(const double *r, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (fabs(r[i] - r[0]) > 1e-12 * r[0]) return 0;
  return 1;
}

agglo_status agglo_debye_sum(const char *fn, const double *x, const double *r, size_t n, int dim,
                             int kd, int amplitude, const double *q, size_t nq,
                             const agglo_sq_options *o, double *S, double *I_out, double *error,
                             agglo_sq_info *info) {
  double *I = I_out;
  agglo_sq_options d = o ? *o : (agglo_sq_options){0};
  double tol = d.tolerance > 0 ? d.tolerance : 1e-3;
  double exact_pairs = d.exact_pairs > 0 ? d.exact_pairs : 2e5;
  double max_pairs = d.max_pairs > 0 ? d.max_pairs : 5e8;
  double pairs = 0.5 * (double)n * ((double)n - 1), qmax = 0;
  for (size_t k = 0; k < nq; k++) qmax = fmax(qmax, q[k]);
  agglo_sq_info inf = {0};
  inf.pairs = pairs;
  if (pairs > max_pairs)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: %zu monomers make %.4g pairs, above the bound of "
                       "%.4g (max_pairs; agglo analyze: --sq-max-pairs, at most 1e11)", fn, n,
                       pairs, max_pairs);
  int same = !r || equal_radii(r, n);
  /* auto: exact up to exact_pairs pairs, and for I of unequal radii (which only the exact sum
     gives) up to 2e8 terms (a few seconds) */
  int exact_for_I = I && !same && pairs * (double)nq <= 2e8;
  int binned = d.method == AGGLO_SQ_BINNED ||
               (d.method == AGGLO_SQ_AUTO && pairs > exact_pairs && !exact_for_I);
  if (!binned && pairs * (double)nq > EXACT_TERMS_MAX)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: the exact sum over %.4g pairs at %zu q values is "
                       "%.4g terms, above %.0e: fewer q values, or the binned sum", fn, pairs, nq,
                       pairs * (double)nq, EXACT_TERMS_MAX);
  double *amp = NULL; /* (n x nq: only the exact sum reads them; binned, I of unequal radii is NaN) */
  if (I && !same && !binned && (amp = amplitudes(r, n, dim, amplitude, q, nq)) == NULL)
    return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  for (size_t k = 0; k < nq; k++) {
    S[k] = 0;
    if (error) error[k] = 0;
    if (I) {
      I[k] = 0;
      if (amp) /* the self terms */
        for (size_t i = 0; i < n; i++) I[k] += amp[i * nq + k] * amp[i * nq + k];
    }
  }
  if (!binned) {
    for (size_t i = 0; i < n; i++) {
      if (agglo_analysis_stopping()) { /* (a row is at most 1e10 terms / n: a fraction of a second) */
        free(amp);
        return agglo_analysis_stopped(fn);
      }
      for (size_t j = i + 1; j < n; j++) {
        double rij = dist(x, i, j);
        for (size_t k = 0; k < nq; k++) {
          double K = kernel(kd, q[k] * rij);
          S[k] += K;
          if (amp) I[k] += 2 * amp[i * nq + k] * amp[j * nq + k] * K;
        }
      }
    }
  } else {
    /* [choice] bins of width h; each bin's pairs are summed at their mean distance, so the
       error is the second-order term: |K(q r) - K(q rbar)| summed <= (c q^2 / 2) sum (r - rbar)^2
       with c = max |K''| = 1/3 (sinc) or 1/2 (J0), and sum (r - rbar)^2 <= count h^2 / 4: the
       bound on S is c q^2 (n - 1) h^2 / 8, below tol at the largest q when h is as here. */
    double c = kd == 2 ? 0.5 : 1.0 / 3, cen[3] = {0, 0, 0}, rmax = 0;
    for (size_t i = 0; i < n; i++)
      for (int a = 0; a < 3; a++) cen[a] += x[3 * i + a] / (double)n;
    for (size_t i = 0; i < n; i++) {
      double s = 0;
      for (int a = 0; a < 3; a++) s += (x[3 * i + a] - cen[a]) * (x[3 * i + a] - cen[a]);
      rmax = fmax(rmax, 2 * sqrt(s)); /* no two centres are farther apart */
    }
    double h = qmax > 0 && n > 1 ? sqrt(8 * tol / (c * qmax * qmax * ((double)n - 1))) : rmax + 1;
    double nb = floor(rmax / h) + 1;
    if (nb > AGGLO_SQ_MAX_BINS) {
      free(amp);
      double tmin = c * qmax * qmax * ((double)n - 1) / 8 * pow(rmax / (AGGLO_SQ_MAX_BINS - 1), 2);
      return agglo_error(AGGLO_ERROR_INPUT, "%s: tolerance %g at q = %g needs %.4g distance bins "
                         "(at most %d): allowed tolerance >= %.3g (agglo analyze: --sq-tolerance), "
                         "or a smaller largest q", fn, tol, qmax, nb, AGGLO_SQ_MAX_BINS, tmin);
    }
    if (nb * (double)nq > EXACT_TERMS_MAX) {
      free(amp);
      return agglo_error(AGGLO_ERROR_INPUT, "%s: %.4g distance bins (tolerance %g at q = %g) at %zu q "
                         "values are %.4g terms, above %.0e: fewer q values (agglo analyze: --q-count) "
                         "or a larger tolerance (--sq-tolerance)", fn, nb, tol, qmax, nq, nb * (double)nq,
                         EXACT_TERMS_MAX);
    }
    size_t B = (size_t)nb;
    double *cnt = calloc(B, sizeof *cnt), *s1 = calloc(B, sizeof *s1), *s2 = calloc(B, sizeof *s2);
    if (!cnt || !s1 || !s2) {
      free(cnt), free(s1), free(s2), free(amp);
      return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory (%zu distance bins)", fn, B);
    }
    for (size_t i = 0; i < n; i++) {
      if (agglo_analysis_stopping()) {
        free(cnt), free(s1), free(s2), free(amp);
        return agglo_analysis_stopped(fn);
      }
      for (size_t j = i + 1; j < n; j++) {
        double rij = dist(x, i, j);
        size_t b = (size_t)(rij / h);
        if (b >= B) b = B - 1;
        double u = rij - (double)b * h; /* from the bin's edge: no cancellation in the variance */
        cnt[b] += 1, s1[b] += u, s2[b] += u * u;
      }
    }
    double var = 0;
    for (size_t b = 0; b < B; b++) {
      if (b % 4096 == 0 && agglo_analysis_stopping()) {
        free(cnt), free(s1), free(s2), free(amp);
        return agglo_analysis_stopped(fn);
      }
      if (cnt[b] == 0) continue;
      double mean = s1[b] / cnt[b];
      var += fmax(s2[b] - s1[b] * mean, 0);
      double rb = (double)b * h + mean;
      for (size_t k = 0; k < nq; k++) S[k] += cnt[b] * kernel(kd, q[k] * rb);
    }
    free(cnt), free(s1), free(s2);
    for (size_t k = 0; k < nq; k++) { /* the bound of the sum actually made */
      double e = c * q[k] * q[k] * var / (double)n;
      if (error) error[k] = e;
      inf.max_error = fmax(inf.max_error, e);
    }
    inf.binned = 1, inf.bins = B, inf.bin_width = h;
  }
  for (size_t k = 0; k < nq; k++) {
    S[k] = (n ? 1 : 0) + 2 * S[k] / (double)(n ? n : 1);
    if (!I) continue;
    if (!same) I[k] = binned ? NAN : I[k] / (double)n;
    else { /* equal monomers: I = Phi^2 S */
      double phi = !r || amplitude == AGGLO_AMPLITUDE_VOLUME ? 1
                   : dim == 2 ? agglo_disc_amplitude(q[k] * r[0]) : agglo_sphere_amplitude(q[k] * r[0]);
      I[k] = phi * phi * S[k];
    }
  }
  free(amp);
  if (info) *info = inf;
  return AGGLO_OK;
}

static agglo_status bad(const char *fmt, double v) {
  return agglo_error(AGGLO_ERROR_INPUT, fmt, v);
}

agglo_status agglo_structure_factor(const double *x, const double *r, size_t n, int dim,
                                    const double *q, size_t nq, const agglo_sq_options *o,
                                    double *S, double *I_out, double *error, agglo_sq_info *info) {
  const char *fn = "agglo_structure_factor";
  if (!x || !q || !S)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: x, q or S is NULL", fn);
  if (dim != 2 && dim != 3) return agglo_error(AGGLO_ERROR_INPUT, "%s: dim = %d (must be 2 or 3)", fn, dim);
  if (n == 0) return agglo_error(AGGLO_ERROR_INPUT, "%s: n = 0 (an aggregate needs a monomer)", fn);
  if (nq == 0 || nq > AGGLO_SQ_MAX_Q)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: nq = %zu q values (allowed 1 .. %d)", fn, nq, AGGLO_SQ_MAX_Q);
  if (agglo_check_spheres(fn, x, r, n) != AGGLO_OK) return AGGLO_ERROR_INPUT;
  for (size_t k = 0; k < nq; k++)
    if (!(q[k] > 0) || !isfinite(q[k]))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: q[%zu] = %g (must be finite and > 0)", fn, k, q[k]);
  if (o && (o->method < AGGLO_SQ_AUTO || o->method > AGGLO_SQ_BINNED))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: method = %d (allowed 0 auto, 1 exact, 2 binned)", fn, o->method);
  if (o && (!(o->tolerance >= 0) || !isfinite(o->tolerance)))
    return bad("agglo_structure_factor: tolerance = %g (must be >= 0; 0: 1e-3)", o->tolerance);
  if (o && (!(o->exact_pairs >= 0) || !isfinite(o->exact_pairs)))
    return bad("agglo_structure_factor: exact_pairs = %g (must be >= 0; 0: 2e5)", o->exact_pairs);
  if (o && (!(o->max_pairs >= 0) || o->max_pairs > 1e11))
    return bad("agglo_structure_factor: max_pairs = %g (allowed 0 .. 1e11; 0: 5e8)", o->max_pairs);
  return agglo_debye_sum(fn, x, r, n, dim, dim, AGGLO_AMPLITUDE_SPHERE, q, nq, o, S, I_out, error, info);
}

agglo_status agglo_guinier_fit(const double *q, const double *S, size_t nq, int dim, double S0,
                               double *rg, size_t *used) {
  if (!q || !S || !rg) return agglo_error(AGGLO_ERROR_INPUT, "agglo_guinier_fit: q, S or rg is NULL");
  if (dim != 2 && dim != 3) return agglo_error(AGGLO_ERROR_INPUT, "agglo_guinier_fit: dim = %d (must be 2 or 3)", dim);
  if (!(S0 > 0) || !isfinite(S0)) return bad("agglo_guinier_fit: S0 = %g (must be finite and > 0)", S0);
  agglo_line_fit f = {0};
  double floor_s = S0 * exp(-1.0 / dim); /* ln(S0/S) = q^2 R_g^2 / dim <= 1/dim */
  double q_cut = INFINITY; /* below the first q where S falls under: S comes back up later */
  for (size_t k = 0; k < nq; k++)
    if (q[k] > 0 && !(S[k] >= floor_s)) q_cut = fmin(q_cut, q[k]);
  for (size_t k = 0; k < nq; k++)
    if (q[k] > 0 && q[k] < q_cut && isfinite(S[k])) agglo_line_fit_add(&f, q[k] * q[k], log(S[k]));
  double b = agglo_line_fit_slope(&f);
  *rg = f.n >= 3 && b < 0 ? sqrt(-b * dim) : NAN;
  if (used) *used = (size_t)f.n;
  return AGGLO_OK;
}

agglo_status agglo_power_law_fit(const double *q, const double *S, size_t nq, double q_lo,
                                 double q_hi, double *slope, size_t *used) {
  if (!q || !S || !slope) return agglo_error(AGGLO_ERROR_INPUT, "agglo_power_law_fit: q, S or slope is NULL");
  if (!(q_lo > 0) || !(q_hi >= q_lo))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_power_law_fit: q range %g .. %g (must be 0 < q_lo <= q_hi)", q_lo, q_hi);
  agglo_line_fit f = {0};
  for (size_t k = 0; k < nq; k++)
    if (q[k] >= q_lo && q[k] <= q_hi && S[k] > 0) agglo_line_fit_add(&f, log(q[k]), log(S[k]));
  *slope = f.n >= 3 ? agglo_line_fit_slope(&f) : NAN;
  if (used) *used = (size_t)f.n;
  return AGGLO_OK;
}

/* The misfit of the cut-off model at (df, rg) over the points kept. */
static double cutoff_cost(const double *q, const double *lnS, size_t n, int structure, double df,
                          double rg) {
  double c = 0;
  for (size_t k = 0; k < n; k++) {
    double f = agglo_fractal_structure_factor(structure, df, q[k] * rg);
    double d = f > 0 ? lnS[k] - log(f) : 50; /* the Gaussian cut-off's 1F1 can reach 0: far off */
    c += d * d;
  }
  return c;
}

/* The df minimising the cost at rg: a scan of (1, 3] in steps of 0.05, then golden sections
   about the best step (the cost is smooth in df). */
static double best_df(const double *q, const double *lnS, size_t n, int structure, double rg,
                      double *cost) {
  double b = 1.05, cb = INFINITY;
  for (double d = 1.05; d <= 3.0 + 1e-9; d += 0.05) {
    if (agglo_analysis_stopping()) return *cost = NAN; /* (the caller gives up) */
    double c = cutoff_cost(q, lnS, n, structure, d, rg);
    if (c < cb) cb = c, b = d;
  }
  double lo = fmax(b - 0.05, 1.0 + 1e-6), hi = fmin(b + 0.05, 3.0), g = 0.5 * (sqrt(5.0) - 1);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double c1 = cutoff_cost(q, lnS, n, structure, x1, rg), c2 = cutoff_cost(q, lnS, n, structure, x2, rg);
  for (int it = 0; it < 40; it++) { /* 0.1 x 0.618^40: 4e-10 */
    if (c1 < c2) hi = x2, x2 = x1, c2 = c1, x1 = hi - g * (hi - lo), c1 = cutoff_cost(q, lnS, n, structure, x1, rg);
    else lo = x1, x1 = x2, c1 = c2, x2 = lo + g * (hi - lo), c2 = cutoff_cost(q, lnS, n, structure, x2, rg);
  }
  *cost = fmin(c1, c2);
  return c1 < c2 ? x1 : x2;
}

agglo_status agglo_cutoff_fit(const double *q, const double *S, size_t nq, int structure, double S0,
                              double rg_guess, double q_hi, double *df, double *rg, double *rms,
                              size_t *used) {
  static const char fn[] = "agglo_cutoff_fit";
  if (!q || !S || !df || !rg) return agglo_error(AGGLO_ERROR_INPUT, "%s: q, S, df or rg is NULL", fn);
  if (structure != AGGLO_OPTICS_FISHER_BURFORD && structure != AGGLO_OPTICS_EXPONENTIAL &&
      structure != AGGLO_OPTICS_GAUSSIAN)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: structure = %d (allowed %d fisher_burford, %d "
                       "exponential, %d gaussian)", fn, structure, AGGLO_OPTICS_FISHER_BURFORD,
                       AGGLO_OPTICS_EXPONENTIAL, AGGLO_OPTICS_GAUSSIAN);
  if (!(S0 > 0) || !isfinite(S0)) return bad("agglo_cutoff_fit: S0 = %g (must be finite and > 0)", S0);
  if (!(rg_guess > 0) || !isfinite(rg_guess)) return bad("agglo_cutoff_fit: rg_guess = %g (must be finite and > 0)", rg_guess);
  if (!(q_hi > 0)) return bad("agglo_cutoff_fit: q_hi = %g (must be > 0)", q_hi);
  *df = *rg = NAN;
  if (rms) *rms = NAN;
  double *qq = malloc((nq + 1) * sizeof *qq), *ln = malloc((nq + 1) * sizeof *ln);
  if (!qq || !ln) {
    free(qq), free(ln);
    return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  }
  size_t n = 0;
  for (size_t k = 0; k < nq; k++)
    if (q[k] > 0 && q[k] <= q_hi && S[k] > 0 && isfinite(S[k])) qq[n] = q[k], ln[n] = log(S[k] / S0), n++;
  if (used) *used = n;
  if (n >= 5) {
    /* R_g: golden sections of the best cost over [rg_guess / 1.5, 1.5 rg_guess] in ln R_g */
    double lo = log(rg_guess / 1.5), hi = log(rg_guess * 1.5), g = 0.5 * (sqrt(5.0) - 1), c1, c2;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double d1 = best_df(qq, ln, n, structure, exp(x1), &c1), d2 = best_df(qq, ln, n, structure, exp(x2), &c2);
    for (int it = 0; it < 30 && !agglo_analysis_stopping(); it++) { /* 0.81 x 0.618^30: 4e-7 relative */
      if (c1 < c2) hi = x2, x2 = x1, c2 = c1, d2 = d1, x1 = hi - g * (hi - lo), d1 = best_df(qq, ln, n, structure, exp(x1), &c1);
      else lo = x1, x1 = x2, c1 = c2, d1 = d2, x2 = lo + g * (hi - lo), d2 = best_df(qq, ln, n, structure, exp(x2), &c2);
    }
    *df = c1 < c2 ? d1 : d2, *rg = exp(c1 < c2 ? x1 : x2);
    if (rms) *rms = sqrt(fmin(c1, c2) / (double)n);
  }
  free(qq), free(ln);
  if (agglo_analysis_stopping()) {
    *df = *rg = NAN;
    return agglo_analysis_stopped(fn);
  }
  return AGGLO_OK;
}
