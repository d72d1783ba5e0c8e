/* `agglo ensemble` and `agglo compare` (an ensemble over ballistic.method): arguments, and the
   hand-out of members to this process, to forked processes (--jobs) or to MPI ranks. The grid,
   one member and the summary are the library's (include/agglo/ensemble.h). */
#include "ensemble_cli.h"
#include "paths.h"
#include "examples.h"
#include "gnuplot.h"
#include "integer_option.h"
#include "picture_cli.h"
#include "wall_clock.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int agglo_cli_run_member(agglo_ensemble *e, size_t i, agglo_callback poll, void *user, int rank,
                         int quiet) {
  double t0 = agglo_cli_wall_seconds();
  agglo_status st = agglo_ensemble_run_member(e, i, poll, user);
  if (!quiet || st != AGGLO_OK) {
    char where[32] = "";
    if (rank >= 0) snprintf(where, sizeof where, " (rank %d)", rank);
    if (st == AGGLO_OK)
      fprintf(stderr, "agglo ensemble: %s: done in %.1f s%s\n", agglo_ensemble_member_name(e, i),
              agglo_cli_wall_seconds() - t0, where);
    else
      fprintf(stderr, "agglo ensemble: FAILED%s: %s\n", where, agglo_last_error());
  }
  if (st == AGGLO_OK) return 0;
  /* no marker: it could not be written, and the ensemble cannot go on */
  return agglo_ensemble_member_state(e, i) ? 1 : -1;
}

int agglo_cli_finish(agglo_ensemble *e, const char *dir, int quiet, agglo_cli_report_fn report,
                     void *user) {
  size_t failed = 0;
  if (agglo_ensemble_write_summary(e, &failed) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return 1;
  }
  if (report && report(e, user) != 0) return 1;
  if (failed)
    fprintf(stderr, "agglo ensemble: %zu of %zu members failed or did not run (%s/members.csv says "
            "why); the summary leaves them out\n", failed, agglo_ensemble_count(e), dir);
  else if (!quiet)
    fprintf(stderr, "agglo ensemble: %zu members done; %s/ensemble.csv and %s/members.csv written\n",
            agglo_ensemble_count(e), dir, dir);
  return failed ? 1 : 0;
}

/* --jobs J: one forked process per member, at most J at a time. A member that dies (a signal)
   is marked failed by the parent. The parent runs no member itself (no OpenMP before fork). */
