/* Whole runs through the stepping API: determinism across thread counts, exact restarts, and the
   format and schedule of trajectory.xyz and stats.csv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agglo/agglo.h"
#include "config/config.h"
#include "restart_scenarios.h"
#include "support.h"

#define OUT "run_tests"

/* ---------------------------------------------------------------- helpers */

static void clean(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* Run into dir (removed first unless it is the restart directory). */
static void run_into(const agglo_config *c, const char *dir, int threads, const char *restart) {
  if (!restart || strcmp(restart, dir)) clean(dir);
  agglo_sim *sim = NULL;
  agglo_set_threads(threads);
  agglo_status rc = restart ? agglo_sim_create_from_restart(c, restart, &sim) : agglo_sim_create(c, &sim);
  if (rc == AGGLO_OK) rc = agglo_sim_attach_outputs(sim, dir, AGGLO_OUTPUT_ALL);
  if (rc == AGGLO_OK) rc = agglo_sim_run(sim);
  if (rc == AGGLO_OK) rc = agglo_sim_close_outputs(sim);
  agglo_sim_destroy(sim);
  if (rc != AGGLO_OK) fail_msg("run into %s: status %d: %s", dir, rc, agglo_last_error());
}

typedef struct { char *data; size_t len; } blob;

static blob slurp(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("%s: cannot open", path);
  blob b = {NULL, 0};
  size_t cap = 0, got;
  char buf[65536];
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (b.len + got + 1 > cap) {
      cap = 2 * (b.len + got + 1);
      b.data = realloc(b.data, cap);
      assert_non_null(b.data);
    }
    memcpy(b.data + b.len, buf, got);
    b.len += got;
  }
  fclose(f);
  if (!b.data) b.data = calloc(1, 1);
  b.data[b.len] = 0;
  return b;
}

static void assert_same_file(const char *d1, const char *d2, const char *name) {
  blob a = slurp(d1, name), b = slurp(d2, name);
  if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
    size_t k = 0;
    while (k < a.len && k < b.len && a.data[k] == b.data[k]) k++;
    fail_msg("%s/%s and %s/%s differ (sizes %zu, %zu; first difference at byte %zu)", d1, name, d2,
             name, a.len, b.len, k);
  }
  free(a.data);
  free(b.data);
}

static int exists(const char *dir, const char *name) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && st.st_size > 0;
}

/* Lines of a text buffer (modifies it). */
static size_t split_lines(char *text, char ***lines_out) {
  size_t n = 0, cap = 1024;
  char **lines = malloc(cap * sizeof *lines);
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
    lines[n++] = p;
    if (!nl) break;
    *nl = 0;
    p = nl + 1;
  }
  *lines_out = lines;
  return n;
}

/* ---------------------------------------------------------------- scenarios */

/* 2D periodic Brownian aggregation (restart_scenarios.h), with pictures. */
static const char *brownian_2d = SCENARIO_BROWNIAN_2D "0.5, 1, 1.5\npng_width = 200\n";

/* 3D with walls, shear and gravity. */
static const char *shear_3d =
    "[run]\ndim = 3\nseed = 5\ndt = 0.01\nt_end = 0.5\n"
    "[particles]\nn = 200\nradius = 0.02\nradius_spread = 0.15\n"
    "[box]\nsize = 0.5\nboundary = wall\n"
    "[drag]\ntau = 0.1\n[brownian]\nsigma = 0.3\n[flow]\ntype = shear\nrate = 2\n"
    "[gravity]\ng = 0, 0, -1\n"
    "[attraction]\nkappa = 0.003\nepsilon = 0.003\nscaling = h\n"
    "[output]\ntrajectory_interval = 0.05\nstats_interval = 0.01\nsnapshots =\n";

/* ---------------------------------------------------------------- 5. determinism */

