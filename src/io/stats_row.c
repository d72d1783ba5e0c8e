/* The stats row of a step, shared by stats.csv, sizes.csv and the H5MD observables
   (io/stats_row.h). */
#include "io/stats_row.h"
#include "analysis/frame_summary.h"
#include "core/error.h"
#include "core/simulation.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void agglo_stats_header(FILE *f, const agglo_model *m) {
  fprintf(f, "time,step,n_clusters,mean_cluster_size,max_cluster_size,kinetic_energy,"
             "solver_iterations,mean_solver_iterations,max_violation,min_gap,n_contacts,converged,"
             "weight_avg_cluster_size,fractal_dimension_box,fractal_dimension_mass,"
             "contacts_per_sphere,aspect_ratio,rg_largest,outer_iterations");
  fprintf(f, "%s\n", m->stats_columns ? m->stats_columns : "");
}

int agglo_stats_size_classes(size_t n) {
  int b = 1;
  while (b < 63 && ((size_t)1 << b) <= n) b++;
  return b;
}

void agglo_stats_size_class_names(FILE *f, size_t n) {
  for (int b = 0; b < agglo_stats_size_classes(n); b++)
    fprintf(f, ",clusters_size_%llu_%llu", 1ull << b, (2ull << b) - 1);
}

void agglo_stats_row_free(agglo_stats_row *r) {
  free(r->text);
  free(r->sizes);
  *r = (agglo_stats_row){.step = -1};
}

/* The aggregate indicators (docs/analysis.md) when due; empty columns otherwise. */
static int analysis_columns(agglo_sim *sim, FILE *f, int due) {
  agglo_system *s = &sim->sys;
  agglo_frame_summary a;
  agglo_indicator_settings how = agglo_indicators_of(&sim->cfg);
  if (!due) {
    fprintf(f, ",,,,,,");
    return 0;
  }
  sim->labelled_step = -1; /* the summary relabels with its own contact notion */
  if (agglo_frame_summarize(s, sim->model->contact_gap(sim->state), &how, &a, NULL, NULL) != 0)
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory for the aggregate indicators of the "
                       "stats.csv row at t = %g", s->t);
  fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", a.weight_avg_cluster_size,
          a.fractal_dimension_box, a.fractal_dimension_mass, a.contacts_per_sphere, a.aspect_ratio,
          a.rg_largest);
  return 0;
}

/* sizes.csv's lines of this row (the clusters of each size, long format) to sz, and their counts
   by size class (powers of two) to h5. */
