/* `agglo analyze`: indicators of the frames of a trajectory, CSV/JSON reports and plots. */
#include "agglo/analysis.h"
#include "analysis/structure.h"
#include "analysis/frame_summary.h"
#include "io/xyz_read.h"
#include "core/error.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static FILE *open_in(const char *dir, const char *name, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) agglo_fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

static double gap_for(const agglo_analyze_options *o, const agglo_system *s) {
  if (o->contact_gap > 0) return o->contact_gap;
  double r = 0;
  for (size_t i = 0; i < s->n; i++) r += s->r[i];
  return s->n ? 0.1 * r / (double)s->n : 0; /* the contact model's notion, docs/models.md */
}

static void write_clusters(FILE *f, const agglo_cluster_info *c, size_t n) {
  fprintf(f, "label,size,mass,com_x,com_y,com_z,rg,eig1,eig2,eig3,aspect_ratio,axis_x,axis_y,axis_z\n");
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%lld,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.6g\n",
            (long long)c[i].label, c[i].size, c[i].mass, c[i].com[0], c[i].com[1], c[i].com[2],
            c[i].rg, c[i].eig[0], c[i].eig[1], c[i].eig[2], c[i].aspect, c[i].axis[0], c[i].axis[1],
            c[i].axis[2]);
}

/* Data files and a gnuplot script for the five plots of the chosen frame and the series. */
static int make_plots(const agglo_analyze_options *o, agglo_system *s, const agglo_frame_summary *a,
                      const agglo_cluster_info *c, size_t nc, char *err, size_t errlen) {
  FILE *f;
  /* box counting of the largest cluster */
  double eps[64], cnt[64];
  int np = 0;
  if (nc && c[0].size >= 2) {
    double *u = malloc(3 * s->n * sizeof *u);
    if (!u || agglo_unwrap_clusters(s, a->contact_gap, u) != 0) {
      free(u);
      return agglo_fail(err, errlen, "out of memory");
    }
    size_t q = 0;
    for (size_t i = 0; i < s->n; i++)
      if (s->cluster[i] == c[0].label) memmove(u + 3 * q++, u + 3 * i, 3 * sizeof *u);
    agglo_box_counting(u, q, s->dim, 3 * a->r_mean, eps, cnt, &np);
    free(u);
  }
  if (!(f = open_in(o->out_dir, "box_counting.dat", err, errlen))) return -1;
  fprintf(f, "# eps occupied_cells (largest cluster)\n");
  for (int k = 0; k < np; k++) fprintf(f, "%.9g %.9g\n", eps[k], cnt[k]);
  fclose(f);
  /* cumulative pair distribution, 2R..20R */
  double r[40], p[40];
  for (int k = 0; k < 40; k++) r[k] = a->r_mean * 2 * pow(10.0, k / 39.0);
  if (agglo_pair_distribution(s, r, 40, 20000, p) != 0) return agglo_fail(err, errlen, "out of memory");
  if (!(f = open_in(o->out_dir, "pair_distribution.dat", err, errlen))) return -1;
  fprintf(f, "# r P(r) (reference particles: at most 20000, evenly subsampled)\n");
  for (int k = 0; k < 40; k++) fprintf(f, "%.9g %.9g\n", r[k], p[k]);
  fclose(f);
  /* size distribution in logarithmic bins */
  if (!(f = open_in(o->out_dir, "size_distribution.dat", err, errlen))) return -1;
  fprintf(f, "# size_bin_centre clusters_per_unit_size\n");
  size_t smax = nc ? c[0].size : 1;
  for (double lo = 1; lo <= (double)smax; lo *= 2) {
    size_t count = 0;
    for (size_t i = 0; i < nc; i++) count += c[i].size >= lo && c[i].size < 2 * lo;
    if (count) fprintf(f, "%.6g %.6g\n", lo * sqrt(2.0), (double)count / lo);
  }
  fclose(f);
  if (!(f = open_in(o->out_dir, "rg_size.dat", err, errlen))) return -1;
  fprintf(f, "# size R_g (clusters of two or more)\n");
  for (size_t i = 0; i < nc; i++)
    if (c[i].size > 1) fprintf(f, "%zu %.9g\n", c[i].size, c[i].rg);
  fclose(f);
  /* fitted lines drawn with the values reported, through the centroid of the fitted points */
  double lb = 0, ln = 0, lr = 0, ls = 0;
  int nrg = 0;
  for (int k = 0; k < np; k++) lb += log(eps[k]) / np, ln += log(cnt[k]) / np;
  for (size_t i = 0; i < nc; i++)
    if (c[i].size > 1 && c[i].rg > 0) ls += log((double)c[i].size), lr += log(c[i].rg), nrg++;
  if (nrg) ls /= nrg, lr /= nrg;
  if (!(f = open_in(o->out_dir, "plots.gp", err, errlen))) return -1;
  fprintf(f, "set terminal pngcairo size 800,600\nset grid\nset key top left\n"
             "set datafile separator ','\n"
             "set output 'n_clusters.png'\nset title 'number of clusters'\nset xlabel 't'\n"
             "set ylabel 'clusters'\nplot 'analysis.csv' using 1:3 with linespoints title 'n_clusters'\n"
             "set datafile separator whitespace\nset logscale xy\n");
  if (nc)
    fprintf(f, "set output 'size_distribution.png'\nset title 'cluster size distribution (t = %g)'\n"
               "set xlabel 'size s'\nset ylabel 'clusters per unit size'\n"
               "plot 'size_distribution.dat' using 1:2 with points pt 7 title ''\n", a->time);
  if (np >= 2 && isfinite(a->fractal_dimension_box))
    fprintf(f, "set output 'box_counting.png'\nset title 'box counting, largest cluster'\n"
               "set xlabel 'eps'\nset ylabel 'occupied cells N(eps)'\n"
               "plot 'box_counting.dat' using 1:2 with points pt 7 title 'N(eps)', "
               "exp(%.10g) * (x / exp(%.10g))**(-%.10g) title 'D_f = %.3f'\n",
            ln, lb, a->fractal_dimension_box, a->fractal_dimension_box);
  if (nrg >= 1) {
    fprintf(f, "set output 'rg_size.png'\nset title 'radius of gyration against size'\n"
               "set xlabel 'size s'\nset ylabel 'R_g'\n"
               "plot 'rg_size.dat' using 1:2 with points pt 7 title 'clusters'");
    if (isfinite(a->fractal_dimension_mass))
      fprintf(f, ", exp(%.10g) * (x / exp(%.10g))**(1.0/%.10g) title 'D_f = %.3f'", lr, ls,
              a->fractal_dimension_mass, a->fractal_dimension_mass);
    fprintf(f, "\n");
  }
  fprintf(f, "set output 'pair_distribution.png'\nset title 'cumulative pair distribution P(r)'\n"
             "set xlabel 'r'\nset ylabel 'P(r)'\n"
             "plot 'pair_distribution.dat' using 1:($2 > 0 ? $2 : NaN) with linespoints title 'P(r)'\n");
  fclose(f);
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot plots.gp > plots.log 2>&1", o->out_dir);
  if (system(cmd) != 0)
    return agglo_fail(err, errlen, "gnuplot failed (is gnuplot installed?); see %s/plots.log", o->out_dir);
  return 0;
}

