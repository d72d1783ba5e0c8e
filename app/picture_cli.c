/* `agglo render`, `agglo movie` and `agglo plot RUN_DIR`: pictures of trajectory frames through
   the public agglo_picture_render, movies encoded by the ffmpeg command line, and the stats.csv
   of a run plotted against time by gnuplot. */
#include "picture_cli.h"
#include "paths.h"
#include "gnuplot.h"
#include "integer_option.h"
#include "kinetics_cli.h"
#include "run_program.h"
#include "agglo/analysis.h"
#include "agglo/picture.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *agglo_cli_csv_open(const char *path) {
  FILE *f = agglo_cli_is_file(path) ? fopen(path, "r") : NULL;
  if (!f) fprintf(stderr, "agglo plot: %s: cannot read: %s\n", path,
                  access(path, R_OK) != 0 ? strerror(errno) : "not a regular file");
  return f;
}

int agglo_cli_csv_line(FILE *f, char *buf, size_t size, const char *path, long line) {
  if (!fgets(buf, (int)size, f)) return 0;
  size_t len = strlen(buf);
  if (len + 1 < size || buf[len - 1] == '\n' || feof(f)) return 1;
  fprintf(stderr, "agglo plot: %s:%ld: line longer than %zu bytes (the limit of a line)\n", path,
          line, size - 1);
  return -1;
}

/* The output directory is held from its making to the program's end (released at exit), as a
   run holds its own: render, movie and plot never write beside a run. */
static agglo_dir_hold *held_dir;
static void release_held(void) { agglo_dir_release(held_dir); }

static int hold_dir(const char *path) {
  if (held_dir) return 0;
  if (agglo_dir_take(path, &held_dir) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return -1;
  }
  atexit(release_held);
  return 0;
}

static int make_dirs(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || !*p) {
      char c = *p;
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "agglo: %s: cannot create directory: %s\n", buf, strerror(errno));
        return -1;
      }
      if (!(*p = c)) break;
    }
  }
  return hold_dir(path);
}

/* A run directory stands for its trajectory (trajectory.xyz, else trajectory.h5md). */
static const char *trajectory_path(const char *arg, char *buf, size_t len) {
  if (!agglo_cli_is_dir(arg)) return arg;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", arg);
  agglo_cli_dir_name(dir); /* out/ -> out/trajectory.xyz, not out//trajectory.xyz */
  snprintf(buf, len, "%s/trajectory.xyz", dir);
  if (!agglo_cli_is_file(buf)) snprintf(buf, len, "%s/trajectory.h5md", dir);
  return buf;
}

/* ---- the options shared by render and movie ---- */

typedef struct {
  const char *traj, *out, *scenario;
  const char *sets[128];
  int nsets, frame, all, quiet, keep;
  double radius, fps;
} pic_args;

static int parse_common(pic_args *a, int argc, char **argv, int i, int *used) {
  const char *o = argv[i];
  int more = i + 1 < argc;
  *used = 2;
  if (!strcmp(o, "-s") && more && a->nsets < 128) a->sets[a->nsets++] = argv[i + 1];
  else if (!strcmp(o, "--scenario") && more) a->scenario = argv[i + 1];
  else if (!strcmp(o, "--radius") && more) a->radius = atof(argv[i + 1]);
  else if (!strcmp(o, "-o") && more) a->out = agglo_cli_dir_name(argv[i + 1]);
  else if (!strcmp(o, "--quiet")) *used = 1, a->quiet = 1;
  else return 0;
  return 1;
}

