/* agglo command line: parses arguments and hands over to the library. No physics here. */
#include "agglo/agglo.h"
#include "agglo/analysis.h"
#include "aggregate_cli.h"
#include "ensemble_cli.h"
#include "analyze_cli.h"
#include "paths.h"
#include "examples.h"
#include "picture_cli.h"
#include "wall_clock.h"
#ifdef AGGLO_HAVE_MPI
#include "agglo/parallel.h"
#include "run_mpi.h"
#include "integer_option.h"
#endif
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
  fprintf(f,
          "agglo %s: direct simulation of particle aggregation\n\n"
          "usage:\n"
          "  agglo run [SCENARIO.ini] [options]   run a scenario (none: the built-in default)\n"
          "  agglo analyze FILE [options]         cluster statistics, fractal dimensions, plots\n"
          "                                       (FILE: trajectory.xyz or trajectory.h5md)\n"
          "  agglo convert IN OUT [--radius R]    trajectory between extended XYZ and H5MD (by the\n"
          "               [--overwrite]           extension of OUT: .h5md or .h5, else XYZ)\n"
          "  agglo list [keys]                    models, flows, example scenarios [scenario keys]\n"
          "  agglo ensemble [SCENARIO.ini] [opts] seeds x varied keys (--jobs J, or under mpirun)\n"
          "  agglo plot DIR [opts]                a run's stats.csv against time, or an ensemble's\n"
          "                                       means with error bands (gnuplot)\n"
          "  agglo render TRAJ [opts]             pictures of trajectory frames ([picture] keys)\n"
          "  agglo movie TRAJ [-o movie.mp4]      every frame drawn, encoded by ffmpeg\n"
          "  agglo compare [SCENARIO.ini] [opts]  ballistic: time stepping vs event driven over seeds\n"
          "  agglo agglomerates FILE.xyz [opts]   DPD agglomerate report: ellipsoids by shape class\n"
          "  agglo aggregate [opts]               aggregates of prescribed fractal dimension and\n"
          "                                       prefactor (tunable PC / CC), as starts for a run\n"
          "  agglo --help | agglo run --help      this text; every scenario key\n"
          "  agglo --version\n",
          agglo_version());
}

/* Every scenario key (agglo_config_keys_text) on f: 0, or 1 with the message. */
static int print_keys(FILE *f, int markdown) {
  char *text;
  if (agglo_config_keys_text(markdown, &text) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return 1;
  }
  fputs(text, f);
  agglo_free(text);
  return 0;
}

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: agglo run [SCENARIO.ini] [-s section.key=value]... [-o DIR] [--seed N]\n"
          "                 [--threads N] [--restart DIR | --resume DIR] [--overwrite] [--quiet]\n"
          "                 [--check]\n\n"
          "  SCENARIO.ini        INI scenario file; without it, the built-in default scenario\n"
          "                      (Maury's Brownian aggregation, 2D, N = 2000)\n"
          "  -s section.key=v    override one key (repeatable; applied after the file)\n"
          "  -o DIR              output directory (default: out); one that holds another run's\n"
          "                      outputs is refused (a restart may continue in its own DIR), and\n"
          "                      one that a run is writing is refused (its pid in DIR/agglo.lock)\n"
          "  --overwrite         delete the outputs of an earlier run in DIR first (files agglo\n"
          "                      did not write stay)\n"
          "  --seed N            same as -s run.seed=N\n"
          "  --threads N         OpenMP threads (results do not depend on it)\n"
          "  --restart DIR       continue the run saved in DIR (its scenario.ini, state.xyz and\n"
          "                      contacts.txt, or state.h5, checked against their seal); -s may\n"
          "                      change run.t_end, run.seed, the output, picture, solver,\n"
          "                      parallel and force keys, not those the state fixes (box,\n"
          "                      particles, model, run.dim, run.dt: docs/reliability.md)\n"
          "  --resume DIR        continue a killed run in place from its last restart point\n"
          "                      (written every output.checkpoint_minutes); afresh if it had none;\n"
          "                      (-o or --restart beside it: the same DIR or none)\n"
          "  --quiet             no progress bar and no summary\n"
          "  --check             check the scenario (every key and their consistency) and exit\n\n"
          "exit status: 0 done; 2 refused before the run (the message names the key, file or\n"
          "value); 1 failed: a non-finite state, an error writing, a solver stopped at its cap in\n"
          "more than 5%% of the steps (whatever solver.on_failure), or an overlap beyond ten\n"
          "solver tolerances left at the end (the last good step's outputs and state are kept);\n"
          "130 or 143 on SIGINT or SIGTERM, within a second even inside a step (the restart\n"
          "point written; --resume runs a step given up again) (docs/reliability.md)\n\n"
          "mpirun -np K agglo run ... (model = dpd or contact): one run split into K bricks of\n"
          "the box (parallel.grid, else chosen), ghosts exchanged and particles migrating at\n"
          "every step (contact: components crossing ranks solved together by the ranks, or\n"
          "on rank 0 when small: parallel.crossing; dpd.shear_rate: bricks 1 x py x pz, x\n"
          "never cut, ghosts across the y faces as Lees-Edwards images);\n"
          "the same outputs, gathered in id order, plus parallel.csv (docs/parallel.md)\n\n"
          "outputs in DIR: trajectory.xyz (extended XYZ; output.format = h5md: trajectory.h5md\n"
          "and trajectory.xdmf for ParaView), stats.csv, sizes.csv, snapshot_STEP.png,\n"
          "scenario.ini (resolved settings), state.xyz + contacts.txt (restart point)\n\n"
          "scenario keys (section, key = default, meaning, allowed values):\n");
  print_keys(f, 0);
}

