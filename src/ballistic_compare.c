/* `agglo compare`: ballistic time stepping against event driven over seeds, with the indicators
   of SPEC §3 for the final cluster. */
#include "ballistic_compare.h"
#include "agglo/analysis.h"
#include "analysis.h"
#include "cells.h"
#include "frame_summary.h"
#include "model.h"
#include "setup.h"
#include "error.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const double agglo_ball_pr_radii[AGGLO_BALL_NPR] = {2.5, 4, 6, 10, 15, 20};

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int agglo_ballistic_simulate(const agglo_config *c, agglo_ball_result *res, char *err,
                             size_t errlen) {
  memset(res, 0, sizeof *res);
  if (c->model != MODEL_BALLISTIC) return agglo_fail(err, errlen, "run.model must be ballistic");
  if (agglo_config_validate(c, err, errlen) != 0) return -1;
  agglo_system s;
  if (agglo_setup(&s, c, err, errlen) != 0) return -1;
  if (agglo_sort_spatially(&s, 4 * agglo_max_radius(&s)) != 0) {
    agglo_system_free(&s);
    return agglo_fail(err, errlen, "out of memory");
  }
  const agglo_model *m = agglo_model_select(c);
  void *state = NULL;
  double t0 = cpu_now();
  if (m->init(&state, &s, c, err, errlen) != 0) {
    agglo_system_free(&s);
    return -1;
  }
  agglo_step_info info;
  memset(&info, 0, sizeof info);
  int rc = 0;
  double rmean = 0;
  for (size_t i = 0; i < s.n; i++) rmean += s.r[i];
  rmean /= (double)(s.n ? s.n : 1);
  while (!info.finished) {
    if (m->step(state, &s, &info, err, errlen) != 0) {
      rc = -1;
      break;
    }
    res->steps++;
    res->iterations += info.iterations;
    if (info.max_violation / rmean > res->max_overlap) res->max_overlap = info.max_violation / rmean;
    if (info.bad_particle != SIZE_MAX) {
      rc = agglo_fail(err, errlen, "non-finite state at step %lld", (long long)s.step);
      break;
    }
  }
  res->cpu = cpu_now() - t0;
  res->t_final = s.t;
  if (rc == 0) {
    size_t nc, mx;
    m->labels(state, &s, &nc, &mx);
    res->n_clusters = (double)nc;
    agglo_frame_summary a;
    if (agglo_frame_summarize(&s, m->contact_gap(state), &a, NULL, NULL) != 0)
      rc = agglo_fail(err, errlen, "out of memory in the analysis");
    res->nc = a.contacts_per_sphere;
    res->df = a.fractal_dimension_box;
    res->ar = a.aspect_ratio;
    double r[AGGLO_BALL_NPR];
    for (int k = 0; k < AGGLO_BALL_NPR; k++) r[k] = agglo_ball_pr_radii[k] * rmean;
    if (rc == 0 && agglo_pair_distribution(&s, r, AGGLO_BALL_NPR, 2000, res->pr) != 0)
      rc = agglo_fail(err, errlen, "out of memory in the analysis");
  }
  m->destroy(state);
  agglo_system_free(&s);
  return rc;
}

