/* `agglo analyze`: the numbers come from the library (agglo_analyze_trajectory, which also
   writes the CSV files and the plots' data); here they are printed, and plotted by gnuplot. */
#include "analyze_cli.h"
#include "gnuplot.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void json_num(const char *key, double v, int last) {
  if (isfinite(v)) printf("  \"%s\": %.10g%s\n", key, v, last ? "" : ",");
  else printf("  \"%s\": null%s\n", key, last ? "" : ",");
}

static void print_json(const agglo_analyze_options *o, const agglo_analyze_result *r) {
  printf("{\n");
  json_num("time", r->time, 0);
  json_num("n_particles", (double)r->n_particles, 0);
  json_num("n_clusters", (double)r->n_clusters, 0);
  json_num("mean_cluster_size", r->mean_cluster_size, 0);
  json_num("weight_avg_cluster_size", r->weight_avg_cluster_size, 0);
  json_num("max_cluster_size", (double)r->max_cluster_size, 0);
  json_num("fractal_dimension_box", r->fractal_dimension_box, 0);
  json_num("box_counting_levels", r->box_levels, 0);
  json_num("box_counting_eps_min", r->box_eps_min, 0);
  json_num("box_counting_eps_max", r->box_eps_max, 0);
  json_num("fractal_dimension_mass", r->fractal_dimension_mass, 0);
  json_num("mass_radius_prefactor", r->mass_prefactor, 0);
  json_num("mass_radius_min_size", (double)r->mass_min_size, 0);
  if (o->mass_radius_fracval) {
    json_num("fractal_dimension_fracval", r->fractal_dimension_fracval, 0);
    json_num("prefactor_fracval", r->prefactor_fracval, 0);
  }
  json_num("growth_exponent", r->growth_z, 0);
  json_num("growth_exponent_se", r->growth_se, 0);
  json_num("growth_t_min", r->growth_t_lo, 0);
  json_num("growth_t_max", r->growth_t_hi, 0);
  json_num("growth_frames", (double)r->growth_points, 0);
  json_num("contacts_per_sphere", r->contacts_per_sphere, 0);
  json_num("aspect_ratio", r->aspect_ratio, 0);
  json_num("rg_largest", r->rg_largest, 0);
  json_num("contact_distance", r->contact_gap, !(o->sq || o->mobility || o->optics || o->ddscat));
  if (o->sq) {
    json_num("sq_clusters", (double)r->sq_clusters, 0);
    json_num("sq_monomers", (double)r->sq_monomers, 0);
    json_num("sq_q_min", r->sq_q_min, 0);
    json_num("sq_q_max", r->sq_q_max, 0);
    json_num("sq_binned", r->sq_info.binned, 0);
    json_num("sq_bins", (double)r->sq_info.bins, 0);
    json_num("sq_bin_width", r->sq_info.bin_width, 0);
    json_num("sq_max_error", r->sq_info.max_error, 0);
    json_num("guinier_rg", r->guinier_rg, 0);
    json_num("guinier_points", (double)r->guinier_points, 0);
    json_num("direct_rg", r->direct_rg, 0);
    json_num("sq_slope", r->sq_slope, 0);
    json_num("sq_df_gaussian", r->sq_df_gaussian, 0);
    json_num("sq_rg_gaussian", r->sq_rg_gaussian, 0);
    json_num("sq_gaussian_rms", r->sq_gaussian_rms, 0);
    json_num("sq_fit_q_min", r->fit_q_lo, 0);
    json_num("sq_fit_q_max", r->fit_q_hi, 0);
    json_num("sq_fit_points", (double)r->fit_points, !(o->mobility || o->optics || o->ddscat));
  }
  if (o->mobility) {
    json_num("mobility_size", (double)r->mobility_size, 0);
    json_num("mobility_a", r->mobility_a, 0);
    json_num("projected_area", r->projected_area, 0);
    json_num("projected_area_error", r->projected_area_error, 0);
    json_num("rp", r->rp, 0);
    json_num("rp_law", r->rp_law, 0);
    json_num("rm", r->rm, 0);
    json_num("d_continuum", r->d_continuum, 0);
    json_num("d_free_molecular", r->d_free_molecular, 0);
    json_num("d_knudsen", r->d_knudsen, !(o->optics || o->ddscat));
  }
  if (o->optics) {
    json_num("optics_E", r->optics.E, 0);
    json_num("optics_F", r->optics.F, 0);
    json_num("optics_x_monomer", r->optics.x_monomer, 0);
    json_num("optics_c_abs", r->optics.c_abs, 0);
    json_num("optics_c_sca", r->optics.c_sca, 0);
    json_num("optics_g", r->optics.g, !o->ddscat);
  }
  if (o->ddscat) json_num("ddscat_dipoles", (double)r->ddscat_dipoles, 1);
  printf("}\n");
}