static int run_forked(agglo_ensemble *e, long jobs, int quiet) {
  size_t count = agglo_ensemble_count(e), next = 0;
  pid_t *pid = calloc((size_t)jobs, sizeof *pid);
  size_t *member = calloc((size_t)jobs, sizeof *member);
  if (!pid || !member) {
    free(pid);
    free(member);
    fprintf(stderr, "agglo: out of memory\n");
    return -1;
  }
  long running = 0;
  int fatal = 0;
  pid_t parent = getpid();
  for (;;) {
    while (running < jobs && !fatal) {
      while (next < count && agglo_ensemble_member_done(e, next)) next++;
      if (next >= count) break;
      long slot = 0;
      while (pid[slot]) slot++;
      fflush(stdout);
      fflush(stderr);
      pid_t p = fork();
      if (p < 0) {
        fprintf(stderr, "agglo: fork: %s\n", strerror(errno));
        fatal = 1;
        break;
      }
      if (p == 0) {
        /* a member dies with the ensemble (a killed parent leaves no member running that a
           --resume would meet) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(3);
        int rc = agglo_cli_run_member(e, next, NULL, NULL, -1, quiet);
        _exit(rc < 0 ? 3 : rc);
      }
      pid[slot] = p;
      member[slot] = next++;
      running++;
    }
    if (!running) break;
    int status;
    pid_t p = wait(&status);
    if (p < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (long s = 0; s < jobs; s++)
      if (pid[s] == p) {
        pid[s] = 0;
        running--;
        char msg[128] = "";
        if (WIFSIGNALED(status))
          snprintf(msg, sizeof msg, "its process was killed by signal %d", WTERMSIG(status));
        else if (WEXITSTATUS(status) == 3) fatal = 1;
        if (*msg) {
          fprintf(stderr, "agglo ensemble: %s: FAILED: %s\n", agglo_ensemble_member_name(e, member[s]), msg);
          agglo_ensemble_mark_failed(e, member[s], msg);
        }
      }
  }
  free(pid);
  free(member);
  return fatal ? -1 : 0;
}

static int run_here(agglo_ensemble *e, int quiet) {
  size_t count = agglo_ensemble_count(e);
  for (size_t i = 0; i < count; i++)
    if (!agglo_ensemble_member_done(e, i) && agglo_cli_run_member(e, i, NULL, NULL, -1, quiet) < 0)
      return -1;
  return 0;
}

typedef struct {
  const char *file, *out, *seeds, *outputs;
  const char **over, **vary;
  int nover, nvary, resume, overwrite, quiet;
  long jobs, threads;
} ens_args;

/* The scenario with each combination of the --vary values (the grid's points, as the members
   get them) checked before any member starts: a value the scenario cannot take is refused here,
   not found again by every member. 0, or -1 with the message. */
static int check_grid(const char *cmd, const agglo_config *cfg, const ens_args *a) {
  enum { MAX_DIMS = 64 };
  char *vals[MAX_DIMS] = {0}; /* each --vary's values, separated by '\0' */
  size_t count[MAX_DIMS] = {0}, at[MAX_DIMS] = {0}, keylen[MAX_DIMS] = {0};
  int nd = a->nvary < MAX_DIMS ? a->nvary : MAX_DIMS, rc = 0;
  for (int d = 0; d < nd; d++) { /* (the library has checked the form: key=v1,v2 or v1;v2) */
    const char *eq = strchr(a->vary[d], '=');
    keylen[d] = (size_t)(eq - a->vary[d]);
    vals[d] = strdup(eq + 1);
    if (!vals[d]) rc = -1;
    char sep = strchr(eq + 1, ';') ? ';' : ',';
    count[d] = 1;
    for (char *p = vals[d]; p && *p; p++)
      if (*p == sep) *p = 0, count[d]++;
  }
  for (int done = rc; !done;) { /* every point of the grid: an odometer over the dimensions */
    agglo_config *c = agglo_config_copy(cfg);
    char point[1024] = "";
    size_t used = 0;
    agglo_status st = c ? AGGLO_OK : AGGLO_ERROR_MEMORY;
    for (int d = 0; d < nd && st == AGGLO_OK; d++) {
      const char *v = vals[d];
      for (size_t k = 0; k < at[d]; k++) v += strlen(v) + 1;
      v += strspn(v, " \t");
      char key[256], value[1024];
      snprintf(key, sizeof key, "%.*s", (int)keylen[d], a->vary[d]);
      snprintf(value, sizeof value, "%s", v);
      for (size_t n = strlen(value); n && (value[n - 1] == ' ' || value[n - 1] == '\t'); n--) value[n - 1] = 0;
      if (used < sizeof point)
        used += (size_t)snprintf(point + used, sizeof point - used, " --vary %s=%s", key, value);
      st = agglo_config_set(c, key, value);
    }
    if (st == AGGLO_OK) st = agglo_config_check(c);
    agglo_config_destroy(c);
    if (st != AGGLO_OK) {
      fprintf(stderr, "agglo %s: %s with%s: %s; no member started\n", cmd,
              a->file ? a->file : "the built-in default", point, agglo_last_error());
      rc = -1;
      break;
    }
    int d = nd - 1;
    while (d >= 0 && ++at[d] == count[d]) at[d--] = 0;
    done = d < 0;
  }
  for (int d = 0; d < nd; d++) free(vals[d]);
  return rc;
}

/* Settings, grid and schedule: the shared part of `agglo ensemble` and `agglo compare`. */
static int run_ensemble(const char *cmd, ens_args *a, agglo_cli_report_fn report, void *user,
                        int (*check)(const agglo_config *, void *)) {
  agglo_config *cfg = agglo_config_new();
  agglo_ensemble *e = NULL;
  int rc = 2;
  a->file = agglo_cli_scenario(cmd, a->file, a->quiet);
  if ((a->file ? agglo_config_load(cfg, a->file) : agglo_config_load_default(cfg)) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    goto out;
  }
  for (int i = 0; i < a->nover; i++)
    if (agglo_config_assign(cfg, a->over[i]) != AGGLO_OK) {
      fprintf(stderr, "agglo: %s\n", agglo_last_error());
      goto out;
    }
  if (check && check(cfg, user) != 0) goto out;
  unsigned which = 0;
  if (a->outputs) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", a->outputs);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
      if (!strcmp(t, "all")) which |= AGGLO_OUTPUT_ALL;
      else if (!strcmp(t, "none")) which |= 0;
      else if (!strcmp(t, "trajectory")) which |= AGGLO_OUTPUT_TRAJECTORY;
      else if (!strcmp(t, "stats")) which |= AGGLO_OUTPUT_STATS;
      else if (!strcmp(t, "snapshots")) which |= AGGLO_OUTPUT_SNAPSHOTS;
      else if (!strcmp(t, "state")) which |= AGGLO_OUTPUT_STATE;
      else {
        fprintf(stderr, "agglo %s: --outputs %s: expected a list of trajectory, stats, snapshots, "
                "state, or all or none\n", cmd, a->outputs);
        goto out;
      }
    }
  }
  if (agglo_ensemble_new(cfg, a->out, &e) != AGGLO_OK ||
      (a->seeds && agglo_ensemble_set_seeds(e, a->seeds) != AGGLO_OK) ||
      (a->outputs && agglo_ensemble_set_outputs(e, which) != AGGLO_OK)) {
    fprintf(stderr, "agglo %s: %s\n", cmd, agglo_last_error());
    goto out;
  }
  for (int i = 0; i < a->nvary; i++) {
    char key[256];
    const char *eq = strchr(a->vary[i], '=');
    if (!eq || eq == a->vary[i] || (size_t)(eq - a->vary[i]) >= sizeof key) {
      fprintf(stderr, "agglo %s: --vary %s: expected section.key=v1,v2,...\n", cmd, a->vary[i]);
      goto out;
    }
    memcpy(key, a->vary[i], (size_t)(eq - a->vary[i]));
    key[eq - a->vary[i]] = 0;
    if (agglo_ensemble_vary(e, key, eq + 1) != AGGLO_OK) {
      fprintf(stderr, "agglo %s: %s\n", cmd, agglo_last_error());
      goto out;
    }
  }
  if (check_grid(cmd, cfg, a) != 0) goto out;
  long threads = a->threads;
  if (!threads && a->jobs > 1) { /* J processes share the cores: not J x all of them */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > a->jobs ? cores / a->jobs : 1;
  }
  agglo_set_threads((int)threads);
  int mode = a->resume ? AGGLO_ENSEMBLE_RESUME : a->overwrite ? AGGLO_ENSEMBLE_OVERWRITE : AGGLO_ENSEMBLE_NEW;
  if (a->resume && a->overwrite) {
    fprintf(stderr, "agglo %s: --resume keeps the finished members, --overwrite replaces them: give one\n", cmd);
    goto out;
  }
#ifdef AGGLO_HAVE_MPI
  if (agglo_cli_mpi_launched()) {
    if (a->jobs > 1) {
      fprintf(stderr, "agglo %s: --jobs is for runs without mpirun (each MPI rank runs members)\n", cmd);
      goto out;
    }
    rc = agglo_cli_mpi_ensemble(e, a->out, mode, a->quiet, report, user);
    goto out;
  }
#endif
  if (agglo_ensemble_prepare(e, mode) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    goto out;
  }
  if (!a->quiet)
    fprintf(stderr, "agglo %s: %zu members into %s/, %s\n", cmd, agglo_ensemble_count(e), a->out,
            a->jobs > 1 ? "forked processes" : "one at a time");
  int r = a->jobs > 1 ? run_forked(e, a->jobs, a->quiet) : run_here(e, a->quiet);
  rc = r < 0 ? 1 : agglo_cli_finish(e, a->out, a->quiet, report, user);
out:
  agglo_ensemble_destroy(e);
  agglo_config_destroy(cfg);
  return rc;
}

static int parse_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out) {
  long long v;
  if (agglo_cli_integer(cmd, opt, text, lo, hi, &v) != 0) return -1;
  *out = (long)v;
  return 0;
}

/* Options shared by ensemble and compare; returns 1 if argv[*i] was one of them, -1 on error. */
static int common_option(const char *cmd, int argc, char **argv, int *i, ens_args *a) {
  const char *o = argv[*i];
  int more = *i + 1 < argc;
  if (!strcmp(o, "-s") && more) a->over[a->nover++] = argv[++*i];
  else if (!strcmp(o, "-o") && more) a->out = agglo_cli_dir_name(argv[++*i]);
  else if (!strcmp(o, "--jobs") && more) return parse_long(cmd, o, argv[++*i], 1, 4096, &a->jobs) ? -1 : 1;
  else if (!strcmp(o, "--threads") && more) return parse_long(cmd, o, argv[++*i], 1, 1024, &a->threads) ? -1 : 1;
  else if (!strcmp(o, "--outputs") && more) a->outputs = argv[++*i];
  else if (!strcmp(o, "--resume")) a->resume = 1;
  else if (!strcmp(o, "--overwrite")) a->overwrite = 1;
  else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) a->quiet = 1;
  else return 0;
  return 1;
}