/* The picture settings: the scenario of the run beside the trajectory (or --scenario), then -s. */
static agglo_config *picture_settings(const pic_args *a) {
  agglo_config *c = agglo_config_new();
  if (!c) return NULL;
  char dflt[4200];
  const char *sc = a->scenario;
  if (!sc) {
    snprintf(dflt, sizeof dflt, "%s", a->traj);
    char *slash = strrchr(dflt, '/');
    if (slash) snprintf(slash + 1, sizeof dflt - (size_t)(slash + 1 - dflt), "scenario.ini");
    else snprintf(dflt, sizeof dflt, "scenario.ini");
    if (agglo_cli_is_file(dflt)) sc = dflt;
  }
  if (sc && agglo_config_load(c, sc) != AGGLO_OK) {
    if (a->scenario) {
      fprintf(stderr, "agglo: %s\n", agglo_last_error());
      agglo_config_destroy(c);
      return NULL;
    }
    if (!a->quiet) fprintf(stderr, "agglo: warning: %s (picture keys at their defaults)\n", agglo_last_error());
    agglo_config_destroy(c);
    c = agglo_config_new();
  }
  for (int k = 0; k < a->nsets; k++)
    if (agglo_config_assign(c, a->sets[k]) != AGGLO_OK) {
      fprintf(stderr, "agglo: %s\n", agglo_last_error()); /* (it names the -s argument) */
      agglo_config_destroy(c);
      return NULL;
    }
  return c;
}

/* A slab cuts a 3D scene: on a 2D trajectory every disc would be drawn, not what was asked.
   0, or -1 with the message (before any directory is made). */
static int slab_applies(const pic_args *a, const agglo_config *c) {
  char slab[64] = "";
  if (agglo_config_get(c, "picture.slab_width", slab, sizeof slab) != AGGLO_OK || !(atof(slab) > 0))
    return 0;
  agglo_trajectory *tr;
  int got = 0, dim = 0;
  if (agglo_trajectory_open(a->traj, a->radius, &tr) == AGGLO_OK) {
    if (agglo_trajectory_next(tr, &got) == AGGLO_OK && got) dim = agglo_trajectory_dim(tr);
    agglo_trajectory_close(tr);
  }
  if (dim != 2) return 0; /* (a trajectory that cannot be read is reported when drawn) */
  fprintf(stderr, "agglo: picture.slab_width = %s: %s is 2D and a slab cuts 3D scenes (every disc "
          "would be drawn): leave the key out, or 0\n", slab, a->traj);
  return -1;
}

/* Draw the current frame of tr into path; clusters found at a gap of 0.1 r_min when the file has
   none. */
static int render_frame(const agglo_config *c, agglo_trajectory *tr, const char *path) {
  agglo_picture_frame f = {.n = agglo_trajectory_count(tr), .dim = agglo_trajectory_dim(tr),
                           .positions = agglo_trajectory_positions(tr),
                           .radii = agglo_trajectory_radii(tr),
                           .clusters = agglo_trajectory_clusters(tr),
                           .velocities = agglo_trajectory_velocities(tr),
                           .ids = agglo_trajectory_ids(tr), .time = agglo_trajectory_time(tr)};
  agglo_trajectory_box(tr, &f.box);
  int32_t *labels = NULL;
  if (!f.clusters && f.n) {
    double rmin = f.radii[0];
    for (size_t i = 1; i < f.n; i++) rmin = f.radii[i] < rmin ? f.radii[i] : rmin;
    labels = malloc(f.n * sizeof *labels);
    if (!labels || agglo_analysis_cluster_labels(f.positions, f.radii, f.n, f.dim, &f.box,
                                                 0.1 * rmin, labels, NULL) != AGGLO_OK) {
      free(labels);
      fprintf(stderr, "agglo: %s: cannot label clusters: %s\n", path, agglo_last_error());
      return -1;
    }
    f.clusters = labels;
  }
  agglo_status st = agglo_picture_render(c, &f, path);
  free(labels);
  if (st != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    return -1;
  }
  return 0;
}

/* Frames of a trajectory into dir/frame_NNNNNN.png (1-based frame numbers: they sort in time
   order): every frame, or frame k (0 = the last). The number of pictures, or -1. */
