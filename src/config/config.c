#include "config/config.h"
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include "core/files.h"
#include "core/setup.h"
#include "picture/picture.h"
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The keys every model reads (but those a model ignores): [run], [particles], [box] before the
   models' keys, [output] and [picture] after them. run.model's meaning goes on with each model's
   help. */
static const agglo_key head[] = {
  {"run", "model", T_MODEL, OFF(model), "contact", 0, 0, 0, NULL, "model to simulate: "},
  {"run", "dim", T_INT, OFF(dim), "2", 2, 3, 0, 0, "space dimension"},
  {"run", "seed", T_INT, OFF(seed), "1", 0, 9.2e18, 0, 0,
   "random seed; every random number is a function of (seed, step, particle id)"},
  {"run", "t_end", T_DOUBLE, OFF(t_end), "3", 0, BIG, 0, 0,
   "simulated time at which the run stops (contact, gluey, dpd: the nearest whole number of steps "
   "of run.dt, at most 2^53)"},
  {"run", "dt", T_DOUBLE, OFF(dt), "0.02", 0, BIG, 1, 0, "time step h"},
  {"particles", "n", T_INT, OFF(n), "2000", 1, 1e15, 0, 0,
   "number of particles (memory is checked against the machine before the run)"},
  {"particles", "radius", T_DOUBLE, OFF(radius), "0.01", 0, BIG, 1, 0, "reference radius r"},
  {"particles", "radius_spread", T_DOUBLE, OFF(radius_spread), "0.15", 0, 0.99, 0, 0,
   "radii uniform in [r(1-s), r(1+s)]; 0 = all equal"},
  {"particles", "radius_distribution", T_ENUM, OFF(radius_distribution), "uniform", 0, 0, 0,
   "uniform|lognormal",
   "uniform: radii by radius_spread; lognormal: radii of geometric mean r and geometric "
   "standard deviation radius_sigma (aerosol monomers)"},
  {"particles", "radius_sigma", T_DOUBLE, OFF(radius_sigma), "1.25", 1, 10, 0, 0,
   "lognormal: geometric standard deviation sigma_g of the radii (1 = all equal)"},
  {"particles", "radii", T_LIST, OFF(radii), "", 0, BIG, 1, 0,
   "explicit radii, given to particles in turn (overrides radius and radius_spread)"},
  {"particles", "mass_rule", T_ENUM, OFF(mass_rule), "volume", 0, 0, 0, "volume|uniform",
   "volume: m_i = mass (r_i/r)^3 (as in the paper, also in 2D); uniform: m_i = mass"},
  {"particles", "mass", T_DOUBLE, OFF(mass), "1", 0, BIG, 1, 0, "mass of a particle of radius r"},
  {"particles", "placement", T_ENUM, OFF(placement), "random", 0, 0, 0, "random|lattice",
   "random: non-overlapping uniform placement; lattice: square/cubic lattice"},
  {"particles", "fraction", T_DOUBLE, OFF(fraction), "0", 0, 0.9, 0, 0,
   "area (2D) or volume (3D) fraction; when > 0 the box is a square/cube sized to give it "
   "(then leave box.size unset)"},
  {"particles", "from", T_STRING, OFF(from), "", 0, 0, 0, 0,
   "start from the particles of a file: extended XYZ (columns by Properties=) or H5MD (frame "
   "particles.frame); positions, and radii, masses, velocities and ids when the file has them "
   "(else from these keys); the file sets particles.n; its box must be the scenario's. The "
   "ballistic and dlca models also take the file's clusters (its cluster column, required) and time "
   "(docs/formats.md). A relative path written in a scenario file that is not there from the "
   "working directory is read beside the scenario file; one that is there and beside it as "
   "another file is refused, naming both"},
  {"particles", "frame", T_INT, OFF(from_frame), "0", 0, 1e15, 0, 0,
   "frame of particles.from (1-based; 0 = the last)"},
  {"box", "size", T_LIST, OFF(size), "", 0, BIG, 1, 0,
   "box side lengths: one value for all axes or one per axis; the box is [0, L]^d. Required "
   "unless particles.fraction sets the box"},
  {"box", "boundary", T_ENUMLIST, OFF(boundary), "periodic", 0, 0, 0, "wall|periodic",
   "boundary of each axis: one value for all axes or one per axis"},
};
/* The shared keys a restart point fixes: t = step run.dt, and the particles and the box are the
   state's. A restart may change the others (docs/reliability.md); each model names its own in its
   entry's fixed_on_restart. */
