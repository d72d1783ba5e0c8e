/* `agglo plot RUN_DIR --kernel K`: the run's mean cluster size against Smoluchowski's solution for
   the kernel K (time scale fitted) and its growth exponent z (docs/analysis.md, "Kinetics").
   The numbers come from the library (agglo_smoluchowski_fit, agglo_growth_exponent); here the
   run's stats.csv is read, the result printed and plotted by gnuplot. */
#include "kinetics_cli.h"
#include "gnuplot.h"
#include "picture_cli.h"
#include "agglo/analysis.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int agglo_cli_kernel_named(const char *name) {
  static const char *names[] = {"constant", "additive", "ballistic", "brownian"};
  for (int k = 0; k < 4; k++)
    if (!strcmp(name, names[k])) return k; /* AGGLO_KERNEL_CONSTANT .. _BROWNIAN */
  return -1;
}

/* time, mean_cluster_size and n_clusters of every row of dir/stats.csv (rows bounded by the
   file). 0, or 1 with the message printed. */
static int read_sizes(const char *path, double **t, double **s, double **nc, size_t *m) {
  FILE *f = agglo_cli_csv_open(path);
  if (!f) return 1;
  static char line[65536];
  int got = agglo_cli_csv_line(f, line, sizeof line, path, 1), col[3] = {-1, -1, -1};
  const char *want[3] = {"time", "mean_cluster_size", "n_clusters"};
  line[strcspn(line, "\r\n")] = 0;
  int k = 0;
  for (char *c = strtok(got > 0 ? line : "", ","); c; c = strtok(NULL, ","), k++)
    for (int q = 0; q < 3; q++)
      if (!strcmp(c, want[q])) col[q] = k;
  if (col[0] < 0 || col[1] < 0 || col[2] < 0) {
    fprintf(stderr, "agglo plot: %s: no time, mean_cluster_size and n_clusters columns\n", path);
    fclose(f);
    return 1;
  }
  size_t cap = 256;
  *m = 0, *t = malloc(cap * sizeof **t), *s = malloc(cap * sizeof **s), *nc = malloc(cap * sizeof **nc);
  int oom = !*t || !*s || !*nc;
  for (long ln = 2; !oom && (got = agglo_cli_csv_line(f, line, sizeof line, path, ln)) > 0; ln++) {
    if (*m == cap) {
      cap *= 2;
      double *a = realloc(*t, cap * sizeof *a);
      if (a) *t = a;
      double *b = a ? realloc(*s, cap * sizeof *b) : NULL;
      if (b) *s = b;
      double *c = b ? realloc(*nc, cap * sizeof *c) : NULL;
      if (c) *nc = c;
      if ((oom = !c)) break;
    }
    double v[3] = {NAN, NAN, NAN};
    char *p = line;
    for (int q = 0; p; q++) {
      for (int w = 0; w < 3; w++)
        if (q == col[w]) v[w] = strtod(p, NULL);
      p = strchr(p, ',');
      if (p) p++;
    }
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
      fprintf(stderr, "agglo plot: %s:%ld: time, mean_cluster_size or n_clusters is not a number\n", path, ln);
      got = -1;
      break;
    }
    (*t)[*m] = v[0], (*s)[*m] = v[1], (*nc)[(*m)++] = v[2];
  }
  fclose(f);
  if (oom) fprintf(stderr, "agglo plot: %s: out of memory\n", path);
  return got < 0 || oom;
}

