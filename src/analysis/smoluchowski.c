/* Smoluchowski's coagulation equation, discrete and truncated (docs/analysis.md, "Kinetics"):
     dn_k/dt = 1/2 sum_{i+j=k} K(i,j) n_i n_j - n_k sum_{j} K(k,j) n_j,   k = 1..kmax,
   with n_k the clusters of size k per initial particle (n_1(0) = 1). Pairs whose size would pass
   kmax leave the system; their mass is the solution's loss, reported. Classical fourth-order
   Runge-Kutta with the step h = min(1 / max_k L_k, 0.05 / L), L_k = sum_j K(k,j) n_j the loss
   rate of size k and L = sum_k L_k n_k / sum_k n_k that of a cluster on average: stable for the
   fastest (explicit RK4 needs h L_k < 2.78) and a twentieth of the mean time between collisions
   (the constant kernel's n_k then to 1e-7), within the caller's step limit. */
#include "agglo/analysis.h"
#include "core/error.h"
#include "analysis/mobility.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

double agglo_smoluchowski_kernel(int kernel, int dim, double df, double i, double j) {
  switch (kernel) {
  case AGGLO_KERNEL_CONSTANT: return 1;
  case AGGLO_KERNEL_ADDITIVE: return i + j;
  case AGGLO_KERNEL_BALLISTIC: /* cross-section (r_i + r_j)^(dim-1), speed sqrt(1/i + 1/j) */
    return pow(pow(i, 1 / df) + pow(j, 1 / df), dim - 1) * sqrt(1 / i + 1 / j);
  case AGGLO_KERNEL_BROWNIAN: /* Stokes-Einstein diffusion (1/r_i + 1/r_j), reach (r_i + r_j) */
    return (pow(i, 1 / df) + pow(j, 1 / df)) * (pow(i, -1 / df) + pow(j, -1 / df));
  }
  return NAN;
}

double agglo_fuchs_kernel(double ri, double rj, double Di, double Dj, double ci, double cj) {
  double d[2] = {2 * ri, 2 * rj}, l[2] = {8 * Di / (M_PI * ci), 8 * Dj / (M_PI * cj)}, g[2];
  for (int k = 0; k < 2; k++) /* the distance from the particle at which diffusion takes over */
    g[k] = (pow(d[k] + l[k], 3) - pow(d[k] * d[k] + l[k] * l[k], 1.5)) / (3 * d[k] * l[k]) - d[k];
  double D = Di + Dj, dd = d[0] + d[1], gg = sqrt(g[0] * g[0] + g[1] * g[1]), c = sqrt(ci * ci + cj * cj);
  return 2 * M_PI * D * dd / (dd / (dd + 2 * gg) + 8 * D / (c * dd));
}

double agglo_smoluchowski_kernel_of(const agglo_smoluchowski_options *o, double i, double j) {
  double df = o->df > 0 ? o->df : (o->dim == 2 ? 2 : 3);
  if (o->kernel != AGGLO_KERNEL_FUCHS) return agglo_smoluchowski_kernel(o->kernel, o->dim, df, i, j);
  /* monomer: radius 1, D_1 = 1, c_1 = 8 D_1 / (pi lambda_1); i monomers: the dlca friction law */
  double c1 = 8 / (M_PI * o->persistence), kn = o->knudsen;
  double f1 = agglo_friction_length(o->mobility, df, o->area_exponent, 1, 1, kn);
  double Di = f1 / agglo_friction_length(o->mobility, df, o->area_exponent, i, 1, kn);
  double Dj = f1 / agglo_friction_length(o->mobility, df, o->area_exponent, j, 1, kn);
  return agglo_fuchs_kernel(pow(i, 1 / df), pow(j, 1 / df), Di, Dj, c1 / sqrt(i), c1 / sqrt(j)) / (4 * M_PI);
}