static const char *const shared_fixed_on_restart = "run.model run.dim run.dt particles. box.";
static const agglo_key tail[] = {
  {"output", "trajectory_interval", T_DOUBLE, OFF(trajectory_interval), "0.1", 0, BIG, 0, 0,
   "time between frames of trajectory.xyz; 0 = first and last frame only"},
  {"output", "stats_interval", T_DOUBLE, OFF(stats_interval), "0.02", 0, BIG, 0, 0,
   "time between rows of stats.csv; 0 = every step"},
  {"output", "analysis_interval", T_DOUBLE, OFF(analysis_interval), "0.5", 0, BIG, 0, 0,
   "time between rows of stats.csv that carry the aggregate indicators (fractal dimensions, "
   "contacts per sphere, aspect ratio; docs/analysis.md); 0 = never. Indicators due between two rows "
   "go to the next row"},
  {"analysis", "box_counting", T_ENUM, OFF(box_counting), "auto", 0, 0, 0, "box|bounding|auto",
   "grid of the box-counting dimension of the largest cluster: box = Degond et al. 2024 (eq. "
   "4.15), 2^m cells per axis over the whole box; bounding = over the smallest square (cube) "
   "holding the cluster; auto = box for the ballistic model (its paper's statistic), bounding "
   "for the others, whose clusters are small against the box (docs/analysis.md)"},
  {"analysis", "min_cluster_size", T_INT, OFF(min_cluster_size), "3", 2, 1e15, 0, 0,
   "the mass-radius fit (R_g ~ s^(1/D_f), s = k_f (R_g/r)^D_f) takes the clusters of at least "
   "this size (3: monomers and dimers left out)"},
  {"output", "snapshots", T_LIST, OFF(snapshots), "0, 0.4, 0.6, 0.8, 1, 1.2, 1.8, 3", 0, BIG, 0, 0,
   "times of the PNG snapshots (the step nearest each time)"},
  {"output", "png_width", T_INT, OFF(png_width), "800", 16, 20000, 0, 0, "snapshot width in pixels"},
  {"output", "format", T_ENUM, OFF(traj_format), "xyz", 0, 0, 0, "xyz|h5md",
   "trajectory format: xyz = trajectory.xyz, extended XYZ text (OVITO, ASE, any text tool); h5md = "
   "trajectory.h5md, H5MD/HDF5, about 1/5 of the size and 20 times faster to write, with "
   "trajectory.xdmf for ParaView (MDAnalysis, h5py); docs/formats.md"},
  {"output", "checkpoint_minutes", T_DOUBLE, OFF(checkpoint_minutes), "10", 0, BIG, 0, 0,
   "wall-clock minutes between restart points (state.xyz + contacts.txt, written atomically at the "
   "next stats.csv row) so that a killed run resumes (`agglo run --resume DIR`); 0 = none"},
  {"output", "checkpoint_interval", T_DOUBLE, OFF(checkpoint_interval), "0", 0, BIG, 0, 0,
   "simulated time between restart points (at the next stats.csv row), besides "
   "output.checkpoint_minutes; 0 = none"},
  {"output", "checkpoint_format", T_ENUM, OFF(checkpoint_format), "text", 0, 0, 0, "text|hdf5",
   "restart point format: text = state.xyz + contacts.txt (full precision text, readable as a "
   "trajectory frame); hdf5 = one file state.h5 with the same content as native numbers "
   "(docs/formats.md). A restart reads the restart point its directory holds (both: the later "
   "step, on a tie this format's)"},
  {"output", "compression", T_INT, OFF(h5md_deflate), "0", 0, 9, 0, 0,
   "H5MD: deflate level of positions and velocities (0 = stored raw; cluster labels are always "
   "compressed). Level 1 saves about 10% on them and takes 15 times longer to write"},
  {"output", "precision", T_ENUM, OFF(h5md_precision), "single", 0, 0, 0, "single|double",
   "H5MD: positions and velocities in single precision (float32, 4 bytes, 9 digits: the "
   "precision of trajectory.xyz) or double (float64, 8 bytes, the run's own values)"},
  {"picture", "style", T_ENUM, OFF(pic_style), "auto", 0, 0, 0, "auto|flat|shaded",
   "pictures (snapshots, agglo render, agglo movie; docs/pictures.md): auto = shaded spheres in "
   "3D, flat discs in 2D; flat = discs at their true radius seen along -z (3D: darker when "
   "deeper); shaded = spheres lit from picture.light, with depth fog, seen along picture.view"},
  {"picture", "projection", T_ENUM, OFF(pic_projection), "perspective", 0, 0, 0,
   "perspective|orthographic", "shaded 3D pictures: perspective (field of view picture.fov) or "
   "orthographic"},
  {"picture", "view", T_LIST, OFF(pic_view), "1, -1.6, 0.9", -BIG, BIG, 0, 0,
   "shaded 3D pictures: direction from the centre of the box toward the eye (3 values; "
   "0, 0, 1 looks down -z)"},
  {"picture", "up", T_LIST, OFF(pic_up), "0, 0, 1", -BIG, BIG, 0, 0,
   "shaded 3D pictures: the direction shown upward (3 values; not along picture.view)"},
  {"picture", "fov", T_DOUBLE, OFF(pic_fov), "30", 0, 120, 1, 0,
   "perspective: field of view in degrees (the box's bounding sphere fills it)"},
  {"picture", "zoom", T_DOUBLE, OFF(pic_zoom), "1", 0, 100, 1, 0,
   "magnification about the centre of the picture (1 = the whole box)"},
  {"picture", "color", T_ENUM, OFF(pic_color), "cluster", 0, 0, 0, "cluster|size|species|speed",
   "colour of a particle: cluster = a hue per cluster, monomers grey; size = its cluster's size "
   "(log scale, viridis); species = DPD species (dpd.species; one colour if none); speed = |v| "
   "(viridis, up to picture.speed_max)"},
  {"picture", "monomers", T_ENUM, OFF(pic_monomers), "show", 0, 0, 0, "show|hide",
   "hide: particles alone in their cluster are not drawn"},
  {"picture", "slab_width", T_DOUBLE, OFF(pic_slab_width), "0", 0, BIG, 0, 0,
   "> 0: only particles with |x.n - c| < slab_width are drawn (n = picture.slab_normal, c = "
   "picture.slab_center); 0 = all"},
  {"picture", "slab_normal", T_LIST, OFF(pic_slab_normal), "0, 0, 1", -BIG, BIG, 0, 0,
   "normal n of the slab (3 values, normalised)"},
  {"picture", "slab_center", T_LIST, OFF(pic_slab_center), "", -BIG, BIG, 0, 0,
   "position c of the slab along n (one value; empty = the centre of the box)"},
  {"picture", "fog", T_DOUBLE, OFF(pic_fog), "0.55", 0, 1, 0, 0,
   "shaded pictures: depth cue, the share of background colour mixed into the farthest spheres"},
  {"picture", "light", T_LIST, OFF(pic_light), "-1, 1.2, 1.6", -BIG, BIG, 0, 0,
   "shaded pictures: direction toward the light in the picture's frame (right, up, toward the "
   "viewer)"},
  {"picture", "box", T_ENUM, OFF(pic_box), "on", 0, 0, 0, "on|off",
   "draw the box (3D: its 12 edges in perspective; walls solid, periodic boundaries dashed)"},
  {"picture", "speed_max", T_DOUBLE, OFF(pic_speed_max), "0", 0, BIG, 0, 0,
   "color = speed: the speed at the top of the scale; 0 = the 99th percentile of the frame"},
};

const char *agglo_default_scenario =
    "# Built-in default: Maury's Brownian aggregation (2D, N = 2000, his Fig. 3)\n"
    "[run]\nmodel = contact\ndim = 2\nt_end = 3\ndt = 0.02\n"
    "[particles]\nn = 2000\nradius = 0.01\nradius_spread = 0.15\n"
    "[box]\nsize = 2\nboundary = periodic\n"
    "[drag]\ntau = 0.2\n[brownian]\nsigma = 0.5\n"
    "[attraction]\nkappa = 0.003\nepsilon = 0.003\n";

