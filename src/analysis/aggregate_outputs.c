/* The reported frame's aggregates as scatterers and aerosol particles (`agglo analyze --sq
   --mobility --optics --mstm --ddscat`; docs/scattering.md): each cluster made whole, then the
   library's functions of agglo/scattering.h on its members. */
#include "analysis/aggregate_outputs.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A public function's message (already this thread's last error) into err. */
static int lib_fail(char *err, size_t errlen) {
  const char *m = agglo_last_error();
  if (m != err) snprintf(err, errlen, "%s", m);
  return -1;
}

int agglo_aggregate_options_check(const agglo_analyze_options *o, char *err, size_t errlen) {
  if (o->q_count < 0 || o->q_count == 1 || o->q_count > AGGLO_SQ_MAX_Q)
    return agglo_fail(err, errlen, "--q-count %d: allowed 2 .. %d (default 200)", o->q_count, AGGLO_SQ_MAX_Q);
  if (o->q_min < 0 || o->q_max < 0 || (o->q_min > 0 && o->q_max > 0 && !(o->q_min < o->q_max)))
    return agglo_fail(err, errlen, "--q-min %g, --q-max %g: allowed 0 < q-min < q-max", o->q_min, o->q_max);
  if ((o->fit_q_min > 0 || o->fit_q_max > 0) && !(o->fit_q_min > 0 && o->fit_q_max > o->fit_q_min))
    return agglo_fail(err, errlen, "--sq-fit %g,%g: allowed 0 < QLO < QHI", o->fit_q_min, o->fit_q_max);
  if ((o->optics || o->mstm) && !(o->wavelength > 0))
    return agglo_fail(err, errlen, "--optics and --mstm need --wavelength L (> 0, in the trajectory's length unit)");
  if ((o->optics || o->mstm) && (!isfinite(o->m_re) || !(o->m_im >= 0) || !isfinite(o->m_im) || o->m_re == 0))
    return agglo_fail(err, errlen, "--index %g,%g: the refractive index RE,IM needs RE != 0 and IM >= 0 "
                      "(e.g. --index 1.6,0.6 for soot)", o->m_re, o->m_im);
  return 0;
}

/* The members of the cluster labelled `label`: their unwrapped centres and radii. */
static size_t gather(const agglo_system *s, const double *u, int64_t label, double *x, double *r) {
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->cluster[i] == label) {
      memcpy(x + 3 * m, u + 3 * i, 3 * sizeof *x);
      r[m++] = s->r[i];
    }
  return m;
}

static double mean_radius(const double *r, size_t n) { /* volume-equivalent */
  double v = 0;
  for (size_t i = 0; i < n; i++) v += r[i] * r[i] * r[i] / (double)n;
  return cbrt(v);
}

