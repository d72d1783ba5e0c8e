/* The analysis behind `agglo analyze`: indicators of the frames of a trajectory into CSV files,
   and the reported frame's numbers for the caller (the CLI prints them and draws the plots). */
#include "agglo/analysis.h"
#include "analysis/structure.h"
#include "analysis/frame_summary.h"
#include "analysis/clusters.h"
#include "analysis/aggregate_outputs.h"
#include "io/xyz_read.h"
#include "core/error.h"
#include "analysis/stop.h"
#include "core/files.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files of an analysis: those the library writes, then the CLI's plots (plots.gp draws
   them from the former). An earlier analysis is any of them in the directory. */
static const char *const analysis_files[] = {
    "analysis.csv", "clusters.csv", "rdf.csv", "msd.csv", "box_counting.dat", "pair_distribution.dat",
    "size_distribution.dat", "rg_size.dat", "sq.csv", "mobility.csv", "optics.csv", "plots.gp", "plots.log", "n_clusters.png",
    "size_distribution.png", "box_counting.png", "rg_size.png", "pair_distribution.png", "sq.png"};
enum { N_WRITTEN = 11, N_FILES = sizeof analysis_files / sizeof analysis_files[0] };

/* Each file is written as NAME.part; written[k] says which (renamed together at the end). */
static _Thread_local int written[N_WRITTEN];

static int file_index(const char *name) {
  for (int k = 0; k < N_WRITTEN; k++)
    if (!strcmp(analysis_files[k], name)) return k;
  return -1;
}

static FILE *open_in(const char *dir, const char *name, char *err, size_t errlen) {
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/%s.part", dir, name) >= sizeof path) {
    agglo_fail(err, errlen, "%s: the directory's name is too long (at most %zu bytes)", dir,
               sizeof path - strlen(name) - 7);
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (!f) agglo_fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
  else written[file_index(name)] = 1;
  return f;
}

/* The end of an analysis: done, the .part files renamed (an overwrite removes the earlier
   analysis's other files first); failed, the .part files removed and the earlier one left. */
static int finish_files(const char *dir, int done, int overwrite, char *err, size_t errlen) {
  char from[4200], to[4200];
  int rc = 0;
  for (int k = 0; k < N_FILES && done && overwrite; k++) {
    snprintf(to, sizeof to, "%s/%s", dir, analysis_files[k]);
    if ((k >= N_WRITTEN || !written[k]) && remove(to) != 0 && errno != ENOENT && !rc)
      rc = agglo_fail(err, errlen, "%s: cannot remove the earlier analysis's file: %s", to, strerror(errno));
  }
  for (int k = 0; k < N_WRITTEN; k++) {
    if (!written[k]) continue;
    snprintf(from, sizeof from, "%s/%s.part", dir, analysis_files[k]);
    snprintf(to, sizeof to, "%s/%s", dir, analysis_files[k]);
    if (!done || rc) remove(from);
    else if (rename(from, to) != 0)
      rc = agglo_fail(err, errlen, "%s: cannot rename to %s: %s", from, to, strerror(errno));
    written[k] = 0;
  }
  return rc;
}

/* An earlier analysis in dir: refused unless overwrite (it would mix with this one). */
static int check_earlier(const char *dir, int overwrite, char *err, size_t errlen) {
  char path[4200];
  for (int k = 0; k < N_FILES && !overwrite; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, analysis_files[k]);
    if (access(path, F_OK) == 0)
      return agglo_fail(err, errlen, "%s holds an earlier analysis (%s): give another output directory "
                        "(-o), or --overwrite to replace it", dir, analysis_files[k]);
  }
  return 0;
}

static int close_out(FILE *f, const char *dir, const char *name, char *err, size_t errlen) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) return agglo_fail(err, errlen, "%s/%s: write failed", dir, name);
  return 0;
}

static double gap_for(const agglo_analyze_options *o, const agglo_system *s) {
  if (o->contact_gap > 0) return o->contact_gap;
  double r = 0;
  for (size_t i = 0; i < s->n; i++) r += s->r[i];
  return s->n ? 0.1 * r / (double)s->n : 0; /* the contact model's notion, docs/models.md */
}