/* ---- agglo run: a client of the library's stepping API --------------------------------- */

static volatile sig_atomic_t stop_signal = 0;
static agglo_sim *volatile running = NULL; /* the simulation a signal stops */
/* A signal asks the library to stop: at the end of the step, or inside a long one (given up). */
static void on_signal(int sig) {
  stop_signal = sig;
  if (running) agglo_sim_request_stop(running);
}

typedef struct {
  double t0, last_draw, t_end;
  int progress, drew;
} run_view;

static void draw_progress(agglo_sim *sim, run_view *v, int end) {
  agglo_sim_report r;
  agglo_sim_get_report(sim, &r);
  double frac = v->t_end > 0 ? r.time / v->t_end : 1;
  if (frac > 1) frac = 1;
  double el = agglo_cli_wall_seconds() - v->t0, eta = frac > 0 ? el * (1 - frac) / frac : 0;
  char bar[31];
  int filled = (int)(30 * frac);
  for (int i = 0; i < 30; i++) bar[i] = i < filled ? '#' : '.';
  bar[30] = 0;
  fprintf(stderr, "\r[%s] %3.0f%%  t = %-9.4g step %-8lld clusters %-7zu elapsed %02d:%02d  ETA %02d:%02d ",
          bar, 100 * frac, r.time, (long long)r.step, r.n_clusters, (int)el / 60, (int)el % 60,
          (int)eta / 60, (int)eta % 60);
  if (end) fputc('\n', stderr);
  v->drew = 1;
}

/* Every step: a signal stops the run (the library then writes the last outputs and the state);
   the progress bar is redrawn every 0.2 s after the first second. */
static int on_step(agglo_sim *sim, void *user) {
  run_view *v = user;
  if (stop_signal) return 1;
  if (v->progress) {
    double t = agglo_cli_wall_seconds();
    if (t - v->last_draw > 0.2 && t - v->t0 > 1.0) {
      draw_progress(sim, v, 0);
      v->last_draw = t;
    }
  }
  return 0;
}

static void on_warning(const char *msg, void *user) {
  const run_view *v = user;
  fprintf(stderr, "%sagglo: warning: %s\n", v->drew ? "\n" : "", msg);
}

/* The closing line's list: the files of a run that are in its output directory once it ends
   (what the settings and a restart chose, nothing that is not there). */
static void written_files(const char *dir, char *out, size_t len) {
  static const char *names[] = {"trajectory.xyz", "trajectory.h5md", "trajectory.xdmf", "stats.csv",
                                "sizes.csv", "snapshot_*.png", "state.xyz", "contacts.txt",
                                "state.h5", "scenario.ini", "parallel.csv"};
  size_t used = 0;
  out[0] = 0;
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char path[4200];
    int there = 0;
    if (!strcmp(names[k], "snapshot_*.png")) {
      DIR *d = opendir(dir);
      for (struct dirent *e; d && !there && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        there = !strncmp(e->d_name, "snapshot_", 9) && l > 13 && !strcmp(e->d_name + l - 4, ".png");
      }
      if (d) closedir(d);
    } else {
      snprintf(path, sizeof path, "%s/%s", dir, names[k]);
      there = access(path, F_OK) == 0;
    }
    if (there && used < len)
      used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", names[k]);
  }
}

typedef agglo_status (*runner_fn)(agglo_sim *sim, const agglo_config *cfg);
static agglo_status run_here(agglo_sim *sim, const agglo_config *cfg) {
  (void)cfg;
  return agglo_sim_run(sim);
}

static int run_to_end(agglo_sim *sim, const agglo_config *cfg, const char *out, int quiet,
                      runner_fn runner) {
  run_view v = {.t0 = agglo_cli_wall_seconds(), .progress = !quiet && isatty(2)};
  v.last_draw = v.t0;
  agglo_sim_report r;
  agglo_sim_get_report(sim, &r);
  char buf[64];
  if (agglo_config_get(cfg, "run.t_end", buf, sizeof buf) == AGGLO_OK) v.t_end = atof(buf);
  if (!quiet && r.end_step < 0)
    fprintf(stderr, "agglo: %s model, %zu particles in %dD, variable step, output in %s/\n",
            agglo_sim_model(sim), agglo_sim_count(sim), agglo_sim_dim(sim), out);
  else if (!quiet)
    fprintf(stderr, "agglo: %s model, %zu particles in %dD, %lld steps of %g, output in %s/\n",
            agglo_sim_model(sim), agglo_sim_count(sim), agglo_sim_dim(sim),
            (long long)(r.end_step - r.step), agglo_sim_dt(sim), out);
  agglo_sim_set_log(sim, on_warning, &v); /* warnings even when quiet */
  agglo_sim_set_callback(sim, 1, on_step, &v);
  stop_signal = 0;
  running = sim;
  void (*old_int)(int) = signal(SIGINT, on_signal);
  void (*old_term)(int) = signal(SIGTERM, on_signal);
  agglo_status st = runner(sim, cfg);
  signal(SIGINT, old_int);
  signal(SIGTERM, old_term);
  running = NULL;
  if (st == AGGLO_OK || st == AGGLO_STOPPED) { /* the run ends: its last outputs and state */
    agglo_status c = agglo_sim_close_outputs(sim);
    if (c != AGGLO_OK) st = c;
  }
  if (v.drew) draw_progress(sim, &v, 1);
  agglo_sim_get_report(sim, &r);
  if (st == AGGLO_STOPPED) {
    fprintf(stderr, "agglo: stopped by signal %d at step %lld (t = %g); state saved%s\n",
            (int)stop_signal, (long long)r.step, r.time,
            strstr(agglo_last_error(), "given up") ? " (the step after it was given up: --resume "
                                                     "runs it again)" : "");
    return 128 + (int)stop_signal; /* the shell convention: 130 for Ctrl-C, 143 for SIGTERM */
  }
  if (st != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    /* a refusal at the start (an MPI brick grid, a restart point's writer not added again) is
       bad input, as the refusals before the simulation is made */
    return st == AGGLO_ERROR_INPUT ? 2 : 1;
  }
  if (!quiet) {
    char files[512];
    written_files(out, files, sizeof files);
    fprintf(stderr, "agglo: done in %.1f s: t = %g, %zu clusters (largest %zu). Results in %s/: %s\n",
            agglo_cli_wall_seconds() - v.t0, r.time, r.n_clusters, r.max_cluster_size, out, files);
  }
  return 0;
}