static void determinism(const char *ini, const char *tag) {
  char d1[128], d2[128], d3[128];
  snprintf(d1, sizeof d1, OUT "/det_%s_t1", tag);
  snprintf(d2, sizeof d2, OUT "/det_%s_t2", tag);
  snprintf(d3, sizeof d3, OUT "/det_%s_seed", tag);
  /* short: two threads on a shared machine spend most of their time waiting for each other */
  const char *short_run[] = {"run.t_end=0.3", NULL};
  agglo_config *c = load_config(ini, short_run);
  run_into(c, d1, 1, NULL);
  run_into(c, d2, 2, NULL);
  const char *files[] = {"state.xyz", "stats.csv", "trajectory.xyz", "contacts.txt"};
  for (int k = 0; k < 4; k++) assert_same_file(d1, d2, files[k]);
  /* a different seed must change the result (the comparison can fail) */
  const char *over[] = {"run.t_end=0.3", "run.seed=12345", NULL};
  agglo_config *c2 = load_config(ini, over);
  run_into(c2, d3, 1, NULL);
  blob a = slurp(d1, "state.xyz"), b = slurp(d3, "state.xyz");
  assert_true(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
  free(a.data);
  free(b.data);
  agglo_config_destroy(c);
  agglo_config_destroy(c2);
}

/* Above AGGLO_PAR_MIN (8192) particles, where the steps' loops run on several threads: 1, 2 and
   3 threads (an uneven split) give the same bytes. A few steps of the bench's Brownian case
   (bench/contact/scaling.py) and a 3D one with walls, gravity and the h attraction. */
static void determinism_large(const char *ini, const char *tag) {
  char d[3][128];
  agglo_config *c = load_config(ini, NULL);
  for (int t = 1; t <= 3; t++) {
    snprintf(d[t - 1], sizeof d[t - 1], OUT "/det_large_%s_t%d", tag, t);
    run_into(c, d[t - 1], t, NULL);
  }
  const char *files[] = {"state.xyz", "stats.csv", "contacts.txt"};
  for (int t = 1; t < 3; t++)
    for (int k = 0; k < 3; k++) assert_same_file(d[0], d[t], files[k]);
  agglo_config_destroy(c);
}

static void test_determinism_threads(void **st) {
  (void)st;
  determinism(brownian_2d, "2d");
  determinism(shear_3d, "3d");
  determinism_large("[run]\ndim = 2\nseed = 3\ndt = 0.02\nt_end = 0.1\n"
                    "[particles]\nn = 9000\nfraction = 0.2\nradius = 0.01\nradius_spread = 0.15\n"
                    "[box]\nsize =\nboundary = periodic\n[drag]\ntau = 0.2\n[brownian]\nsigma = 0.5\n"
                    "[attraction]\nkappa = 0.003\nepsilon = 0.003\nscaling = sqrt_h\n"
                    "[output]\ntrajectory_interval = 1e9\nstats_interval = 0.02\nsnapshots =\n",
                    "2d");
  determinism_large("[run]\ndim = 3\nseed = 4\ndt = 0.01\nt_end = 0.03\n"
                    "[particles]\nn = 9000\nfraction = 0.2\nradius = 0.01\nradius_spread = 0.15\n"
                    "[box]\nsize =\nboundary = wall\n[drag]\ntau = 0.1\n[brownian]\nsigma = 0.3\n"
                    "[gravity]\ng = 0, 0, -1\n"
                    "[attraction]\nkappa = 0.003\nepsilon = 0.003\nscaling = h\n"
                    "[output]\ntrajectory_interval = 1e9\nstats_interval = 0.01\nsnapshots =\n",
                    "3d");
}

/* ---------------------------------------------------------------- 6. restart */

/* Lines of a file after its first `skip` lines, as one string. */
static char *tail_lines(const char *dir, const char *name, size_t skip) {
  blob b = slurp(dir, name);
  char *p = b.data;
  for (size_t k = 0; k < skip && p; k++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  assert_non_null(p);
  char *out = strdup(p);
  free(b.data);
  return out;
}

static size_t count_lines(const char *dir, const char *name) {
  blob b = slurp(dir, name);
  size_t n = 0;
  for (size_t k = 0; k < b.len; k++) n += b.data[k] == '\n';
  free(b.data);
  return n;
}

/* B, restarted from A's directory, ends as C (the uninterrupted run), and its trajectory and
   stats are C's after the restart point. */
static void assert_continues(const char *dA, const char *dB, const char *dC) {
  assert_same_file(dB, dC, "state.xyz");
  assert_same_file(dB, dC, "contacts.txt");
  size_t nA_traj = count_lines(dA, "trajectory.xyz"), nA_stats = count_lines(dA, "stats.csv");
  char *tc = tail_lines(dC, "trajectory.xyz", nA_traj), *tb = tail_lines(dB, "trajectory.xyz", 0);
  assert_true(strlen(tb) > 0);
  assert_string_equal(tb, tc);
  free(tc), free(tb);
  char *sc = tail_lines(dC, "stats.csv", nA_stats), *sb = tail_lines(dB, "stats.csv", 1);
  assert_true(strlen(sb) > 0);
  assert_string_equal(sb, sc);
  free(sc), free(sb);
}

/* Every snapshot of the scenario cc in dD equals C's (snapshot_STEP.png). */
static void assert_snapshots_same(const agglo_config *cc, const char *dD, const char *dC) {
  DIR *d = opendir(dC);
  assert_non_null(d);
  int found = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, "snapshot_", 9) != 0) continue;
    assert_same_file(dD, dC, e->d_name);
    found++;
  }
  closedir(d);
  assert_true(found <= cc->snapshots.n && (found > 0 || cc->snapshots.n == 0));
}