static void ensemble_usage(FILE *f) {
  fprintf(f,
          "usage: agglo ensemble [SCENARIO.ini] [-s section.key=value]... [--seeds LIST]\n"
          "                      [--vary section.key=v1,v2,...]... [-o DIR] [--jobs J]\n"
          "                      [--threads T] [--outputs LIST] [--resume | --overwrite]\n"
          "                      [--quiet]\n"
          "       mpirun -np K agglo ensemble ...   (members handed out to K ranks)\n\n"
          "Runs the scenario for every seed and every combination of the varied keys; each member\n"
          "writes its usual outputs into DIR/key=value/.../seed=S/.\n"
          "  SCENARIO.ini        INI scenario (none: the built-in default); -s overrides a key\n"
          "  --seeds LIST        seeds, e.g. 1-20 or 1,4,10-12 (default 1-10)\n"
          "  --vary key=v1,v2    vary a key (repeatable: the grid of all combinations); ';'\n"
          "                      separates values that hold commas: --vary box.size='1,1;2,2'\n"
          "  -o DIR              output directory (default: ensemble); one that holds an ensemble\n"
          "                      or a run's outputs is refused unless --resume or --overwrite;\n"
          "                      one that another agglo process holds is refused (its pid named)\n"
          "  --jobs J            J members at a time in forked processes (without mpirun)\n"
          "  --threads T         OpenMP threads of each member (results do not depend on it;\n"
          "                      default: all cores, or cores / J with --jobs J)\n"
          "  --outputs LIST      writers of each member: trajectory,stats,snapshots,state, all\n"
          "                      (default) or none\n"
          "  --resume            continue DIR: keep the finished members (those whose files are\n"
          "                      as their done marker lists them), run the others\n"
          "  --overwrite         replace what DIR holds: a run's outputs, an earlier ensemble's\n"
          "                      summary and members (files agglo did not write stay)\n"
          "  --quiet             no line per member\n\n"
          "DIR/ensemble.csv: per grid point and output time, mean, sd, se, min and max over the\n"
          "seeds of every stats.csv column; DIR/members.csv: each member's status, final\n"
          "indicators (time to one cluster, N_c, D_f, ...) and error. Exit status 1 when a member\n"
          "failed (the others still run). docs/ensembles.md has the details.\n");
}