static void print_aggregates(const agglo_analyze_options *o, const agglo_analyze_result *r) {
  const char *which = o->clusters_all ? "all clusters, per monomer" : "largest cluster";
  if (o->sq) {
    printf("  structure factor S(q)      %zu cluster%s, %zu monomers, q = %.4g .. %.4g, %s (%s)\n",
           r->sq_clusters, r->sq_clusters == 1 ? "" : "s", r->sq_monomers, r->sq_q_min, r->sq_q_max,
           r->dim == 2 ? "J0 kernel (2D)" : "sin(qr)/(qr)", which);
    if (r->sq_info.binned)
      printf("                             binned Debye sum: %zu bins of %.4g, |S - exact| <= %.3g\n",
             r->sq_info.bins, r->sq_info.bin_width, r->sq_info.max_error);
    else
      printf("                             exact Debye sum (%.4g pairs)\n", r->sq_info.pairs);
    if (isfinite(r->guinier_rg))
      printf("  Guinier R_g                %.5g over %zu points (S >= S(0) e^(-1/%d)); direct R_g %.5g "
             "(%+.2f%%)\n", r->guinier_rg, r->guinier_points, r->dim, r->direct_rg,
             100 * (r->guinier_rg / r->direct_rg - 1));
    else
      printf("  Guinier R_g                nan (%zu points below q R_g ~ 1, a fit needs 3: a smaller "
             "--q-min or more q values); direct R_g %.5g\n", r->guinier_points, r->direct_rg);
    if (isfinite(r->sq_slope) && r->fit_q_hi < 3 * r->fit_q_lo) /* too small for a fractal regime */
      printf("  power-law slope            %.4g over q = %.4g .. %.4g (%zu points): a window of a factor "
             "%.3g (< 3), no power law to read D_f from\n", r->sq_slope, r->fit_q_lo, r->fit_q_hi,
             r->fit_points, r->fit_q_hi / r->fit_q_lo);
    else if (isfinite(r->sq_slope))
      printf("  power-law slope            %.4g over q = %.4g .. %.4g (%zu points): D_f = %.4g\n",
             r->sq_slope, r->fit_q_lo, r->fit_q_hi, r->fit_points, -r->sq_slope);
    else
      printf("  power-law slope            nan (%zu points in q = %.4g .. %.4g, a fit needs 3: a larger "
             "cluster, more q values or --sq-fit)\n", r->fit_points, r->fit_q_lo, r->fit_q_hi);
    if (isfinite(r->sq_df_gaussian))
      printf("  Gaussian cut-off fit       D_f = %.4g, R_g %.5g (q <= %.4g, ln S misfit r.m.s. %.3g)\n",
             r->sq_df_gaussian, r->sq_rg_gaussian, r->fit_q_hi, r->sq_gaussian_rms);
  }
  if (o->mobility) {
    printf("  projected area             %.6g +- %.2g (orientation average, %zu spheres of a = %.4g)\n",
           r->projected_area, r->projected_area_error, r->mobility_size, r->mobility_a);
    printf("  R_p, R_m                   R_p %.5g (law a N^(gamma/2): %.5g), R_m %.5g\n", r->rp,
           r->rp_law, r->rm);
    printf("  mobility diameter          continuum %.5g, free molecular %.5g", r->d_continuum,
           r->d_free_molecular);
    if (o->knudsen > 0) printf(", at Kn %g: %.5g", o->knudsen, r->d_knudsen);
    printf("\n");
  }
  if (o->optics)
    printf("  RDG-FA (%s)     C_abs %.6g, C_sca %.6g (x = %.4g, E %.4g, F %.4g, C_sca/(N^2 C_sca,1) "
           "%.4g)\n", o->optics_options.structure == AGGLO_OPTICS_DEBYE ? "debye" :
           o->optics_options.structure == AGGLO_OPTICS_FISHER_BURFORD ? "FB   " :
           o->optics_options.structure == AGGLO_OPTICS_EXPONENTIAL ? "exp  " : "gauss",
           r->optics.c_abs, r->optics.c_sca, r->optics.x_monomer, r->optics.E, r->optics.F, r->optics.g);
  if (o->mstm) printf("  MSTM input                 %s\n", o->mstm);
  if (o->ddscat) printf("  DDSCAT shape               %s (%lld dipoles)\n", o->ddscat, (long long)r->ddscat_dipoles);
}