typedef struct {
  size_t kmax;
  double *K;              /* kmax x kmax, K[(i-1) kmax + (j-1)] */
  double *k1, *k2, *k3, *k4, *tmp;
} solver;

/* f = dn/dt; returns the step: min(1 / the fastest loss rate, 0.05 / the mean one), or
   INFINITY when nothing coagulates. */
static double rhs(const solver *S, const double *n, double *f) {
  size_t m = S->kmax;
  double fastest = 0, total = 0, number = 0;
  for (size_t k = 0; k < m; k++) {
    const double *Kk = S->K + k * m;
    double loss = 0, gain = 0;
    for (size_t j = 0; j < m; j++) loss += Kk[j] * n[j];
    for (size_t i = 0; i < k; i++) { /* sizes (i + 1) + (j + 1) = k + 1, i <= j */
      size_t j = k - 1 - i;
      if (j < i) break;
      double g = S->K[i * m + j] * n[i] * n[j];
      gain += i == j ? 0.5 * g : g;
    }
    f[k] = gain - n[k] * loss;
    if (loss > fastest) fastest = loss;
    total += n[k] * loss, number += n[k];
  }
  double h = fastest > 0 ? 1 / fastest : INFINITY;
  return total > 0 && 0.05 * number / total < h ? 0.05 * number / total : h;
}

static double mass(const double *n, size_t m) {
  double s = 0;
  for (size_t k = 0; k < m; k++) s += (double)(k + 1) * n[k];
  return s;
}

static int solver_init(solver *S, const agglo_smoluchowski_options *o) {
  size_t m = o->kmax;
  memset(S, 0, sizeof *S);
  S->kmax = m;
  S->K = malloc(m * m * sizeof *S->K);
  S->k1 = malloc(5 * m * sizeof *S->k1);
  if (!S->K || !S->k1) {
    free(S->K); free(S->k1);
    return -1;
  }
  S->k2 = S->k1 + m, S->k3 = S->k2 + m, S->k4 = S->k3 + m, S->tmp = S->k4 + m;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      S->K[i * m + j] = agglo_smoluchowski_kernel_of(o, (double)(i + 1), (double)(j + 1));
  return 0;
}

static void solver_free(solver *S) { free(S->K); free(S->k1); }

/* One RK4 step of at most h_max (and up to t_stop); returns the step taken. */
static double rk4(solver *S, double *n, double h_max, double t, double t_stop) {
  size_t m = S->kmax;
  double h = rhs(S, n, S->k1);
  if (h > h_max) h = h_max;
  if (t + h > t_stop) h = t_stop - t;
  if (!isfinite(h)) return INFINITY; /* nothing left to coagulate */
  for (size_t k = 0; k < m; k++) S->tmp[k] = n[k] + 0.5 * h * S->k1[k];
  rhs(S, S->tmp, S->k2);
  for (size_t k = 0; k < m; k++) S->tmp[k] = n[k] + 0.5 * h * S->k2[k];
  rhs(S, S->tmp, S->k3);
  for (size_t k = 0; k < m; k++) S->tmp[k] = n[k] + h * S->k3[k];
  rhs(S, S->tmp, S->k4);
  for (size_t k = 0; k < m; k++) n[k] += h / 6 * (S->k1[k] + 2 * S->k2[k] + 2 * S->k3[k] + S->k4[k]);
  return h;
}