#define NHEAD (sizeof head / sizeof head[0])
#define NTAIL (sizeof tail / sizeof tail[0])

/* Key k of them all (NULL past the last), in the order of --help, docs/config.md and
   scenario.ini: the head, each model's keys in the registry's order, the tail. *owner is the
   model whose table holds it, NULL for a shared key. */
static const agglo_key *key_at(size_t k, const agglo_model_entry **owner) {
  *owner = NULL;
  if (k < NHEAD) return &head[k];
  k -= NHEAD;
  const agglo_model_entry *m;
  for (size_t q = 0; (m = agglo_model_at(q)); q++) {
    if (k < m->n_keys) return *owner = m, &m->keys[k];
    k -= m->n_keys;
  }
  return k < NTAIL ? &tail[k] : NULL;
}

/* Where the value of key K lives in agglo_config: a member (OFF), or a member of the settings
   of the model whose table holds K (OWN), at the place the registry gives them. */
static size_t place(const agglo_key *K) {
  if (!(K->offset & AGGLO_KEY_IN_SETTINGS)) return K->offset;
  const agglo_model_entry *m;
  for (size_t q = 0; (m = agglo_model_at(q)); q++)
    for (size_t i = 0; i < m->n_keys; i++)
      if (&m->keys[i] == K)
        return offsetof(agglo_config, models) + agglo_model_settings_offset(m) +
               (K->offset & ~AGGLO_KEY_IN_SETTINGS);
  abort(); /* every key comes from the tables (key_at): cannot be */
}

static const agglo_key *key_of(size_t k) {
  const agglo_model_entry *owner;
  return key_at(k, &owner);
}

static size_t key_count(void) {
  size_t k = 0;
  while (key_of(k)) k++;
  return k;
}

static const agglo_key *find_key(const char *section, const char *name) {
  const agglo_key *K;
  for (size_t k = 0; (K = key_of(k)); k++)
    if (!strcmp(K->section, section) && !strcmp(K->name, name)) return K;
  return NULL;
}

/* The message for an unknown key: one a model renamed (its entry's renamed) names its new name. */
static void unknown_key(const char *where, const char *section, const char *name, char *err,
                        size_t errlen) {
  const agglo_model_entry *m;
  for (size_t q = 0; (m = agglo_model_at(q)); q++)
    for (size_t i = 0; i < m->n_renamed; i++) {
      const agglo_renamed_key *r = &m->renamed[i];
      if (!strcmp(r->section, section) && !strcmp(r->old, name)) {
        agglo_fail(err, errlen, "%s: %s.%s was renamed %s.%s (%s); give that instead", where,
                   section, name, section, r->now, r->why);
        return;
      }
    }
  agglo_fail(err, errlen, "%s: unknown key '%s' in section [%s] (see `agglo run --help`)", where,
             name, section);
}

static int known_section(const char *section) {
  const agglo_key *K;
  for (size_t k = 0; (K = key_of(k)); k++)
    if (!strcmp(K->section, section)) return 1;
  return 0;
}

/* A key's choices: its own, or for run.model the names of the registry's models. */
static const char *choices_of(const agglo_key *k, char *buf, size_t n) {
  if (k->type != T_MODEL) return k->choices;
  buf[0] = 0;
  const agglo_model_entry *m;
  for (size_t q = 0; (m = agglo_model_at(q)); q++)
    snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", q ? "|" : "", m->name);
  return buf;
}

