/* `agglo aggregate`: aggregates of prescribed fractal dimension and prefactor (the library's
   agglo_aggregate_build, include/agglo/aggregates.h), written as agglo convert writes a frame, with
   a table of what was built. Parsing and printing only. */
#include "aggregate_cli.h"
#include "agglo/agglo.h"
#include "agglo/aggregates.h"
#include "integer_option.h"
#include "paths.h"
#include "wall_clock.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f) {
  fprintf(f,
          "usage: agglo aggregate [-n N[,N2,...]] [--df D_f] [--kf k_f] [--method cc|pc] [--dim 2|3]\n"
          "                       [--radius R] [--radius-distribution uniform|lognormal]\n"
          "                       [--radius-spread S] [--radius-sigma G] [--seed S] [--count K]\n"
          "                       [--together | --frames] [--box L] [--boundary periodic|wall]\n"
          "                       [--format xyz|h5md] [-o DIR] [--overwrite]\n"
          "                       [--max-trials T] [--max-restarts R]\n\n"
          "Builds aggregates of N monomers whose radius of gyration follows N = k_f (R_g/a)^D_f\n"
          "(docs/aggregates.md): every cluster of 3 or more monomers the algorithm makes has it\n"
          "exactly, no two monomers overlap, each touches another.\n\n"
          "  -n N[,N2,...]          monomers (default 100); a list: aggregate k has the k-th (cycled)\n"
          "  --df D_f               fractal dimension, 1 to dim (default 1.8)\n"
          "  --kf k_f               prefactor (default 1.3)\n"
          "  --method cc|pc         cc: hierarchical cluster-cluster (FracVAL; default), pc: particle-\n"
          "                         cluster (one monomer at a time; a narrower range of k_f)\n"
          "  --dim 2|3              space dimension (default 3)\n"
          "  --radius R             monomer radius r (default 1), the [particles] keys' meaning:\n"
          "  --radius-distribution  uniform: radii in [r(1-s), r(1+s)]; lognormal: geometric mean r,\n"
          "                         geometric standard deviation --radius-sigma (default uniform)\n"
          "  --radius-spread S      uniform: s, 0 to 0.99 (default 0: all equal)\n"
          "  --radius-sigma G       lognormal: sigma_g, 1 to 10 (default 1.25)\n"
          "  --seed S               random seed (default 1); aggregate k of the ensemble draws its own\n"
          "                         numbers from (seed, k): the same aggregates whatever the count\n"
          "  --count K              aggregates to build (default 1), one file each:\n"
          "                         DIR/aggregate_0001.xyz ... (or .h5md)\n"
          "  --together             all K in one frame, DIR/aggregates.xyz, side by side (one cluster\n"
          "                         each: agglo analyze fits D_f and k_f over them)\n"
          "  --frames               all K as the frames of one file, DIR/aggregates.xyz (frame k:\n"
          "                         aggregate k, alone in one box for all; particles.frame picks\n"
          "                         one; H5MD: equal radii and one N only)\n"
          "  --box L                side of the box [0, L]^dim written in the file (default: the\n"
          "                         smallest that holds them with a gap); particles.from needs the\n"
          "                         scenario's box.size to be this L\n"
          "  --boundary B           periodic (default, as box.boundary) or wall\n"
          "  --format xyz|h5md      extended XYZ (default) or H5MD, as agglo convert writes them\n"
          "  -o DIR                 output directory (default aggregates), made if needed; also\n"
          "                         DIR/aggregates.csv: one row per aggregate\n"
          "  --overwrite            replace the files of an earlier call in DIR\n"
          "  --max-trials T         placements tried for one joining, per pass of its search, before\n"
          "                         it fails (default 100000)\n"
          "  --max-restarts R       aggregates begun again after a joining found no place within\n"
          "                         --max-trials (default 3; not after 'no feasible contact')\n\n"
          "Ctrl-C or SIGTERM stops within a second (exit status 130 or 143); the aggregates\n"
          "finished before stay written (with --together or --frames: in the one file), with their\n"
          "rows of aggregates.csv. DIR is held by one process at a time (DIR/agglo.lock), as by\n"
          "agglo run. An N whose build would take more than 80 %% of the memory is refused.\n\n"
          "Start a run from one: agglo run -s particles.from=DIR/aggregate_0001.xyz -s box.size=L ...\n");
}

