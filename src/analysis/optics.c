/* RDG-FA optical cross-sections of an aggregate (Sorensen, "Light scattering by fractal
   aggregates: a review", Aerosol Sci. Technol. 35, 648, 2001; docs/scattering.md): each monomer
   a Rayleigh scatterer and absorber, the aggregate's scattering their coherent sum through a
   structure factor, integrated over the scattering angle. */
#include "analysis/spheres.h"
#include "agglo/scattering.h"
#include "analysis/structure_factor.h"
#include "core/error.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>

/* Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_m from the Chebyshev guesses). */
static void gauss_legendre(int m, double *xs, double *ws) {
  for (int i = 0; i < (m + 1) / 2; i++) {
    double z = cos(M_PI * (i + 0.75) / (m + 0.5)), dp = 1;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = 0;
      for (int j = 0; j < m; j++) {
        double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * j + 1) * z * p1 - j * p2) / (j + 1);
      }
      dp = m * (z * p0 - p1) / (z * z - 1);
      double dz = p0 / dp;
      z -= dz;
      if (fabs(dz) < 1e-15) break;
    }
    xs[i] = -z, xs[m - 1 - i] = z;
    ws[i] = ws[m - 1 - i] = 2 / ((1 - z * z) * dp * dp);
  }
}

/* Kummer's 1F1(a; b; -z), z >= 0: e^(-z) 1F1(b - a; b; z), a series of positive terms, up to
   z = 40; beyond, the asymptotic Gamma(b)/Gamma(b - a) z^(-a) sum_k (a)_k (1 + a - b)_k / (k! z^k)
   (the other term, e^(-z) z^(a-b), is below 1e-17 there), its terms summed while they shrink. */
static double kummer_negative(double a, double b, double z) {
  if (z <= 40) {
    double term = 1, sum = 1;
    for (int n = 0; n < 400 && term > 1e-17 * sum; n++) {
      term *= (b - a + n) / (b + n) * z / (n + 1);
      sum += term;
    }
    return exp(-z) * sum;
  }
  double term = 1, sum = 1;
  for (int k = 0; k < 30; k++) {
    double next = term * (a + k) * (1 + a - b + k) / ((k + 1) * z);
    if (fabs(next) >= fabs(term)) break;
    term = next, sum += term;
    if (fabs(term) < 1e-17 * fabs(sum)) break;
  }
  return exp(lgamma(b) - lgamma(b - a)) * pow(z, -a) * sum;
}

double agglo_fractal_structure_factor(int structure, double df, double x) {
  if (!(df > 1 && df <= 3) || !(x >= 0)) return NAN;
  if (structure == AGGLO_OPTICS_FISHER_BURFORD) return pow(1 + 2 * x * x / (3 * df), -df / 2);
  if (structure == AGGLO_OPTICS_GAUSSIAN) return kummer_negative(df / 2, 1.5, x * x / df);
  if (structure != AGGLO_OPTICS_EXPONENTIAL) return NAN;
  double t = x * sqrt(2 / (df * (df + 1)));
  if (t < 1e-6) return 1 - x * x / 3;
  return sin((df - 1) * atan(t)) / ((df - 1) * t * pow(1 + t * t, (df - 1) / 2));
}