int agglo_cli_ensemble(int argc, char **argv) {
  ens_args a = {.out = "ensemble", .jobs = 1};
  a.over = calloc((size_t)argc + 1, sizeof *a.over);
  a.vary = calloc((size_t)argc + 1, sizeof *a.vary);
  int rc = 2;
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i];
    int c = common_option("ensemble", argc, argv, &i, &a);
    if (c < 0) goto out;
    if (c) continue;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      ensemble_usage(stdout);
      rc = 0;
      goto out;
    } else if (!strcmp(o, "--seeds") && i + 1 < argc) {
      a.seeds = argv[++i];
    } else if (!strcmp(o, "--vary") && i + 1 < argc) {
      a.vary[a.nvary++] = argv[++i];
    } else if (o[0] == '-' || a.file) {
      fprintf(stderr, "agglo ensemble: unexpected argument '%s' (see agglo ensemble --help)\n", o);
      goto out;
    } else {
      a.file = o;
    }
  }
  rc = run_ensemble("ensemble", &a, NULL, NULL, NULL);
out:
  free(a.over);
  free(a.vary);
  return rc;
}

/* ---- agglo compare ----------------------------------------------------------------------- */

static void compare_usage(FILE *f) {
  fprintf(f,
          "usage: agglo compare [SCENARIO.ini] [-s section.key=value]... [--seeds N]\n"
          "                     [--first-seed S] [--csv FILE] [--only ts|ed] [-o DIR]\n"
          "                     [--jobs J] [--threads T] [--outputs LIST]\n"
          "                     [--resume | --overwrite]\n\n"
          "Runs a ballistic scenario (run.model = ballistic) for seeds S .. S+N-1 (default 1..10)\n"
          "with ballistic.method = time_stepping and = event_driven, and prints the indicators of\n"
          "the final cluster side by side (mean and standard deviation over the seeds): relative\n"
          "contacts per sphere N_c, box-counting dimension D_f and its relative difference,\n"
          "aspect ratio A_r, P(r), time to one cluster, CPU time. --csv writes one row per run;\n"
          "--only runs one method (e.g. for timings at large N).\n"
          "It is `agglo ensemble --vary ballistic.method=time_stepping,event_driven` into DIR\n"
          "(default: compare; members.csv, each run's scenario.ini; --outputs none by default),\n"
          "so --jobs, --resume and mpirun work as for agglo ensemble.\n");
}