static int structure_factor(const agglo_analyze_options *o, const agglo_system *s, const double *u,
                            const agglo_cluster_info *info, size_t nc, double *x, double *r,
                            FILE *f, agglo_analyze_result *res, char *err, size_t errlen) {
  size_t take = o->clusters_all ? nc : 1, nq = o->q_count ? (size_t)o->q_count : 200;
  size_t m0 = gather(s, u, info[0].label, x, r);
  double a = mean_radius(r, m0), rg0 = info[0].rg;
  double qlo = o->q_min > 0 ? o->q_min : rg0 > 0 ? 0.05 / rg0 : 1e-3 / a;
  double qhi = o->q_max > 0 ? o->q_max : 10 / a;
  if (!(qlo < qhi))
    return agglo_fail(err, errlen, "--sq: q from %g to %g is empty (set --q-min below --q-max)", qlo, qhi);
  double *q = malloc(nq * sizeof *q), *S = calloc(nq, sizeof *S), *I = calloc(nq, sizeof *I);
  double *E = calloc(nq, sizeof *E), *Sc = malloc(nq * sizeof *Sc), *Ic = malloc(nq * sizeof *Ic);
  double *Ec = malloc(nq * sizeof *Ec);
  int rc = -1;
  if (!q || !S || !I || !E || !Sc || !Ic || !Ec) {
    agglo_fail(err, errlen, "out of memory (S(q))");
    goto out;
  }
  for (size_t k = 0; k < nq; k++) q[k] = qlo * pow(qhi / qlo, (double)k / (double)(nq - 1));
  double total = 0, s0 = 0, rg2 = 0;
  agglo_sq_info worst = {0};
  for (size_t c = 0; c < take; c++) {
    size_t m = gather(s, u, info[c].label, x, r);
    agglo_sq_info si;
    if (agglo_structure_factor(x, r, m, s->dim, q, nq, &o->sq_options, Sc, Ic, Ec, &si) != AGGLO_OK) {
      lib_fail(err, errlen);
      goto out;
    }
    for (size_t k = 0; k < nq; k++) S[k] += (double)m * Sc[k], I[k] += (double)m * Ic[k], E[k] += (double)m * Ec[k];
    total += (double)m, s0 += (double)m * (double)m, rg2 += (double)m * (double)m * info[c].rg * info[c].rg;
    if (c == 0 || si.max_error > worst.max_error) worst = si; /* the first (largest) or the worst */
  }
  for (size_t k = 0; k < nq; k++) S[k] /= total, I[k] /= total, E[k] /= total;
  fprintf(f, "q,S,I,S_error\n");
  for (size_t k = 0; k < nq; k++) fprintf(f, "%.9g,%.9g,%.9g,%.3g\n", q[k], S[k], I[k], E[k]);
  res->sq_clusters = take, res->sq_monomers = (size_t)total, res->sq_q_min = qlo, res->sq_q_max = qhi;
  res->sq_info = worst;
  res->direct_rg = sqrt(rg2 / s0);
  agglo_guinier_fit(q, S, nq, s->dim, s0 / total, &res->guinier_rg, &res->guinier_points);
  /* [choice] the power law between 5 / R_g (past the knee: the fits of the Fisher-Burford,
     exponential and Gaussian cut-offs of D_f 1.8 over q R_g = 5 .. 45 give D_f within -3 % .. +1 %)
     and 1 / a (before the monomers' nearest-neighbour oscillation near q = pi / (2a)) */
  res->fit_q_lo = o->fit_q_min > 0 ? o->fit_q_min : rg0 > 0 ? 5 / rg0 : qlo;
  res->fit_q_hi = o->fit_q_max > 0 ? o->fit_q_max : 1 / a;
  res->sq_slope = NAN, res->fit_points = 0;
  if (res->fit_q_hi > res->fit_q_lo)
    agglo_power_law_fit(q, S, nq, res->fit_q_lo, res->fit_q_hi, &res->sq_slope, &res->fit_points);
  res->sq_s0 = s0 / total, res->sq_log_prefactor = NAN;
  double sum = 0; /* the fitted line passes through the mean of (ln q, ln S) over its points */
  for (size_t k = 0; k < nq && res->fit_points; k++)
    if (q[k] >= res->fit_q_lo && q[k] <= res->fit_q_hi && S[k] > 0) sum += log(S[k]) - res->sq_slope * log(q[k]);
  if (res->fit_points) res->sq_log_prefactor = sum / (double)res->fit_points;
  /* [choice] the whole curve up to the same 1 / a against the Gaussian cut-off (Sorensen 2001),
     D_f and R_g free: the estimator of D_f that holds to 3 % on tunable aggregates, where the
     slope does not (docs/scattering.md) */
  res->sq_df_gaussian = res->sq_rg_gaussian = res->sq_gaussian_rms = NAN;
  if (s->dim == 3 && res->direct_rg > 0 &&
      agglo_cutoff_fit(q, S, nq, AGGLO_OPTICS_GAUSSIAN, res->sq_s0, res->direct_rg, res->fit_q_hi,
                       &res->sq_df_gaussian, &res->sq_rg_gaussian, &res->sq_gaussian_rms, NULL) == AGGLO_STOPPED) {
    lib_fail(err, errlen); /* (its other refusals leave the fit NaN, as reported) */
    goto out;
  }
  rc = 0;
out:
  free(q), free(S), free(I), free(E), free(Sc), free(Ic), free(Ec);
  return rc;
}