/* The end-of-run temperature check of a DPD run (docs/dpd.md): the last stats.csv row's
   temperature_mean_last_half (the model's mean kT over the steps of the second half of the run,
   agglo_dpd_temperature_report) against dpd.kT; a departure beyond the run's statistical band (3
   standard errors, at least 1 %) is reported on stderr. */
/* The rank count of a run, in DIR/mpi_ranks.txt (none: one rank, or serial, which writes the same
   bytes): --resume on another count continues with sums in another order, so its files are not
   the uninterrupted run's bytes (docs/parallel.md); it says so rather than let it pass. */
static void note_ranks(const char *dir, int ranks, int resuming) {
  char path[4200];
  snprintf(path, sizeof path, "%s/mpi_ranks.txt", dir);
  if (resuming) {
    FILE *f = fopen(path, "r");
    int made = 1;
    if (f) {
      if (fscanf(f, "%9d", &made) != 1 || made < 1) made = 1;
      fclose(f);
    }
    if (made != ranks)
      fprintf(stderr, "agglo: warning: --resume on %d MPI rank%s continues a run made on %d: from "
              "its restart point on the files are not the bytes of the uninterrupted run (the sums "
              "run in another order; docs/parallel.md); resume on %d rank%s for those\n", ranks,
              ranks == 1 ? "" : "s", made, made, made == 1 ? "" : "s");
    return;
  }
  if (ranks <= 1) return; /* a fresh run: the directory was cleared of an earlier one's file */
  FILE *f = fopen(path, "w");
  if (f) fprintf(f, "%d\n", ranks), fclose(f);
}

/* The directory a refused run made, with the files it wrote there (plain files only: it held
   the directory, nothing else wrote in it). */
static void remove_fresh(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4400];
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

