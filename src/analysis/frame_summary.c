#include "analysis/frame_summary.h"
#include "analysis/clusters.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Box counting of the members x (3m) of one cluster, on the grid `how` names; the fit's range
   into out. */
static void box_dimension(const agglo_system *s, const double *x, size_t m,
                          const agglo_indicator_settings *how, agglo_frame_summary *out) {
  double eps[64];
  int np = 0;
  if (how->box_counting == AGGLO_BOX_COUNTING_BOUNDING)
    out->fractal_dimension_box = agglo_box_counting(x, m, s->dim, 3 * out->r_mean, eps, NULL, &np);
  else
    out->fractal_dimension_box = agglo_box_counting_grid(x, m, s->dim, s->box.lo, s->box.len,
                                                         3 * out->r_mean, eps, NULL, &np);
  out->box_levels = np;
  out->box_eps_max = np ? eps[0] : NAN;
  out->box_eps_min = np ? eps[np - 1] : NAN;
}

int agglo_frame_summarize(agglo_system *s, double contact_gap, const agglo_indicator_settings *how,
                          agglo_frame_summary *out,
                          agglo_cluster_info **infos_out, size_t *n_out) {
  memset(out, 0, sizeof *out);
  out->time = s->t;
  out->n_particles = s->n;
  out->contact_gap = contact_gap;
  double rsum = 0;
  for (size_t i = 0; i < s->n; i++) rsum += s->r[i];
  out->r_mean = s->n ? rsum / (double)s->n : 0;
  agglo_cluster_stats cs;
  if (agglo_clusters_label(s, NULL, contact_gap, &cs) != 0) return -1;
  out->n_clusters = cs.n_clusters;
  out->max_cluster_size = cs.max_size;
  out->mean_cluster_size = cs.mean_size;
  agglo_cluster_info *info;
  size_t nc;
  if (agglo_cluster_infos(s, contact_gap, &info, &nc) != 0) return -1;
  double s1 = 0, s2 = 0;
  for (size_t c = 0; c < nc; c++) s1 += (double)info[c].size, s2 += (double)info[c].size * info[c].size;
  out->weight_avg_cluster_size = s1 > 0 ? s2 / s1 : 0;
  out->mass_min_size = how->mass_min_size;
  out->fractal_dimension_mass = agglo_mass_radius_dimension(info, nc, how->mass_min_size,
                                                            out->r_mean, &out->mass_prefactor);
  out->fractal_dimension_fracval = agglo_mass_radius_fracval(info, nc, how->mass_min_size,
                                                              &out->prefactor_fracval);
  out->contacts_per_sphere = agglo_contacts_per_sphere(s, 2.1 * out->r_mean);
  out->fractal_dimension_box = out->box_eps_min = out->box_eps_max = NAN;
  out->aspect_ratio = nc ? info[0].aspect : NAN;
  out->rg_largest = nc ? info[0].rg : NAN;
  if (nc && info[0].size >= 2) {
    /* the largest cluster's members: as they are in the box for the paper's grid (a periodic
       box's grid is periodic too), unwrapped through their contacts for the bounding square */
    agglo_system one;
    size_t m = info[0].size, q = 0;
    if (agglo_system_alloc(&one, s->dim, m) != 0) {
      free(info);
      return -1;
    }
    one.box = s->box;
    for (size_t i = 0; i < s->n; i++)
      if (s->cluster[i] == info[0].label) {
        memcpy(one.x + 3 * q, s->x + 3 * i, 3 * sizeof(double));
        one.r[q] = s->r[i], one.m[q] = s->m[i], one.cluster[q] = 0;
        q++;
      }
    double *u = how->box_counting == AGGLO_BOX_COUNTING_BOUNDING ? malloc(3 * m * sizeof *u) : NULL;
    if (how->box_counting != AGGLO_BOX_COUNTING_BOUNDING)
      box_dimension(s, one.x, m, how, out);
    else if (u && agglo_unwrap_clusters(&one, contact_gap, u) == 0)
      box_dimension(s, u, m, how, out);
    free(u);
    agglo_system_free(&one);
  }
  if (infos_out) {
    *infos_out = info;
    *n_out = nc;
  } else {
    free(info);
  }
  return 0;
}

void agglo_frame_summary_header(FILE *f) {
  fprintf(f, "time,n_particles,n_clusters,mean_cluster_size,weight_avg_cluster_size,"
             "max_cluster_size,fractal_dimension_box,fractal_dimension_mass,contacts_per_sphere,"
             "aspect_ratio,rg_largest");
}

void agglo_frame_summary_row(FILE *f, const agglo_frame_summary *a) {
  fprintf(f, "%.10g,%zu,%zu,%.6g,%.6g,%zu,%.6g,%.6g,%.6g,%.6g,%.6g", a->time, a->n_particles,
          a->n_clusters, a->mean_cluster_size, a->weight_avg_cluster_size, a->max_cluster_size,
          a->fractal_dimension_box, a->fractal_dimension_mass, a->contacts_per_sphere,
          a->aspect_ratio, a->rg_largest);
}