int agglo_cli_kinetics(const char *dir, const char *out, const agglo_smoluchowski_options *o,
                       double t_lo, double t_hi) {
  char p[4400];
  snprintf(p, sizeof p, "%s/stats.csv", dir);
  double *t = NULL, *s = NULL, *nc = NULL;
  size_t m = 0;
  if (read_sizes(p, &t, &s, &nc, &m) != 0) {
    free(t); free(s); free(nc);
    return 1;
  }
  /* the growth exponent's window [choice]: aggregation under way (mean size >= 2) and far from
     the end (10 clusters or more), unless given */
  int chosen = !(t_lo >= 0 && t_hi > t_lo);
  if (chosen) {
    t_lo = INFINITY, t_hi = -INFINITY;
    for (size_t a = 0; a < m; a++)
      if (s[a] >= 2 && nc[a] >= 10) t_lo = fmin(t_lo, t[a]), t_hi = fmax(t_hi, t[a]);
  }
  double se;
  size_t used;
  double z = agglo_growth_exponent(t, s, m, t_lo, t_hi, &se, &used);
  /* Smoluchowski over the same window */
  double *tw = malloc((m ? m : 1) * sizeof *tw), *sw = malloc((m ? m : 1) * sizeof *sw);
  size_t mw = 0;
  for (size_t a = 0; tw && sw && a < m; a++)
    if (t[a] >= t_lo && t[a] <= t_hi) tw[mw] = t[a], sw[mw++] = s[a];
  enum { CURVE = 400 };
  double ct[CURVE], cs[CURVE];
  size_t cn = 0;
  agglo_smoluchowski_fit_result r;
  int rc = 0;
  if (!tw || !sw) {
    fprintf(stderr, "agglo plot: out of memory\n");
    rc = 1;
  } else if (agglo_smoluchowski_fit(o, tw, sw, mw, &r, ct, cs, &cn, CURVE) != AGGLO_OK) {
    fprintf(stderr, "agglo plot: %s\n", agglo_last_error());
    rc = 1;
  }
  free(tw); free(sw);
  static const char *kname[] = {"constant", "additive", "ballistic", "brownian"};
  if (rc == 0) {
    printf("%s: mean cluster size over t = %g .. %g (%zu rows%s)\n", p, t_lo, t_hi, used,
           chosen ? ": mean size >= 2 and >= 10 clusters" : "");
    if (isfinite(z))
      printf("  growth exponent z       %.4f +- %.4f (S ~ t^z, least squares of log S on log t)\n", z, se);
    else
      printf("  growth exponent z       nan (%zu rows in the window, a fit needs 2)\n", used);
    if (isfinite(r.scale))
      printf("  Smoluchowski, %s kernel (d_f %g, kmax %zu): tau = %.6g t; mean size within %.1f%% "
             "(largest), %.1f%% (mean) over %zu rows; solution to S = %.4g, mass lost past kmax "
             "%.1e\n", kname[o->kernel], o->df > 0 ? o->df : o->dim, o->kmax, r.scale,
             100 * r.max_deviation, 100 * r.mean_deviation, r.compared, r.size_reached, r.lost);
    else
      printf("  Smoluchowski, %s kernel: no row in the window within the solution's sizes (up to "
             "S = %.4g, mass lost %.1e: raise --kmax)\n", kname[o->kernel], r.size_reached, r.lost);
  }
  /* the data and the plot */
  FILE *g = NULL;
  if (rc == 0 && isfinite(r.scale)) {
    snprintf(p, sizeof p, "%s/smoluchowski.dat", out);
    FILE *d = fopen(p, "w");
    if (!d) {
      fprintf(stderr, "agglo plot: %s: cannot write: %s\n", p, strerror(errno));
      rc = 1;
    } else {
      fprintf(d, "# t = tau / %.10g, mean size S of Smoluchowski's solution (%s kernel)\n", r.scale, kname[o->kernel]);
      for (size_t q = 1; q < cn; q++) fprintf(d, "%.10g %.10g\n", ct[q] / r.scale, cs[q]);
      if (fclose(d) != 0) fprintf(stderr, "agglo plot: %s: write failed\n", p), rc = 1;
    }
    snprintf(p, sizeof p, "%s/kinetics.gp", out);
    if (rc == 0 && !(g = fopen(p, "w"))) fprintf(stderr, "agglo plot: %s: cannot write: %s\n", p, strerror(errno)), rc = 1;
  }
  if (g) {
    snprintf(p, sizeof p, "%s/kinetics.dat", out);
    FILE *d = fopen(p, "w");
    double lt = 0, ls = 0; /* the fitted line passes through the mean of the logarithms */
    if (d) {
      fprintf(d, "# t mean_cluster_size n_clusters (%s/stats.csv)\n", dir);
      for (size_t a = 0; a < m; a++) {
        fprintf(d, "%.10g %.10g %.10g\n", t[a], s[a], nc[a]);
        if (t[a] > 0 && s[a] > 0 && t[a] >= t_lo && t[a] <= t_hi) lt += log(t[a]), ls += log(s[a]);
      }
      rc = fclose(d) != 0;
    }
    if (!d || rc) fprintf(stderr, "agglo plot: %s: cannot write\n", p), rc = 1;
    if (used) lt /= (double)used, ls /= (double)used;
    fprintf(g, "set terminal pngcairo size 900,600 font ',11'\nset grid\nset logscale xy\n"
               "set key top left\nset output 'kinetics.png'\n"
               "set title 'mean cluster size: z = %.3f, Smoluchowski (%s kernel) within %.1f%%'\n"
               "set xlabel 'time t'\nset ylabel 'mean cluster size S'\n"
               "plot 'kinetics.dat' using ($1 > 0 ? $1 : NaN):2 with points pt 7 ps 0.5 title 'run', \\\n"
               "     'smoluchowski.dat' using 1:2 with lines lw 2 title 'Smoluchowski'",
            z, kname[o->kernel], 100 * r.max_deviation);
    if (isfinite(z))
      fprintf(g, ", \\\n     (x >= %.10g && x <= %.10g) ? exp(%.10g) * (x / exp(%.10g))**%.10g : NaN "
                 "with lines dt 2 title 't^z fit'", t_lo, t_hi, ls, lt, z);
    fprintf(g, "\n");
    if (fclose(g) != 0) rc = 1;
    snprintf(p, sizeof p, "%s/kinetics.log", out);
    if (rc == 0 && agglo_cli_gnuplot("agglo plot", out, "kinetics.gp", p, 1) != 0) rc = 1;
    if (rc == 0) printf("written: %s/kinetics.png (kinetics.dat, smoluchowski.dat, kinetics.gp)\n", out);
  }
  free(t); free(s); free(nc);
  return rc;
}