static int cmd_run(int argc, char **argv) {
  const char *file = NULL, *out = "out", *restart = NULL;
  int quiet = 0, threads = 0, check_only = 0, resume = 0, overwrite = 0;
  const char *o_dir = NULL, *restart_dir = NULL, *resume_dir = NULL; /* as given */
  const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
  char **owned = calloc((size_t)argc + 1, sizeof *owned); /* --seed N as run.seed=N */
  int nover = 0, nowned = 0, bad = 0;
  enum { OPT_SEED = 256, OPT_THREADS, OPT_RESTART, OPT_RESUME, OPT_CHECK, OPT_OVERWRITE };
  static const struct option opts[] = {
      {"help", no_argument, 0, 'h'},          {"quiet", no_argument, 0, 'q'},
      {"seed", required_argument, 0, OPT_SEED}, {"threads", required_argument, 0, OPT_THREADS},
      {"restart", required_argument, 0, OPT_RESTART}, {"resume", required_argument, 0, OPT_RESUME},
      {"check", no_argument, 0, OPT_CHECK},   {"overwrite", no_argument, 0, OPT_OVERWRITE},
      {0, 0, 0, 0}};
  optind = 0; /* a fresh scan of argv[1 ..); argv[0] is the command's name */
  opterr = 0;
  for (int o; !bad && (o = getopt_long(argc, argv, ":hqs:o:", opts, NULL)) != -1;) {
    switch (o) {
    case 'h': run_usage(stdout); free(overrides); free(owned); return 0;
    case 'q': quiet = 1; break;
    case 's': overrides[nover++] = optarg; break;
    case 'o': out = o_dir = agglo_cli_dir_name(optarg); break;
    case OPT_SEED:
      owned[nowned] = malloc(strlen(optarg) + 16);
      sprintf(owned[nowned], "run.seed=%s", optarg);
      overrides[nover++] = owned[nowned++];
      break;
    case OPT_THREADS: {
      long long t = 1;
      if (agglo_cli_integer("run", "--threads", optarg, 1, 1024, &t) != 0) bad = 1;
      threads = (int)t;
      break;
    }
    case OPT_RESTART: restart = restart_dir = agglo_cli_dir_name(optarg); break;
    case OPT_RESUME: restart = out = resume_dir = agglo_cli_dir_name(optarg), resume = 1; break;
    case OPT_CHECK: check_only = 1; break;
    case OPT_OVERWRITE: overwrite = 1; break;
    case ':':
      fprintf(stderr, "agglo run: option '%s' needs a value (see agglo run --help)\n", argv[optind - 1]);
      bad = 1;
      break;
    default:
      fprintf(stderr, "agglo run: unknown option '%s' (see agglo run --help)\n", argv[optind - 1]);
      bad = 1;
    }
  }
  /* (another directory beside --resume would silently override it, or it them, in the order
     given) */
  const char *other = !resume ? NULL
                      : restart_dir && strcmp(restart_dir, resume_dir) ? "--restart"
                      : o_dir && strcmp(o_dir, resume_dir)             ? "-o"
                                                                       : NULL;
  if (!bad && other) {
    fprintf(stderr, "agglo run: --resume %s continues %s in place: give it without %s %s (to "
            "continue a run into another directory: --restart DIR -o NEW)\n", resume_dir,
            resume_dir, other, other[1] == 'o' ? o_dir : restart_dir);
    bad = 1;
  }
  if (resume) restart = out = resume_dir;
  for (int i = optind; !bad && i < argc; i++) {
    if (!file) file = argv[i];
    else {
      fprintf(stderr, "agglo run: more than one scenario file ('%s' and '%s')\n", file, argv[i]);
      bad = 1;
    }
  }
  if (!bad && resume) { /* before the first restart point there is nothing to continue: start over */
    /* a restart point: state.xyz, state.h5 (output.checkpoint_format = hdf5), or state.xyz.new
       left complete by a kill between the pair's renames (contacts.txt.new gone; with it there,
       the kill came before the renames and the first pair is not there yet: src/io/checkpoint.c) */
    char path[4096], con_new[4096];
    snprintf(path, sizeof path, "%s/state.xyz", restart);
    int found = access(path, F_OK) == 0;
    snprintf(path, sizeof path, "%s/state.h5", restart);
    found = found || access(path, F_OK) == 0;
    snprintf(path, sizeof path, "%s/state.xyz.new", restart);
    snprintf(con_new, sizeof con_new, "%s/contacts.txt.new", restart);
    found = found || (access(path, F_OK) == 0 && access(con_new, F_OK) != 0);
    if (!found) restart = NULL;
    if (!restart) overwrite = 1; /* starting over: the killed run's partial outputs go */
    if (!restart && !file) {
      static char ini[4096];
      snprintf(ini, sizeof ini, "%s/scenario.ini", out);
      file = ini;
      if (access(ini, F_OK) != 0) { /* a run stopped before it wrote anything (even the directory) */
        fprintf(stderr, "agglo run: --resume %s: there is no restart point in %s (no %s%s): the run was "
                "stopped before it wrote one; start it again (agglo run SCENARIO -o %s)\n", out, out, ini,
                access(out, F_OK) != 0 ? ", not even the directory" : "", out);
        bad = 1;
      }
    }
  }
  if (!restart) file = agglo_cli_scenario("run", file, quiet);
  if (bad) {
    for (int i = 0; i < nowned; i++) free(owned[i]);
    free(owned);
    free(overrides);
    return 2;
  }
  agglo_config *cfg = agglo_config_new();
  int rc = 0, rank = 0, ranks = 1, mpi_started = 0, fresh = 0;
  char restart_ini[4096];
  agglo_sim *sim = NULL;
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
  if ((file ? agglo_config_load(cfg, file) : agglo_config_load_default(cfg)) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    rc = 2;
    goto out;
  }
  for (int i = 0; i < nover; i++)
    if (agglo_config_assign(cfg, overrides[i]) != AGGLO_OK) {
      fprintf(stderr, "agglo: %s\n", agglo_last_error());
      rc = 2;
      goto out;
    }
  if (agglo_config_check(cfg) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s: %s\n", file ? file : "(built-in default)", agglo_last_error());
    rc = 2;
    goto out;
  }
  if (check_only) {
    printf("%s: valid scenario\n", file ? file : "(built-in default)");
    goto out;
  }
  /* under mpirun a DPD or contact run is split into bricks over the ranks (docs/parallel.md): rank 0 makes
     the simulation and writes; the other ranks only step */
  runner_fn runner = run_here;
#ifdef AGGLO_HAVE_MPI
  char model[32] = "";
  agglo_config_get(cfg, "run.model", model, sizeof model);
  int parallel = agglo_cli_mpi_launched() && agglo_parallel_supported(cfg);
  if (agglo_cli_mpi_launched()) rank = agglo_cli_mpi_start(&ranks), mpi_started = 1;
  if (!parallel && ranks > 1) {
    if (rank == 0)
      fprintf(stderr, "agglo run: run.model = %s runs on one rank (domain decomposition is for "
              "model = dpd and contact); for many seeds use mpirun ... agglo ensemble\n", model);
    rc = 2;
    goto out;
  }
  if (parallel) runner = agglo_sim_run_parallel;
  if (parallel && rank != 0) { /* rank 0 makes the simulation; then every rank steps */
    agglo_set_threads(threads);
    signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_IGN); /* rank 0 stops the run, state saved */
    if (!agglo_cli_mpi_agree(0)) {
      rc = 2;
      goto out;
    }
    agglo_status pst = agglo_sim_run_parallel(NULL, cfg);
    /* a stop: rank 0's status (130, 143); a refusal at the start: 2, as rank 0's */
    rc = pst == AGGLO_OK || pst == AGGLO_STOPPED ? 0 : pst == AGGLO_ERROR_INPUT ? 2 : 1;
    goto out;
  }
#endif
  char *summary;
  if (!quiet && agglo_config_summary_text(cfg, &summary) == AGGLO_OK) {
    fputs(summary, stderr);
    agglo_free(summary);
  }
  agglo_set_threads(threads);
  fresh = access(out, F_OK) != 0; /* a directory this run makes: removed if it is refused */
  agglo_status st = restart ? agglo_sim_create_from_restart(cfg, restart, &sim)
                            : agglo_sim_create(cfg, &sim);
  if (st == AGGLO_OK)
    st = agglo_sim_attach_outputs(sim, out, AGGLO_OUTPUT_ALL | (overwrite ? AGGLO_OUTPUT_OVERWRITE : 0));