static agglo_indicator_settings how_of(const agglo_analyze_options *o) {
  return (agglo_indicator_settings){o->box_counting, o->min_size ? o->min_size : 3};
}

static void write_clusters(FILE *f, const agglo_cluster_info *c, size_t n) {
  fprintf(f, "label,size,mass,com_x,com_y,com_z,rg,eig1,eig2,eig3,aspect_ratio,axis_x,axis_y,axis_z\n");
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%lld,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.6g\n",
            (long long)c[i].label, c[i].size, c[i].mass, c[i].com[0], c[i].com[1], c[i].com[2],
            c[i].rg, c[i].eig[0], c[i].eig[1], c[i].eig[2], c[i].aspect, c[i].axis[0], c[i].axis[1],
            c[i].axis[2]);
}

/* The reported frame's curves for plotting, and the centroids the fitted lines pass through. */
static int write_curves(const agglo_analyze_options *o, agglo_system *s, agglo_analyze_result *res,
                        const agglo_cluster_info *c, size_t nc, char *err, size_t errlen) {
  FILE *f;
  /* box counting of the largest cluster */
  double eps[64], cnt[64];
  int np = 0;
  if (nc && c[0].size >= 2) {
    int bounding = o->box_counting == AGGLO_BOX_COUNTING_BOUNDING;
    double *u = malloc(3 * s->n * sizeof *u);
    if (!u || (bounding && agglo_unwrap_clusters(s, res->contact_gap, u) != 0)) {
      free(u);
      return agglo_fail(err, errlen, "out of memory");
    }
    if (!bounding) memcpy(u, s->x, 3 * s->n * sizeof *u); /* the paper's grid: as in the box */
    size_t q = 0;
    for (size_t i = 0; i < s->n; i++)
      if (s->cluster[i] == c[0].label) memmove(u + 3 * q++, u + 3 * i, 3 * sizeof *u);
    if (bounding) agglo_box_counting(u, q, s->dim, 3 * res->r_mean, eps, cnt, &np);
    else agglo_box_counting_grid(u, q, s->dim, s->box.lo, s->box.len, 3 * res->r_mean, eps, cnt, &np);
    free(u);
  }
  if (!(f = open_in(o->out_dir, "box_counting.dat", err, errlen))) return -1;
  fprintf(f, "# eps occupied_cells (largest cluster)\n");
  for (int k = 0; k < np; k++) fprintf(f, "%.9g %.9g\n", eps[k], cnt[k]);
  if (close_out(f, o->out_dir, "box_counting.dat", err, errlen) != 0) return -1;
  /* cumulative pair distribution, 2R..20R */
  double r[40], p[40];
  for (int k = 0; k < 40; k++) r[k] = res->r_mean * 2 * pow(10.0, k / 39.0);
  if (agglo_pair_distribution(s, r, 40, 20000, p) != 0) return agglo_fail(err, errlen, "out of memory");
  if (!(f = open_in(o->out_dir, "pair_distribution.dat", err, errlen))) return -1;
  fprintf(f, "# r P(r) (reference particles: at most 20000, evenly subsampled)\n");
  for (int k = 0; k < 40; k++) fprintf(f, "%.9g %.9g\n", r[k], p[k]);
  if (close_out(f, o->out_dir, "pair_distribution.dat", err, errlen) != 0) return -1;
  /* size distribution in logarithmic bins */
  if (!(f = open_in(o->out_dir, "size_distribution.dat", err, errlen))) return -1;
  fprintf(f, "# size_bin_centre clusters_per_unit_size\n");
  size_t smax = nc ? c[0].size : 1;
  for (double lo = 1; lo <= (double)smax; lo *= 2) {
    size_t count = 0;
    for (size_t i = 0; i < nc; i++) count += c[i].size >= lo && c[i].size < 2 * lo;
    if (count) fprintf(f, "%.6g %.6g\n", lo * sqrt(2.0), (double)count / lo);
  }
  if (close_out(f, o->out_dir, "size_distribution.dat", err, errlen) != 0) return -1;
  if (!(f = open_in(o->out_dir, "rg_size.dat", err, errlen))) return -1;
  size_t min_size = how_of(o).mass_min_size;
  fprintf(f, "# size R_g (clusters of %zu or more, those of the mass-radius fit)\n", min_size);
  for (size_t i = 0; i < nc; i++)
    if (c[i].size >= min_size && c[i].size > 1) fprintf(f, "%zu %.9g\n", c[i].size, c[i].rg);
  if (close_out(f, o->out_dir, "rg_size.dat", err, errlen) != 0) return -1;
  /* the fitted lines go through the centroid of the fitted points (in logarithms) */
  double lb = 0, ln = 0, lr = 0, ls = 0;
  int nrg = 0;
  for (int k = 0; k < np; k++) lb += log(eps[k]) / np, ln += log(cnt[k]) / np;
  for (size_t i = 0; i < nc; i++)
    if (c[i].size >= min_size && c[i].size > 1 && c[i].rg > 0) ls += log((double)c[i].size), lr += log(c[i].rg), nrg++;
  if (nrg) ls /= nrg, lr /= nrg;
  res->box_points = np, res->box_log_eps = lb, res->box_log_count = ln;
  res->rg_points = (size_t)nrg, res->rg_log_size = ls, res->rg_log_rg = lr;
  return 0;
}