static int size_rows(agglo_sim *sim, FILE *sz, FILE *h5) {
  const agglo_system *s = &sim->sys;
  size_t *count = malloc((s->n + 1) * sizeof *count);
  if (!count || agglo_size_counts(s->cluster, s->n, count) != 0) {
    free(count);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  for (size_t k = 1; k <= s->n; k++)
    if (count[k]) fprintf(sz, "%.10g,%lld,%zu,%zu\n", s->t, (long long)s->step, k, count[k]);
  for (int b = 0; b < agglo_stats_size_classes(s->n); b++) {
    size_t in = 0;
    for (size_t k = (size_t)1 << b; k < ((size_t)2 << b) && k <= s->n; k++) in += count[k];
    fprintf(h5, ",%zu", in);
  }
  free(count);
  return 0;
}

/* The model's columns, printed from its numbers; the first non-finite one named in what
   ("name = value"; NULL: not asked). 0, or -1 out of memory. */
static int model_columns(agglo_sim *sim, FILE *f, char *what, size_t n) {
  const agglo_model *m = sim->model;
  if (!m->stats_numbers || !m->stats_count) return 0;
  double *v = calloc(m->stats_count, sizeof *v);
  int *has = calloc(m->stats_count, sizeof *has);
  if (!v || !has) {
    free(v), free(has);
    return -1;
  }
  m->stats_numbers(sim->state, v, has);
  const char *col = m->stats_columns ? m->stats_columns : "";
  for (size_t k = 0; k < m->stats_count; k++) {
    if (*col == ',') col++;
    size_t cl = strcspn(col, ",");
    fputc(',', f);
    if (has[k]) fprintf(f, m->stats_formats[k], v[k]);
    if (what && has[k] && !isfinite(v[k]) && !what[0]) {
      char value[64];
      snprintf(value, sizeof value, m->stats_formats[k], v[k]);
      snprintf(what, n, "%.*s = %s", (int)cl, col, value);
    }
    col += cl;
  }
  free(v), free(has);
  return 0;
}

/* Memory streams given up: closed, their buffers freed. */
static void drop(FILE *f, char **a, FILE *g, char **b, FILE *h, char **c) {
  /* (closing a memory stream sets its buffer pointer: freed after, through the pointer) */
  if (f) fclose(f);
  if (g) fclose(g);
  if (h) fclose(h);
  free(*a), free(*b), free(*c);
}

int agglo_stats_row_compose(agglo_sim *sim, int analysis_due) {
  agglo_system *s = &sim->sys;
  agglo_stats_row *r = &sim->out.row;
  agglo_stats_row_free(r);
  char *row = NULL, *h5row = NULL, *szrow = NULL;
  size_t len = 0, h5len = 0, szlen = 0;
  FILE *f = open_memstream(&row, &len), *h5 = open_memstream(&h5row, &h5len),
       *sz = open_memstream(&szrow, &szlen);
  if (!f || !h5 || !sz) {
    drop(f, &row, h5, &h5row, sz, &szrow);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  /* the size distribution of the labels the row counts (the indicators relabel) */
  if (size_rows(sim, sz, h5) != 0) {
    drop(f, &row, h5, &h5row, sz, &szrow);
    return -1;
  }
  double mean_it = sim->iter_steps ? (double)sim->iter_sum / (double)sim->iter_steps : 0;
  double ke = agglo_kinetic_energy(s);
  fprintf(f, "%.10g,%lld,%zu,%.6g,%zu,%.9g,%d,%.4g,%.4g,%.6g,%zu,%d", s->t, (long long)s->step,
          sim->clusters.n_clusters, sim->clusters.mean_size, sim->clusters.max_size,
          ke, sim->last.iterations, mean_it, sim->last.max_violation,
          sim->last.min_gap, sim->last.n_contacts, sim->last.converged);
  if (analysis_columns(sim, f, analysis_due) != 0) {
    drop(f, &row, h5, &h5row, sz, &szrow);
    return -1;
  }
  fprintf(f, ",%d", sim->last.outer_iterations);
  /* energies and model values that overflowed: the dynamics blew up although the positions and
     velocities stayed finite (a row of inf and nan is no result; docs/config.md, run.dt) */
  char what[160] = "";
  if (!isfinite(ke)) snprintf(what, sizeof what, "kinetic_energy = %g", ke);
  if (model_columns(sim, f, isfinite(ke) ? what : NULL, sizeof what) != 0) {
    drop(f, &row, h5, &h5row, sz, &szrow);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  sim->iter_sum = sim->iter_steps = 0;
  if (sim->model->stats_taken) sim->model->stats_taken(sim->state);
  if (what[0]) {
    drop(f, &row, h5, &h5row, sz, &szrow);
    if (sim->model->variable_step) /* it chooses its own steps: run.dt plays no part */
      return agglo_error(AGGLO_ERROR_RUN, "step %lld (t = %g): the stats row has a non-finite value "
                         "(%s): the dynamics overflowed; the %s model chooses its own steps, so one of its "
                         "parameters (%s.*, or the SI keys) is probably beyond what doubles hold",
                         (long long)s->step, s->t, what, sim->model->name, sim->model->name);
    return agglo_error(AGGLO_ERROR_RUN, "step %lld (t = %g): the stats row has a non-finite value "
                       "(%s): the dynamics overflowed; the time step (run.dt = %g) or the model's "
                       "force parameters (%s.*) are probably too large", (long long)s->step, s->t,
                       what, sim->cfg.dt, sim->model->name);
  }
  fflush(f);
  size_t cut = len; /* stats.csv stops here; the H5MD row goes on with the size classes */
  /* (a memory stream that could not grow has lost characters: its error flag says so) */
  int lost = ferror(f) || ferror(h5) || ferror(sz);
  fclose(h5), fputs(h5row ? h5row : "", f), free(h5row);
  fputc('\n', f);
  lost |= ferror(f);
  fclose(f), fclose(sz);
  if (lost || !row || !szrow) {
    free(row), free(szrow);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory composing the stats.csv row at t = %g", s->t);
  }
  *r = (agglo_stats_row){.step = s->step, .text = row, .cut = cut, .len = len, .sizes = szrow,
                         .sizes_len = szlen};
  return 0;
}