static int compare_check(const agglo_config *c, void *user) {
  (void)user;
  char model[32];
  if (agglo_config_get(c, "run.model", model, sizeof model) != AGGLO_OK || strcmp(model, "ballistic")) {
    fprintf(stderr, "agglo compare: run.model must be ballistic\n");
    return -1;
  }
  return 0;
}

static int compare_report(agglo_ensemble *e, void *user) {
  char *text;
  if (agglo_ensemble_compare_report(e, &text, user) != AGGLO_OK) {
    fprintf(stderr, "agglo compare: %s\n", agglo_last_error());
    return -1;
  }
  fputs(text, stdout);
  agglo_free(text);
  return 0;
}

int agglo_cli_compare(int argc, char **argv) {
  ens_args a = {.out = "compare", .jobs = 1, .outputs = "none", .quiet = 0};
  a.over = calloc((size_t)argc + 1, sizeof *a.over);
  const char *vary = "ballistic.method=time_stepping,event_driven", *csv = NULL;
  a.vary = &vary;
  a.nvary = 1;
  long seeds = 10, first = 1;
  int rc = 2;
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i];
    int more = i + 1 < argc;
    int c = common_option("compare", argc, argv, &i, &a);
    if (c < 0) goto out;
    if (c) continue;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      compare_usage(stdout);
      rc = 0;
      goto out;
    } else if (!strcmp(o, "--seeds") && more) {
      if (parse_long("compare", o, argv[++i], 1, 100000, &seeds)) goto out;
    } else if (!strcmp(o, "--first-seed") && more) {
      if (parse_long("compare", o, argv[++i], 0, 1000000000, &first)) goto out;
    } else if (!strcmp(o, "--only") && more) {
      i++;
      if (!strcmp(argv[i], "ts")) vary = "ballistic.method=time_stepping";
      else if (!strcmp(argv[i], "ed")) vary = "ballistic.method=event_driven";
      else {
        fprintf(stderr, "agglo compare: --only takes ts or ed\n");
        goto out;
      }
    } else if (!strcmp(o, "--csv") && more) {
      csv = argv[++i];
    } else if (o[0] == '-' || a.file) {
      fprintf(stderr, "agglo compare: unexpected argument '%s' (see agglo compare --help)\n", o);
      goto out;
    } else {
      a.file = o;
    }
  }
  char seedspec[64];
  snprintf(seedspec, sizeof seedspec, "%ld-%ld", first, first + seeds - 1);
  a.seeds = seedspec;
  rc = run_ensemble("compare", &a, compare_report, (void *)csv, compare_check);
out:
  free(a.over);
  return rc;
}

/* ---- agglo plot: ensemble means with error bands (gnuplot) -------------------------------- */