/* sq.csv, mobility.csv, optics.csv (those asked), the MSTM and DDSCAT files: the reported
   frame's aggregates (docs/scattering.md). */
static int aggregate_files(const agglo_analyze_options *o, agglo_system *s,
                           const agglo_cluster_info *info, size_t nc, agglo_analyze_result *res,
                           char *err, size_t errlen) {
  FILE *f[3] = {NULL, NULL, NULL};
  const char *names[3] = {"sq.csv", "mobility.csv", "optics.csv"};
  int want[3] = {o->sq, o->mobility, o->optics}, rc = 0;
  for (int k = 0; k < 3 && !rc; k++)
    if (want[k] && !(f[k] = open_in(o->out_dir, names[k], err, errlen))) rc = -1;
  if (!rc) rc = agglo_aggregate_outputs(o, s, gap_for(o, s), info, nc, f[0], f[1], f[2], res, err, errlen);
  for (int k = 0; k < 3; k++)
    if (f[k]) {
      if (rc) fclose(f[k]);
      else if (close_out(f[k], o->out_dir, names[k], err, errlen) != 0) rc = -1;
    }
  return rc;
}

static int analyze(const agglo_analyze_options *o, agglo_analyze_result *res, char *err,
                   size_t errlen) {
  double *gt = NULL, *gs = NULL; /* every frame's time and mean size, for the growth exponent */
  size_t gcap = 0;
  agglo_xyz_reader rd;
  if (agglo_aggregate_options_check(o, err, errlen) != 0) return -1;
  if (agglo_xyz_open(&rd, o->path, o->radius, err, errlen) != 0) return -1;
  if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
    agglo_xyz_close(&rd);
    return agglo_fail(err, errlen, "%s: cannot create directory: %s", o->out_dir, strerror(errno));
  }
  agglo_lock lock = {0}; /* a run, or another analysis, writing there would mix with this one */
  if (agglo_lock_take(&lock, o->out_dir) != 0) { /* its message is in err (agglo_error_buffer) */
    agglo_xyz_close(&rd);
    return -1;
  }
  FILE *csv = NULL;
  if (check_earlier(o->out_dir, o->overwrite, err, errlen) != 0 ||
      !(csv = open_in(o->out_dir, "analysis.csv", err, errlen))) {
    agglo_lock_release(&lock);
    agglo_xyz_close(&rd);
    return -1;
  }
  agglo_frame_summary_header(csv);
  fprintf(csv, "\n");
  agglo_system s = {0}, keep = {0};
  int rc = -1, got, frames = 0, every = o->all || o->curves;
  agglo_frame_summary chosen = {0};
  agglo_indicator_settings how = how_of(o);
  agglo_cluster_info *info = NULL;
  size_t nc = 0;
  agglo_rdf rdf = {0};
  agglo_msd msd = {0};
  if (o->rdf && agglo_rdf_init(&rdf, o->rdf_max, o->rdf_bins > 0 ? o->rdf_bins : 100) != 0) {
    agglo_fail(err, errlen, "out of memory");
    goto out;
  }
  while ((got = agglo_xyz_next(&rd, &s, err, errlen)) == 1) {
    if (agglo_analysis_stopping()) {
      agglo_analysis_stopped(o->path); /* (the message into err: the library's error buffer) */
      goto out;
    }
    frames++;
    agglo_cluster_stats cs;
    if ((size_t)frames > gcap) {
      gcap = gcap ? 2 * gcap : 256;
      double *a = realloc(gt, gcap * sizeof *a);
      if (a) gt = a;
      double *b = a ? realloc(gs, gcap * sizeof *b) : NULL;
      if (b) gs = b;
      if (!b) {
        agglo_fail(err, errlen, "out of memory at frame %d", frames);
        goto out;
      }
    }
    if (agglo_clusters_label(&s, NULL, gap_for(o, &s), &cs) != 0) {
      agglo_fail(err, errlen, "out of memory analysing frame %d", frames);
      goto out;
    }
    /* the window: aggregation under way, far from one cluster [choice, docs/analysis.md] */
    gt[frames - 1] = cs.mean_size >= 2 && cs.n_clusters >= 10 ? s.t : NAN;
    gs[frames - 1] = cs.mean_size;
    if (o->msd && agglo_msd_add(&msd, &s, err, errlen) != 0) goto out;
    if (o->rdf && (!o->frame || frames == o->frame)) {
      /* beyond half a side the minimum image (periodic) or the missing wall correction makes
         g(r) wrong, and a range far beyond it overflows the shell volumes */
      double half = INFINITY;
      for (int k = 0; k < s.dim; k++) half = fmin(half, 0.5 * s.box.len[k]);
      if (rdf.rmax > half) {
        agglo_fail(err, errlen, "--rdf-max %g: beyond half the smallest box side of frame %d "
                   "(allowed: up to %g)", rdf.rmax, frames, half);
        goto out;
      }
    }
    if (o->rdf && (!o->frame || frames == o->frame) && agglo_rdf_add(&rdf, &s) != 0) {
      agglo_fail(err, errlen, "out of memory (g(r) of frame %d)", frames);
      goto out;
    }
    if (!every && o->frame && frames != o->frame) continue;
    agglo_frame_summary a;
    if (every || o->frame == frames) {
      if (agglo_frame_summarize(&s, gap_for(o, &s), &how, &a, NULL, NULL) != 0) {
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
  if (got < 0) /* a run killed while writing: its complete frames stand */
    snprintf(res->warning, sizeof res->warning, "%s", err);
  if (frames == 0) {
    agglo_fail(err, errlen, "%s: no frame found (empty file?)", o->path);
    goto out;
  }
  if (o->frame > frames) {
    agglo_fail(err, errlen, "%s: --frame %d but the file has %d frames", o->path, o->frame, frames);
    goto out;
  }
  if (agglo_frame_summarize(&keep, gap_for(o, &keep), &how, &chosen, &info, &nc) != 0) {
    agglo_fail(err, errlen, "out of memory");
    goto out;
  }
  if (!every && o->frame == 0) { /* the last frame's row */
    agglo_frame_summary_row(csv, &chosen);
    fprintf(csv, "\n");
  }
  int csv_bad = close_out(csv, o->out_dir, "analysis.csv", err, errlen);
  csv = NULL;
  if (csv_bad) goto out;
  FILE *cf = open_in(o->out_dir, "clusters.csv", err, errlen);
  if (!cf) goto out;
  write_clusters(cf, info, nc);
  if (close_out(cf, o->out_dir, "clusters.csv", err, errlen) != 0) goto out;
  res->frames = frames, res->frame = o->frame ? o->frame : frames, res->dim = keep.dim;
  res->time = chosen.time, res->n_particles = chosen.n_particles;
  res->n_clusters = chosen.n_clusters, res->max_cluster_size = chosen.max_cluster_size;
  res->mean_cluster_size = chosen.mean_cluster_size;
  res->weight_avg_cluster_size = chosen.weight_avg_cluster_size;
  res->fractal_dimension_box = chosen.fractal_dimension_box;
  res->fractal_dimension_mass = chosen.fractal_dimension_mass;
  res->box_levels = chosen.box_levels;
  res->box_eps_min = chosen.box_eps_min, res->box_eps_max = chosen.box_eps_max;
  res->mass_prefactor = chosen.mass_prefactor, res->mass_min_size = chosen.mass_min_size;
  res->fractal_dimension_fracval = o->mass_radius_fracval ? chosen.fractal_dimension_fracval : NAN;
  res->prefactor_fracval = o->mass_radius_fracval ? chosen.prefactor_fracval : NAN;
  res->contacts_per_sphere = chosen.contacts_per_sphere;
  res->aspect_ratio = chosen.aspect_ratio, res->rg_largest = chosen.rg_largest;
  res->contact_gap = chosen.contact_gap, res->r_mean = chosen.r_mean;
  res->diffusion = NAN;
  res->growth_t_lo = INFINITY, res->growth_t_hi = -INFINITY;
  for (int k = 0; k < frames; k++)
    if (isfinite(gt[k])) res->growth_t_lo = fmin(res->growth_t_lo, gt[k]), res->growth_t_hi = fmax(res->growth_t_hi, gt[k]);
  res->growth_z = agglo_growth_exponent(gt, gs, (size_t)frames, res->growth_t_lo, res->growth_t_hi,
                                        &res->growth_se, &res->growth_points);
  if (o->rdf) {
    FILE *gf = open_in(o->out_dir, "rdf.csv", err, errlen);
    if (!gf) goto out;
    agglo_rdf_write(&rdf, gf);
    if (close_out(gf, o->out_dir, "rdf.csv", err, errlen) != 0) goto out;
    for (int b = 0; b < rdf.bins; b++)
      if (agglo_rdf_value(&rdf, b) > res->rdf_peak)
        res->rdf_peak = agglo_rdf_value(&rdf, b), res->rdf_peak_r = rdf.rmax * (b + 0.5) / rdf.bins;
    res->rdf_frames = rdf.frames, res->rdf_max = rdf.rmax;
  }
  if (o->msd) {
    FILE *mf = open_in(o->out_dir, "msd.csv", err, errlen);
    if (!mf) goto out;
    int stopped = agglo_msd_write(&msd, mf) != 0;
    if (close_out(mf, o->out_dir, "msd.csv", err, errlen) != 0) goto out;
    res->diffusion = agglo_msd_diffusion(&msd), res->msd_frames = msd.frames;
    if (stopped || agglo_analysis_stopping()) {
      agglo_analysis_stopped("the mean-square displacement");
      goto out;
    }
  }
  if ((o->sq || o->mobility || o->optics) && aggregate_files(o, &keep, info, nc, res, err, errlen) != 0)
    goto out;
  if (o->curves && write_curves(o, &keep, res, info, nc, err, errlen) != 0) goto out;
  if ((o->mstm || o->ddscat) &&
      agglo_aggregate_writers(o, &keep, gap_for(o, &keep), info, nc, res, err, errlen) != 0)
    goto out;
  rc = 0;
out:
  if (csv) fclose(csv);
  csv = NULL;
  if (finish_files(o->out_dir, rc == 0, o->overwrite, err, errlen) != 0) rc = -1;
  agglo_lock_release(&lock);
  free(gt); free(gs);
  free(info);
  agglo_rdf_free(&rdf);
  agglo_msd_free(&msd);
  if (csv) fclose(csv);
  agglo_xyz_close(&rd);
  agglo_system_free(&s);
  agglo_system_free(&keep);
  return rc;
}

agglo_status agglo_analyze_trajectory(const agglo_analyze_options *o, agglo_analyze_result *r) {
  if (!o || !o->path || !o->out_dir || !r)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_analyze_trajectory: NULL options, path, out_dir or result");
  memset(r, 0, sizeof *r);
  if (analyze(o, r, agglo_error_buffer(), AGGLO_ERROR_LEN) == 0) return AGGLO_OK;
  if (!agglo_analysis_stopping()) return AGGLO_ERROR_INPUT;
  agglo_analysis_request_stop(0); /* consumed: the next analysis runs */
  return AGGLO_STOPPED;
}