static void restart_case(const char *ini, const char *tag, const char *t_half, const char *t_full) {
  char dA[128], dB[128], dC[128], dD[128], over_half[64], over_full[64];
  snprintf(dA, sizeof dA, OUT "/rs_%s_A", tag);
  snprintf(dB, sizeof dB, OUT "/rs_%s_B", tag);
  snprintf(dC, sizeof dC, OUT "/rs_%s_C", tag);
  snprintf(dD, sizeof dD, OUT "/rs_%s_D", tag);
  snprintf(over_half, sizeof over_half, "run.t_end=%s", t_half);
  snprintf(over_full, sizeof over_full, "run.t_end=%s", t_full);
  const char *oh[] = {over_half, NULL}, *of[] = {over_full, NULL};
  /* A: first half; C: the whole run uninterrupted */
  agglo_config *ca = load_config(ini, oh), *cc = load_config(ini, of);
  run_into(ca, dA, 1, NULL);
  run_into(cc, dC, 1, NULL);
  run_into(ca, dD, 1, NULL);
  /* B: restart from A's directory with A's scenario.ini and a later end */
  agglo_config *cb = restart_config(dA, over_full);
  run_into(cb, dB, 1, dA);
  assert_continues(dA, dB, dC);
  /* D: restart in place (the same directory): every output equals the uninterrupted run's */
  run_into(cb, dD, 1, dD);
  const char *files[] = {"state.xyz", "contacts.txt", "trajectory.xyz", "stats.csv", "scenario.ini"};
  for (int k = 0; k < 5; k++) assert_same_file(dD, dC, files[k]);
  /* and so do the snapshots, including one at the restart time */
  assert_snapshots_same(cc, dD, dC);
  agglo_config_destroy(ca);
  agglo_config_destroy(cb);
  agglo_config_destroy(cc);
}

/* A gluey funnel with obstacles and DPD with capillary bridges (restart_scenarios.h). */
static const char *gluey_funnel = SCENARIO_GLUEY_FUNNEL "0.15, 0.3\npng_width = 200\n";
static const char *dpd_capillary = SCENARIO_DPD_CAPILLARY "\n";