#ifdef AGGLO_HAVE_MPI
  if (runner != run_here) agglo_cli_mpi_agree(st == AGGLO_OK);
#endif
  if (st != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    rc = st == AGGLO_ERROR_INPUT ? 2 : 1; /* bad input (a restart point, particles.from): 2 */
    goto out;
  }
  if (!quiet && ranks > 1) fprintf(stderr, "agglo: %d MPI ranks (domain decomposition)\n", ranks);
  note_ranks(out, ranks, resume && restart);
  rc = run_to_end(sim, cfg, out, quiet, runner);
out:
  agglo_sim_destroy(sim);
  /* refused at the start after the outputs were attached (an MPI brick grid, a restart point's
     writer not added again): as every refusal, no output directory */
  if (rc == 2 && fresh && sim) remove_fresh(out);
  agglo_config_destroy(cfg);
  for (int i = 0; i < nowned; i++) free(owned[i]);
  free(owned);
  free(overrides);
#ifdef AGGLO_HAVE_MPI
  if (mpi_started) agglo_cli_mpi_end();
#endif
  return rc;
}

static void analyze_usage(FILE *f) {
  fprintf(f,
          "usage: agglo analyze FILE.xyz [--frame K | --all] [--contact-distance X] [-o DIR]\n"
          "                     [--json] [--plots] [--radius R] [--rdf [--rdf-max R] [--rdf-bins B]]\n"
          "                     [--msd] [--box-counting box|bounding] [--min-size S]\n"
          "                     [--mass-radius-fracval] [--overwrite]\n"
          "                     [--clusters largest|all] [--sq ...] [--mobility ...] [--optics ...]\n"
          "                     [--mstm FILE] [--ddscat FILE]\n\n"
          "  FILE                  trajectory: extended XYZ (agglo's, or any with pos and radius)\n"
          "                        or H5MD (trajectory.h5md)\n"
          "  --frame K             report frame K (1-based; default: the last)\n"
          "  --all                 indicators of every frame in analysis.csv\n"
          "  --contact-distance X  particles touch when their gap is below X (default 0.1 r)\n"
          "  -o DIR                output directory (default: analysis); one that holds an earlier\n"
          "                        analysis is refused unless --overwrite (which removes all of\n"
          "                        its files); the files appear together, when all are written\n"
          "  --json                print one JSON object instead of the summary\n"
          "  --plots               PNG plots (gnuplot): clusters against time, size\n"
          "                        distribution, box counting, R_g against size, P(r), and with\n"
          "                        --sq S(q) and I(q) (sq.png); implies --all\n"
          "  --radius R            radius of every particle when the file has no radius column\n"
          "  --box-counting G      grid of the box-counting dimension: box (default; Degond et\n"
          "                        al. 2024, 2^m cells per axis over the whole box) or bounding\n"
          "                        (over the smallest square/cube holding the largest cluster)\n"
          "  --min-size S          mass-radius fit over the clusters of S or more (default 3)\n"
          "  --mass-radius-fracval also the fit with the tunable aggregates' definitions (agglo\n"
          "                        aggregate's, FracVAL's): R_g weighted by r^3 over each cluster's\n"
          "                        geometric mean radius (docs/aggregates.md)\n"
          "  --rdf                 radial distribution function g(r) of the centres into rdf.csv,\n"
          "                        averaged over every frame (with --frame K: frame K only)\n"
          "  --rdf-max R           its range (default and at most: half the smallest box side)\n"
          "  --rdf-bins B          its bins (default 100)\n"
          "  --msd                 mean-square displacement against the lag time into msd.csv\n"
          "                        (every frame, every time origin; particles matched by id) and\n"
          "                        the diffusion coefficient of its linear part\n\n"
          "aggregates of the reported frame (docs/scattering.md; a = the monomers' volume-equivalent\n"
          "mean radius, lengths in the file's unit):\n"
          "  --clusters largest|all  which (default largest; all: S, I averaged per monomer, a\n"
          "                        mobility and an optics row per cluster)\n"
          "  --sq                  structure factor and intensity into sq.csv (q,S,I,S_error):\n"
          "                        Debye's pair sum (2D runs: J0), spheres' form factor in I;\n"
          "                        Guinier R_g, power-law slope and (3D) the Gaussian cut-off\n"
          "                        fit's D_f reported\n"
          "  --q-min Q --q-max Q   its range (default 0.05/R_g of the largest cluster .. 10/a)\n"
          "  --q-count N           log-spaced q values (2 .. 100000, default 200)\n"
          "  --sq-method M         auto (default: exact up to --sq-exact-pairs), exact or binned\n"
          "  --sq-tolerance T      binned: bound on the error of S at the largest q (default 1e-3)\n"
          "  --sq-exact-pairs P    auto: the exact sum up to P pairs (default 2e5; I of unequal\n"
          "                        radii: up to 2e8 pairs x q values)\n"
          "  --sq-max-pairs P      refuse clusters of more pairs (default 5e8, at most 1e11)\n"
          "  --sq-fit QLO,QHI      the power-law fit's q range (default 5/R_g .. 1/a)\n"
          "  --mobility            orientation-averaged projected area (Monte Carlo, standard error)\n"
          "                        and mobility diameters (the dlca model's law) into mobility.csv\n"
          "  --orientations K      its orientations (1 .. 1e7, default 200; K x monomers <= 1e10)\n"
          "  --rays M              rays per orientation (1 .. 1e8, default 4000; K x M <= 1e10)\n"
          "  --seed S              its random numbers (default 0)\n"
          "  --knudsen KN          also the mobility diameter at mean free path KN a\n"
          "  --mobility-df D       D_fm of R_m = a N^(1/D_fm) (default 1.8, 1.45 in 2D)\n"
          "  --area-exponent G     gamma of the law's R_p = a N^(G/2) (default 0.92)\n"
          "  --mobility-law L      adjusted_sphere (default) or sphere (dlca.mobility)\n"
          "  --optics              RDG-FA cross-sections into optics.csv (needs --wavelength, --index)\n"
          "  --wavelength L        the light's wavelength\n"
          "  --index RE,IM         the monomers' refractive index m = RE + i IM\n"
          "  --optics-structure S  debye (the aggregate's own S(q), default), fisher_burford,\n"
          "                        exponential or gaussian (cut-off models S(q R_g) of --optics-df\n"
          "                        D, default 1.8)\n"
          "  --angles M            Gauss-Legendre points per panel of the angle integral (default 64)\n"
          "  --mstm FILE           MSTM input file of the largest cluster (needs --wavelength, --index)\n"
          "  --ddscat FILE         DDSCAT shape file (FROM_FILE) of the largest cluster\n"
          "  --dipole-spacing D    its lattice spacing (default a/5)\n"
          "  --max-dipoles N       its bound (1 .. 1e9, default 1e7)\n\n"
          "writes DIR/analysis.csv (one row per analysed frame) and DIR/clusters.csv (one row per\n"
          "cluster of the reported frame), and as asked sq.csv, mobility.csv, optics.csv;\n"
          "definitions in docs/analysis.md and docs/scattering.md\n\n"
          "SIGINT or SIGTERM ends it within a second (status 130 or 143), no file of it written\n");
}