static int mobility(const agglo_analyze_options *o, const agglo_system *s, const double *u,
                    const agglo_cluster_info *info, size_t nc, double *x, double *r, FILE *f,
                    agglo_analyze_result *res, char *err, size_t errlen) {
  size_t take = o->clusters_all ? nc : 1;
  double df = o->mobility_df > 0 ? o->mobility_df : s->dim == 2 ? 1.45 : 1.8;
  double gamma = o->area_exponent > 0 ? o->area_exponent : 0.92;
  int law = o->mobility_law;
  double rays = (double)take * (double)(o->orientations ? o->orientations : 200) * (double)(o->rays ? o->rays : 4000);
  if (rays > 1e10)
    return agglo_fail(err, errlen, "--mobility over %zu clusters x %lld orientations x %lld rays = %.4g "
                      "rays (at most 1e10): fewer --orientations or --rays, or --clusters largest", take,
                      (long long)(o->orientations ? o->orientations : 200), (long long)(o->rays ? o->rays : 4000), rays);
  fprintf(f, "label,size,a,projected_area,projected_area_error,rp,rp_law,rm,d_continuum,"
             "d_free_molecular,d_knudsen\n");
  for (size_t c = 0; c < take; c++) {
    size_t m = gather(s, u, info[c].label, x, r);
    double A, dA, a = mean_radius(r, m);
    if (agglo_projected_area(x, r, m, o->seed, o->orientations ? o->orientations : 200,
                             o->rays ? o->rays : 4000, &A, &dA) != AGGLO_OK)
      return lib_fail(err, errlen);
    double n = (double)m, rp = sqrt(A / M_PI), rp_law = a * pow(n, gamma / 2), rm = a * pow(n, 1 / df);
    /* the mobility diameters by the dlca model's law (analysis/mobility.c): continuum, free
       molecular (a mean free path 1e8 R_m: the limit to 1e-8) and at --knudsen */
    double big = 1e8 * rm;
    double dc = 2 * agglo_mobility_radius(agglo_mobility_friction_length(law, rm, rp, 0), 0);
    double dfm = 2 * agglo_mobility_radius(agglo_mobility_friction_length(law, rm, rp, big), big);
    double mfp = o->knudsen * a;
    double dk = o->knudsen > 0 ? 2 * agglo_mobility_radius(agglo_mobility_friction_length(law, rm, rp, mfp), mfp) : NAN;
    fprintf(f, "%lld,%zu,%.9g,%.9g,%.3g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (long long)info[c].label, m,
            a, A, dA, rp, rp_law, rm, dc, dfm, dk);
    if (c == 0) {
      res->mobility_size = m, res->mobility_a = a, res->projected_area = A;
      res->projected_area_error = dA, res->rp = rp, res->rp_law = rp_law, res->rm = rm;
      res->d_continuum = dc, res->d_free_molecular = dfm, res->d_knudsen = dk;
    }
  }
  return 0;
}

static const char *const structure_names[] = {"debye", "fisher_burford", "exponential", "gaussian"};