static void test_restart_exact(void **st) {
  (void)st;
  restart_case(brownian_2d, "2d", "1", "2");
  restart_case(shear_3d, "3d", "0.25", "0.5");
  restart_case(gluey_funnel, "gluey", "0.15", "0.3");
  restart_case(dpd_capillary, "dpd", "0.1", "0.2");
  /* the restart point held bridges */
  blob b = slurp(OUT "/rs_dpd_A", "contacts.txt");
  char *p = strstr(b.data, "# capillary bridges: count, then id pairs\n");
  assert_non_null(p);
  long nb = strtol(p + strlen("# capillary bridges: count, then id pairs\n"), NULL, 10);
  printf("DPD restart: %ld capillary bridges at the restart point\n", nb);
  assert_true(nb > 0);
  free(b.data);
}

/* Ballistic time stepping (variable step): a run interrupted at one of its own steps and
   restarted goes on bit for bit like the uninterrupted run. The interruption time is read from
   the uninterrupted run's trajectory (Time= is written exactly, as the shortest text that reads back), so the first run ends on
   that step exactly instead of cutting a shorter last step. Walls (2D, lattice) and periodic 3D
   with polydisperse masses (cluster momenta are sums of unequal terms). */
static const char *ballistic_2d = SCENARIO_BALLISTIC_2D "0, 100, 390\npng_width = 200\n";
static const char *ballistic_3d =
    "[run]\nmodel = ballistic\ndim = 3\nseed = 8\nt_end = 300\n"
    "[particles]\nn = 300\nradius = 1\nradius_spread = 0.2\nfraction = 0.1\n"
    "[box]\nsize =\nboundary = periodic\n"
    "[ballistic]\nmethod = time_stepping\nvelocity = unit\nstop = t_end\n"
    "[output]\ntrajectory_interval = 30\nstats_interval = 30\nsnapshots =\n";

/* The Time= of the k-th frame of dir/trajectory.xyz (as written, exactly). */
static void frame_time(const char *dir, int k, char *out, size_t len) {
  blob b = slurp(dir, "trajectory.xyz");
  const char *p = b.data;
  for (int f = 0; f <= k; f++) {
    p = strstr(p, "Time=");
    assert_non_null(p);
    p += 5;
  }
  size_t n = strcspn(p, " \n");
  assert_true(n + 1 < len);
  memcpy(out, p, n);
  out[n] = 0;
  free(b.data);
}

static void ballistic_restart_case(const char *ini, const char *tag, int frame) {
  char dA[128], dB[128], dC[128], dD[128], t_mid[64], over_mid[96];
  snprintf(dA, sizeof dA, OUT "/brs_%s_A", tag);
  snprintf(dB, sizeof dB, OUT "/brs_%s_B", tag);
  snprintf(dC, sizeof dC, OUT "/brs_%s_C", tag);
  snprintf(dD, sizeof dD, OUT "/brs_%s_D", tag);
  agglo_config *cc = load_config(ini, NULL);
  run_into(cc, dC, 1, NULL);
  /* interrupt at that frame of C (a step of C, with clusters and links by then) */
  frame_time(dC, frame, t_mid, sizeof t_mid);
  snprintf(over_mid, sizeof over_mid, "run.t_end=%s", t_mid);
  const char *om[] = {over_mid, NULL};
  agglo_config *ca = load_config(ini, om);
  run_into(ca, dA, 1, NULL);
  run_into(ca, dD, 1, NULL);
  char over_full[64];
  snprintf(over_full, sizeof over_full, "run.t_end=%.17g", cc->t_end);
  agglo_config *cb = restart_config(dA, over_full);
  run_into(cb, dB, 1, dA);
  assert_continues(dA, dB, dC);
  /* in place: every file equals the uninterrupted run's (scenario.ini: same t_end text) */
  run_into(cb, dD, 1, dD);
  const char *files[] = {"state.xyz", "contacts.txt", "trajectory.xyz", "stats.csv"};
  for (int k = 0; k < 4; k++) assert_same_file(dD, dC, files[k]);
  assert_snapshots_same(cc, dD, dC);
  agglo_config_destroy(ca);
  agglo_config_destroy(cb);
  agglo_config_destroy(cc);
}