static long render_frames(const pic_args *a, const agglo_config *c, const char *dir) {
  agglo_trajectory *tr;
  int got = 1;
  long nframes = 0, want = a->frame, written = 0;
  if (!a->all && want == 0) { /* the last: count the frames first */
    if (agglo_trajectory_open(a->traj, a->radius, &tr) != AGGLO_OK) goto fail_open;
    while (agglo_trajectory_next(tr, &got) == AGGLO_OK && got) nframes++;
    agglo_trajectory_close(tr);
    want = nframes;
  }
  if (agglo_trajectory_open(a->traj, a->radius, &tr) != AGGLO_OK) goto fail_open;
  for (long k = 1;; k++) {
    if (agglo_trajectory_next(tr, &got) != AGGLO_OK) {
      fprintf(stderr, "agglo: %s\n", agglo_last_error());
      agglo_trajectory_close(tr);
      return -1;
    }
    if (!got) break;
    if (!a->all && k != want) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/frame_%06ld.png", dir, k);
    if (render_frame(c, tr, path) != 0) {
      agglo_trajectory_close(tr);
      return -1;
    }
    written++;
    if (!a->quiet && a->fps <= 0) printf("%s\n", path);
    if (!a->all) break;
  }
  agglo_trajectory_close(tr);
  if (!written) fprintf(stderr, "agglo: %s has no frame %ld\n", a->traj, want);
  return written ? written : -1;
fail_open:
  fprintf(stderr, "agglo: %s\n", agglo_last_error());
  return -1;
}

static const char *common_help =
    "  -s picture.KEY=V    a picture key (repeatable; docs/pictures.md, agglo run --help), or\n"
    "                      output.png_width=W\n"
    "  --scenario FILE     picture keys from FILE (default: the scenario.ini beside TRAJ)\n"
    "  --radius R          radius of particles when the file has none\n"
    "  --quiet             print nothing but errors\n";

int agglo_cli_render(int argc, char **argv) {
  pic_args a = {.out = "."};
  for (int i = 0; i < argc;) {
    int used;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: agglo render TRAJ [--frame K | --all] [-o DIR] [-s picture.KEY=V]...\n\n"
             "Pictures of trajectory frames (extended XYZ or H5MD; a run directory stands for\n"
             "its trajectory) as a run's snapshots are drawn, into DIR/frame_NNNNNN.png (frame\n"
             "numbers from 1, so the names sort in time order):\n"
             "  --frame K           frame K (1-based; default 0 = the last)\n"
             "  --all               every frame\n"
             "  -o DIR              output directory (default: .)\n%s", common_help);
      return 0;
    }
    if (parse_common(&a, argc, argv, i, &used)) i += used;
    else if (!strcmp(argv[i], "--frame") && i + 1 < argc) {
      long long k;
      if (agglo_cli_integer("render", "--frame", argv[i + 1], 0, 100000000, &k) != 0) return 2;
      a.frame = (int)k, i += 2;
    }
    else if (!strcmp(argv[i], "--all")) a.all = 1, i++;
    else if (argv[i][0] != '-' && !a.traj) a.traj = argv[i++];
    else {
      fprintf(stderr, "agglo render: unexpected argument '%s' (see agglo render --help)\n", argv[i]);
      return 2;
    }
  }
  if (!a.traj || a.frame < 0) {
    fprintf(stderr, "usage: agglo render TRAJ [--frame K | --all] [-o DIR] [-s picture.KEY=V]...\n");
    return 2;
  }
  char buf[4200];
  a.traj = trajectory_path(a.traj, buf, sizeof buf);
  agglo_config *c = picture_settings(&a);
  if (!c) return 2; /* a bad -s or --scenario: input, as everywhere */
  if (c && slab_applies(&a, c) != 0) {
    agglo_config_destroy(c);
    return 2;
  }
  if (!c || make_dirs(a.out) != 0) {
    agglo_config_destroy(c);
    return 1;
  }
  long n = render_frames(&a, c, a.out);
  agglo_config_destroy(c);
  return n < 0;
}