/* SIGINT, SIGTERM during agglo analyze: the library gives the analysis up within a fraction of a
   second (agglo_analysis_request_stop). */
static volatile sig_atomic_t analyze_signal = 0;
static void on_analyze_signal(int sig) {
  analyze_signal = sig;
  agglo_analysis_request_stop(1);
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

/* Two numbers A,B (a range, a complex number): any finite values; the caller checks them. */
static int parse_pair(const char *opt, const char *text, double *a, double *b) {
  char *end;
  *a = strtod(text, &end);
  if (end != text && *end == ',') {
    const char *t = end + 1;
    *b = strtod(t, &end);
    if (end != t && !*end && isfinite(*a) && isfinite(*b)) return 0;
  }
  fprintf(stderr, "agglo analyze: %s %s: expected two numbers A,B\n", opt, text);
  return -1;
}

static int parse_choice(const char *opt, const char *text, const char *const *names, int n, int *out) {
  for (int k = 0; k < n; k++)
    if (!strcmp(text, names[k])) {
      *out = k;
      return 0;
    }
  fprintf(stderr, "agglo analyze: %s %s: expected", opt, text);
  for (int k = 0; k < n; k++) fprintf(stderr, "%s %s", k ? (k == n - 1 ? " or" : ",") : "", names[k]);
  fprintf(stderr, "\n");
  return -1;
}

/* The options of the aggregates' outputs (docs/scattering.md): 1 taken (i advanced), 0 not
   this option, -1 refused (the message printed). */
static int aggregate_option(agglo_analyze_options *o, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  int more = *i + 1 < argc;
  const char *v = more ? argv[*i + 1] : NULL;
  long long k;
  int c;
  static const char *const clusters[] = {"largest", "all"}, *const methods[] = {"auto", "exact", "binned"};
  static const char *const laws[] = {"adjusted_sphere", "sphere"};
  static const char *const structures[] = {"debye", "fisher_burford", "exponential", "gaussian"};
  if (!strcmp(a, "--sq")) return o->sq = 1;
  if (!strcmp(a, "--mobility")) return o->mobility = 1;
  if (!strcmp(a, "--optics")) return o->optics = 1;
  if (!more) return 0;
  int rc = 1;
  if (!strcmp(a, "--clusters")) rc = parse_choice(a, v, clusters, 2, &o->clusters_all) ? -1 : 1;
  else if (!strcmp(a, "--q-min")) rc = parse_double(a, v, &o->q_min) ? -1 : 1;
  else if (!strcmp(a, "--q-max")) rc = parse_double(a, v, &o->q_max) ? -1 : 1;
  else if (!strcmp(a, "--q-count")) {
    rc = agglo_cli_integer("analyze", a, v, 2, AGGLO_SQ_MAX_Q, &k) ? -1 : 1;
    o->q_count = (int)k;
  } else if (!strcmp(a, "--sq-method")) {
    rc = parse_choice(a, v, methods, 3, &c) ? -1 : 1;
    o->sq_options.method = c;
  } else if (!strcmp(a, "--sq-tolerance")) rc = parse_double(a, v, &o->sq_options.tolerance) ? -1 : 1;
  else if (!strcmp(a, "--sq-exact-pairs")) {
    rc = agglo_cli_integer("analyze", a, v, 1, 100000000000LL, &k) ? -1 : 1;
    o->sq_options.exact_pairs = (double)k;
  } else if (!strcmp(a, "--sq-max-pairs")) {
    rc = agglo_cli_integer("analyze", a, v, 1, 100000000000LL, &k) ? -1 : 1;
    o->sq_options.max_pairs = (double)k;
  } else if (!strcmp(a, "--sq-fit")) rc = parse_pair(a, v, &o->fit_q_min, &o->fit_q_max) ? -1 : 1;
  else if (!strcmp(a, "--orientations")) {
    rc = agglo_cli_integer("analyze", a, v, 1, 10000000, &k) ? -1 : 1;
    o->orientations = k;
  } else if (!strcmp(a, "--rays")) {
    rc = agglo_cli_integer("analyze", a, v, 1, 100000000, &k) ? -1 : 1;
    o->rays = k;
  } else if (!strcmp(a, "--seed")) {
    rc = agglo_cli_integer("analyze", a, v, 0, INT64_MAX, &k) ? -1 : 1;
    o->seed = (uint64_t)k;
  } else if (!strcmp(a, "--knudsen")) rc = parse_double(a, v, &o->knudsen) ? -1 : 1;
  else if (!strcmp(a, "--mobility-df")) rc = parse_double(a, v, &o->mobility_df) ? -1 : 1;
  else if (!strcmp(a, "--area-exponent")) rc = parse_double(a, v, &o->area_exponent) ? -1 : 1;
  else if (!strcmp(a, "--mobility-law")) rc = parse_choice(a, v, laws, 2, &o->mobility_law) ? -1 : 1;
  else if (!strcmp(a, "--wavelength")) rc = parse_double(a, v, &o->wavelength) ? -1 : 1;
  else if (!strcmp(a, "--index")) rc = parse_pair(a, v, &o->m_re, &o->m_im) ? -1 : 1;
  else if (!strcmp(a, "--optics-structure")) {
    rc = parse_choice(a, v, structures, 4, &c) ? -1 : 1;
    o->optics_options.structure = c;
  } else if (!strcmp(a, "--optics-df")) rc = parse_double(a, v, &o->optics_options.df) ? -1 : 1;
  else if (!strcmp(a, "--angles")) {
    rc = agglo_cli_integer("analyze", a, v, 1, AGGLO_OPTICS_MAX_ANGLES, &k) ? -1 : 1;
    o->optics_options.angles = (int)k;
  } else if (!strcmp(a, "--mstm")) o->mstm = v;
  else if (!strcmp(a, "--ddscat")) o->ddscat = v;
  else if (!strcmp(a, "--dipole-spacing")) rc = parse_double(a, v, &o->dipole_spacing) ? -1 : 1;
  else if (!strcmp(a, "--max-dipoles")) {
    rc = agglo_cli_integer("analyze", a, v, 1, 1000000000, &k) ? -1 : 1;
    o->max_dipoles = k;
  } else return 0;
  (*i)++;
  return rc;
}

static int cmd_analyze(int argc, char **argv) {
  agglo_analyze_options o = {.out_dir = "analysis"};
  int json = 0, plots = 0, taken;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      analyze_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--frame") && more) {
      long long k;
      if (agglo_cli_integer("analyze", a, argv[++i], 1, 100000000, &k) != 0) return 2;
      o.frame = (int)k;
    } else if (!strcmp(a, "--all")) {
      o.all = 1;
    } else if (!strcmp(a, "--contact-distance") && more) {
      if (parse_double(a, argv[++i], &o.contact_gap)) return 2;
    } else if (!strcmp(a, "--radius") && more) {
      if (parse_double(a, argv[++i], &o.radius)) return 2;
    } else if (!strcmp(a, "--box-counting") && more) {
      const char *g = argv[++i];
      if (strcmp(g, "box") && strcmp(g, "bounding")) {
        fprintf(stderr, "agglo analyze: --box-counting %s: expected box or bounding\n", g);
        return 2;
      }
      o.box_counting = strcmp(g, "box") ? AGGLO_BOX_COUNTING_BOUNDING : AGGLO_BOX_COUNTING_BOX;
    } else if (!strcmp(a, "--mass-radius-fracval")) {
      o.mass_radius_fracval = 1;
    } else if (!strcmp(a, "--min-size") && more) {
      long long k;
      if (agglo_cli_integer("analyze", a, argv[++i], 2, 1000000000, &k) != 0) return 2;
      o.min_size = (size_t)k;
    } else if (!strcmp(a, "-o") && more) {
      o.out_dir = agglo_cli_dir_name(argv[++i]);
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--overwrite")) {
      o.overwrite = 1;
    } else if (!strcmp(a, "--plots")) {
      plots = o.curves = 1;
    } else if (!strcmp(a, "--rdf")) {
      o.rdf = 1;
    } else if (!strcmp(a, "--msd")) {
      o.msd = 1;
    } else if (!strcmp(a, "--rdf-max") && more) {
      if (parse_double(a, argv[++i], &o.rdf_max)) return 2;
    } else if (!strcmp(a, "--rdf-bins") && more) {
      long long b;
      if (agglo_cli_integer("analyze", a, argv[++i], 1, 100000, &b) != 0) return 2;
      o.rdf_bins = (int)b;
    } else if ((taken = aggregate_option(&o, argc, argv, &i)) != 0) {
      if (taken < 0) return 2;
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
  agglo_analyze_result r;
  analyze_signal = 0;
  void (*old_int)(int) = signal(SIGINT, on_analyze_signal);
  void (*old_term)(int) = signal(SIGTERM, on_analyze_signal);
  agglo_status st = agglo_analyze_trajectory(&o, &r);
  signal(SIGINT, old_int);
  signal(SIGTERM, old_term);
  if (st == AGGLO_STOPPED) { /* its .part files removed, the directory released */
    fprintf(stderr, "agglo analyze: stopped by signal %d (%s); no file of it written (an earlier analysis in %s stays as it was)\n",
            (int)analyze_signal, agglo_last_error(), o.out_dir);
    return 128 + (int)analyze_signal;
  }
  if (st != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return 1;
  }
  return agglo_cli_analyze_report(&o, &r, json, plots);
}

static void agglomerates_usage(FILE *f) {
  fprintf(f,
          "usage: agglo agglomerates FILE.xyz [--frame K] [--gap G] [--tol T] [--bins B] [--row]\n"
          "                                   [--definition moments|thesis] [--min-radius R]\n\n"
          "The agglomerate report of the DPD thesis (Mokkapati 2006; docs/dpd.md) for one frame:\n"
          "agglomerates = groups of two or more particles linked by surface gaps below G (default\n"
          "0: centres closer than one diameter; touching counts, to 1e-9 diameter), each enclosed\n"
          "in an ellipsoid classed\n"
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
  long long frame = 0, bins = 8;
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
      if (agglo_cli_integer("agglomerates", a, argv[++i], 1, 100000000, &frame) != 0) return 2;
    } else if (!strcmp(a, "--bins") && more) {
      if (agglo_cli_integer("agglomerates", a, argv[++i], 1, 1000, &bins) != 0) return 2;
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
  agglo_agglomerates_options o = {.path = path, .frame = (int)frame, .gap = gap, .tol = tol,
                                  .bins = (int)bins, .row = row, .definition = definition,
                                  .min_radius = min_radius};
  char *text;
  if (agglo_agglomerates_report(&o, &text) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return 1;
  }
  fputs(text, stdout);
  agglo_free(text);
  return 0;
}

static int cmd_convert(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  double radius = 0;
  int overwrite = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: agglo convert IN OUT [--radius R] [--overwrite]\n\nCopies every frame of IN "
             "(extended XYZ or H5MD) into OUT: H5MD (with OUT's .xdmf\nbeside it) when OUT ends in "
             ".h5md or .h5, else extended XYZ. Lossless both ways: H5MD in\ndouble precision, XYZ with "
             "each number as the shortest text that reads back to the\nsame double; the observables, "
             "units and species carried.\n--radius: the radius of every particle when IN has none. "
             "An existing OUT is refused\nunless --overwrite. docs/formats.md\n");
      return 0;
    } else if (!strcmp(argv[i], "--overwrite")) {
      overwrite = 1;
    } else if (!strcmp(argv[i], "--radius") && i + 1 < argc) {
      if (parse_double(argv[i], argv[i + 1], &radius)) return 2;
      i++;
    } else if (argv[i][0] != '-' && !in) {
      in = argv[i];
    } else if (argv[i][0] != '-' && !out) {
      out = argv[i];
    } else {
      fprintf(stderr, "agglo convert: unexpected argument '%s' (see agglo convert --help)\n", argv[i]);
      return 2;
    }
  }
  if (!in || !out) {
    fprintf(stderr, "usage: agglo convert IN OUT [--radius R] [--overwrite]\n");
    return 2;
  }
  if (!overwrite && access(out, F_OK) == 0) {
    fprintf(stderr, "agglo convert: %s exists: give another OUT, or --overwrite to replace it\n", out);
    return 1;
  }
  if (agglo_trajectory_convert(in, out, radius) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return 1;
  }
  return 0;
}