/* "a|b|c" -> index of word, or -1. */
static int choice_index(const char *choices, const char *word) {
  size_t len = strlen(word);
  int idx = 0;
  for (const char *p = choices; *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t l = bar ? (size_t)(bar - p) : strlen(p);
    if (l == len && !strncmp(p, word, len)) return idx;
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

static const char *choice_name(const char *choices, int idx, char *buf, size_t n) {
  const char *p = choices;
  for (int i = 0; i < idx && p; i++) {
    p = strchr(p, '|');
    if (p) p++;
  }
  if (!p) return "?";
  const char *bar = strchr(p, '|');
  size_t l = bar ? (size_t)(bar - p) : strlen(p);
  if (l >= n) l = n - 1;
  memcpy(buf, p, l);
  buf[l] = 0;
  return buf;
}

static void range_text(const agglo_key *k, char *buf, size_t n) {
  if (k->type == T_ENUM || k->type == T_ENUMLIST || k->type == T_MODEL) {
    char models[160];
    snprintf(buf, n, "one of %s", choices_of(k, models, sizeof models));
    return;
  }
  if (k->type == T_STRING) {
    snprintf(buf, n, "a file path (empty: none)");
    return;
  }
  char lo[32], hi[32];
  snprintf(lo, sizeof lo, "%g", k->lo);
  snprintf(hi, sizeof hi, "%g", k->hi);
  if (k->lo <= -BIG && k->hi >= BIG) snprintf(buf, n, "any number of magnitude <= %g", BIG);
  else if (k->hi >= BIG) snprintf(buf, n, "%s %s", k->lo_open ? ">" : ">=", lo);
  else snprintf(buf, n, "%s %s and <= %s", k->lo_open ? ">" : ">=", lo, hi);
  if (k->type == T_INT) strncat(buf, " (integer)", n - strlen(buf) - 1);
}

static int in_range(const agglo_key *k, double x) {
  if (!isfinite(x) && !(x == -INFINITY && k->lo == -INFINITY)) return 0; /* gluey.gamma_min */
  if (k->lo_open ? !(x > k->lo) : !(x >= k->lo)) return 0;
  return x <= k->hi;
}

/* The bound a range "without one" still has (BIG), named when a value passes it. */
static const char *beyond_big(const agglo_key *k, double x) {
  return x > k->hi && k->hi >= BIG && k->lo > -BIG ? " and <= 1e+300" : "";
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t l = strlen(s);
  while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n')) s[--l] = 0;
  return s;
}

/* A decimal number: 0, or -1 (not a number), -2 (one strtod reads in another base: 0x10 = 16). */
static int parse_number(const char *text, double *out) {
  char *end;
  errno = 0;
  double x = strtod(text, &end);
  if (end == text || *trim(end) != 0 || errno == ERANGE) return -1;
  const char *p = text + strspn(text, " \t");
  if (isfinite(x) && p + strspn(p, "+-.0123456789eE") != end) return -2; /* inf and nan: in_range */
  *out = x;
  return 0;
}

/* A list with an empty item ("2,,3", or a leading comma): the item is missing, not to be
   skipped. A trailing comma ends a list written over continuation lines, each ending in one. */
static int empty_item(const char *v) {
  int item = 0; /* an item seen since the last comma (or the start) */
  for (const char *p = v; *p; p++) {
    if (*p == ',') {
      if (!item) return 1;
      item = 0;
    } else if (*p != ' ' && *p != '\t') {
      item = 1;
    }
  }
  return 0;
}

/* Set one key from its text. where names the origin for messages. */
static int set_value(agglo_config *c, const agglo_key *k, const char *value, const char *where, char *err,
                     size_t errlen) {
  char allowed[160], buf[4096]; /* 64 list values at full precision fit */
  range_text(k, allowed, sizeof allowed);
  if (strlen(value) >= sizeof buf)
    return agglo_fail(err, errlen, "%s: %s.%s: the value is too long (%zu characters, at most %zu)",
                      where, k->section, k->name, strlen(value), sizeof buf - 1);
  /* a newline or other control character would be written raw into scenario.ini (a path given
     with a newline split its line, and the restart could not read it back) */
  for (const unsigned char *q = (const unsigned char *)value; *q; q++)
    if ((*q < 0x20 && *q != '\t') || *q == 0x7f)
      return agglo_fail(err, errlen, "%s: %s.%s: the value holds a control character (byte 0x%02x at "
                        "character %zu; allowed: printable text)", where, k->section, k->name, *q,
                        (size_t)((const char *)q - value) + 1);
  snprintf(buf, sizeof buf, "%s", value);
  char *v = trim(buf);
  void *dst = (char *)c + place(k);
  if ((k->type == T_LIST || k->type == T_ENUMLIST) && empty_item(v))
    return agglo_fail(err, errlen, "%s: %s.%s = '%s': an empty value between commas (allowed: %s, "
                      "separated by commas or spaces)", where, k->section, k->name, v, allowed);
  switch (k->type) {
  case T_DOUBLE:
  case T_INT: {
    double x;
    int rc = parse_number(v, &x);
    if (rc != 0)
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not a %snumber (allowed: %s)", where,
                        k->section, k->name, v, rc == -2 ? "decimal " : "", allowed);
    if (k->type == T_INT && x != floor(x))
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not an integer (allowed: %s)", where,
                  k->section, k->name, v, allowed);
    if (!in_range(k, x))
      return agglo_fail(err, errlen, "%s: %s.%s = %s is out of range (allowed: %s%s)", where, k->section,
                  k->name, v, allowed, beyond_big(k, x));
    if (k->type == T_DOUBLE) *(double *)dst = x;
    else if (!strcmp(k->name, "dim")) *(int *)dst = (int)x;
    else *(int64_t *)dst = (int64_t)x;
    return 0;
  }
  case T_ENUM: {
    int idx = choice_index(k->choices, v);
    if (idx < 0)
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not allowed (allowed: %s)", where, k->section,
                  k->name, v, allowed);
    *(int *)dst = idx;
    return 0;
  }
  case T_MODEL: {
    const agglo_model_entry *m = agglo_model_named(v);
    if (!m)
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not allowed (allowed: %s)", where, k->section,
                  k->name, v, allowed);
    *(const agglo_model_entry **)dst = m;
    return 0;
  }
  case T_LIST: {
    agglo_list *l = dst;
    l->n = 0;
    for (char *tok = strtok(v, ", \t"); tok; tok = strtok(NULL, ", \t")) {
      double x;
      if (l->n == AGGLO_LIST_MAX)
        return agglo_fail(err, errlen, "%s: %s.%s has more than %d values", where, k->section, k->name,
                    AGGLO_LIST_MAX);
      int rc = parse_number(tok, &x);
      if (rc != 0)
        return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not a %snumber (a list of decimal numbers "
                          "separated by commas or spaces is expected)", where, k->section, k->name,
                          tok, rc == -2 ? "decimal " : "");
      if (!in_range(k, x))
        return agglo_fail(err, errlen, "%s: %s.%s: %s is out of range (allowed: %s%s)", where, k->section,
                    k->name, tok, allowed, beyond_big(k, x));
      l->v[l->n++] = x;
    }
    return 0;
  }
  case T_STRING:
    if (strlen(v) >= AGGLO_PATH_MAX)
      return agglo_fail(err, errlen, "%s: %s.%s: longer than %d characters", where, k->section, k->name,
                        AGGLO_PATH_MAX - 1);
    snprintf(dst, AGGLO_PATH_MAX, "%s", v);
    if (dst == (void *)c->from) c->from_also[0] = 0; /* a path given again (-s): its own */
    return 0;
  case T_ENUMLIST: {
    agglo_enum_list *l = dst;
    l->n = 0;
    int most = k->hi > 0 ? (int)k->hi : 3, count = 0;
    char copy[sizeof buf];
    snprintf(copy, sizeof copy, "%s", v);
    for (char *tok = strtok(copy, ", \t"); tok; tok = strtok(NULL, ", \t")) count++;
    if (count > most) /* say how many, not that the first one too many is not allowed */
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' has %d values (allowed: one to %d of %s%s)", where,
                        k->section, k->name, v, count, most, k->choices,
                        most == 3 ? ", one for every axis of run.dim (2 or 3), or one for all" : "");
    for (char *tok = strtok(v, ", \t"); tok; tok = strtok(NULL, ", \t")) {
      int idx = choice_index(k->choices, tok), most = k->hi > 0 ? (int)k->hi : 3;
      if (idx < 0 || l->n == most) {
        if (most == 3)
          return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not allowed (allowed: one to three of %s)",
                      where, k->section, k->name, tok, k->choices);
        return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not allowed (allowed: one to %d of %s)",
                          where, k->section, k->name, tok, most, k->choices);
      }
      l->v[l->n++] = idx;
    }
    if (l->n == 0 && k->def[0]) /* an empty default (dpd.conservative_ij) may stay empty */
      return agglo_fail(err, errlen, "%s: %s.%s is empty (allowed: %s)", where, k->section, k->name,
                  allowed);
    return 0;
  }
  }
  return 0;
}