static void plot_usage(FILE *f) {
  fprintf(f,
          "usage: agglo plot RUN_DIR [-o DIR] [--kernel K [--df D] [--kmax K] [--window T0,T1]]\n"
          "       agglo plot DIR [-y COLUMN]... [--x KEY] [--band sd|se] [-o FILE.png]\n\n"
          "A run's RUN_DIR/stats.csv (agglo run): every column against time, one PNG per\n"
          "quantity (clusters, cluster sizes, kinetic energy, DPD temperature, solver iterations,\n"
          "fractal dimensions, structure, R_g, the model's columns) into DIR (default RUN_DIR),\n"
          "with the gnuplot script plots_run.gp beside them. --kernel K (constant, additive,\n"
          "ballistic, brownian) adds kinetics.png: the mean cluster size against Smoluchowski's\n"
          "solution for K (clusters of radius ~ size^(1/D), D = --df, default the space\n"
          "dimension; sizes up to --kmax, default 512), its time scale fitted, and the growth\n"
          "exponent z of S ~ t^z over --window (default: mean size >= 2 and >= 10 clusters);\n"
          "the numbers are printed (docs/analysis.md, \"Kinetics\").\n\n"
          "Plots an ensemble's DIR/ensemble.csv (agglo ensemble) with gnuplot:\n"
          "  without --x   each COLUMN's mean against time, one line per grid point, with a band\n"
          "                of +- one sd (or se)\n"
          "  --x KEY       each COLUMN's mean at the last output time against the varied key KEY\n"
          "                (one line per value of the other varied keys), error bars of one se\n"
          "                (or sd)\n"
          "  -y COLUMN     a stats.csv column (default n_clusters; repeatable: one plot each)\n"
          "  -o FILE.png   the picture (default DIR/plot_COLUMN[_KEY].png; one COLUMN only)\n"
          "The data and the script stay beside it (.dat, .gp) to restyle.\n");
}

/* Split one CSV line (quotes allowed) in place. */
static int csv_split(char *line, char **f, int max) {
  int n = 0;
  char *p = line;
  line[strcspn(line, "\r\n")] = 0;
  while (n < max) {
    if (*p == '"') {
      char *w = ++p;
      f[n++] = w;
      while (*p && !(*p == '"' && p[1] != '"')) {
        if (*p == '"') p++;
        *w++ = *p++;
      }
      if (*p) p++;
      *w = 0;
    } else {
      f[n++] = p;
      p += strcspn(p, ",");
    }
    if (*p != ',') break;
    *p++ = 0;
  }
  return n;
}

enum { PLOT_MAX_COLS = 2048 };