static int cmd_list(int argc, char **argv) {
  if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    printf("usage: agglo list [keys]\n\n"
           "  agglo list         the models, flows and solvers, and the example scenarios shipped\n"
           "                     with agglo, with their directory (agglo run NAME.ini takes one\n"
           "                     from any directory without a NAME.ini of its own)\n"
           "  agglo list keys    every scenario key as a markdown table: section.key, default,\n"
           "                     allowed values, meaning (docs/config.md)\n");
    return 0;
  }
  if (argc > 0 && strcmp(argv[0], "keys")) {
    fprintf(stderr, "agglo list: unknown argument '%s' (agglo list [keys])\n", argv[0]);
    return 2;
  }
  if (argc > 0) return print_keys(stdout, 1);
  printf("models:\n");
  for (int k = 0; agglo_model_name(k); k++) { /* name, then the description's lines aligned */
    printf("  %-10s ", agglo_model_name(k));
    for (const char *p = agglo_model_description(k); *p; p++)
      if (*p == '\n') printf("\n%13s", "");
      else putchar(*p);
    putchar('\n');
  }
  printf("\nflows (flow.type):\n  none, uniform, shear, oscillating_shear, poiseuille, vortex\n\n"
         "solvers (solver.method):\n  mprgp (default), apgd, uzawa, active_set\n\n");
  int rc = agglo_cli_list_examples(stdout);
  printf("\n`agglo list keys` prints every scenario key as a markdown table (docs/config.md).\n");
  return rc;
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
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "analyze")) return cmd_analyze(argc - 2, argv + 2);
  if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
  if (!strcmp(cmd, "agglomerates")) return cmd_agglomerates(argc - 2, argv + 2);
  if (!strcmp(cmd, "convert")) return cmd_convert(argc - 2, argv + 2);
  if (!strcmp(cmd, "compare")) return agglo_cli_compare(argc - 2, argv + 2);
  if (!strcmp(cmd, "ensemble")) return agglo_cli_ensemble(argc - 2, argv + 2);
  if (!strcmp(cmd, "plot")) return agglo_cli_plot(argc - 2, argv + 2);
  if (!strcmp(cmd, "render")) return agglo_cli_render(argc - 2, argv + 2);
  if (!strcmp(cmd, "aggregate")) return agglo_cli_aggregate(argc - 2, argv + 2);
  if (!strcmp(cmd, "movie")) return agglo_cli_movie(argc - 2, argv + 2);
  fprintf(stderr, "agglo: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