static void print_text(const agglo_analyze_options *o, const agglo_analyze_result *r, int plots) {
  printf("%s: frame %d of %d, t = %g, %zu particles (%dD)\n", o->path, r->frame, r->frames, r->time,
         r->n_particles, r->dim);
  printf("  contact distance (gap)     %g\n", r->contact_gap);
  printf("  clusters                   %zu (mean size %.4g, weight average %.4g, largest %zu)\n",
         r->n_clusters, r->mean_cluster_size, r->weight_avg_cluster_size, r->max_cluster_size);
  const char *grid = o->box_counting == AGGLO_BOX_COUNTING_BOUNDING ? "bounding square" : "box grid";
  if (r->box_levels >= 2)
    printf("  fractal dimension, box     %.4g (largest cluster, %s, %d levels eps = %.4g .. %.4g)\n",
           r->fractal_dimension_box, grid, r->box_levels, r->box_eps_min, r->box_eps_max);
  else
    printf("  fractal dimension, box     nan (largest cluster, %s: %d level%s of eps = L/2^m in "
           "[3r, L/2], a fit needs 2)\n", grid, r->box_levels, r->box_levels == 1 ? "" : "s");
  printf("  fractal dimension, mass    %.4g, k_f %.4g (s = k_f (R_g/r)^D over the clusters of %zu or "
         "more)\n", r->fractal_dimension_mass, r->mass_prefactor, r->mass_min_size);
  if (o->mass_radius_fracval)
    printf("  fractal dimension, FracVAL %.4g, k_f %.4g (s = k_f (R_g/a)^D, R_g weighted by r^3, a each "
           "cluster's geometric mean radius)\n", r->fractal_dimension_fracval, r->prefactor_fracval);
  if (isfinite(r->growth_z))
    printf("  growth exponent z          %.4g +- %.2g (S ~ t^z over %zu frames, t = %g .. %g: mean size "
           ">= 2, >= 10 clusters)\n", r->growth_z, r->growth_se, r->growth_points, r->growth_t_lo, r->growth_t_hi);
  else
    printf("  growth exponent z          nan (%zu frames with mean size >= 2 and >= 10 clusters, a fit "
           "needs 2)\n", r->growth_points);
  printf("  contacts per sphere N_c    %.4g\n", r->contacts_per_sphere);
  if (isnan(r->aspect_ratio)) /* collinear centres: no second axis (docs/analysis.md) */
    printf("  largest cluster            R_g %.4g, aspect ratio undefined (collinear)\n", r->rg_largest);
  else
    printf("  largest cluster            R_g %.4g, aspect ratio %.4g\n", r->rg_largest, r->aspect_ratio);
  if (o->rdf)
    printf("  g(r)                       highest %.4g at r = %.4g (%zu frame%s, r < %.4g)\n",
           r->rdf_peak, r->rdf_peak_r, r->rdf_frames, r->rdf_frames == 1 ? "" : "s", r->rdf_max);
  if (o->msd)
    printf("  diffusion coefficient D    %.6g (MSD = 2 d D tau over lags of 20-50%% of the "
           "%zu frames)\n", r->diffusion, r->msd_frames);
  print_aggregates(o, r);
  const char *d = o->out_dir;
  printf("written: %s/analysis.csv, %s/clusters.csv", d, d);
  if (o->rdf) printf(", %s/rdf.csv", d);
  if (o->msd) printf(", %s/msd.csv", d);
  if (o->sq) printf(", %s/sq.csv", d);
  if (o->mobility) printf(", %s/mobility.csv", d);
  if (o->optics) printf(", %s/optics.csv", d);
  if (plots) printf(" and plots (%s/*.png)", d);
  printf("\n");
}

/* The five plots of the reported frame and the series: plots.gp beside the data, run there (it
   names only its own files, so the directory's name never enters it). */
