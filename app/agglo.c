/* agglo command line: parses arguments and hands over to the library. No physics here. */
#include "agglo/agglo.h"
#include "analyze.h"
#include "ballistic_compare.h"
#include "config.h"
#include "agglomerates.h"
#include "model_dpd.h"
#include "xyz_read.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
  fprintf(f,
          "agglo %s: direct simulation of particle aggregation\n\n"
          "usage:\n"
          "  agglo run [SCENARIO.ini] [options]   run a scenario (none: the built-in default)\n"
          "  agglo analyze FILE.xyz [options]     cluster statistics, fractal dimensions, plots\n"
          "  agglo list [keys]                    models, flows, example scenarios [scenario keys]\n"
          "  agglo compare [SCENARIO.ini] [opts]  ballistic: time stepping vs event driven over seeds\n"
          "  agglo agglomerates FILE.xyz [opts]   DPD agglomerate report: ellipsoids by shape class\n"
          "  agglo --help | agglo run --help      this text; every scenario key\n"
          "  agglo --version\n",
          agglo_version());
}

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: agglo run [SCENARIO.ini] [-s section.key=value]... [-o DIR] [--seed N]\n"
          "                 [--threads N] [--restart DIR] [--quiet] [--check]\n\n"
          "  SCENARIO.ini        INI scenario file; without it, the built-in default scenario\n"
          "                      (Maury's Brownian aggregation, 2D, N = 2000)\n"
          "  -s section.key=v    override one key (repeatable; applied after the file)\n"
          "  -o DIR              output directory (default: out)\n"
          "  --seed N            same as -s run.seed=N\n"
          "  --threads N         OpenMP threads (results do not depend on it)\n"
          "  --restart DIR       continue the run saved in DIR (its scenario.ini, state.xyz and\n"
          "                      contacts.txt); -s may change e.g. run.t_end\n"
          "  --quiet             no progress bar and no summary\n"
          "  --check             check the scenario (every key and their consistency) and exit\n\n"
          "outputs in DIR: trajectory.xyz (extended XYZ), stats.csv, snapshot_t*.png,\n"
          "scenario.ini (resolved settings), state.xyz + contacts.txt (restart point)\n\n"
          "scenario keys (section, key = default, meaning, allowed values):\n");
  agglo_config_describe(f, 0);
}

/* The end-of-run temperature check of a DPD run (docs/dpd.md): the last stats.csv row's
   temperature_mean_last_half (the model's mean kT over the steps of the second half of the run,
   agglo_dpd_temperature_report) against dpd.kT; a departure above 10 % is reported on stderr. */
static void dpd_temperature_warning(const char *out_dir, const agglo_config *cfg) {
  char path[4096], line[8192], last[8192] = "", head[8192] = "";
  snprintf(path, sizeof path, "%s/stats.csv", out_dir);
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    if (!head[0]) memcpy(head, line, sizeof line);
    else if (line[0] != '\n') memcpy(last, line, sizeof line);
  }
  fclose(f);
  int col = -1, k = 0;
  for (char *t = strtok(head, ",\n"); t; t = strtok(NULL, ",\n"), k++)
    if (!strcmp(t, "temperature_mean_last_half")) col = k;
  const char *v = last;
  for (k = 0; col >= 0 && k < col && v; k++) v = strchr(v, ','), v = v ? v + 1 : NULL;
  char *end;
  double mean = v ? strtod(v, &end) : NAN, kT = cfg->dpd_kT;
  if (col < 0 || !v || end == v || !isfinite(mean)) return;
  if (fabs(mean / kT - 1) > AGGLO_DPD_T_TOLERANCE)
    fprintf(stderr, "agglo: warning: the mean temperature over the last half of the run is "
            "%.4g, %+.1f%% from dpd.kT = %.4g (dpd.thermostat = %s; docs/dpd.md)\n", mean,
            100 * (mean / kT - 1), kT,
            cfg->dpd_thermostat == DPD_THERMO_TRANSVERSE ? "transverse"
            : cfg->dpd_thermostat == DPD_THERMO_LANGEVIN ? "langevin" : "dpd");
}

