/* agglo command line: parses arguments and hands over to the library. No physics here. */
#include "agglo/agglo.h"
#include "analyze.h"
#include "config.h"
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
          "  agglo --help | agglo run --help      this text; every scenario key\n"
          "  agglo --version\n",
          agglo_version());
}

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: agglo run [SCENARIO.ini] [-s section.key=value]... [-o DIR] [--seed N]\n"
          "                 [--threads N] [--restart DIR] [--quiet]\n\n"
          "  SCENARIO.ini        INI scenario file; without it, the built-in default scenario\n"
          "                      (Maury's Brownian aggregation, 2D, N = 2000)\n"
          "  -s section.key=v    override one key (repeatable; applied after the file)\n"
          "  -o DIR              output directory (default: out)\n"
          "  --seed N            same as -s run.seed=N\n"
          "  --threads N         OpenMP threads (results do not depend on it)\n"
          "  --restart DIR       continue the run saved in DIR (its scenario.ini, state.xyz and\n"
          "                      contacts.txt); -s may change e.g. run.t_end\n"
          "  --quiet             no progress bar and no summary\n\n"
          "outputs in DIR: trajectory.xyz (extended XYZ), stats.csv, snapshot_t*.png,\n"
          "scenario.ini (resolved settings), state.xyz + contacts.txt (restart point)\n\n"
          "scenario keys (section, key = default, meaning, allowed values):\n");
  agglo_config_describe(f, 0);
}

static int cmd_run(int argc, char **argv) {
  const char *file = NULL, *out = "out", *restart = NULL;
  int quiet = 0, threads = 0;
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
  agglo_run_options opt = {.out_dir = out, .restart_dir = restart, .threads = threads,
                           .progress = !quiet && isatty(2), .verbose = !quiet};
  int r = agglo_run(cfg, &opt, err, sizeof err);
  if (r != 0) {
    fprintf(stderr, "agglo: %s\n", err);
    rc = r > 0 ? 130 : 1;
  }
out:
  agglo_config_destroy(cfg);
  free(overrides);
  return rc;
}

static void analyze_usage(FILE *f) {
  fprintf(f,
          "usage: agglo analyze FILE.xyz [--frame K | --all] [--contact-distance X] [-o DIR]\n"
          "                     [--json] [--plots] [--radius R]\n\n"
          "  FILE.xyz              extended XYZ trajectory (agglo's, or any with pos and radius)\n"
          "  --frame K             report frame K (1-based; default: the last)\n"
          "  --all                 indicators of every frame in analysis.csv\n"
          "  --contact-distance X  particles touch when their gap is below X (default 0.1 r)\n"
          "  -o DIR                output directory (default: analysis)\n"
          "  --json                print one JSON object instead of the summary\n"
          "  --plots               PNG plots (gnuplot): clusters against time, size\n"
          "                        distribution, box counting, R_g against size, P(r); implies --all\n"
          "  --radius R            radius of every particle when the file has no radius column\n\n"
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

static int cmd_list(int argc, char **argv) {
  if (argc > 0 && !strcmp(argv[0], "keys")) {
    agglo_config_describe(stdout, 1);
    return 0;
  }
  printf("models:\n  contact    contact dynamics with aggregation (Maury 2004)\n\n"
         "flows (flow.type):\n  none, uniform, shear, oscillating_shear, poiseuille, vortex\n\n"
         "solvers (solver.method):\n  apgd (default), uzawa\n\n"
         "example scenarios (examples/):\n"
         "  maury_shear.ini            oscillating shear, N = 1000 (Maury Fig. 1)\n"
         "  maury_brownian_500.ini     Brownian, N = 500 (Fig. 2)\n"
         "  maury_brownian_2000.ini    Brownian, N = 2000 (Fig. 3; the built-in default)\n"
         "  maury_brownian_5000.ini    Brownian, N = 5000 (Fig. 4)\n\n"
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
  fprintf(stderr, "agglo: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