static int analyze(const agglo_analyze_options *o, FILE *out, char *err, size_t errlen) {
  agglo_xyz_reader rd;
  if (agglo_xyz_open(&rd, o->path, o->radius, err, errlen) != 0) return -1;
  if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
    agglo_xyz_close(&rd);
    return agglo_fail(err, errlen, "%s: cannot create directory: %s", o->out_dir, strerror(errno));
  }
  FILE *csv = open_in(o->out_dir, "analysis.csv", err, errlen);
  if (!csv) {
    agglo_xyz_close(&rd);
    return -1;
  }
  agglo_frame_summary_header(csv);
  fprintf(csv, "\n");
  agglo_system s = {0}, keep = {0};
  int rc = -1, got, frames = 0, every = o->all || o->plots;
  agglo_frame_summary chosen = {0};
  agglo_rdf rdf = {0};
  agglo_msd msd = {0};
  if (o->rdf && agglo_rdf_init(&rdf, o->rdf_max, o->rdf_bins > 0 ? o->rdf_bins : 100) != 0) {
    agglo_fail(err, errlen, "out of memory");
    goto out;
  }
  while ((got = agglo_xyz_next(&rd, &s, err, errlen)) == 1) {
    frames++;
    if (o->msd && agglo_msd_add(&msd, &s, err, errlen) != 0) goto out;
    if (o->rdf && (!o->frame || frames == o->frame) && agglo_rdf_add(&rdf, &s) != 0) {
      agglo_fail(err, errlen, "out of memory (g(r) of frame %d)", frames);
      goto out;
    }
    if (!every && o->frame && frames != o->frame) continue;
    agglo_frame_summary a;
    if (every || o->frame == frames) {
      if (agglo_frame_summarize(&s, gap_for(o, &s), &a, NULL, NULL) != 0) {
        agglo_fail(err, errlen, "out of memory analysing frame %d", frames);
        goto out;
      }
      agglo_frame_summary_row(csv, &a);
      fprintf(csv, "\n");
    }
    if (o->frame == 0 || frames == o->frame) { /* keep the frame to report in detail */
      agglo_system_free(&keep);
      keep = s;
      memset(&s, 0, sizeof s);
    }
  }
  if (got < 0 && !(rd.truncated && frames > 0)) goto out;
  if (got < 0 && o->warnings) /* a run killed while writing: its complete frames stand */
    fprintf(o->warnings, "agglo analyze: warning: %s; analysed the %d complete frames before it\n",
            err, frames);
  if (frames == 0) {
    agglo_fail(err, errlen, "%s: no frame found (empty file?)", o->path);
    goto out;
  }
  if (o->frame > frames) {
    agglo_fail(err, errlen, "%s: --frame %d but the file has %d frames", o->path, o->frame, frames);
    goto out;
  }
  agglo_cluster_info *info = NULL;
  size_t nc = 0;
  if (agglo_frame_summarize(&keep, gap_for(o, &keep), &chosen, &info, &nc) != 0) {
    agglo_fail(err, errlen, "out of memory");
    goto out;
  }
  if (!every && o->frame == 0) { /* the last frame's row */
    agglo_frame_summary_row(csv, &chosen);
    fprintf(csv, "\n");
  }
  fflush(csv);
  FILE *cf = open_in(o->out_dir, "clusters.csv", err, errlen);
  if (!cf) {
    free(info);
    goto out;
  }
  write_clusters(cf, info, nc);
  fclose(cf);
  double D = NAN, gpeak = 0, rpeak = 0;
  if (o->rdf) {
    FILE *gf = open_in(o->out_dir, "rdf.csv", err, errlen);
    if (!gf) {
      free(info);
      goto out;
    }
    agglo_rdf_write(&rdf, gf);
    fclose(gf);
    for (int b = 0; b < rdf.bins; b++)
      if (agglo_rdf_value(&rdf, b) > gpeak)
        gpeak = agglo_rdf_value(&rdf, b), rpeak = rdf.rmax * (b + 0.5) / rdf.bins;
  }
  if (o->msd) {
    FILE *mf = open_in(o->out_dir, "msd.csv", err, errlen);
    if (!mf) {
      free(info);
      goto out;
    }
    agglo_msd_write(&msd, mf);
    fclose(mf);
    D = agglo_msd_diffusion(&msd);
  }
  if (o->json) {
    agglo_frame_summary_json(out, &chosen);
  } else if (!o->quiet) {
    int f = o->frame ? o->frame : frames;
    fprintf(out, "%s: frame %d of %d, t = %g, %zu particles (%dD)\n", o->path, f, frames, chosen.time,
           chosen.n_particles, keep.dim);
    fprintf(out, "  contact distance (gap)     %g\n", chosen.contact_gap);
    fprintf(out, "  clusters                   %zu (mean size %.4g, weight average %.4g, largest %zu)\n",
           chosen.n_clusters, chosen.mean_cluster_size, chosen.weight_avg_cluster_size,
           chosen.max_cluster_size);
    fprintf(out, "  fractal dimension, box     %.4g (largest cluster, eps in [3r, L/2])\n", chosen.fractal_dimension_box);
    fprintf(out, "  fractal dimension, mass    %.4g (R_g ~ s^(1/D) over the clusters)\n", chosen.fractal_dimension_mass);
    fprintf(out, "  contacts per sphere N_c    %.4g\n", chosen.contacts_per_sphere);
    fprintf(out, "  largest cluster            R_g %.4g, aspect ratio %.4g\n", chosen.rg_largest, chosen.aspect_ratio);
    if (o->rdf)
      fprintf(out, "  g(r)                       highest %.4g at r = %.4g (%zu frame%s, r < %.4g)\n",
             gpeak, rpeak, rdf.frames, rdf.frames == 1 ? "" : "s", rdf.rmax);
    if (o->msd)
      fprintf(out, "  diffusion coefficient D    %.6g (MSD = 2 d D tau over lags of 20-50%% of the "
             "%zu frames)\n", D, msd.frames);
    fprintf(out, "written: %s/analysis.csv, %s/clusters.csv%s%s%s\n", o->out_dir, o->out_dir,
           o->rdf ? ", rdf.csv" : "", o->msd ? ", msd.csv" : "",
           o->plots ? " and plots (*.png)" : "");
  }
  if (o->plots) {
    fclose(csv);
    csv = NULL;
    if (make_plots(o, &keep, &chosen, info, nc, err, errlen) != 0) {
      free(info);
      goto out;
    }
  }
  free(info);
  rc = 0;
out:
  agglo_rdf_free(&rdf);
  agglo_msd_free(&msd);
  if (csv) fclose(csv);
  agglo_xyz_close(&rd);
  agglo_system_free(&s);
  agglo_system_free(&keep);
  return rc;
}

agglo_status agglo_analyze_trajectory(const agglo_analyze_options *o, FILE *out) {
  if (!o || !o->path || !o->out_dir || !out)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_analyze_trajectory: NULL options, path, out_dir or stream");
  return analyze(o, out, agglo_error_buffer(), AGGLO_ERROR_LEN) == 0 ? AGGLO_OK : AGGLO_ERROR_INPUT;
}