static int cmd_run(int argc, char **argv) {
  const char *file = NULL, *out = "out", *restart = NULL;
  int quiet = 0, threads = 0, check_only = 0;
  char err[2048];
  const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
  int nover = 0;
  char seedbuf[64];
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      run_usage(stdout);
      free(overrides);
      return 0;
    } else if (!strcmp(a, "-s") && more) {
      overrides[nover++] = argv[++i];
    } else if (!strcmp(a, "-o") && more) {
      out = argv[++i];
    } else if (!strcmp(a, "--seed") && more) {
      snprintf(seedbuf, sizeof seedbuf, "run.seed=%s", argv[++i]);
      overrides[nover++] = seedbuf;
    } else if (!strcmp(a, "--threads") && more) {
      char *end;
      long t = strtol(argv[++i], &end, 10);
      if (*end || t < 1 || t > 1024) {
        fprintf(stderr, "agglo run: --threads %s: expected an integer from 1 to 1024\n", argv[i]);
        free(overrides);
        return 2;
      }
      threads = (int)t;
    } else if (!strcmp(a, "--restart") && more) {
      restart = argv[++i];
    } else if (!strcmp(a, "--check")) {
      check_only = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "agglo run: unknown or incomplete option '%s' (see agglo run --help)\n", a);
      free(overrides);
      return 2;
    } else if (!file) {
      file = a;
    } else {
      fprintf(stderr, "agglo run: more than one scenario file ('%s' and '%s')\n", file, a);
      free(overrides);
      return 2;
    }
  }
  agglo_config *cfg = agglo_config_new();
  int rc = 0;
  char restart_ini[4096];
  if (restart) {
    if (file) {
      fprintf(stderr, "agglo run: --restart takes its scenario from %s/scenario.ini; give no "
              "scenario file (use -s to change keys)\n", restart);
      rc = 2;
      goto out;
    }
    snprintf(restart_ini, sizeof restart_ini, "%s/scenario.ini", restart);
    file = restart_ini;
  }
  if (file ? agglo_config_load(cfg, file, err, sizeof err)
           : agglo_config_load_string(cfg, agglo_default_scenario, "(built-in default)", err,
                                      sizeof err)) {
    fprintf(stderr, "agglo: %s\n", err);
    rc = 2;
    goto out;
  }
  for (int i = 0; i < nover; i++)
    if (agglo_config_override(cfg, overrides[i], err, sizeof err) != 0) {
      fprintf(stderr, "agglo: %s\n", err);
      rc = 2;
      goto out;
    }
  if (agglo_config_check(cfg, err, sizeof err) != 0) {
    fprintf(stderr, "agglo: %s: %s\n", file ? file : "(built-in default)", err);
    rc = 2;
    goto out;
  }
  if (check_only) {
    printf("%s: valid scenario\n", file ? file : "(built-in default)");
    goto out;
  }
  if (cfg->model == MODEL_DPD && !quiet) agglo_dpd_describe(cfg, stderr);
  agglo_run_options opt = {.out_dir = out, .restart_dir = restart, .threads = threads,
                           .progress = !quiet && isatty(2), .verbose = !quiet};
  int r = agglo_run(cfg, &opt, err, sizeof err);
  if (r == 0 && cfg->model == MODEL_DPD) dpd_temperature_warning(out, cfg);
  if (r != 0) {
    fprintf(stderr, "agglo: %s\n", err);
    rc = r > 0 ? 128 + r : 1; /* the shell convention: 130 for Ctrl-C, 143 for SIGTERM */
  }
out:
  agglo_config_destroy(cfg);
  free(overrides);
  return rc;
}