void agglo_config_defaults(agglo_config *c) {
  memset(c, 0, sizeof *c);
  char err[256];
  const agglo_key *K;
  const agglo_model_entry *m;
  /* like a default that does not read back, a model whose settings do not fit the room
     (AGGLO_MODEL_SETTINGS_ROOM, config.h) is a fault of the tables, found by every test */
  for (size_t q = 0; (m = agglo_model_at(q)); q++)
    if (agglo_model_settings_offset(m) == SIZE_MAX) abort();
  for (size_t k = 0; (K = key_of(k)); k++)
    if (set_value(c, K, K->def, "default", err, sizeof err) != 0) abort();
}

/* INI reading: a line-counting reader so that messages can name file:line. */
typedef struct {
  FILE *f;
  const char *text; /* or a string */
  int line, too_long;
  long bad; /* agglo_read_line's error on line `line` (a NUL byte, a read error) */
  int indented; /* the last line read starts with a blank: a continuation of a value */
  agglo_config *cfg;
  const char *name;
  char *err;
  size_t errlen;
  int failed, fail_line; /* the first bad entry and its line */
  const agglo_key **seen; /* the keys given so far */
  size_t nseen;
} reader;

/* Has the reader seen K? Else marks it seen. */
static int seen_before(reader *r, const agglo_key *K) {
  for (size_t q = 0; q < r->nseen; q++)
    if (r->seen[q] == K) return 1;
  r->seen[r->nseen++] = K;
  return 0;
}

static char *read_line(char *str, int num, void *stream) {
  reader *r = stream;
  char *got;
  if (r->f) {
    long len = agglo_read_line(r->f, str, (size_t)num);
    if (len == AGGLO_LINE_LONG) r->too_long = r->line + 1;
    else if (len < 0) r->bad = len, r->fail_line = r->line + 1;
    got = len > 0 ? str : NULL; /* a bad line ends the reading */
  } else {
    if (!*r->text) return NULL;
    const char *nl = strchr(r->text, '\n');
    size_t l = nl ? (size_t)(nl - r->text + 1) : strlen(r->text);
    if (l > (size_t)num - 1) l = (size_t)num - 1;
    memcpy(str, r->text, l);
    str[l] = 0;
    r->text += l;
    got = str;
  }
  if (!got) return NULL;
  r->line++;
  r->indented = (got[0] == ' ' || got[0] == '\t') && got[strspn(got, " \t\r\n")] != 0;
  size_t l = strlen(got);
  if (!r->f && l == (size_t)num - 1 && got[l - 1] != '\n' && !r->too_long) r->too_long = r->line;
  return got;
}

static int on_entry(void *user, const char *section, const char *name, const char *value) {
  reader *r = user;
  if (r->failed) return 0;
  char where[600];
  r->fail_line = r->line;
  snprintf(where, sizeof where, "%s:%d", r->name, r->line);
  const agglo_key *k = find_key(section, name);
  if (!k) {
    r->failed = 1;
    if (!known_section(section))
      agglo_fail(r->err, r->errlen, "%s: unknown section [%s] (see `agglo run --help` for all keys)",
           where, section);
    else
      unknown_key(where, section, name, r->err, r->errlen);
    return 0;
  }
  int again = seen_before(r, k);
  if (again && r->indented && k->type == T_LIST) {
    /* a list continued on an indented line: append */
    agglo_list more, *l = (agglo_list *)((char *)r->cfg + place(k));
    agglo_config tmp;
    if (set_value(&tmp, k, value, where, r->err, r->errlen) != 0) return !(r->failed = 1);
    more = *(agglo_list *)((char *)&tmp + place(k));
    if (l->n + more.n > AGGLO_LIST_MAX) {
      r->failed = 1;
      agglo_fail(r->err, r->errlen, "%s: %s.%s has more than %d values", where, section, name,
                 AGGLO_LIST_MAX);
      return 0;
    }
    for (int i = 0; i < more.n; i++) l->v[l->n++] = more.v[i];
    return 1;
  }
  if (again) {
    r->failed = 1;
    agglo_fail(r->err, r->errlen, "%s: key %s.%s is given twice (keys must not be indented: an indented "
         "line continues the previous value)", where, section, name);
    return 0;
  }
  if (set_value(r->cfg, k, value, where, r->err, r->errlen) != 0) r->failed = 1;
  return !r->failed;
}

static int parse(reader *r) {
  if (!(r->seen = malloc(key_count() * sizeof *r->seen)))
    return agglo_fail(r->err, r->errlen, "%s: out of memory", r->name);
  int rc = ini_parse_stream(read_line, r, on_entry, r);
  free(r->seen);
  if (r->bad && !r->failed) {
    char where[4200];
    snprintf(where, sizeof where, "%s:%d", r->name, r->fail_line);
    return agglo_line_fail(r->err, r->errlen, where, r->bad, 200);
  }
  /* rc is the first bad line; a syntax error before the first bad entry is reported as such
     (e.g. an unclosed [section] would otherwise show as an unknown section on a later line) */
  if (r->failed && !(rc > 0 && rc < r->fail_line)) return -1;
  if (r->too_long)
    return agglo_fail(r->err, r->errlen, "%s:%d: line too long (at most 199 characters)", r->name,
                r->too_long);
  if (rc > 0)
    return agglo_fail(r->err, r->errlen, "%s:%d: syntax error (expected [section], key = value, or a "
                "comment starting with ; or #)", r->name, rc);
  return 0;
}

/* particles.from written in a scenario file as a relative path that is not there from the
   working directory: taken beside the scenario file, when it is there (docs/config.md), so that a
   shipped example that starts from a file of its own runs from any directory. A path that exists
   from the working directory keeps today's meaning, unless beside the scenario file it is
   another file: then which one was meant is not known, and reading it is refused naming both
   (from_also; the restart of a run reads its state, not this file). */