agglo_status agglo_rdg_fa(const double *x, const double *r, size_t n, double lambda, double m_re,
                          double m_im, const agglo_optics_options *o, agglo_optics_result *res) {
  const char *fn = "agglo_rdg_fa";
  if (!x || !r || !res) return agglo_error(AGGLO_ERROR_INPUT, "%s: x, r or res is NULL", fn);
  if (n == 0) return agglo_error(AGGLO_ERROR_INPUT, "%s: n = 0 (an aggregate needs a monomer)", fn);
  if (!(lambda > 0) || !isfinite(lambda))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: lambda = %g (the wavelength: finite and > 0)", fn, lambda);
  if (!isfinite(m_re) || !isfinite(m_im) || m_im < 0)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: m = %g + %gi (finite, imaginary part >= 0)", fn, m_re, m_im);
  agglo_optics_options d = o ? *o : (agglo_optics_options){0};
  if (d.structure < AGGLO_OPTICS_DEBYE || d.structure > AGGLO_OPTICS_GAUSSIAN)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: structure = %d (allowed 0 debye, 1 fisher_burford, "
                       "2 exponential, 3 gaussian)", fn, d.structure);
  if (d.structure != AGGLO_OPTICS_DEBYE && !(d.df > 1 && d.df <= 3))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: df = %g (the model's fractal dimension: 1 < df <= 3)", fn, d.df);
  int m = d.angles > 0 ? d.angles : 64;
  if (d.angles < 0 || m > AGGLO_OPTICS_MAX_ANGLES)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: angles = %d (allowed 1 .. %d; 0: 64)", fn, d.angles,
                       AGGLO_OPTICS_MAX_ANGLES);
  if (agglo_check_spheres(fn, x, r, n) != AGGLO_OK) return AGGLO_ERROR_INPUT;
  double v = 0, cen[3] = {0, 0, 0}, rg2 = 0;
  for (size_t i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) cen[a] += x[3 * i + a] / (double)n;
    v += r[i] * r[i] * r[i];
  }
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) rg2 += (x[3 * i + a] - cen[a]) * (x[3 * i + a] - cen[a]) / (double)n;
  double complex mm = (m_re + I * m_im) * (m_re + I * m_im), lf = (mm - 1) / (mm + 2);
  double k = 2 * M_PI / lambda, a = cbrt(v / (double)n), nn = (double)n;
  agglo_optics_result out = {0};
  out.E = cimag(lf), out.F = creal(lf * conj(lf)), out.k = k, out.x_monomer = k * a;
  out.rg = sqrt(rg2), out.n = nn;
  if (!isfinite(out.E) || !isfinite(out.F))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: m = %g + %gi makes m^2 + 2 = 0 (the Rayleigh "
                       "polarisability's pole)", fn, m_re, m_im);
  out.c_abs_monomer = 4 * M_PI * k * a * a * a * out.E;
  out.c_sca_monomer = 8 * M_PI / 3 * pow(k, 4) * pow(a, 6) * out.F;
  out.c_abs = 4 * M_PI * k * v * out.E; /* every monomer absorbs as alone (RDG) */
  /* C_sca = k^4 F a^6 int n I(q) (1 + mu^2)/2 dOmega, mu = cos(theta) = 1 - q^2 / (2 k^2):
     over q in [0, 2k], dmu = q dq / k^2, by Gauss-Legendre on panels [0, q1], then doubling
     (S falls from n at q R_g ~ 1 into its power law) */
  double q1 = out.rg > 0 ? fmin(2 * k, 0.5 / out.rg) : 2 * k, edges[80];
  int panels = 0;
  edges[panels++] = 0;
  for (double e = q1; panels < 79; e *= 2) {
    edges[panels++] = fmin(e, 2 * k);
    if (e >= 2 * k) break;
  }
  panels--; /* panels between edges[0..panels] */
  edges[panels] = 2 * k; /* 78 doublings short of 2k (k R_g > 1e22): the last panel reaches it */
  size_t nq = (size_t)panels * (size_t)m;
  if (nq > AGGLO_SQ_MAX_Q)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: %d panels x %d angles = %zu q values (at most %d): "
                       "fewer angles (agglo analyze: --angles)", fn, panels, m, nq, AGGLO_SQ_MAX_Q);
  double *gx = malloc((size_t)m * sizeof *gx), *gw = malloc((size_t)m * sizeof *gw);
  double *q = malloc(nq * sizeof *q), *w = malloc(nq * sizeof *w), *s = malloc(nq * sizeof *s);
  double *iq = malloc(nq * sizeof *iq);
  if (!gx || !gw || !q || !w || !s || !iq) {
    free(gx), free(gw), free(q), free(w), free(s), free(iq);
    return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  }
  gauss_legendre(m, gx, gw);
  for (int p = 0; p < panels; p++)
    for (int j = 0; j < m; j++) {
      size_t t = (size_t)p * (size_t)m + (size_t)j;
      double lo = edges[p], hi = edges[p + 1];
      q[t] = 0.5 * (lo + hi) + 0.5 * (hi - lo) * gx[j];
      double mu = 1 - q[t] * q[t] / (2 * k * k);
      w[t] = 0.5 * (hi - lo) * gw[j] * q[t] / (k * k) * (1 + mu * mu) / 2 * 2 * M_PI;
    }
  agglo_status st = AGGLO_OK;
  if (d.structure == AGGLO_OPTICS_DEBYE) /* the planar runs' spheres scatter in 3D too: sinc */
    st = agglo_debye_sum(fn, x, r, n, 3, 3, AGGLO_AMPLITUDE_VOLUME, q, nq, &d.sq, s, iq, NULL, NULL);
  double integral = 0;
  for (size_t t = 0; st == AGGLO_OK && t < nq; t++) {
    double nI = d.structure == AGGLO_OPTICS_DEBYE ? nn * iq[t] : nn * nn * agglo_fractal_structure_factor(d.structure, d.df, q[t] * out.rg);
    integral += w[t] * nI;
  }
  free(gx), free(gw), free(q), free(w), free(s), free(iq);
  if (st != AGGLO_OK) return st;
  if (!isfinite(integral))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: the Debye sum of unequal monomers is not binned: raise "
                       "exact_pairs above the %.4g pairs (agglo analyze: --sq-exact-pairs)", fn, 0.5 * nn * (nn - 1));
  out.c_sca = pow(k, 4) * out.F * pow(a, 6) * integral;
  out.g = integral / (nn * nn * 8 * M_PI / 3);
  *res = out;
  return AGGLO_OK;
}