static void analyze_usage(FILE *f) {
  fprintf(f,
          "usage: agglo analyze FILE.xyz [--frame K | --all] [--contact-distance X] [-o DIR]\n"
          "                     [--json] [--plots] [--radius R] [--rdf [--rdf-max R] [--rdf-bins B]]\n"
          "                     [--msd]\n\n"
          "  FILE.xyz              extended XYZ trajectory (agglo's, or any with pos and radius)\n"
          "  --frame K             report frame K (1-based; default: the last)\n"
          "  --all                 indicators of every frame in analysis.csv\n"
          "  --contact-distance X  particles touch when their gap is below X (default 0.1 r)\n"
          "  -o DIR                output directory (default: analysis)\n"
          "  --json                print one JSON object instead of the summary\n"
          "  --plots               PNG plots (gnuplot): clusters against time, size\n"
          "                        distribution, box counting, R_g against size, P(r); implies --all\n"
          "  --radius R            radius of every particle when the file has no radius column\n"
          "  --rdf                 radial distribution function g(r) of the centres into rdf.csv,\n"
          "                        averaged over every frame (with --frame K: frame K only)\n"
          "  --rdf-max R           its range (default: half the smallest box side)\n"
          "  --rdf-bins B          its bins (default 100)\n"
          "  --msd                 mean-square displacement against the lag time into msd.csv\n"
          "                        (every frame, every time origin; particles matched by id) and\n"
          "                        the diffusion coefficient of its linear part\n\n"
          "writes DIR/analysis.csv (one row per analysed frame) and DIR/clusters.csv (one row per\n"
          "cluster of the reported frame); definitions in docs/analysis.md\n");
}

static int parse_double(const char *opt, const char *text, double *out) {
  char *end;
  double x = strtod(text, &end);
  if (end == text || *end || !(x > 0) || x > 1e300) {
    fprintf(stderr, "agglo analyze: %s %s: expected a positive number\n", opt, text);
    return -1;
  }
  *out = x;
  return 0;
}

static int cmd_analyze(int argc, char **argv) {
  agglo_analyze_options o = {.out_dir = "analysis"};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      analyze_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--frame") && more) {
      char *end;
      long k = strtol(argv[++i], &end, 10);
      if (*end || k < 1 || k > 100000000) {
        fprintf(stderr, "agglo analyze: --frame %s: expected a frame number >= 1\n", argv[i]);
        return 2;
      }
      o.frame = (int)k;
    } else if (!strcmp(a, "--all")) {
      o.all = 1;
    } else if (!strcmp(a, "--contact-distance") && more) {
      if (parse_double(a, argv[++i], &o.contact_gap)) return 2;
    } else if (!strcmp(a, "--radius") && more) {
      if (parse_double(a, argv[++i], &o.radius)) return 2;
    } else if (!strcmp(a, "-o") && more) {
      o.out_dir = argv[++i];
    } else if (!strcmp(a, "--json")) {
      o.json = 1;
    } else if (!strcmp(a, "--plots")) {
      o.plots = 1;
    } else if (!strcmp(a, "--rdf")) {
      o.rdf = 1;
    } else if (!strcmp(a, "--msd")) {
      o.msd = 1;
    } else if (!strcmp(a, "--rdf-max") && more) {
      if (parse_double(a, argv[++i], &o.rdf_max)) return 2;
    } else if (!strcmp(a, "--rdf-bins") && more) {
      char *end;
      long b = strtol(argv[++i], &end, 10);
      if (*end || b < 1 || b > 100000) {
        fprintf(stderr, "agglo analyze: --rdf-bins %s: expected 1 to 100000\n", argv[i]);
        return 2;
      }
      o.rdf_bins = (int)b;
    } else if (a[0] == '-') {
      fprintf(stderr, "agglo analyze: unknown or incomplete option '%s' (see agglo analyze --help)\n", a);
      return 2;
    } else if (!o.path) {
      o.path = a;
    } else {
      fprintf(stderr, "agglo analyze: more than one file given\n");
      return 2;
    }
  }
  if (!o.path) {
    analyze_usage(stderr);
    return 2;
  }
  char err[2048];
  if (agglo_analyze(&o, err, sizeof err) != 0) {
    fprintf(stderr, "agglo: %s\n", err);
    return 1;
  }
  return 0;
}