static void test_restart_ballistic_exact(void **st) {
  (void)st;
  ballistic_restart_case(ballistic_2d, "2d", 5);
  ballistic_restart_case(ballistic_3d, "3d", 5);
}

/* ---------------------------------------------------------------- 7. a stop, then a resume */

/* The callback of agglo run's SIGTERM and Ctrl-C handler, at a chosen step. */
static int stop_at(agglo_sim *sim, void *user) { return agglo_sim_step_count(sim) == *(int64_t *)user; }

/* A run stopped by its callback at step `at` (off the output schedule), its writers closed as
   agglo run closes them, then resumed in place from its restart point: the files equal the
   uninterrupted run's byte for byte (no row or frame of the stop, the same mean solver
   iterations in the row after it, the same clusters and event times). */
static void stop_resume_case(const char *ini, const char *const *over, int64_t at, const char *tag) {
  char dC[128], dS[128], t_end[64];
  snprintf(dC, sizeof dC, OUT "/stop_%s_C", tag);
  snprintf(dS, sizeof dS, OUT "/stop_%s_S", tag);
  agglo_config *c = load_config(ini, over);
  run_into(c, dC, 1, NULL);
  clean(dS);
  agglo_sim *sim = NULL;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  assert_int_equal(agglo_sim_attach_outputs(sim, dS, AGGLO_OUTPUT_ALL), AGGLO_OK);
  assert_int_equal(agglo_sim_set_callback(sim, 1, stop_at, &at), AGGLO_OK);
  assert_int_equal(agglo_sim_run(sim), AGGLO_STOPPED);
  assert_int_equal(agglo_sim_step_count(sim), at);
  assert_int_equal(agglo_sim_close_outputs(sim), AGGLO_OK);
  agglo_sim_destroy(sim);
  snprintf(t_end, sizeof t_end, "run.t_end=%.17g", c->t_end);
  agglo_config *cr = restart_config(dS, t_end);
  run_into(cr, dS, 1, dS);
  const char *files[] = {"stats.csv", "trajectory.xyz", "state.xyz", "contacts.txt"};
  int h5 = c->checkpoint_format == AGGLO_CHECKPOINT_HDF5;
  for (int k = 0; k < (h5 ? 2 : 4); k++) assert_same_file(dS, dC, files[k]);
  agglo_config_destroy(c);
  agglo_config_destroy(cr);
}

static void test_stop_resume_exact(void **st) {
  (void)st;
  /* contact: rows every 5 steps, so the row after the stop averages iterations across it */
  const char *contact[] = {"output.stats_interval=0.1", "output.trajectory_interval=0.14", NULL};
  stop_resume_case(brownian_2d, contact, 23, "contact");
  const char *contact_h5[] = {"output.stats_interval=0.1", "output.checkpoint_format=hdf5", NULL};
  stop_resume_case(brownian_2d, contact_h5, 23, "contact_h5");
  stop_resume_case(gluey_funnel, NULL, 107, "gluey");
  stop_resume_case(dpd_capillary, NULL, 33, "dpd");
  stop_resume_case(ballistic_2d, NULL, 9, "ballistic");
}

/* A time-stepping ballistic scenario made event driven. */
static void event_driven(const char *ini, char *out, size_t len) {
  const char *from = "method = time_stepping", *at = strstr(ini, from);
  assert_non_null(at);
  snprintf(out, len, "%.*smethod = event_driven%s", (int)(at - ini), ini, at + strlen(from));
}

/* Event-driven ballistic: restarted at one of its steps (a restart point, as after a kill) and
   after a stop off the schedule, it goes on bit for bit (event times depend on the last bits of
   the clusters' offsets and reference times, which the restart point keeps as they are). */
static void test_event_driven_resume_exact(void **st) {
  (void)st;
  char ed_2d[1024], ed_3d[1024];
  event_driven(ballistic_2d, ed_2d, sizeof ed_2d);
  event_driven(ballistic_3d, ed_3d, sizeof ed_3d);
  ballistic_restart_case(ed_2d, "2d_ed", 5);
  ballistic_restart_case(ed_3d, "3d_ed", 2);
  const char *rows[] = {"output.stats_interval=13", NULL};
  stop_resume_case(ed_2d, rows, 17, "ballistic_ed");
}