static agglo_status check_options(const char *fn, const agglo_smoluchowski_options *o) {
  if (!o) return agglo_error(AGGLO_ERROR_INPUT, "%s: the options are NULL", fn);
  if (o->kernel < AGGLO_KERNEL_CONSTANT || o->kernel > AGGLO_KERNEL_FUCHS)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: kernel %d (allowed: AGGLO_KERNEL_CONSTANT .. "
                       "AGGLO_KERNEL_FUCHS)", fn, o->kernel);
  if (o->kernel == AGGLO_KERNEL_FUCHS &&
      (o->dim != 3 || !(o->persistence > 0) || !(o->persistence < 1e300) || !(o->knudsen >= 0) ||
       !(o->knudsen < 1e300) || !(o->area_exponent >= 0 && o->area_exponent <= 1) ||
       (o->mobility != 0 && o->mobility != 1)))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: the Fuchs kernel with dim = %d, persistence = %g, "
                       "knudsen = %g, area_exponent = %g, mobility = %d (allowed: dim 3, persistence "
                       "> 0 and finite, knudsen >= 0 and finite, area_exponent 0 to 1, mobility 0 "
                       "or 1)", fn, o->dim, o->persistence, o->knudsen, o->area_exponent, o->mobility);
  if (o->dim != 2 && o->dim != 3) return agglo_error(AGGLO_ERROR_INPUT, "%s: dim = %d (allowed: 2 or 3)", fn, o->dim);
  if (!(o->df >= 0) || o->df > 3)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: df = %g (allowed: 0 = the space dimension, or 1 to 3)", fn, o->df);
  if (o->df > 0 && o->df < 1)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: df = %g (allowed: 0 = the space dimension, or 1 to 3)", fn, o->df);
  if (o->kmax < 2 || o->kmax > AGGLO_SMOLUCHOWSKI_KMAX)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: kmax = %zu (allowed: 2 to %d)", fn, o->kmax,
                       AGGLO_SMOLUCHOWSKI_KMAX);
  if (o->max_steps < 1 || o->max_steps > 1000000000)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: max_steps = %lld (allowed: 1 to 1e9)", fn,
                       (long long)o->max_steps);
  return AGGLO_OK;
}

agglo_status agglo_smoluchowski_solve(const agglo_smoluchowski_options *o, double t_end, double *n,
                                      double *lost, int64_t *steps) {
  static const char fn[] = "agglo_smoluchowski_solve";
  agglo_status st = check_options(fn, o);
  if (st) return st;
  if (!n) return agglo_error(AGGLO_ERROR_INPUT, "%s: n is NULL", fn);
  if (!(t_end >= 0) || !isfinite(t_end))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: t_end = %g (allowed: finite and >= 0)", fn, t_end);
  for (size_t k = 0; k < o->kmax; k++)
    if (!(n[k] >= 0) || !isfinite(n[k]))
      return agglo_error(AGGLO_ERROR_INPUT, "%s: n[%zu] = %g (allowed: finite and >= 0)", fn, k, n[k]);
  solver S;
  if (solver_init(&S, o) != 0) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  double m0 = mass(n, o->kmax), t = 0;
  int64_t k = 0;
  while (t < t_end && k < o->max_steps) t += rk4(&S, n, t_end - t, t, t_end), k++;
  solver_free(&S);
  if (lost) *lost = m0 > 0 ? 1 - mass(n, o->kmax) / m0 : 0;
  if (steps) *steps = k;
  if (t < t_end)
    return agglo_error(AGGLO_ERROR_RUN, "%s: t = %g after max_steps = %lld steps, short of t_end = "
                       "%g (raise max_steps, or lower kmax: the step is at most the fastest loss "
                       "time)", fn, t, (long long)o->max_steps, t_end);
  return AGGLO_OK;
}