static void compare_usage(FILE *f) {
  fprintf(f,
          "usage: agglo compare [SCENARIO.ini] [-s section.key=value]... [--seeds N]\n"
          "                     [--first-seed S] [--csv FILE] [--only ts|ed]\n\n"
          "Runs a ballistic scenario (run.model = ballistic) for seeds S .. S+N-1 (default 1..10)\n"
          "with ballistic.method = time_stepping and = event_driven, and prints the indicators of\n"
          "the final cluster side by side (mean and standard deviation over the seeds): relative\n"
          "contacts per sphere N_c, box-counting dimension D_f and its relative difference,\n"
          "aspect ratio A_r, P(r), time to one cluster, CPU time. --csv writes one row per run;\n"
          "--only runs one method (e.g. for timings at large N).\n"
          "No other files are written.\n");
}

static void mean_sd(const double *v, int n, double *mean, double *sd) {
  double s = 0, q = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *mean = n ? s / n : NAN;
  for (int i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
  *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

static int cmd_compare(int argc, char **argv) {
  const char *file = NULL, *csv = NULL;
  long seeds = 10, first = 1;
  int only = -1;
  char err[2048];
  const char **over = calloc((size_t)argc + 1, sizeof *over);
  int nover = 0, rc = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      compare_usage(stdout);
      free(over);
      return 0;
    } else if (!strcmp(a, "-s") && more) {
      over[nover++] = argv[++i];
    } else if (!strcmp(a, "--seeds") && more) {
      seeds = strtol(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--first-seed") && more) {
      first = strtol(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--only") && more) {
      i++;
      only = !strcmp(argv[i], "ts") ? 0 : !strcmp(argv[i], "ed") ? 1 : -2;
      if (only == -2) {
        fprintf(stderr, "agglo compare: --only takes ts or ed\n");
        free(over);
        return 2;
      }
    } else if (!strcmp(a, "--csv") && more) {
      csv = argv[++i];
    } else if (a[0] == '-' || file) {
      fprintf(stderr, "agglo compare: unexpected argument '%s' (see agglo compare --help)\n", a);
      free(over);
      return 2;
    } else {
      file = a;
    }
  }
  if (seeds < 1 || seeds > 100000 || first < 0) {
    fprintf(stderr, "agglo compare: --seeds must be 1 to 100000 and --first-seed >= 0\n");
    free(over);
    return 2;
  }
  agglo_config *cfg = agglo_config_new();
  agglo_ball_result *res = calloc(2 * (size_t)seeds, sizeof *res);
  double *v = calloc(2 * (size_t)seeds, sizeof *v);
  FILE *out = NULL;
  if (file ? agglo_config_load(cfg, file, err, sizeof err) : 0) {
    fprintf(stderr, "agglo: %s\n", err);
    rc = 2;
    goto done;
  }
  for (int i = 0; i < nover; i++)
    if (agglo_config_override(cfg, over[i], err, sizeof err) != 0) {
      fprintf(stderr, "agglo: %s\n", err);
      rc = 2;
      goto done;
    }
  if (cfg->model != MODEL_BALLISTIC) {
    fprintf(stderr, "agglo compare: run.model must be ballistic\n");
    rc = 2;
    goto done;
  }
  if (csv && !(out = fopen(csv, "w"))) {
    fprintf(stderr, "agglo compare: %s: cannot write\n", csv);
    rc = 1;
    goto done;
  }
  if (out) {
    fprintf(out, "method,seed,t_final,cpu,steps,iterations,n_clusters,nc,df,ar,max_overlap");
    for (int k = 0; k < AGGLO_BALL_NPR; k++) fprintf(out, ",P%g", agglo_ball_pr_radii[k]);
    fputc('\n', out);
  }
  const char *mname[2] = {"time_stepping", "event_driven"};
  for (int m = 0; m < 2; m++)
    for (long k = 0; k < seeds; k++) {
      if (only >= 0 && m != only) continue;
      agglo_config c = *cfg;
      c.ball_method = m == 0 ? BALL_TIME_STEPPING : BALL_EVENT_DRIVEN;
      c.seed = first + k;
      agglo_ball_result *r = &res[m * seeds + k];
      if (agglo_ballistic_simulate(&c, r, err, sizeof err) != 0) {
        fprintf(stderr, "agglo compare: %s seed %ld: %s\n", mname[m], first + k, err);
        rc = 1;
        goto done;
      }
      fprintf(stderr, "%s seed %ld: t = %.6g, CPU %.3g s, N_c %.4f, D_f %.4f, A_r %.3g\n",
              mname[m], first + k, r->t_final, r->cpu, r->nc, r->df, r->ar);
      if (out) {
        fprintf(out, "%s,%ld,%.10g,%.6g,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%.4g", mname[m], first + k,
                r->t_final, r->cpu, r->steps, r->iterations, r->n_clusters, r->nc, r->df, r->ar,
                r->max_overlap);
        for (int q = 0; q < AGGLO_BALL_NPR; q++) fprintf(out, ",%.6g", r->pr[q]);
        fputc('\n', out);
        fflush(out);
      }
    }
  printf("ballistic, N = %lld, %dD, %ld seeds from %ld: mean (standard deviation)\n",
         (long long)cfg->n, cfg->dim, seeds, first);
  printf("%-22s %-24s %-24s %s\n", "indicator", "time stepping", "event driven", "TS/ED - 1");
  for (int q = 0; q < 8 + AGGLO_BALL_NPR; q++) {
    char name[64];
    for (int m = 0; m < 2; m++)
      for (long k = 0; k < seeds; k++) {
        const agglo_ball_result *r = &res[m * seeds + k];
        double x = q == 0 ? r->nc : q == 1 ? r->df : q == 2 ? r->ar : q == 3 ? r->t_final
                 : q == 4 ? r->cpu : q == 5 ? r->steps : q == 6 ? r->iterations
                 : q == 7 ? r->max_overlap : r->pr[q - 8];
        v[m * seeds + k] = x;
      }
    if (q == 0) snprintf(name, sizeof name, "N_c");
    else if (q == 1) snprintf(name, sizeof name, "D_f (box counting)");
    else if (q == 2) snprintf(name, sizeof name, "A_r");
    else if (q == 3) snprintf(name, sizeof name, "time to one cluster");
    else if (q == 4) snprintf(name, sizeof name, "CPU time (s)");
    else if (q == 5) snprintf(name, sizeof name, "steps / windows");
    else if (q == 6) snprintf(name, sizeof name, "iterations / events");
    else if (q == 7) snprintf(name, sizeof name, "max overlap / r");
    else snprintf(name, sizeof name, "P(%gr)", agglo_ball_pr_radii[q - 8]);
    double m0, s0, m1, s1;
    mean_sd(v, (int)seeds, &m0, &s0);
    mean_sd(v + seeds, (int)seeds, &m1, &s1);
    char a[64], b[64];
    snprintf(a, sizeof a, "%.5g (%.3g)", m0, s0);
    snprintf(b, sizeof b, "%.5g (%.3g)", m1, s1);
    if (only >= 0) {
      if (only == 0) snprintf(b, sizeof b, "-");
      else snprintf(a, sizeof a, "-");
      printf("%-22s %-24s %-24s\n", name, a, b);
    } else if (q >= 5 && q <= 7) printf("%-22s %-24s %-24s\n", name, a, b);
    else printf("%-22s %-24s %-24s %+.2f%%\n", name, a, b, 100 * (m0 / m1 - 1));
  }
done:
  if (out) fclose(out);
  free(res);
  free(v);
  agglo_config_destroy(cfg);
  free(over);
  return rc;
}

static void agglomerates_usage(FILE *f) {
  fprintf(f,
          "usage: agglo agglomerates FILE.xyz [--frame K] [--gap G] [--tol T] [--bins B] [--row]\n"
          "                                   [--definition moments|thesis] [--min-radius R]\n\n"
          "The agglomerate report of the DPD thesis (Mokkapati 2006; docs/dpd.md) for one frame:\n"
          "agglomerates = groups of two or more particles linked by surface gaps below G (default\n"
          "0: centres closer than one diameter), each enclosed in an ellipsoid classed\n"
          "sphere/prolate/oblate/scalene with relative tolerance T (default 0.05); particles in\n"
          "agglomerates; volume ratio; histogram of volumes (B bins, default 8).\n"
          "  --definition moments   (default) the solid ellipsoid with the second moments of the\n"
          "              member spheres: a_k = sqrt(5 lambda_k) of their gyration tensor (sphere\n"
          "              volumes included); classes by the ratios b/a, c/b >= 1 - T\n"
          "  --definition thesis    the thesis read literally: eigenvalues of the inertia tensor\n"
          "              of the centres (in diameters) plus one diameter; classes by |a-b| <= T a\n"
          "  --frame K   frame K (1-based; default: the last)\n"
          "  --min-radius R   ignore particles of radius below R (e.g. explicit solvent beads)\n"
          "  --row       one line: prolate oblate sphere scalene n_ellipsoids n_particles\n"
          "              ratio_thesis%% ratio_true%% largest\n");
}

static int cmd_agglomerates(int argc, char **argv) {
  const char *path = NULL;
  double gap = 0, tol = 0.05;
  long frame = 0, bins = 8;
  int row = 0, definition = AGGLO_ELLIPSOID_MOMENTS;
  double min_radius = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    char *end = NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      agglomerates_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--frame") && more) {
      frame = strtol(argv[++i], &end, 10);
      if (*end || frame < 1) goto bad;
    } else if (!strcmp(a, "--bins") && more) {
      bins = strtol(argv[++i], &end, 10);
      if (*end || bins < 1 || bins > 1000) goto bad;
    } else if (!strcmp(a, "--gap") && more) {
      gap = strtod(argv[++i], &end);
      if (*end || !(gap >= 0) || gap > 1e300) goto bad;
    } else if (!strcmp(a, "--tol") && more) {
      tol = strtod(argv[++i], &end);
      if (*end || !(tol >= 0) || tol > 1) goto bad;
    } else if (!strcmp(a, "--row")) {
      row = 1;
    } else if (!strcmp(a, "--min-radius") && more) {
      min_radius = strtod(argv[++i], &end);
      if (*end || !(min_radius >= 0) || min_radius > 1e300) goto bad;
    } else if (!strcmp(a, "--definition") && more) {
      const char *v = argv[++i];
      if (!strcmp(v, "moments")) definition = AGGLO_ELLIPSOID_MOMENTS;
      else if (!strcmp(v, "thesis")) definition = AGGLO_ELLIPSOID_THESIS;
      else goto bad;
    } else if (a[0] != '-' && !path) {
      path = a;
    } else {
      fprintf(stderr, "agglo agglomerates: unknown or incomplete option '%s'\n", a);
      return 2;
    }
    continue;
  bad:
    fprintf(stderr, "agglo agglomerates: %s %s: bad value\n", a, argv[i]);
    return 2;
  }
  if (!path) {
    agglomerates_usage(stderr);
    return 2;
  }
  char err[2048];
  agglo_xyz_reader rd;
  agglo_system s;
  memset(&s, 0, sizeof s);
  if (agglo_xyz_open(&rd, path, 0, err, sizeof err) != 0) {
    fprintf(stderr, "agglo: %s\n", err);
    return 1;
  }
  int got = 0, r = 0;
  while ((frame == 0 || got < frame) && (r = agglo_xyz_next(&rd, &s, err, sizeof err)) == 1) got++;
  agglo_xyz_close(&rd);
  if (r < 0 || got == 0 || (frame && got < frame)) {
    fprintf(stderr, "agglo: %s\n", r < 0 ? err : "frame not found");
    agglo_system_free(&s);
    return 1;
  }
  if (min_radius > 0) { /* keep the particles of radius >= min_radius, in order */
    size_t k = 0;
    for (size_t i = 0; i < s.n; i++) {
      if (s.r[i] < min_radius) continue;
      memmove(s.x + 3 * k, s.x + 3 * i, 3 * sizeof *s.x);
      memmove(s.v + 3 * k, s.v + 3 * i, 3 * sizeof *s.v);
      s.r[k] = s.r[i], s.m[k] = s.m[i], s.inv_m[k] = s.inv_m[i], s.id[k] = s.id[i];
      s.cluster[k] = s.cluster[i];
      k++;
    }
    s.n = k;
  }
  agglo_agglomerates a;
  if (agglo_agglomerates_measure(&s, gap, tol, definition, &a) != 0) {
    fprintf(stderr, "agglo: out of memory\n");
    agglo_system_free(&s);
    return 1;
  }
  if (row) agglo_agglomerates_row(stdout, &a);
  else {
    printf("%s, frame %d (t = %g, %zu particles)\n", path, got, s.t, s.n);
    agglo_agglomerates_print(stdout, &a, (int)bins);
  }
  agglo_agglomerates_free(&a);
  agglo_system_free(&s);
  return 0;
}