static int from_beside(agglo_config *c, const char *path, char *err, size_t errlen) {
  const char *slash = strrchr(path, '/');
  if (!c->from[0] || c->from[0] == '/' || !slash) return 0;
  char joined[sizeof c->from + 8];
  int n = snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - path), path, c->from);
  struct stat here, beside;
  int there = stat(c->from, &here) == 0;
  if (stat(joined, &beside) != 0) return 0;
  if (there && (here.st_dev != beside.st_dev || here.st_ino != beside.st_ino)) {
    if (n > 0 && (size_t)n < sizeof c->from_also) memcpy(c->from_also, joined, (size_t)n + 1);
    return 0;
  }
  if (there) return 0;
  if (n < 0 || (size_t)n >= sizeof c->from)
    return agglo_fail(err, errlen, "%s: particles.from = %s: the path beside the scenario file "
                      "is longer than %zu characters", path, c->from, sizeof c->from - 1);
  memcpy(c->from, joined, (size_t)n + 1);
  return 0;
}

int agglo_config_read_file(agglo_config *c, const char *path, char *err, size_t errlen) {
  reader r = {0};
  r.f = agglo_open_read(path, "r", err, errlen);
  if (!r.f && errno != EINVAL)
    return agglo_fail(err, errlen, "%s: cannot open scenario file: %s", path, strerror(errno));
  if (!r.f) return -1;
  r.cfg = c, r.name = path, r.err = err, r.errlen = errlen;
  char before[sizeof c->from];
  memcpy(before, c->from, sizeof before);
  int rc = parse(&r);
  fclose(r.f);
  if (rc == 0 && strcmp(before, c->from) != 0) rc = from_beside(c, path, err, errlen);
  return rc;
}

int agglo_config_read_string(agglo_config *c, const char *text, const char *name, char *err,
                             size_t errlen) {
  reader r = {0};
  r.text = text, r.cfg = c, r.name = name, r.err = err, r.errlen = errlen;
  return parse(&r);
}

static const agglo_key *lookup(const char *dotted, const char *where, char *err, size_t errlen);

int agglo_config_read_assignment(agglo_config *c, const char *assignment, char *err, size_t errlen) {
  char buf[4200], where[600];
  snprintf(where, sizeof where, "-s %.580s", assignment);
  if (strlen(assignment) >= sizeof buf) return agglo_fail(err, errlen, "%s: too long", where);
  strcpy(buf, assignment);
  char *eq = strchr(buf, '=');
  char *dot = strchr(buf, '.');
  if (!eq || !dot || dot > eq)
    return agglo_fail(err, errlen, "%s: expected section.key=value, e.g. -s run.dt=0.01", where);
  *eq = 0;
  const agglo_key *k = lookup(buf, where, err, errlen);
  return k ? set_value(c, k, eq + 1, where, err, errlen) : -1;
}

/* The shortest decimal that reads back to the same double. */
static void shortest(char *buf, size_t n, double x) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* The value of one key as it would be written in a scenario file. */
static void write_value(const agglo_config *c, const agglo_key *K, FILE *f) {
  char buf[64];
  const void *src = (const char *)c + place(K);
  switch (K->type) {
  case T_DOUBLE: shortest(buf, sizeof buf, *(const double *)src), fputs(buf, f); break;
  case T_INT:
    if (!strcmp(K->name, "dim")) fprintf(f, "%d", *(const int *)src);
    else fprintf(f, "%lld", (long long)*(const int64_t *)src);
    break;
  case T_ENUM: fprintf(f, "%s", choice_name(K->choices, *(const int *)src, buf, sizeof buf)); break;
  case T_MODEL: fputs((*(const agglo_model_entry *const *)src)->name, f); break;
  case T_LIST: {
    const agglo_list *l = src;
    /* eight values a line, the rest on indented continuation lines (lines stay short) */
    for (int i = 0; i < l->n; i++) {
      shortest(buf, sizeof buf, l->v[i]);
      fprintf(f, "%s%s", i == 0 ? "" : i % 8 ? ", " : ",\n    ", buf);
    }
    break;
  }
  case T_STRING: fputs(src, f); break;
  case T_ENUMLIST: {
    const agglo_enum_list *l = src;
    for (int i = 0; i < l->n; i++)
      fprintf(f, "%s%s", i ? " " : "", choice_name(K->choices, l->v[i], buf, sizeof buf));
    break;
  }
  }
}