/* ffmpeg's command line, without a shell: 0, or -1 with why in msg. */
static int run_ffmpeg(const char *frames, double fps, const char *out, int quiet, char *msg,
                      size_t msglen) {
  char rate[32], pattern[9000], target[4200];
  snprintf(rate, sizeof rate, "%g", fps);
  size_t k = 0; /* the frames' directory with any % doubled: ffmpeg reads the name as a pattern */
  for (const char *p = frames; *p && k + 3 < sizeof pattern; p++) {
    if (*p == '%') pattern[k++] = '%';
    pattern[k++] = *p;
  }
  snprintf(pattern + k, sizeof pattern - k, "/frame_%%06d.png");
  snprintf(target, sizeof target, "%s%s", out[0] == '-' ? "./" : "", out); /* not an option */
  char *args[] = {"ffmpeg", "-nostdin", "-y", "-loglevel", quiet ? "error" : "warning",
                  "-framerate", rate, "-i", pattern,
                  "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=white", "-c:v", "libx264",
                  "-pix_fmt", "yuv420p", "-movflags", "+faststart", target, NULL};
  return agglo_cli_run_program(args, NULL, NULL, 0, msg, msglen);
}

int agglo_cli_movie(int argc, char **argv) {
  pic_args a = {.out = "movie.mp4", .fps = 10, .all = 1};
  for (int i = 0; i < argc;) {
    int used;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: agglo movie TRAJ [-o movie.mp4] [--fps N] [-s picture.KEY=V]...\n\n"
             "Every frame of a trajectory drawn as agglo render draws it, then encoded (H.264,\n"
             "yuv420p) by the ffmpeg command line (Debian package ffmpeg):\n"
             "  -o FILE             the movie (default movie.mp4; the extension picks the container)\n"
             "  --fps N             frames per second (default 10)\n"
             "  --keep-frames       keep the PNG frames (in FILE.frames/)\n%s", common_help);
      return 0;
    }
    if (parse_common(&a, argc, argv, i, &used)) i += used;
    else if (!strcmp(argv[i], "--fps") && i + 1 < argc) a.fps = atof(argv[i + 1]), i += 2;
    else if (!strcmp(argv[i], "--keep-frames")) a.keep = 1, i++;
    else if (argv[i][0] != '-' && !a.traj) a.traj = argv[i++];
    else {
      fprintf(stderr, "agglo movie: unexpected argument '%s' (see agglo movie --help)\n", argv[i]);
      return 2;
    }
  }
  if (!a.traj || !(a.fps > 0 && a.fps <= 1000)) {
    fprintf(stderr, "usage: agglo movie TRAJ [-o movie.mp4] [--fps N] (0 < N <= 1000)\n");
    return 2;
  }
  char buf[4200], frames[4400];
  a.traj = trajectory_path(a.traj, buf, sizeof buf);
  snprintf(frames, sizeof frames, "%s.frames", a.out);
  agglo_config *c = picture_settings(&a);
  if (!c) return 2; /* a bad -s or --scenario: input, as everywhere */
  if (c && slab_applies(&a, c) != 0) {
    agglo_config_destroy(c);
    return 2;
  }
  if (!c || make_dirs(frames) != 0) {
    agglo_config_destroy(c);
    return 1;
  }
  long n = render_frames(&a, c, frames);
  agglo_config_destroy(c);
  int rc = 1;
  if (n > 0) {
    char msg[4600];
    if (run_ffmpeg(frames, a.fps, a.out, a.quiet, msg, sizeof msg) != 0)
      fprintf(stderr, "agglo movie: %s%s; the frames are in %s/\n", msg,
              strstr(msg, "cannot start ffmpeg:") ? " (apt-get install ffmpeg)" : "", frames);
    else {
      rc = 0;
      if (!a.quiet) printf("%s: %ld frames at %g fps (%.2f s)\n", a.out, n, a.fps, n / a.fps);
    }
  }
  if (rc == 0 && !a.keep) {
    release_held(); /* its lock file goes with it, and then the directory */
    held_dir = NULL;
    for (long k = 1; k <= n; k++) {
      char p[4500];
      snprintf(p, sizeof p, "%s/frame_%06ld.png", frames, k);
      remove(p);
    }
    rmdir(frames);
  }
  return rc;
}