static int plot_one(const char *dir, const char *col, const char *xkey, int band_se,
                    const char *png_in) {
  char path[4096], dat[4200], gp[4200], png[4200];
  snprintf(path, sizeof path, "%s/ensemble.csv", dir);
  if (access(path, F_OK) != 0) {
    fprintf(stderr, "agglo plot: %s: cannot read (run agglo ensemble first)\n", path);
    return 1;
  }
  FILE *f = agglo_cli_csv_open(path);
  if (!f) return 1;
  enum { LINE = 65536 };
  char *line = malloc(LINE), *hdr = malloc(LINE), *fl[PLOT_MAX_COLS], *fh[PLOT_MAX_COLS];
  long lineno = 1;
  int got = line && hdr ? agglo_cli_csv_line(f, hdr, LINE, path, lineno) : -1;
  if (got <= 0) {
    if (got == 0) fprintf(stderr, "agglo plot: %s: empty\n", path);
    else if (!line || !hdr) fprintf(stderr, "agglo plot: out of memory\n");
    free(line);
    free(hdr);
    fclose(f);
    return 1;
  }
  int nh = csv_split(hdr, fh, PLOT_MAX_COLS), nkeys = 0, ct = -1, cm = -1, cb = -1, cx = -1;
  while (nkeys < nh && strcmp(fh[nkeys], "output_time")) nkeys++;
  char want[300];
  for (int k = 0; k < nh; k++) {
    if (!strcmp(fh[k], "output_time")) ct = k;
    snprintf(want, sizeof want, "%s_mean", col);
    if (!strcmp(fh[k], want)) cm = k;
    snprintf(want, sizeof want, "%s_%s", col, band_se ? "se" : "sd");
    if (!strcmp(fh[k], want)) cb = k;
    if (xkey && k < nkeys && !strcmp(fh[k], xkey)) cx = k;
  }
  int stats = 0; /* any statistics at all: none when no member finished */
  for (int k = 0; k < nh; k++) {
    size_t l = strlen(fh[k]);
    stats |= l > 5 && !strcmp(fh[k] + l - 5, "_mean");
  }
  if (!stats) {
    fprintf(stderr, "agglo plot: %s: no member finished (every one failed or did not run), so %s "
            "holds no statistics to plot; %s/members.csv says why\n", dir, path, dir);
    free(line);
    free(hdr);
    fclose(f);
    return 1;
  }
  if (ct < 0 || cm < 0 || cb < 0 || (xkey && cx < 0)) {
    fprintf(stderr, "agglo plot: %s: no %s%s%s in %s (columns: the stats.csv names; keys: the "
            "varied ones)\n", dir, cm < 0 ? "column " : "key ", cm < 0 ? col : xkey ? xkey : "",
            "", path);
    free(line);
    free(hdr);
    fclose(f);
    return 1;
  }
  snprintf(png, sizeof png, "%s/plot_%s%s%s.png", dir, col, xkey ? "_" : "", xkey ? xkey : "");
  if (png_in) snprintf(png, sizeof png, "%s", png_in);
  snprintf(dat, sizeof dat, "%.4000s.dat", png);
  snprintf(gp, sizeof gp, "%.4000s.gp", png);
  FILE *d = fopen(dat, "w");
  if (!d) {
    fprintf(stderr, "agglo plot: %s: cannot write\n", dat);
    free(line);
    free(hdr);
    fclose(f);
    return 1;
  }
  /* one gnuplot data block (separated by two blank lines) per line of the plot: a grid point
     (against time) or a value of the other keys (against KEY, the last output time of each
     point) */
  char group[4096] = "", prev[4096] = "";
  char *titles[4096];
  int ngroups = 0, npts = 0;
  static struct { char *point, *group, *row; } pts[4096];
  while ((got = agglo_cli_csv_line(f, line, LINE, path, ++lineno)) > 0) {
    int n = csv_split(line, fl, PLOT_MAX_COLS);
    if (n <= cm || n <= cb) continue;
    size_t used = 0;
    group[0] = 0;
    for (int k = 0; k < nkeys; k++)
      if (k != cx) used += (size_t)snprintf(group + used, sizeof group - used > used ? sizeof group - used : 0,
                                            "%s%s=%s", used ? " " : "", fh[k], fl[k]);
    if (!xkey) {
      if (!ngroups || strcmp(group, prev)) {
        if (ngroups) fputs("\n\n", d);
        if (ngroups < 4096) titles[ngroups] = strdup(*group ? group : "all seeds");
        ngroups++;
        snprintf(prev, sizeof prev, "%s", group);
      }
      fprintf(d, "%s %s %s\n", fl[ct], *fl[cm] ? fl[cm] : "NaN", *fl[cb] ? fl[cb] : "0");
    } else {
      /* the last row of each point (its last output time), grouped by the other keys below */
      char point[4096];
      used = 0;
      point[0] = 0;
      for (int k = 0; k < nkeys; k++)
        used += (size_t)snprintf(point + used, sizeof point - used > used ? sizeof point - used : 0, "%s,", fl[k]);
      char row[512];
      snprintf(row, sizeof row, "%s %s %s", fl[cx], *fl[cm] ? fl[cm] : "NaN", *fl[cb] ? fl[cb] : "0");
      if (npts && !strcmp(pts[npts - 1].point, point)) {
        free(pts[npts - 1].row);
        pts[npts - 1].row = strdup(row);
      } else if (npts < 4096) {
        pts[npts].point = strdup(point);
        pts[npts].group = strdup(*group ? group : "all seeds");
        pts[npts].row = strdup(row);
        npts++;
      }
    }
  }
  if (xkey) {
    for (int a = 0; a < npts; a++) {
      int first = 1;
      for (int b = 0; b < a && first; b++) first = strcmp(pts[a].group, pts[b].group) != 0;
      if (!first) continue;
      if (ngroups) fputs("\n\n", d);
      titles[ngroups++] = strdup(pts[a].group);
      for (int b = a; b < npts; b++)
        if (!strcmp(pts[a].group, pts[b].group)) fprintf(d, "%s\n", pts[b].row);
    }
    for (int a = 0; a < npts; a++) {
      free(pts[a].point);
      free(pts[a].group);
      free(pts[a].row);
    }
  }
  free(line);
  free(hdr);
  fclose(f);
  fclose(d);
  if (got < 0) return 1;
  FILE *g = fopen(gp, "w");
  if (!g) {
    fprintf(stderr, "agglo plot: %s: cannot write\n", gp);
    for (int k = 0; k < ngroups; k++) free(titles[k]);
    return 1;
  }
  /* every name from the user or the files as a quoted gnuplot string */
  const char *who = "agglo plot";
  char ylabel[600];
  snprintf(ylabel, sizeof ylabel, "%s (mean, %s of one %s)", col, xkey ? "error bars" : "band",
           band_se ? "se" : "sd");
  fputs("set terminal pngcairo size 900,600 noenhanced\nset output ", g);
  int bad = agglo_cli_gp_string(g, png, who);
  fputs("\nset grid\nset key outside right\nset xlabel ", g);
  bad |= agglo_cli_gp_string(g, xkey ? xkey : "time", who);
  fputs("\nset ylabel ", g);
  bad |= agglo_cli_gp_string(g, ylabel, who);
  fputs("\nplot ", g);
  for (int k = 0; k < ngroups && k < 4096; k++) {
    fputs(k ? ", " : "", g);
    bad |= agglo_cli_gp_string(g, dat, who);
    if (!xkey)
      fprintf(g, " index %d using 1:($2-$3):($2+$3) with filledcurves fs transparent solid 0.2 "
              "lc %d notitle, '' index %d using 1:2 with lines lw 2 lc %d title ", k, k + 1, k, k + 1);
    else
      fprintf(g, " index %d using 1:2:3 with yerrorlines lw 2 lc %d title ", k, k + 1);
    bad |= agglo_cli_gp_string(g, titles[k], who);
    free(titles[k]);
  }
  fputc('\n', g);
  int werr = ferror(g);
  if (fclose(g) != 0 || werr) {
    fprintf(stderr, "agglo plot: %s: write failed\n", gp);
    return 1;
  }
  if (bad) return 1;
  char log[4300];
  snprintf(log, sizeof log, "%s.log", png);
  if (agglo_cli_gnuplot(who, NULL, gp, log, 0) != 0) return 1;
  fprintf(stderr, "agglo plot: %s\n", png);
  return 0;
}