static void mean_sd(const double *v, long n, double *mean, double *sd) {
  double s = 0, q = 0;
  for (long i = 0; i < n; i++) s += v[i];
  *mean = n ? s / (double)n : NAN;
  for (long i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
  *sd = n > 1 ? sqrt(q / (double)(n - 1)) : 0;
}

/* Indicator q of a result: N_c, D_f, A_r, t, CPU, steps, iterations, overlap, then P(r). */
static double indicator(const agglo_ball_result *r, int q) {
  const double v[8] = {r->nc, r->df, r->ar, r->t_final, r->cpu, r->steps, r->iterations, r->max_overlap};
  return q < 8 ? v[q] : r->pr[q - 8];
}

agglo_status agglo_ballistic_compare(const agglo_config *cfg, long first, long seeds, int only,
                                     FILE *out, FILE *csv, FILE *log) {
  if (!cfg || !out) return agglo_error(AGGLO_ERROR_INPUT, "agglo_ballistic_compare: NULL settings or stream");
  if (seeds < 1 || seeds > 100000 || first < 0)
    return agglo_error(AGGLO_ERROR_INPUT, "--seeds must be 1 to 100000 and --first-seed >= 0");
  if (only < -1 || only > 1) return agglo_error(AGGLO_ERROR_INPUT, "only: %d (allowed: -1, 0, 1)", only);
  if (cfg->model != MODEL_BALLISTIC) return agglo_error(AGGLO_ERROR_INPUT, "run.model must be ballistic");
  agglo_ball_result *res = calloc(2 * (size_t)seeds, sizeof *res);
  double *v = calloc(2 * (size_t)seeds, sizeof *v);
  if (!res || !v) {
    free(res);
    free(v);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  if (csv) {
    fprintf(csv, "method,seed,t_final,cpu,steps,iterations,n_clusters,nc,df,ar,max_overlap");
    for (int k = 0; k < AGGLO_BALL_NPR; k++) fprintf(csv, ",P%g", agglo_ball_pr_radii[k]);
    fputc('\n', csv);
  }
  agglo_status st = AGGLO_OK;
  const char *mname[2] = {"time_stepping", "event_driven"};
  for (int m = 0; m < 2 && st == AGGLO_OK; m++)
    for (long k = 0; k < seeds; k++) {
      if (only >= 0 && m != only) continue;
      agglo_config c = *cfg;
      c.ball_method = m == 0 ? BALL_TIME_STEPPING : BALL_EVENT_DRIVEN;
      c.seed = first + k;
      agglo_ball_result *r = &res[m * seeds + k];
      char err[1024];
      if (agglo_ballistic_simulate(&c, r, err, sizeof err) != 0) {
        st = agglo_error(AGGLO_ERROR_RUN, "%s seed %ld: %s", mname[m], first + k, err);
        break;
      }
      if (log)
        fprintf(log, "%s seed %ld: t = %.6g, CPU %.3g s, N_c %.4f, D_f %.4f, A_r %.3g\n", mname[m],
                first + k, r->t_final, r->cpu, r->nc, r->df, r->ar);
      if (csv) {
        fprintf(csv, "%s,%ld,%.10g,%.6g,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%.4g", mname[m], first + k,
                r->t_final, r->cpu, r->steps, r->iterations, r->n_clusters, r->nc, r->df, r->ar,
                r->max_overlap);
        for (int q = 0; q < AGGLO_BALL_NPR; q++) fprintf(csv, ",%.6g", r->pr[q]);
        fputc('\n', csv);
        fflush(csv);
      }
    }
  if (st == AGGLO_OK) {
    fprintf(out, "ballistic, N = %lld, %dD, %ld seeds from %ld: mean (standard deviation)\n",
            (long long)cfg->n, cfg->dim, seeds, first);
    fprintf(out, "%-22s %-24s %-24s %s\n", "indicator", "time stepping", "event driven", "TS/ED - 1");
    static const char *names[8] = {"N_c", "D_f (box counting)", "A_r", "time to one cluster",
                                   "CPU time (s)", "steps / windows", "iterations / events",
                                   "max overlap / r"};
    for (int q = 0; q < 8 + AGGLO_BALL_NPR; q++) {
      char name[64];
      for (int m = 0; m < 2; m++)
        for (long k = 0; k < seeds; k++) v[m * seeds + k] = indicator(&res[m * seeds + k], q);
      if (q < 8) snprintf(name, sizeof name, "%s", names[q]);
      else snprintf(name, sizeof name, "P(%gr)", agglo_ball_pr_radii[q - 8]);
      double m0, s0, m1, s1;
      mean_sd(v, seeds, &m0, &s0);
      mean_sd(v + seeds, seeds, &m1, &s1);
      char a[64], b[64];
      snprintf(a, sizeof a, "%.5g (%.3g)", m0, s0);
      snprintf(b, sizeof b, "%.5g (%.3g)", m1, s1);
      if (only >= 0) {
        if (only == 0) snprintf(b, sizeof b, "-");
        else snprintf(a, sizeof a, "-");
        fprintf(out, "%-22s %-24s %-24s\n", name, a, b);
      } else if (q >= 5 && q <= 7) fprintf(out, "%-22s %-24s %-24s\n", name, a, b);
      else fprintf(out, "%-22s %-24s %-24s %+.2f%%\n", name, a, b, 100 * (m0 / m1 - 1));
    }
  }
  free(res);
  free(v);
  return st;
}