static int draw_plots(const agglo_analyze_options *o, const agglo_analyze_result *r) {
  char path[4200], log[4200];
  snprintf(path, sizeof path, "%s/plots.gp", o->out_dir);
  snprintf(log, sizeof log, "%s/plots.log", o->out_dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "agglo analyze: %s: cannot write: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(f, "set terminal pngcairo size 800,600\nset grid\nset key top left\n"
             "set datafile separator ','\n"
             "set output 'n_clusters.png'\nset title 'number of clusters'\nset xlabel 't'\n"
             "set ylabel 'clusters'\nplot 'analysis.csv' using 1:3 with linespoints title 'n_clusters'\n"
             "set datafile separator whitespace\nset logscale xy\n");
  if (r->n_clusters)
    fprintf(f, "set output 'size_distribution.png'\nset title 'cluster size distribution (t = %g)'\n"
               "set xlabel 'size s'\nset ylabel 'clusters per unit size'\n"
               "plot 'size_distribution.dat' using 1:2 with points pt 7 title ''\n", r->time);
  if (r->box_points >= 2 && isfinite(r->fractal_dimension_box))
    fprintf(f, "set output 'box_counting.png'\nset title 'box counting, largest cluster'\n"
               "set xlabel 'eps'\nset ylabel 'occupied cells N(eps)'\n"
               "plot 'box_counting.dat' using 1:2 with points pt 7 title 'N(eps)', "
               "exp(%.10g) * (x / exp(%.10g))**(-%.10g) title 'D_f = %.3f'\n",
            r->box_log_count, r->box_log_eps, r->fractal_dimension_box, r->fractal_dimension_box);
  if (r->rg_points >= 1) {
    fprintf(f, "set output 'rg_size.png'\nset title 'radius of gyration against size'\n"
               "set xlabel 'size s'\nset ylabel 'R_g'\n"
               "plot 'rg_size.dat' using 1:2 with points pt 7 title 'clusters'");
    if (isfinite(r->fractal_dimension_mass))
      fprintf(f, ", exp(%.10g) * (x / exp(%.10g))**(1.0/%.10g) title 'D_f = %.3f'", r->rg_log_rg,
              r->rg_log_size, r->fractal_dimension_mass, r->fractal_dimension_mass);
    fprintf(f, "\n");
  }
  if (o->sq) /* S(q) and I(q) of sq.csv, with the fitted power law and Guinier's curve */
    fprintf(f, "set datafile separator ','\nset output 'sq.png'\nset key top right\nset format y '%%g'\n"
               "set title 'structure factor (%s)'\nset xlabel 'q'\nset ylabel 'S(q), I(q)'\n"
               "plot 'sq.csv' using 1:2 skip 1 with lines title 'S(q)', 'sq.csv' using 1:($3 > 0 ? $3 : NaN) "
               "skip 1 with lines dt 2 title 'I(q)', (x >= %.10g && x <= %.10g) ? exp(%.10g) * x**(%.10g) : NaN "
               "title 'slope %.3f', (x <= 1.5 / %.10g) ? %.10g * exp(-x * x * %.10g**2 / %d) : NaN title "
               "'Guinier R_g = %.4g'\nset datafile separator whitespace\nset key top left\nset format y\n",
            o->clusters_all ? "all clusters, per monomer" : "largest cluster", r->fit_q_lo, r->fit_q_hi,
            r->sq_log_prefactor, r->sq_slope, r->sq_slope, r->guinier_rg, r->sq_s0, r->guinier_rg, r->dim,
            r->guinier_rg);
  fprintf(f, "set output 'pair_distribution.png'\nset title 'cumulative pair distribution P(r)'\n"
             "set xlabel 'r'\nset ylabel 'P(r)'\n"
             "plot 'pair_distribution.dat' using 1:($2 > 0 ? $2 : NaN) with linespoints title 'P(r)'\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    fprintf(stderr, "agglo analyze: %s: write failed\n", path);
    return 1;
  }
  return agglo_cli_gnuplot("agglo analyze", o->out_dir, "plots.gp", log, 1);
}

int agglo_cli_analyze_report(const agglo_analyze_options *o, const agglo_analyze_result *r,
                             int json, int plots) {
  if (r->warning[0]) /* a run killed while writing: its complete frames stand */
    fprintf(stderr, "agglo analyze: warning: %s; analysed the %d complete frames before it\n",
            r->warning, r->frames);
  if (json) print_json(o, r);
  else print_text(o, r, plots);
  return plots ? draw_plots(o, r) : 0;
}