int agglo_config_write(const agglo_config *c, FILE *f) {
  const char *section = "";
  const agglo_key *K;
  for (size_t k = 0; (K = key_of(k)); k++) {
    if (strcmp(section, K->section)) fprintf(f, "%s[%s]\n", k ? "\n" : "", section = K->section);
    fprintf(f, "%s = ", K->name);
    write_value(c, K, f);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

/* "section.key" split into a known key, or -1 with a message. */
static const agglo_key *lookup(const char *dotted, const char *where, char *err, size_t errlen) {
  char buf[256];
  const char *dot = strchr(dotted, '.');
  if (!dot || strlen(dotted) >= sizeof buf) {
    agglo_fail(err, errlen, "%s: expected a key as section.key, e.g. run.dt", where);
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", dotted);
  buf[dot - dotted] = 0;
  char *section = trim(buf), *name = trim(buf + (dot - dotted) + 1);
  const agglo_key *k = find_key(section, name);
  if (!k && !known_section(section))
    agglo_fail(err, errlen, "%s: unknown section [%s] (see `agglo run --help`)", where, section);
  else if (!k)
    unknown_key(where, section, name, err, errlen);
  return k;
}

int agglo_config_set_value(agglo_config *c, const char *dotted, const char *value, char *err,
                           size_t errlen) {
  char where[300];
  snprintf(where, sizeof where, "%.250s", dotted);
  const agglo_key *k = lookup(dotted, where, err, errlen);
  return k ? set_value(c, k, value, where, err, errlen) : -1;
}

int agglo_config_get_value(const agglo_config *c, const char *dotted, FILE *f, char *err,
                           size_t errlen) {
  const agglo_key *k = lookup(dotted, dotted, err, errlen);
  if (!k) return -1;
  write_value(c, k, f);
  return 0;
}

/* A key's meaning; run.model's goes on with each model's. */
static void print_help(FILE *f, const agglo_key *K) {
  fputs(K->help, f);
  const agglo_model_entry *m;
  for (size_t q = 0; K->type == T_MODEL && (m = agglo_model_at(q)); q++)
    fprintf(f, "%s%s = %s", q ? "; " : "", m->name, m->help);
}

void agglo_config_print_keys(FILE *f, int markdown) {
  const char *section = "";
  char allowed[160];
  if (markdown) fprintf(f, "| key | default | allowed | meaning |\n| --- | --- | --- | --- |\n");
  const agglo_key *K;
  for (size_t k = 0; (K = key_of(k)); k++) {
    range_text(K, allowed, sizeof allowed);
    if (markdown) {
      fprintf(f, "| `%s.%s` | `%s` | %s | ", K->section, K->name, *K->def ? K->def : "(none)",
              allowed);
    } else {
      if (strcmp(section, K->section)) fprintf(f, "\n  [%s]\n", section = K->section);
      fprintf(f, "    %-20s = %-12s ", K->name, *K->def ? K->def : "(none)");
    }
    print_help(f, K);
    if (markdown) fprintf(f, " |\n");
    else fprintf(f, "\n%27s(allowed: %s)\n", "", allowed);
  }
}

/* ---- checks across keys ---- */

/* Has key K the same value in c and d (e.g. d = the defaults)? */
static int same_value(const agglo_config *c, const agglo_config *d, const agglo_key *K) {
  const char *a = (const char *)c + place(K), *b = (const char *)d + place(K);
  switch (K->type) {
  case T_DOUBLE: return *(const double *)a == *(const double *)b;
  case T_INT: return !strcmp(K->name, "dim") ? *(const int *)a == *(const int *)b
                                              : *(const int64_t *)a == *(const int64_t *)b;
  case T_ENUM: return *(const int *)a == *(const int *)b;
  case T_MODEL: return *(const agglo_model_entry *const *)a == *(const agglo_model_entry *const *)b;
  case T_LIST: {
    const agglo_list *x = (const agglo_list *)a, *y = (const agglo_list *)b;
    return x->n == y->n && !memcmp(x->v, y->v, (size_t)x->n * sizeof x->v[0]);
  }
  case T_ENUMLIST: {
    const agglo_enum_list *x = (const agglo_enum_list *)a, *y = (const agglo_enum_list *)b;
    return x->n == y->n && !memcmp(x->v, y->v, (size_t)x->n * sizeof x->v[0]);
  }
  case T_STRING: return !strcmp(a, b);
  }
  return 1;
}

/* Does the blank-separated list name key K, by "section." or "section.key"? */
static int names_key(const char *list, const agglo_key *K) {
  size_t ls = strlen(K->section), ln = strlen(K->name);
  for (const char *p = list ? list : ""; *(p += strspn(p, " ")); p += strcspn(p, " ")) {
    size_t w = strcspn(p, " ");
    if (w > ls && !strncmp(p, K->section, ls) && p[ls] == '.' &&
        (w == ls + 1 || (w == ls + 1 + ln && !strncmp(p + ls + 1, K->name, ln))))
      return 1;
  }
  return 0;
}

/* Does model m read key K of the table of owner (NULL: shared)? */
static int reads(const agglo_model_entry *m, const agglo_key *K, const agglo_model_entry *owner) {
  return !names_key(m->ignores, K) && (!owner || owner == m || names_key(m->also_reads, K));
}

/* A key the model does not read, set away from its default, would be ignored: refuse it. */
static int check_unused(const agglo_config *c, char *err, size_t errlen) {
  agglo_config d;
  agglo_config_defaults(&d);
  const agglo_key *K;
  const agglo_model_entry *owner, *m;
  for (size_t k = 0; (K = key_at(k, &owner)); k++) {
    if (reads(c->model, K, owner) || same_value(c, &d, K)) continue;
    char used[256] = "";
    for (size_t q = 0; (m = agglo_model_at(q)); q++)
      if (reads(m, K, owner))
        snprintf(used + strlen(used), sizeof used - strlen(used), "%s%s", *used ? ", " : "", m->name);
    return agglo_fail(err, errlen, "%s.%s is set but the %s model does not use it (used by: %s); "
                      "remove it or choose another run.model", K->section, K->name, c->model->name,
                      used);
  }
  return 0;
}

int agglo_config_check_gravity(const agglo_config *c, double rmax, char *err, size_t errlen) {
  int d = c->dim;
  if (c->gravity.n != 1 && c->gravity.n != d)
    return agglo_fail(err, errlen, "%s has %d values: give 1 or %d (run.dim)", "gravity.g", c->gravity.n, d);
  double g2 = 0;
  for (int k = 0; k < d; k++) g2 += pow(agglo_list_component(&c->gravity, k), 2);
  if (sqrt(g2) * c->dt * c->dt > 2 * rmax)
    return agglo_fail(err, errlen, "run.dt = %g is too large for gravity.g: one step of free fall "
                      "(|g| dt^2 = %g) exceeds a particle diameter (%g)", c->dt,
                      sqrt(g2) * c->dt * c->dt, 2 * rmax);
  return 0;
}

/* The value of K in c as a scenario file has it, in buf (long lists cut short). */
static const char *value_text(const agglo_config *c, const agglo_key *K, char *buf, size_t n) {
  FILE *f = fmemopen(buf, n, "w");
  buf[0] = 0;
  if (f) write_value(c, K, f), fclose(f);
  buf[n - 1] = 0;
  for (char *p = buf; (p = strstr(p, ",\n    "));) /* continuation lines joined */
    p[1] = ' ', memmove(p + 2, p + 6, strlen(p + 6) + 1);
  return buf[0] ? buf : "(none)";
}

int agglo_config_check_restart(const agglo_config *run, const agglo_config *c, const char *run_path,
                               char *err, size_t errlen) {
  const agglo_key *K;
  const agglo_model_entry *owner;
  for (size_t k = 0; (K = key_at(k, &owner)); k++) {
    if (same_value(run, c, K) || !names_key(owner ? owner->fixed_on_restart : shared_fixed_on_restart, K))
      continue;
    char was[128], now[128];
    return agglo_fail(err, errlen, "%s.%s = %s, but the run it continues has %s (%s): the restart "
                      "point fixes it (a restart may change run.t_end, run.seed, the output, picture, "
                      "solver and parallel keys and the forces; docs/reliability.md); nothing was run",
                      K->section, K->name, value_text(c, K, now, sizeof now),
                      value_text(run, K, was, sizeof was), run_path);
  }
  return 0;
}

int agglo_config_validate(const agglo_config *c, char *err, size_t errlen) {
  if (check_unused(c, err, errlen) != 0) return -1;
  if (agglo_picture_check(c, err, errlen) != 0) return -1;
  int d = c->dim;
  if (c->size.n > 1 && c->size.n != d)
    return agglo_fail(err, errlen, "%s has %d values: give 1 or %d (run.dim)", "box.size", c->size.n, d);
  if (c->boundary.n != 1 && c->boundary.n != d)
    return agglo_fail(err, errlen, "box.boundary has %d values: give 1 or %d (run.dim)", c->boundary.n, d);
  if (c->radii.n > 0 && c->radii.n > c->n)
    return agglo_fail(err, errlen, "particles.radii lists %d radii for %lld particles", c->radii.n,
                (long long)c->n);
  double rmax = c->radius * (1 + c->radius_spread), rmean = c->radius;
  int lognormal = c->radii.n == 0 && c->radius_distribution == RADII_LOGNORMAL;
  if (lognormal && c->n <= 2147483647) { /* unbounded: the largest of the radii drawn */
    rmax = 0;
    for (size_t i = 0; i < (size_t)c->n; i++) rmax = fmax(rmax, agglo_particle_radius(c, i));
  } else if (c->radii.n > 0) {
    rmax = 0, rmean = 0;
    for (int i = 0; i < c->radii.n; i++) rmax = fmax(rmax, c->radii.v[i]), rmean += c->radii.v[i];
    rmean /= c->radii.n;
  }
  /* memory: about 1.2 kB per particle at the peak (state, neighbour list, two contact sets,
     solver arrays; docs/performance.md), refused up front rather than by the OOM killer */
  double bytes = 1200.0 * (double)c->n;
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys > 0 && bytes > 0.8 * phys)
    return agglo_fail(err, errlen, "particles.n = %lld needs about %.3g GB of memory; this machine has "
                "%.3g GB: lower particles.n", (long long)c->n, bytes / 1e9, phys / 1e9);
  if (c->n > 2147483647)
    return agglo_fail(err, errlen, "particles.n = %lld: at most 2147483647 particles (32-bit indices)",
                (long long)c->n);
  /* total particle area/volume against the box */
  double vol_particles = 0;
  size_t sample = c->radii.n > 0 ? (size_t)c->radii.n : 1;
  for (size_t i = 0; i < sample; i++) {
    double r = c->radii.n > 0 ? c->radii.v[i] : c->radius;
    /* E[r^2] and E[r^3] of the uniform spread, or of the lognormal radii */
    double s = c->radii.n > 0 ? 0 : c->radius_spread, l = log(c->radius_sigma);
    double e2 = r * r * (1 + s * s / 3), e3 = r * r * r * (1 + s * s);
    if (lognormal) e2 = r * r * exp(2 * l * l), e3 = r * r * r * exp(4.5 * l * l);
    vol_particles += d == 2 ? M_PI * e2 : 4.0 / 3.0 * M_PI * e3;
  }
  vol_particles *= (double)c->n / (double)sample;
  double box_vol = 1;
  if (c->fraction > 0) {
    if (c->size.n > 0)
      return agglo_fail(err, errlen, "give either particles.fraction or box.size, not both (the "
                  "fraction sets the box)");
  } else {
    if (c->size.n == 0)
      return agglo_fail(err, errlen, "box.size is not set: give it, or particles.fraction");
    for (int k = 0; k < d; k++) box_vol *= agglo_list_component(&c->size, k);
  }
  double fraction = c->fraction > 0 ? c->fraction : vol_particles / box_vol;
  double limit = c->placement == PLACE_LATTICE ? (d == 2 ? M_PI / 4 : M_PI / 6)
                                                : (d == 2 ? 0.5 : 0.32);
  if (fraction > limit && !c->from[0]) /* particles.from places them itself */
    return agglo_fail(err, errlen, "%lld particles of radius %g fill %.3f of the box, more than %s "
                "placement can reach (%.2f): enlarge box.size or lower particles.n",
                (long long)c->n, rmean, fraction,
                c->placement == PLACE_LATTICE ? "lattice" : "random", limit);
  if (c->fraction <= 0) {
    double att = c->model->attraction_range ? c->model->attraction_range(c) : 0;
    double reach = 2 * rmax + att + rmean;
    for (int k = 0; k < d; k++) {
      int periodic = c->boundary.v[c->boundary.n == 1 ? 0 : k] == AGGLO_PERIODIC;
      if (periodic && agglo_list_component(&c->size, k) < 2 * reach)
        return agglo_fail(err, errlen, "box.size along axis %d (%g) is too small for a periodic box: "
                    "it must exceed %g (twice the interaction range)", k, agglo_list_component(&c->size, k),
                    2 * reach);
      if (agglo_list_component(&c->size, k) < 2 * rmax)
        return agglo_fail(err, errlen, "box.size along axis %d (%g) is smaller than a particle", k,
                    agglo_list_component(&c->size, k));
    }
  }
  /* the fixed-step models take run.t_end / run.dt steps (the ballistic ones choose theirs) */
  const agglo_model *dyn = c->model->dynamics ? c->model->dynamics(c) : NULL;
  if (dyn && !dyn->variable_step && !(c->t_end / c->dt <= (double)AGGLO_MAX_STEPS))
    return agglo_fail(err, errlen, "run.t_end / run.dt = %g / %g = %.3g steps: at most 2^53 = %lld "
                      "steps; raise run.dt or lower run.t_end", c->t_end, c->dt, c->t_end / c->dt,
                      (long long)AGGLO_MAX_STEPS);
  if (dyn && !dyn->variable_step && c->t_end > 0 && llround(c->t_end / c->dt) == 0)
    return agglo_fail(err, errlen, "run.t_end = %g is under half a step (run.dt = %g): the run would "
                      "take no step (allowed: 0, or at least run.dt / 2)", c->t_end, c->dt);
  if (c->model->validate && c->model->validate(c, rmax, err, errlen) != 0) return -1;
  for (int i = 0; i < c->snapshots.n; i++)
    if (i && c->snapshots.v[i] < c->snapshots.v[i - 1])
      return agglo_fail(err, errlen, "output.snapshots must be in increasing order");
  return 0;
}