static int cmd_list(int argc, char **argv) {
  if (argc > 0 && !strcmp(argv[0], "keys")) {
    agglo_config_describe(stdout, 1);
    return 0;
  }
  printf("models:\n  contact    contact dynamics with aggregation (Maury 2004)\n"
         "  ballistic  ballistic aggregation (Degond et al. 2024): ballistic.method =\n"
         "             time_stepping (damped Arrow-Hurwicz) or event_driven (exact)\n"
         "  dpd        dissipative particle dynamics, DPD-VV (Groot-Warren), with attraction\n"
         "             (Mokkapati 2006): dpd.conservative = groot_warren, vdw, vdw_reduced,\n"
         "             capillary, edl, lj, none; reduced or SI units (docs/dpd.md)\n"
         "  gluey      gluey particles (Lefebvre 2007): adhesion memory gamma per contact,\n"
         "             smooth, rough or inelastic (gluey.gamma_min), obstacles (docs/gluey.md)\n\n"
         "flows (flow.type):\n  none, uniform, shear, oscillating_shear, poiseuille, vortex\n\n"
         "solvers (solver.method):\n  mprgp (default), apgd, uzawa\n\n"
         "example scenarios (examples/):\n"
         "  ballistic_paper_400.ini    ballistic aggregation, the paper's setup, time stepping\n"
         "  ballistic_event_driven_400.ini  the same, exact event-driven dynamics\n"
         "  ballistic_3d.ini           ballistic, 3D, polydisperse, periodic\n"
         "  ballistic_large_ts.ini     ballistic time stepping, N = 100 000 (performance)\n"
         "  dpd_groot_warren.ini       Groot-Warren DPD fluid, N = 24 000 (validation, benchmark)\n"
         "  dpd_vdw.ini                375 particles, van der Waals, 25^3, rc = 3 (Mokkapati Tab. 3-4)\n"
         "  dpd_capillary.ini          375 particles, capillary bridges (Mokkapati Tab. 5-6)\n"
         "  dpd_vdw_si.ini             the van der Waals case in SI units (prints the conversion)\n"
         "  maury_shear.ini            oscillating shear, N = 1000 (Maury Fig. 1)\n"
         "  maury_brownian_500.ini     Brownian, N = 500 (Fig. 2)\n"
         "  maury_brownian_2000.ini    Brownian, N = 2000 (Fig. 3; the built-in default)\n"
         "  maury_brownian_5000.ini    Brownian, N = 5000 (Fig. 4)\n"
         "  maury_shear_periodic_x.ini the shear case periodic along the flow (recommended)\n"
         "  brownian_3d.ini            Brownian aggregation in 3D, N = 2000, periodic cube\n"
         "  gluey_plane.ini            particle pushed onto a plane, then pulled (Lefebvre Figs. 2, 12)\n"
         "  gluey_billiard.ini         two spheres glue, rotate, separate (Lefebvre Fig. 15)\n"
         "  gluey_lotto.ini            160 particles in a rotating box (Lefebvre Fig. 16)\n\n"
         "`agglo list keys` prints every scenario key as a markdown table (docs/config.md).\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("agglo %s\n", agglo_version());
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "analyze")) return cmd_analyze(argc - 2, argv + 2);
  if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
  if (!strcmp(cmd, "agglomerates")) return cmd_agglomerates(argc - 2, argv + 2);
  if (!strcmp(cmd, "compare")) return cmd_compare(argc - 2, argv + 2);
  fprintf(stderr, "agglo: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