/* Brownian cluster-cluster aggregation (dlca, the event-driven engine with flights and a
   sticking probability): restarted at one of its steps and after a stop off the schedule, it
   goes on bit for bit (the restart point keeps the random numbers drawn and the flights). */
static const char *dlca_3d =
    "[run]\nmodel = dlca\ndim = 3\nseed = 5\nt_end = 500\n"
    "[particles]\nn = 300\nradius = 1\nradius_spread = 0.2\nfraction = 0.02\n"
    "[box]\nsize =\nboundary = periodic\n"
    "[dlca]\npersistence = 0.5\nprobability = 0.5\nstop = t_end\n"
    "[output]\ntrajectory_interval = 2\nstats_interval = 1\nsnapshots =\n";

/* the same with rotation (the restart point keeps each cluster's orientation, in its particles'
   positions, and the time of its last turn) */
static const char *dlca_3d_turning =
    "[run]\nmodel = dlca\ndim = 3\nseed = 5\nt_end = 500\n"
    "[particles]\nn = 300\nradius = 1\nradius_spread = 0.2\nfraction = 0.02\n"
    "[box]\nsize =\nboundary = periodic\n"
    "[dlca]\npersistence = 0.5\nprobability = 0.5\nstop = t_end\nrotation = on\n"
    "[output]\ntrajectory_interval = 2\nstats_interval = 1\nsnapshots =\n";

static void test_dlca_resume_exact(void **st) {
  (void)st;
  ballistic_restart_case(dlca_3d, "dlca", 5);
  stop_resume_case(dlca_3d, NULL, 17, "dlca");
  ballistic_restart_case(dlca_3d_turning, "dlca_turning", 5);
  stop_resume_case(dlca_3d_turning, NULL, 17, "dlca_turning");
}

/* An analysis interval that is not a multiple of the stats interval: each analysis time goes
   to the first row at or after it (none lost, none early), with fixed steps (by step number:
   analysis every 8 steps, rows every 5) and variable ones (by time; steps end at the rows and
   frames, so the stop at step 5, t = 8, falls after the analysis time 7.5 and before the row at
   9 that carries it), and a run stopped there and resumed writes the same rows. */
static void assert_analysis_carried(const char *dir, double every, int by_step) {
  blob b = slurp(dir, "stats.csv");
  char **lines;
  size_t nl = split_lines(b.data, &lines), rows = 0, carried = 0;
  double prev = -1;
  for (size_t k = 1; k < nl && lines[k][0]; k++) {
    double t;
    long long step;
    assert_int_equal(sscanf(lines[k], "%lf,%lld", &t, &step), 2);
    const char *col = lines[k];
    for (int c = 1; c < 13; c++) col = strchr(col, ',') + 1; /* weight_avg_cluster_size */
    double at = by_step ? (double)step : t;
    int due = prev < 0 || floor(at / every + 1e-9) > floor(prev / every + 1e-9);
    int last = k + 1 == nl || !lines[k + 1][0];
    if (!(last && !by_step && !due)) /* the ballistic and dlca models also fill the last row */
      if ((*col != ',') != due) fail_msg("%s/stats.csv row %zu (t = %g): indicators %s", dir, k, t,
                                         due ? "missing" : "not due");
    carried += due && prev >= 0 && floor(at / every + 1e-9) * every < at - 1e-9;
    prev = at, rows++;
  }
  assert_true(rows > 5 && carried > 0);
  free(lines);
  free(b.data);
}

static void test_analysis_rows_carried(void **st) {
  (void)st;
  const char *contact[] = {"output.stats_interval=0.1", "output.analysis_interval=0.15", NULL};
  stop_resume_case(brownian_2d, contact, 23, "contact_carry");
  assert_analysis_carried(OUT "/stop_contact_carry_C", 8, 1);
  const char *dlca[] = {"output.stats_interval=3", "output.analysis_interval=2.5", "run.t_end=60", NULL};
  stop_resume_case(dlca_3d, dlca, 5, "dlca_carry");
  assert_analysis_carried(OUT "/stop_dlca_carry_C", 2.5, 0);
}