static int optics(const agglo_analyze_options *o, const agglo_system *s, const double *u,
                  const agglo_cluster_info *info, size_t nc, double *x, double *r, FILE *f,
                  agglo_analyze_result *res, char *err, size_t errlen) {
  size_t take = o->clusters_all ? nc : 1;
  agglo_optics_options oo = o->optics_options;
  if (oo.structure != AGGLO_OPTICS_DEBYE && !(oo.df > 0)) oo.df = 1.8;
  if (oo.sq.exact_pairs == 0 && oo.sq.tolerance == 0) oo.sq = o->sq_options;
  fprintf(f, "label,size,structure,df,wavelength,m_re,m_im,x_monomer,E,F,rg,c_abs,c_sca,"
             "c_abs_monomer,c_sca_monomer,g\n");
  for (size_t c = 0; c < take; c++) {
    size_t m = gather(s, u, info[c].label, x, r);
    agglo_optics_result q;
    if (agglo_rdg_fa(x, r, m, o->wavelength, o->m_re, o->m_im, &oo, &q) != AGGLO_OK) return lib_fail(err, errlen);
    fprintf(f, "%lld,%zu,%s,%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
            (long long)info[c].label, m, structure_names[oo.structure],
            oo.structure == AGGLO_OPTICS_DEBYE ? NAN : oo.df, o->wavelength, o->m_re, o->m_im,
            q.x_monomer, q.E, q.F, q.rg, q.c_abs, q.c_sca, q.c_abs_monomer, q.c_sca_monomer, q.g);
    if (c == 0) res->optics = q;
    else res->optics.c_abs += q.c_abs, res->optics.c_sca += q.c_sca, res->optics.n += q.n;
  }
  return 0;
}

int agglo_aggregate_outputs(const agglo_analyze_options *o, const agglo_system *s, double gap,
                            const agglo_cluster_info *info, size_t nc, FILE *sq, FILE *mob,
                            FILE *opt, agglo_analyze_result *res, char *err, size_t errlen) {
  if (nc == 0) return agglo_fail(err, errlen, "the frame has no particle to analyse as an aggregate");
  double *u = malloc((3 * s->n + 1) * sizeof *u), *x = malloc((3 * s->n + 1) * sizeof *x);
  double *r = malloc((s->n + 1) * sizeof *r);
  int rc = -1;
  if (!u || !x || !r || agglo_unwrap_clusters(s, gap, u) != 0) {
    agglo_fail(err, errlen, "out of memory (the aggregates' outputs)");
    goto out;
  }
  if (sq && structure_factor(o, s, u, info, nc, x, r, sq, res, err, errlen) != 0) goto out;
  if (mob && mobility(o, s, u, info, nc, x, r, mob, res, err, errlen) != 0) goto out;
  if (opt && optics(o, s, u, info, nc, x, r, opt, res, err, errlen) != 0) goto out;
  rc = 0;
out:
  free(u), free(x), free(r);
  return rc;
}

int agglo_aggregate_writers(const agglo_analyze_options *o, const agglo_system *s, double gap,
                            const agglo_cluster_info *info, size_t nc, agglo_analyze_result *res,
                            char *err, size_t errlen) {
  if (nc == 0) return agglo_fail(err, errlen, "the frame has no particle to write as an aggregate");
  double *u = malloc((3 * s->n + 1) * sizeof *u), *x = malloc((3 * s->n + 1) * sizeof *x);
  double *r = malloc((s->n + 1) * sizeof *r);
  int rc = -1;
  if (!u || !x || !r || agglo_unwrap_clusters(s, gap, u) != 0) {
    agglo_fail(err, errlen, "out of memory (the aggregate's files)");
    goto out;
  }
  size_t m = gather(s, u, info[0].label, x, r);
  if (o->mstm && agglo_write_mstm(o->mstm, x, r, m, o->wavelength, o->m_re, o->m_im) != AGGLO_OK) {
    lib_fail(err, errlen);
    goto out;
  }
  if (o->ddscat) {
    double d = o->dipole_spacing > 0 ? o->dipole_spacing : mean_radius(r, m) / 5;
    if (agglo_write_ddscat(o->ddscat, x, r, m, d, o->max_dipoles ? o->max_dipoles : 10000000,
                           &res->ddscat_dipoles) != AGGLO_OK) {
      lib_fail(err, errlen);
      if (o->mstm) remove(o->mstm); /* written just above: none of the two, as the analysis */
      goto out;
    }
  }
  rc = 0;
out:
  free(u), free(x), free(r);
  return rc;
}
