/* One ballistic run to its end and the indicators of its final cluster (Degond et al. 2024;
   docs/ballistic.md): the tests of
   time stepping against event driven. */
#include "models/ballistic_compare.h"
#include "analysis/analysis.h"
#include "core/cells.h"
#include "analysis/frame_summary.h"
#include "core/model.h"
#include "core/setup.h"
#include "core/simulation.h"
#include "core/error.h"
#include "core/timing.h"
#include "models/ballistic_config.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const double agglo_ball_pr_radii[AGGLO_BALL_NPR] = {2.5, 4, 6, 10, 15, 20};

int agglo_ballistic_simulate(const agglo_config *c, agglo_ball_result *res, char *err,
                             size_t errlen) {
  memset(res, 0, sizeof *res);
  if (c->model != &agglo_ballistic_entry) return agglo_fail(err, errlen, "run.model must be ballistic");
  if (agglo_config_validate(c, err, errlen) != 0) return -1;
  agglo_system s;
  if (agglo_setup(&s, c, err, errlen) != 0) return -1;
  if (agglo_sort_spatially(&s, 4 * agglo_max_radius(&s)) != 0) {
    agglo_system_free(&s);
    return agglo_fail(err, errlen, "out of memory");
  }
  const agglo_model *m = agglo_model_select(c);
  void *state = NULL;
  double t0 = agglo_cpu_seconds();
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
  res->cpu = agglo_cpu_seconds() - t0;
  res->t_final = s.t;
  if (rc == 0) {
    size_t nc, mx;
    m->labels(state, &s, &nc, &mx);
    res->n_clusters = (double)nc;
    agglo_frame_summary a;
    agglo_indicator_settings how = agglo_indicators_of(c);
    if (agglo_frame_summarize(&s, m->contact_gap(state), &how, &a, NULL, NULL) != 0)
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