agglo_status agglo_smoluchowski_fit(const agglo_smoluchowski_options *o, const double *t,
                                    const double *size, size_t m, agglo_smoluchowski_fit_result *r,
                                    double *curve_tau, double *curve_size, size_t *curve_n,
                                    size_t curve_max) {
  static const char fn[] = "agglo_smoluchowski_fit";
  agglo_status st = check_options(fn, o);
  if (st) return st;
  if (!t || !size || !r) return agglo_error(AGGLO_ERROR_INPUT, "%s: t, size or r is NULL", fn);
  memset(r, 0, sizeof *r);
  double s_max = 1;
  for (size_t a = 0; a < m; a++) {
    if (!isfinite(t[a]) || !isfinite(size[a]) || size[a] < 1)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: point %zu: t = %g, mean size %g (allowed: finite, "
                         "size >= 1)", fn, a, t[a], size[a]);
    if (size[a] > s_max) s_max = size[a];
  }
  /* the solution's mean size S(tau) from a monodisperse start, until it passes the largest
     measured size, the mass lost past kmax reaches 1e-3, or the step limit */
  solver S;
  double *n = calloc(o->kmax, sizeof *n);
  size_t cap = 1024, len = 0;
  double *tau = malloc(cap * sizeof *tau), *sz = malloc(cap * sizeof *sz);
  if (!n || !tau || !sz || solver_init(&S, o) != 0) {
    free(n); free(tau); free(sz);
    return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
  }
  n[0] = 1;
  double now = 0, lost = 0;
  int64_t k = 0;
  tau[len] = 0, sz[len++] = 1;
  while (sz[len - 1] < s_max && lost < 1e-3 && k < o->max_steps) {
    double h = rk4(&S, n, INFINITY, now, INFINITY);
    if (!isfinite(h)) break;
    now += h, k++;
    double num = 0, ms = mass(n, o->kmax);
    for (size_t q = 0; q < o->kmax; q++) num += n[q];
    lost = 1 - ms;
    if (len == cap) {
      double *a = realloc(tau, 2 * cap * sizeof *a), *b = a ? realloc(sz, 2 * cap * sizeof *b) : NULL;
      if (a) tau = a;
      if (!b) {
        free(n); free(tau); free(sz); solver_free(&S);
        return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
      }
      sz = b, cap *= 2;
    }
    tau[len] = now, sz[len++] = num > 0 ? ms / num : INFINITY;
  }
  solver_free(&S);
  free(n);
  r->steps = k, r->lost = lost, r->size_reached = sz[len - 1];
  /* each measured point (t > 0, size > 1, within the solution's range) gives the solution time
     of its size, tau_S; the time scale: the mean of log(tau_S / t) */
  double sum = 0;
  size_t used = 0;
  for (size_t a = 0; a < m; a++) {
    if (!(t[a] > 0) || !(size[a] > 1) || size[a] > sz[len - 1]) continue;
    size_t q = 1;
    while (q < len && sz[q] < size[a]) q++;
    double f = (size[a] - sz[q - 1]) / (sz[q] - sz[q - 1]);
    double ts = tau[q - 1] + f * (tau[q] - tau[q - 1]);
    sum += log(ts / t[a]), used++;
  }
  if (used == 0) {
    free(tau); free(sz);
    r->scale = r->max_deviation = NAN;
    return AGGLO_OK; /* nothing to fit: NAN, the caller says so */
  }
  r->scale = exp(sum / (double)used), r->points = used;
  /* the deviation of the measured sizes from S(A t) */
  for (size_t a = 0; a < m; a++) {
    double ts = r->scale * t[a];
    if (!(t[a] > 0) || ts > tau[len - 1]) continue;
    size_t q = 1;
    while (q < len && tau[q] < ts) q++;
    double f = (ts - tau[q - 1]) / (tau[q] - tau[q - 1]);
    double s = sz[q - 1] + f * (sz[q] - sz[q - 1]), dev = fabs(size[a] - s) / s;
    if (dev > r->max_deviation) r->max_deviation = dev;
    r->mean_deviation += dev, r->compared++;
  }
  if (r->compared) r->mean_deviation /= (double)r->compared;
  if (curve_tau && curve_size && curve_n) {
    size_t every = len / (curve_max ? curve_max : 1) + 1, c = 0;
    for (size_t q = 0; q < len && c < curve_max; q += every) curve_tau[c] = tau[q], curve_size[c++] = sz[q];
    *curve_n = c;
  }
  free(tau); free(sz);
  return AGGLO_OK;
}