static int number(const char *opt, const char *text, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end || errno || !(v >= lo && v <= hi)) {
    fprintf(stderr, "agglo aggregate: %s %s: expected a number from %g to %g\n", opt, text, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

#define MAX_SIZES 64

/* SIGINT or SIGTERM: the library stops the build at its next placement (exit 130 or 143). */
static volatile int stop_flag = 0;
static volatile sig_atomic_t stop_signal = 0;
static void on_signal(int sig) {
  stop_signal = sig;
  stop_flag = 1;
}

/* mkdir -p: each parent of dir, then dir (existing ones kept). */
static int make_dirs(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* --overwrite: the files of an earlier call go (aggregate_NNNN.xyz/.h5md beyond this call's
   count stayed, mixing two calls); files of other names stay. 0, or -1 with the message. */
static int remove_earlier(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    const char *n = e->d_name, *dot = strrchr(n, '.');
    int ext = dot && (!strcmp(dot, ".xyz") || !strcmp(dot, ".h5md"));
    size_t digits = strncmp(n, "aggregate_", 10) ? 0 : strspn(n + 10, "0123456789");
    int ours = (digits >= 4 && n + 10 + digits == dot && ext) ||
               (!strncmp(n, "aggregates.", 11) && (ext || !strcmp(dot, ".csv")));
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, n);
    if (ours && unlink(path) != 0) {
      fprintf(stderr, "agglo aggregate: %s: cannot delete: %s\n", path, strerror(errno));
      rc = -1;
    }
  }
  closedir(d);
  return rc;
}

int agglo_cli_aggregate(int argc, char **argv) {
  agglo_aggregate_options o;
  agglo_aggregate_defaults(&o);
  long long sizes[MAX_SIZES] = {100}, count = 1, v;
  int n_sizes = 1, together = 0, frames = 0, periodic = 1, h5 = 0, overwrite = 0;
  double box = 0;
  char *dir = "aggregates";
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--together")) together = 1;
    else if (!strcmp(a, "--frames")) frames = 1;
    else if (!strcmp(a, "--overwrite")) overwrite = 1;
    else if (!strcmp(a, "-n") && more) {
      char *list = argv[++i], *save = NULL, buf[1024];
      if (strlen(list) >= sizeof buf) { /* (cut short, its last size would be another number) */
        fprintf(stderr, "agglo aggregate: -n: a list of %zu characters (allowed: at most %zu)\n",
                strlen(list), sizeof buf - 1);
        return 2;
      }
      snprintf(buf, sizeof buf, "%s", list);
      n_sizes = 0;
      for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n_sizes == MAX_SIZES) {
          fprintf(stderr, "agglo aggregate: -n %s: more than %d sizes\n", list, MAX_SIZES);
          return 2;
        }
        if (agglo_cli_integer("aggregate", "-n", t, 1, 100000000, &sizes[n_sizes]) != 0) return 2;
        n_sizes++;
      }
      if (n_sizes == 0) {
        fprintf(stderr, "agglo aggregate: -n '%s': expected N or N1,N2,...\n", list);
        return 2;
      }
    } else if (!strcmp(a, "--df") && more) {
      if (number(a, argv[++i], 1, 3, &o.fractal_dimension) != 0) return 2;
    } else if (!strcmp(a, "--kf") && more) {
      if (number(a, argv[++i], 1e-300, 1e300, &o.prefactor) != 0) return 2;
    } else if (!strcmp(a, "--method") && more) {
      const char *m = argv[++i];
      if (!strcmp(m, "cc")) o.method = AGGLO_AGGREGATE_CC;
      else if (!strcmp(m, "pc")) o.method = AGGLO_AGGREGATE_PC;
      else {
        fprintf(stderr, "agglo aggregate: --method %s: expected cc or pc\n", m);
        return 2;
      }
    } else if (!strcmp(a, "--dim") && more) {
      if (agglo_cli_integer("aggregate", a, argv[++i], 2, 3, &v) != 0) return 2;
      o.dim = (int)v;
    } else if (!strcmp(a, "--radius") && more) {
      if (number(a, argv[++i], 1e-300, 1e300, &o.radius) != 0) return 2;
    } else if (!strcmp(a, "--radius-distribution") && more) {
      const char *m = argv[++i];
      if (!strcmp(m, "uniform")) o.radius_distribution = AGGLO_RADII_UNIFORM;
      else if (!strcmp(m, "lognormal")) o.radius_distribution = AGGLO_RADII_LOGNORMAL;
      else {
        fprintf(stderr, "agglo aggregate: --radius-distribution %s: expected uniform or lognormal\n", m);
        return 2;
      }
    } else if (!strcmp(a, "--radius-spread") && more) {
      if (number(a, argv[++i], 0, 0.99, &o.radius_spread) != 0) return 2;
    } else if (!strcmp(a, "--radius-sigma") && more) {
      if (number(a, argv[++i], 1, 10, &o.radius_sigma) != 0) return 2;
    } else if (!strcmp(a, "--seed") && more) {
      if (agglo_cli_integer("aggregate", a, argv[++i], 0, 9200000000000000000LL, &v) != 0) return 2;
      o.seed = (uint64_t)v;
    } else if (!strcmp(a, "--count") && more) {
      if (agglo_cli_integer("aggregate", a, argv[++i], 1, 1000000, &count) != 0) return 2;
    } else if (!strcmp(a, "--box") && more) {
      if (number(a, argv[++i], 1e-300, 1e300, &box) != 0) return 2;
    } else if (!strcmp(a, "--boundary") && more) {
      const char *m = argv[++i];
      if (!strcmp(m, "periodic")) periodic = 1;
      else if (!strcmp(m, "wall")) periodic = 0;
      else {
        fprintf(stderr, "agglo aggregate: --boundary %s: expected periodic or wall\n", m);
        return 2;
      }
    } else if (!strcmp(a, "--format") && more) {
      const char *m = argv[++i];
      if (!strcmp(m, "xyz")) h5 = 0;
      else if (!strcmp(m, "h5md")) h5 = 1;
      else {
        fprintf(stderr, "agglo aggregate: --format %s: expected xyz or h5md\n", m);
        return 2;
      }
    } else if (!strcmp(a, "-o") && more) {
      dir = agglo_cli_dir_name(argv[++i]);
    } else if (!strcmp(a, "--max-trials") && more) {
      if (agglo_cli_integer("aggregate", a, argv[++i], 1, 1000000000, &v) != 0) return 2;
      o.max_trials = v;
    } else if (!strcmp(a, "--max-restarts") && more) {
      if (agglo_cli_integer("aggregate", a, argv[++i], 0, 1000, &v) != 0) return 2;
      o.max_restarts = (int)v;
    } else {
      fprintf(stderr, "agglo aggregate: unknown or incomplete option '%s' (see agglo aggregate --help)\n", a);
      return 2;
    }
  }
  if (together && frames) {
    fprintf(stderr, "agglo aggregate: --together and --frames: give one (one frame, or a frame each)\n");
    return 2;
  }
  together = together || frames; /* either way: one file, written at the end */
  /* every size checked before anything is built or written */
  for (int k = 0; k < n_sizes; k++) {
    o.n = sizes[k];
    if (agglo_aggregate_check(&o) != AGGLO_OK) {
      fprintf(stderr, "agglo aggregate: %s\n", agglo_last_error());
      return 2;
    }
  }
  if (together) { /* all of them held until the one file is written: x, y, z and r, 32 bytes */
    double held = 0, phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    long long nmax = 0;
    for (long long k = 0; k < count; k++) held += 32.0 * (double)sizes[k % n_sizes];
    for (int k = 0; k < n_sizes; k++) nmax = sizes[k] > nmax ? sizes[k] : nmax;
    double bytes = held + AGGLO_AGGREGATE_BYTES * (double)nmax;
    if (phys > 0 && bytes > 0.8 * phys) {
      fprintf(stderr, "agglo aggregate: --%s with %lld aggregates of up to N = %lld monomers holds "
              "about %.3g GB until the file is written; this machine has %.3g GB, of which 80 %% may "
              "be used: lower --count or -n, or one file each (without --%s)\n",
              frames ? "frames" : "together", count, nmax, bytes / 1e9, phys / 1e9,
              frames ? "frames" : "together");
      return 2;
    }
  }
  if (make_dirs(dir) != 0) {
    fprintf(stderr, "agglo aggregate: %s: cannot make the directory: %s\n", dir, strerror(errno));
    return 1;
  }
  /* one process per directory, as agglo run (docs/reliability.md#one-run-per-directory) */
  agglo_dir_hold *held_dir = NULL;
  if (agglo_dir_take(dir, &held_dir) != AGGLO_OK) {
    fprintf(stderr, "agglo aggregate: %s\n", agglo_last_error());
    return 1;
  }
  char csv[4200], file[4200];
  snprintf(csv, sizeof csv, "%s/aggregates.csv", dir);
  if (!overwrite && agglo_cli_is_file(csv)) {
    fprintf(stderr, "agglo aggregate: %s holds aggregates of an earlier call (%s): give another -o, "
            "or --overwrite to replace them\n", dir, csv);
    agglo_dir_release(held_dir);
    return 1;
  }
  if (overwrite && remove_earlier(dir) != 0) return 1;
  const char *ext = h5 ? "h5md" : "xyz";
  o.stop = &stop_flag;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  agglo_aggregate *all = calloc((size_t)count, sizeof *all);
  FILE *table = all ? fopen(csv, "w") : NULL;
  if (!table) {
    fprintf(stderr, "agglo aggregate: %s: %s\n", csv, all ? strerror(errno) : "out of memory");
    free(all);
    agglo_dir_release(held_dir);
    return 1;
  }
  fprintf(table, "index,file,n,dim,method,fractal_dimension,prefactor,seed,rg,rg_target,radius_geo,trials,restarts,seconds\n");
  int rc = 0;
  long long built = 0;
  double t_all = agglo_cli_wall_seconds();
  for (long long k = 0; k < count && rc == 0; k++) {
    o.n = sizes[k % n_sizes];
    o.index = k;
    double t0 = agglo_cli_wall_seconds();
    agglo_status st = agglo_aggregate_build(&o, &all[k]);
    if (st != AGGLO_OK) {
      fprintf(stderr, "agglo aggregate: aggregate %lld: %s\n", k + 1, agglo_last_error());
      rc = st == AGGLO_STOPPED ? 128 + (int)stop_signal : 1;
      break;
    }
    double dt = agglo_cli_wall_seconds() - t0;
    if (together) snprintf(file, sizeof file, "%s/aggregates.%s", dir, ext);
    else {
      snprintf(file, sizeof file, "%s/aggregate_%04lld.%s", dir, k + 1, ext);
      if (agglo_aggregates_write(file, &all[k], 1, o.fractal_dimension, o.prefactor, o.radius, box,
                                 periodic) != AGGLO_OK) {
        fprintf(stderr, "agglo aggregate: %s\n", agglo_last_error());
        rc = 1;
        break;
      }
      agglo_aggregate_free(&all[k]);
    }
    fprintf(table, "%lld,%s,%lld,%d,%s,%.17g,%.17g,%llu,%.17g,%.17g,%.17g,%lld,%d,%.4f\n", k + 1, file,
            sizes[k % n_sizes], o.dim, o.method == AGGLO_AGGREGATE_CC ? "cc" : "pc", o.fractal_dimension,
            o.prefactor, (unsigned long long)o.seed, all[k].rg, all[k].rg_target, all[k].radius_geo,
            (long long)all[k].trials, all[k].restarts, dt);
    printf("aggregate %lld: N = %lld, R_g = %.9g (prescribed %.9g), %lld placements, %.3f s -> %s\n", k + 1,
           sizes[k % n_sizes], all[k].rg, all[k].rg_target, (long long)all[k].trials, dt, file);
    fflush(table), fflush(stdout);
    built = k + 1;
  }
  /* one file for all: written with those finished, also when a build stopped or failed */
  if (together && built > 0) {
    snprintf(file, sizeof file, "%s/aggregates.%s", dir, ext);
    agglo_status st = frames ? agglo_aggregates_write_frames(file, all, (size_t)built, o.fractal_dimension,
                                                             o.prefactor, o.radius, box, periodic)
                             : agglo_aggregates_write(file, all, (size_t)built, o.fractal_dimension,
                                                      o.prefactor, o.radius, box, periodic);
    if (st != AGGLO_OK) {
      fprintf(stderr, "agglo aggregate: %s\n", agglo_last_error());
      if (rc == 0) rc = 1;
    } else if (built < count)
      fprintf(stderr, "agglo aggregate: the %lld aggregate%s finished before %s written: %s\n", built,
              built > 1 ? "s" : "", built > 1 ? "are" : "is", file);
  }
  if (fclose(table) != 0 && rc == 0) {
    fprintf(stderr, "agglo aggregate: %s: write failed\n", csv);
    rc = 1;
  }
  for (long long k = 0; k < count; k++) agglo_aggregate_free(&all[k]);
  free(all);
  agglo_dir_release(held_dir);
  if (rc == 0)
    printf("%lld aggregate%s in %.3f s: %s (table: %s)\n", count, count > 1 ? "s" : "",
           agglo_cli_wall_seconds() - t_all, dir, csv);
  return rc;
}