/* ---- agglo plot RUN_DIR: stats.csv against time ---- */

int agglo_cli_is_run_dir(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/ensemble.csv", dir);
  if (agglo_cli_is_file(p)) return 0;
  snprintf(p, sizeof p, "%s/stats.csv", dir);
  return agglo_cli_is_file(p);
}

/* Columns by name, and whether each has a finite value in some row (gnuplot stops at a plot
   with no point). */
static int finite_in[256];

static int has_column(char **cols, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(cols[k], name)) return finite_in[k];
  return 0;
}

static int scan_values(FILE *f, int ncol, const char *path) {
  static char line[65536];
  memset(finite_in, 0, sizeof finite_in);
  int got;
  for (long k = 2; (got = agglo_cli_csv_line(f, line, sizeof line, path, k)) > 0; k++) {
    char *p = line;
    for (int k = 0; k < ncol && p; k++) {
      char *end;
      double v = strtod(p, &end);
      if (end != p && isfinite(v)) finite_in[k] = 1;
      p = strchr(p, ',');
      if (p) p++;
    }
  }
  return got;
}

/* The value of key in dir/scenario.ini (section.key), or 0. */
static double scenario_value(const char *dir, const char *key) {
  char p[4200], v[64];
  snprintf(p, sizeof p, "%s/scenario.ini", dir);
  agglo_config *c = agglo_config_new();
  double x = 0;
  if (c && agglo_cli_is_file(p) && agglo_config_load(c, p) == AGGLO_OK && agglo_config_get(c, key, v, sizeof v) == AGGLO_OK)
    x = atof(v);
  agglo_config_destroy(c);
  return x;
}

typedef struct {
  const char *file, *title, *ylabel;
  const char *cols[4], *names[4];
  int logy;
} run_plot;

static const run_plot run_plots[] = {
    {"clusters", "number of clusters", "clusters", {"n_clusters"}, {"N_c"}, 1},
    {"cluster_size", "cluster sizes", "particles per cluster",
     {"mean_cluster_size", "weight_avg_cluster_size", "max_cluster_size"},
     {"mean", "mass-weighted mean", "largest"}, 1},
    {"kinetic_energy", "kinetic energy", "E_k (mass length^2 / time^2)", {"kinetic_energy"}, {"E_k"}, 0},
    {"solver", "projection solver", "iterations",
     {"solver_iterations", "mean_solver_iterations", "outer_iterations"},
     {"last step", "mean since last row", "outer (gluey)"}, 0},
    {"fractal_dimension", "fractal dimension", "D_f",
     {"fractal_dimension_box", "fractal_dimension_mass"}, {"box counting (largest cluster)", "mass-radius"}, 0},
    {"structure", "structure of the aggregates", "(dimensionless)",
     {"contacts_per_sphere", "aspect_ratio"}, {"contacts per sphere N_c", "aspect ratio of the largest"}, 0},
    {"rg_largest", "radius of gyration of the largest cluster", "R_g (length)", {"rg_largest"}, {"R_g"}, 0},
};

/* a number of an option, in [lo, hi]: 0, or -1 with the message printed */
static int option_number(const char *opt, const char *text, double lo, double hi, double *out) {
  char *end;
  double x = strtod(text, &end);
  if (end == text || *end || !(x >= lo && x <= hi)) {
    fprintf(stderr, "agglo plot: %s %s: expected a number from %g to %g\n", opt, text, lo, hi);
    return -1;
  }
  *out = x;
  return 0;
}