/* ---------------------------------------------------------------- 9. trajectory format */

/* Frames of an extended XYZ file: checks every header and line; returns the frame count and
   the Time of each frame. */
static size_t parse_trajectory(const char *dir, size_t n_expect, double *times, size_t max_frames) {
  blob b = slurp(dir, "trajectory.xyz");
  char **lines;
  size_t nl = split_lines(b.data, &lines), frames = 0;
  if (nl && lines[nl - 1][0] == 0) nl--;
  size_t k = 0;
  while (k < nl) {
    size_t n;
    char extra;
    if (sscanf(lines[k], "%zu %c", &n, &extra) != 1) fail_msg("line %zu: not a particle count", k + 1);
    assert_int_equal(n, n_expect);
    assert_true(k + 1 < nl);
    const char *h = lines[k + 1];
    /* Properties: name:type:count triples; pos:R:3, radius:R:1, velocities:R:3, cluster:I:1 required */
    const char *p = strstr(h, "Properties=");
    assert_non_null(p);
    char props[512];
    assert_int_equal(sscanf(p, "Properties=%511s", props), 1);
    int cols = 0, have_pos = 0, have_radius = 0, have_velo = 0, have_cluster = 0, have_species = 0;
    char *save = NULL;
    for (char *name = strtok_r(props, ":", &save); name; name = strtok_r(NULL, ":", &save)) {
      char *type = strtok_r(NULL, ":", &save), *cnt = strtok_r(NULL, ":", &save);
      if (!type || !cnt) fail_msg("frame %zu: Properties entry '%s' is not name:type:count", frames, name);
      assert_true(strlen(type) == 1 && strchr("SRIL", type[0]));
      int c = atoi(cnt);
      assert_true(c >= 1);
      cols += c;
      if (!strcmp(name, "pos")) have_pos = !strcmp(type, "R") && c == 3;
      if (!strcmp(name, "radius")) have_radius = !strcmp(type, "R") && c == 1;
      if (!strcmp(name, "velocities")) have_velo = !strcmp(type, "R") && c == 3;
      if (!strcmp(name, "cluster")) have_cluster = !strcmp(type, "I") && c == 1;
      if (!strcmp(name, "species")) have_species = !strcmp(type, "S") && c == 1;
    }
    assert_true(have_pos && have_radius && have_velo && have_cluster && have_species);
    /* Lattice: 9 numbers in quotes; pbc: 3 of T/F; Time */
    double lat[9];
    const char *lp = strstr(h, "Lattice=\"");
    assert_non_null(lp);
    assert_int_equal(sscanf(lp, "Lattice=\"%lf %lf %lf %lf %lf %lf %lf %lf %lf\"", &lat[0], &lat[1],
                            &lat[2], &lat[3], &lat[4], &lat[5], &lat[6], &lat[7], &lat[8]), 9);
    assert_true(lat[0] > 0 && lat[4] > 0 && lat[8] > 0 && lat[1] == 0 && lat[3] == 0);
    char pbc[3];
    const char *pp = strstr(h, "pbc=\"");
    assert_non_null(pp);
    assert_int_equal(sscanf(pp, "pbc=\"%c %c %c\"", &pbc[0], &pbc[1], &pbc[2]), 3);
    for (int q = 0; q < 3; q++) assert_true(pbc[q] == 'T' || pbc[q] == 'F');
    const char *tp = strstr(h, "Time=");
    assert_non_null(tp);
    assert_true(frames < max_frames);
    times[frames] = atof(tp + 5);
    /* every particle line has exactly the declared columns, numbers where R/I */
    for (size_t i = 0; i < n; i++) {
      assert_true(k + 2 + i < nl);
      char *line = strdup(lines[k + 2 + i]), *s2 = NULL;
      int cnt = 0;
      for (char *tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
        if (cnt > 0) {
          char *end;
          strtod(tok, &end);
          if (*end) fail_msg("frame %zu particle %zu: '%s' is not a number", frames, i, tok);
        }
        cnt++;
      }
      if (cnt != cols) fail_msg("frame %zu particle %zu: %d columns, Properties declare %d", frames, i, cnt, cols);
      free(line);
    }
    k += 2 + n;
    frames++;
  }
  free(lines);
  free(b.data);
  return frames;
}