int agglo_cli_plot(int argc, char **argv) {
  for (int i = 0; i < argc; i++) /* directories as given, less their trailing slashes */
    if (argv[i][0] != '-') agglo_cli_dir_name(argv[i]);
  for (int i = 0; i < argc; i++) /* a run's directory (stats.csv, no ensemble.csv): its plots */
    if (argv[i][0] != '-' && (i == 0 || strcmp(argv[i - 1], "-o")) && agglo_cli_is_run_dir(argv[i]))
      return agglo_cli_plot_run(argc, argv);
  const char *dir = NULL, *xkey = NULL, *png = NULL, *cols[64];
  int ncols = 0, se = -1;
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      plot_usage(stdout);
      return 0;
    } else if (!strcmp(o, "-y") && more && ncols < 64) {
      cols[ncols++] = argv[++i];
    } else if (!strcmp(o, "--x") && more) {
      xkey = argv[++i];
    } else if (!strcmp(o, "-o") && more) {
      png = argv[++i];
    } else if (!strcmp(o, "--band") && more) {
      i++;
      se = !strcmp(argv[i], "se") ? 1 : !strcmp(argv[i], "sd") ? 0 : -2;
      if (se == -2) {
        fprintf(stderr, "agglo plot: --band takes sd or se\n");
        return 2;
      }
    } else if (o[0] == '-' || dir) {
      fprintf(stderr, "agglo plot: unexpected argument '%s' (see agglo plot --help)\n", o);
      return 2;
    } else {
      dir = o;
    }
  }
  if (!dir) {
    plot_usage(stderr);
    return 2;
  }
  if (!ncols) cols[ncols++] = "n_clusters";
  if (png && ncols > 1) {
    fprintf(stderr, "agglo plot: -o names one picture: give one -y\n");
    return 2;
  }
  if (se < 0) se = xkey != NULL;
  int rc = 0;
  for (int k = 0; k < ncols; k++) rc |= plot_one(dir, cols[k], xkey, se, png);
  return rc;
}