int agglo_cli_plot_run(int argc, char **argv) {
  const char *dir = NULL, *out = NULL;
  agglo_smoluchowski_options so = {-1, 0, 0, 512, 10000000, 0, 0, 0, 0};
  double t_lo = 0, t_hi = -1, v;
  for (int i = 0; i < argc; i++) {
    int more = i + 1 < argc;
    if (!strcmp(argv[i], "-o") && more) out = argv[++i];
    else if (!strcmp(argv[i], "--kernel") && more) {
      if ((so.kernel = agglo_cli_kernel_named(argv[++i])) < 0) {
        fprintf(stderr, "agglo plot: --kernel %s: expected constant, additive, ballistic or brownian\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--df") && more) {
      if (option_number("--df", argv[++i], 1, 3, &so.df)) return 2;
    } else if (!strcmp(argv[i], "--kmax") && more) {
      if (option_number("--kmax", argv[++i], 2, AGGLO_SMOLUCHOWSKI_KMAX, &v)) return 2;
      so.kmax = (size_t)v;
    } else if (!strcmp(argv[i], "--window") && more) {
      if (sscanf(argv[++i], "%lg,%lg", &t_lo, &t_hi) != 2 || !(t_lo >= 0 && t_hi > t_lo)) {
        fprintf(stderr, "agglo plot: --window %s: expected T0,T1 with 0 <= T0 < T1\n", argv[i]);
        return 2;
      }
    } else if (argv[i][0] != '-' && !dir) dir = argv[i];
    else {
      fprintf(stderr, "agglo plot: unexpected argument '%s' for a run directory (see agglo plot --help)\n", argv[i]);
      return 2;
    }
  }
  if (!out) out = dir;
  char p[4400], line[8192];
  snprintf(p, sizeof p, "%s/stats.csv", dir);
  FILE *f = agglo_cli_csv_open(p);
  if (!f) return 1;
  int got = agglo_cli_csv_line(f, line, sizeof line, p, 1);
  if (got <= 0) {
    if (got == 0) fprintf(stderr, "agglo plot: %s: cannot read: empty\n", p);
    fclose(f);
    return 1;
  }
  line[strcspn(line, "\r\n")] = 0;
  char *cols[256];
  int ncol = 0;
  for (char *t = strtok(line, ","); t && ncol < 256; t = strtok(NULL, ",")) cols[ncol++] = t;
  got = scan_values(f, ncol, p);
  fclose(f);
  if (got < 0 || agglo_cli_gp_one_line(dir, "agglo plot") != 0 || make_dirs(out) != 0) return 1;
  char abs_stats[4400];
  if (!realpath(p, abs_stats)) snprintf(abs_stats, sizeof abs_stats, "%s", p);
  snprintf(p, sizeof p, "%s/plots_run.gp", out);
  FILE *g = fopen(p, "w");
  if (!g) {
    fprintf(stderr, "agglo plot: %s: cannot write: %s\n", p, strerror(errno));
    return 1;
  }
  /* the paths only in a comment (one line) and a quoted string */
  fprintf(g, "# agglo plot %s: the columns of stats.csv against time (gnuplot)\n"
             "set terminal pngcairo size 900,600 font ',11'\nset datafile separator ','\n"
             "set grid\nset key top right\nset xlabel 'time t (time unit of the scenario)'\n"
             "stats = ", dir);
  if (agglo_cli_gp_string(g, abs_stats, "agglo plot") != 0) {
    fclose(g);
    return 1;
  }
  fputc('\n', g);
  int made = 0;
  for (size_t k = 0; k < sizeof run_plots / sizeof run_plots[0]; k++) {
    const run_plot *r = &run_plots[k];
    int any = 0;
    for (int q = 0; q < 4 && r->cols[q]; q++) any |= has_column(cols, ncol, r->cols[q]);
    if (!any) continue;
    fprintf(g, "set output '%s.png'\nset title '%s'\nset ylabel '%s'\n%s", r->file, r->title,
            r->ylabel, r->logy ? "set logscale y\n" : "unset logscale y\n");
    const char *sep = "plot ";
    for (int q = 0; q < 4 && r->cols[q]; q++) {
      if (!has_column(cols, ncol, r->cols[q])) continue;
      fprintf(g, "%sstats using (column('time')):(column('%s')) with linespoints pt 7 ps 0.4 title '%s'", sep,
              r->cols[q], r->names[q]);
      sep = ", \\\n     ";
    }
    fprintf(g, "\n");
    made++;
  }
  /* a kinetic temperature for thermostatted models (DPD): 2 E_k / (d N) */
  double dim = scenario_value(dir, "run.dim"), n = scenario_value(dir, "particles.n");
  char model[64] = "";
  char scen[4200];
  snprintf(scen, sizeof scen, "%s/scenario.ini", dir);
  agglo_config *c = agglo_config_new();
  if (c && agglo_cli_is_file(scen) && agglo_config_load(c, scen) == AGGLO_OK) agglo_config_get(c, "run.model", model, sizeof model);
  agglo_config_destroy(c);
  if (!strcmp(model, "dpd") && dim > 0 && n > 0 && has_column(cols, ncol, "kinetic_energy")) {
    fprintf(g, "set output 'temperature.png'\nset title 'kinetic temperature (N = %g, d = %g)'\n"
               "set ylabel 'k_B T = 2 E_k / (d N) (energy)'\nunset logscale y\n"
               "plot stats using (column('time')):(2 * column('kinetic_energy') / (%g * %g)) "
               "with linespoints pt 7 ps 0.4 title 'k_B T'\n", n, dim, dim, n);
    made++;
  }
  /* the model's own columns, one plot each */
  for (int k = 0; k < ncol; k++) {
    static const char *known = ",time,step,n_clusters,mean_cluster_size,max_cluster_size,kinetic_energy,"
                               "solver_iterations,mean_solver_iterations,max_violation,min_gap,n_contacts,"
                               "converged,weight_avg_cluster_size,fractal_dimension_box,"
                               "fractal_dimension_mass,contacts_per_sphere,aspect_ratio,rg_largest,"
                               "outer_iterations,";
    char probe[300];
    snprintf(probe, sizeof probe, ",%s,", cols[k]);
    if (strstr(known, probe) || strchr(cols[k], '\'') || !finite_in[k]) continue;
    fprintf(g, "set output '%s.png'\nset title '%s (model column)'\nset ylabel '%s'\nunset logscale y\n"
               "plot stats using (column('time')):(column('%s')) with linespoints pt 7 ps 0.4 title ''\n",
            cols[k], cols[k], cols[k], cols[k]);
    made++;
  }
  int werr = ferror(g);
  if (fclose(g) != 0 || werr) {
    fprintf(stderr, "agglo plot: %s: write failed\n", p);
    return 1;
  }
  snprintf(p, sizeof p, "%s/plots_run.log", out);
  if (agglo_cli_gnuplot("agglo plot", out, "plots_run.gp", p, 1) != 0) return 1;
  printf("%d plots of %s/stats.csv in %s/ (script: plots_run.gp)\n", made, dir, out);
  if (so.kernel >= 0) { /* the kinetics against Smoluchowski's solution */
    so.dim = dim == 3 ? 3 : 2;
    if (dim != 2 && dim != 3) {
      fprintf(stderr, "agglo plot: %s/scenario.ini: no run.dim (the kernel needs it)\n", dir);
      return 1;
    }
    return agglo_cli_kinetics(dir, out, &so, t_lo, t_hi);
  }
  return 0;
}