static void trajectory_case(const char *t_end, const char *interval, const char *dt,
                            size_t expect_frames, const int64_t *expect_steps) {
  char o1[64], o2[64], o3[64];
  snprintf(o1, sizeof o1, "run.t_end=%s", t_end);
  snprintf(o2, sizeof o2, "output.trajectory_interval=%s", interval);
  snprintf(o3, sizeof o3, "run.dt=%s", dt);
  const char *over[] = {o1, o2, o3, "particles.n=150", "output.snapshots=", "output.stats_interval=0.1", NULL};
  agglo_config *c = load_config(brownian_2d, over);
  run_into(c, OUT "/traj", 1, NULL);
  double times[256];
  size_t frames = parse_trajectory(OUT "/traj", 150, times, 256);
  if (frames != expect_frames)
    fail_msg("t_end %s, interval %s, dt %s: %zu frames, expected %zu", t_end, interval, dt, frames,
             expect_frames);
  for (size_t f = 0; f < frames; f++) {
    double want = (double)expect_steps[f] * c->dt;
    if (fabs(times[f] - want) > 1e-12) fail_msg("frame %zu: Time=%.17g, expected %.17g", f, times[f], want);
  }
  /* the last frame is the final state (same ids, positions to the 9 digits written) */
  assert_true(exists(OUT "/traj", "state.xyz"));
  /* stats.csv: a header and rows with as many columns, at the stats schedule */
  blob s = slurp(OUT "/traj", "stats.csv");
  char **lines;
  size_t nl = split_lines(s.data, &lines);
  if (nl && lines[nl - 1][0] == 0) nl--;
  int hcols = 1;
  for (char *p = lines[0]; *p; p++) hcols += *p == ',';
  assert_true(strncmp(lines[0], "time,step,", 10) == 0);
  for (size_t k = 1; k < nl; k++) {
    int cols = 1;
    for (char *p = lines[k]; *p; p++) cols += *p == ',';
    assert_int_equal(cols, hcols);
  }
  int64_t last = llround(c->t_end / c->dt), every = llround(0.1 / c->dt);
  int64_t rows = last / every + 1 + (last % every != 0);
  assert_int_equal(nl - 1, rows);
  free(lines);
  free(s.data);
  agglo_config_destroy(c);
}

static void test_trajectory_format(void **st) {
  (void)st;
  /* t_end 1, every 0.1 at dt 0.02: steps 0, 5, ..., 50 */
  int64_t a[11];
  for (int k = 0; k < 11; k++) a[k] = 5 * k;
  trajectory_case("1", "0.1", "0.02", 11, a);
  /* every 0.12 (6 steps) up to step 25: 0, 6, 12, 18, 24, then the final 25 */
  int64_t b[] = {0, 6, 12, 18, 24, 25};
  trajectory_case("0.5", "0.12", "0.02", 6, b);
  /* interval 0: first and last frames only */
  int64_t c[] = {0, 20};
  trajectory_case("0.2", "0", "0.01", 2, c);
}

int main(void) {
  mkdir(OUT, 0777);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trajectory_format),
      cmocka_unit_test(test_determinism_threads),
      cmocka_unit_test(test_restart_exact),
      cmocka_unit_test(test_restart_ballistic_exact),
      cmocka_unit_test(test_stop_resume_exact),
      cmocka_unit_test(test_event_driven_resume_exact),
      cmocka_unit_test(test_dlca_resume_exact),
      cmocka_unit_test(test_analysis_rows_carried),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
