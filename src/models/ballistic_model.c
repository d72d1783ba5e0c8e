/* Ballistic aggregation by time stepping (Degond, Dimarco, Ferreira, Hecht 2024;
   docs/ballistic.md):
   1. free flight of every cluster over dt = dt_factor * max r / max |V_cluster| (rule (3.3)),
      with cluster-wise specular reflection on walls;
   2. interactions: overlapping pairs of different clusters become links; the damped
      Arrow-Hurwicz minimiser (ballistic_dah.c) relaxes the link set locally; pairs that overlap after the
      relaxation become links too, and the relaxation is repeated until the link set stops
      growing (outer iterations);
   3. clusters = connected components of the links; each takes the mass-weighted mean of the
      pre-step velocities of its members (momentum is conserved).
   Clusters are kept in a union-find with per-root mass and momentum, so a merge costs O(1).
   The overlapping pairs are found by ballistic_frames.c (clusters of 16 particles or more
   binned once in a grid that follows them), in the order of a full scan: the dynamics do not
   depend on it. */
#include "models/ballistic_frames.h"
#include "models/ballistic_dah.h"
#include "core/model.h"
#include "core/error.h"
#include "core/files.h"
#include "core/union_find.h"
#include "models/ballistic_config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  agglo_config cfg;
  size_t n;
  int dim;
  agglo_links L;
  int32_t *parent;    /* union-find over particles */
  double *M, *P;      /* per root: mass, momentum (3) */
  int32_t *root;      /* per particle: root cache of the step */
  size_t n_clusters;
  double r_max, r_mean;
  agglo_frames fr;    /* overlap search; clusters by handle (member lists) and their frames */
  int32_t *seeds, *moved; /* links to relax, particles the relaxations moved */
  size_t nseeds, scap, nmoved, mcap;
  double *ext, *shift; /* per handle: extents (6) and wall shift (3) */
  int32_t *hl;         /* walls: the clusters beyond a wall */
  uint8_t *chg;        /* per handle: velocity or root changed in this step */
  int32_t *clist;
  size_t nchg;
  agglo_dah_work *dah;
  agglo_dah_settings dset;
} ballistic;

static inline void mark_changed(ballistic *b, int32_t C) {
  if (!b->chg[C]) b->chg[C] = 1, b->clist[b->nchg++] = C;
}

/* Merge the clusters of i and j (momentum and mass add; the member lists and frames follow in
   ballistic_frames.c). Returns 1 if they were different. */
static int unite(ballistic *b, int32_t i, int32_t j) {
  int32_t c = agglo_uf_union(b->parent, i, j);
  if (c < 0) return 0;
  int32_t a = b->parent[c];
  b->M[a] += b->M[c];
  for (int k = 0; k < 3; k++) b->P[3 * (size_t)a + k] += b->P[3 * (size_t)c + k];
  b->n_clusters--;
  mark_changed(b, agglo_frames_merge(&b->fr, i, j));
  return 1;
}

static void ball_destroy(void *state) {
  ballistic *b = state;
  if (!b) return;
  agglo_links_free(&b->L);
  agglo_frames_free(&b->fr);
  free(b->parent); free(b->M); free(b->P); free(b->root);
  free(b->seeds); free(b->moved); free(b->ext); free(b->shift);
  free(b->hl); free(b->chg); free(b->clist);
  agglo_dah_work_free(b->dah);
  free(b);
}

static int ball_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                     size_t errlen) {
  ballistic *b = calloc(1, sizeof *b);
  if (!b) return agglo_fail(err, errlen, "out of memory");
  b->cfg = *c;
  size_t n = s->n, m = n ? n : 1;
  b->n = n;
  b->dim = s->dim;
  b->parent = malloc(m * sizeof *b->parent);
  b->M = malloc(m * sizeof *b->M);
  b->P = malloc(3 * m * sizeof *b->P);
  b->root = malloc(m * sizeof *b->root);
  b->ext = malloc(6 * m * sizeof *b->ext);
  b->shift = calloc(3 * m, sizeof *b->shift);
  b->dah = agglo_dah_work_new(n);
  b->hl = malloc(m * sizeof *b->hl);
  b->chg = calloc(m, sizeof *b->chg);
  b->clist = malloc(m * sizeof *b->clist);
  b->r_max = agglo_max_radius(s);
  int fr = agglo_frames_init(&b->fr, s, b->r_max, AGGLO_FRAME_MIN, AGGLO_FRAME_SLACK);
  if (fr == -1 || !b->parent || !b->M || !b->P || !b->root || !b->ext || !b->shift || !b->dah ||
      !b->hl || !b->chg || !b->clist || agglo_links_init(&b->L, n) != 0) {
    ball_destroy(b);
    return agglo_fail(err, errlen, "out of memory for %zu particles", n);
  }
  if (fr == -2) {
    size_t ncells = b->fr.ncells;
    ball_destroy(b);
    return agglo_fail(err, errlen, "out of memory for the cell grid (%zu cells)", ncells);
  }
  double rs = 0;
  for (size_t i = 0; i < n; i++) {
    b->parent[i] = (int32_t)i;
    b->root[i] = (int32_t)i;
    b->M[i] = s->m[i];
    for (int k = 0; k < 3; k++) b->P[3 * i + k] = s->m[i] * s->v[3 * i + k];
    rs += s->r[i];
  }
  b->n_clusters = n;
  b->r_mean = n ? rs / (double)n : c->radius;
  agglo_dah_defaults(&b->dset);
  b->dset.alpha = agglo_ballistic_of(c)->dah_alpha, b->dset.beta = agglo_ballistic_of(c)->dah_beta, b->dset.gamma = agglo_ballistic_of(c)->dah_gamma;
  b->dset.c = agglo_ballistic_of(c)->dah_c, b->dset.tol = agglo_ballistic_of(c)->tol, b->dset.max_iter = (int)agglo_ballistic_of(c)->dah_max_iter;
  b->dset.length = b->r_mean;
  *state = b;
  return 0;
}

int agglo_ballistic_set_frames(void *state, const agglo_system *s, size_t frame_min, double slack) {
  ballistic *b = state;
  agglo_frames_free(&b->fr);
  return agglo_frames_init(&b->fr, s, b->r_max, frame_min, slack) == 0 ? 0 : -1;
}

static int push_seed(ballistic *b, int32_t i) {
  if (b->nseeds == b->scap) {
    size_t cap = b->scap ? 2 * b->scap : 256;
    int32_t *a = realloc(b->seeds, cap * sizeof *a);
    if (!a) return -1;
    b->seeds = a, b->scap = cap;
  }
  b->seeds[b->nseeds++] = i;
  return 0;
}

/* Turn the pairs found into links (lambda = 1/2), merge clusters, seed the minimiser. */
static int link_pairs(ballistic *b) {
  b->nseeds = 0;
  for (size_t k = 0; k < b->fr.np; k++) {
    int32_t i = b->fr.pi[k], j = b->fr.pj[k];
    if (agglo_links_has(&b->L, i, j)) continue;
    if (agglo_links_add(&b->L, i, j, 0.5) != 0) return -1;
    unite(b, i, j);
    if (push_seed(b, i) != 0 || push_seed(b, j) != 0) return -1;
  }
  return 0;
}

/* Clusters that cross a wall: translate them back, flipping the normal velocity if they move
   outward (specular reflection of the whole cluster). reflect = 0: only push back inside. The
   frames follow their clusters' shifts. */
static void walls(ballistic *b, agglo_system *s, int reflect) {
  int any_wall = 0;
  const agglo_box *box = &s->box;
  for (int k = 0; k < s->dim; k++) any_wall |= !box->periodic[k];
  if (!any_wall) return;
  /* the clusters with a particle beyond a wall; the others stay where they are */
  agglo_frames *f = &b->fr;
  size_t nh = agglo_frames_beyond_walls(f, s, b->hl);
  if (!nh) return;
  for (size_t q = 0; q < nh; q++) {
    size_t C = (size_t)b->hl[q], r = (size_t)agglo_uf_find(b->parent, (int32_t)C);
    double *e = b->ext + 6 * C, *P = b->P + 3 * r, *sh = b->shift + 3 * C;
    for (int k = 0; k < 3; k++) e[k] = INFINITY, e[3 + k] = -INFINITY;
    for (int32_t m = f->mhead[C]; m >= 0; m = f->mnext[m]) {
      const double *x = s->x + 3 * (size_t)m;
      for (int k = 0; k < s->dim; k++) {
        double lo = x[k] - s->r[m], hi = x[k] + s->r[m];
        if (lo < e[k]) e[k] = lo;
        if (hi > e[3 + k]) e[3 + k] = hi;
      }
    }
    mark_changed(b, (int32_t)C);
    int moved = 0;
    for (int k = 0; k < s->dim; k++) {
      sh[k] = 0;
      if (box->periodic[k]) continue;
      double under = box->lo[k] - e[k], over = e[3 + k] - box->hi[k];
      if (under > 0 && over > 0) { /* spans the box: centre it, stop it along k [choice] */
        sh[k] = 0.5 * (under - over);
        P[k] = 0;
      } else if (under > 0) {
        if (reflect && P[k] < 0) P[k] = -P[k], sh[k] = 2 * under; /* mirror the motion */
        else sh[k] = under;
        if (e[3 + k] + sh[k] > box->hi[k]) sh[k] = box->hi[k] - e[3 + k];
        if (sh[k] < under) sh[k] = under;
      } else if (over > 0) {
        if (reflect && P[k] > 0) P[k] = -P[k], sh[k] = -2 * over;
        else sh[k] = -over;
        if (e[k] + sh[k] < box->lo[k]) sh[k] = box->lo[k] - e[k];
        if (sh[k] > -over) sh[k] = -over;
      }
      if (sh[k] != 0) moved = 1;
    }
    if (!moved) continue;
    if (f->framed[C])
      for (int k = 0; k < s->dim; k++) f->D[3 * C + k] += sh[k];
    for (int32_t m = f->mhead[C]; m >= 0; m = f->mnext[m])
      for (int k = 0; k < s->dim; k++) s->x[3 * (size_t)m + k] += sh[k];
  }
}

/* Root cache and velocity of particle i from its cluster's mass and momentum; 0 if the
   position or velocity is not finite. */
static inline int update_velocity(ballistic *b, agglo_system *s, size_t i) {
  int32_t r = agglo_uf_find(b->parent, (int32_t)i);
  b->root[i] = r;
  double inv = 1.0 / b->M[r], *v = s->v + 3 * i;
  for (int k = 0; k < 3; k++) v[k] = k < s->dim ? b->P[3 * (size_t)r + k] * inv : 0;
  const double *x = s->x + 3 * i;
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) && isfinite(v[1]) &&
         isfinite(v[2]);
}

static int ball_step(void *state, agglo_system *s, agglo_step_info *info, char *err,
                     size_t errlen) {
  ballistic *b = state;
  agglo_frames *f = &b->fr;
  const agglo_config *c = &b->cfg;
  size_t n = s->n;
  int d = s->dim;
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->bad_particle = SIZE_MAX;
  info->min_gap = INFINITY;
  int stop_t = agglo_ballistic_of(c)->stop == BALL_STOP_T_END;
  /* 1. time step from the fastest cluster (rule (3.3)) */
  double vmax2 = 0;
  for (size_t k = 0; k < f->nsmall + f->nframed; k++) { /* roots outside frames, framed ones */
    size_t i = (size_t)(k < f->nsmall ? f->small[k] : agglo_uf_find(b->parent, f->flist[k - f->nsmall]));
    if (b->parent[i] == (int32_t)i) {
      const double *P = b->P + 3 * i;
      double q = (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) / (b->M[i] * b->M[i]);
      if (q > vmax2) vmax2 = q;
    }
  }
  if ((!stop_t && b->n_clusters <= 1) || (stop_t && s->t >= c->t_end)) {
    info->finished = 1;
    return 0;
  }
  double dt;
  if (vmax2 == 0) { /* nothing moves: nothing will ever happen */
    dt = stop_t ? c->t_end - s->t : 0;
    info->finished = 1;
  } else {
    dt = agglo_ballistic_of(c)->dt_factor * b->r_max / sqrt(vmax2);
    if (stop_t && s->t + dt > c->t_end) dt = c->t_end - s->t;
  }
  /* 2. free flight (s->v holds each particle's cluster velocity), root cache, walls */
  agglo_frames_fly(f, s->v, d, dt);
  for (size_t i = 0; i < n; i++) {
    double *x = s->x + 3 * i;
    const double *v = s->v + 3 * i;
    for (int k = 0; k < d; k++) x[k] += dt * v[k];
  }
  walls(b, s, 1);
  if (s->box.periodic[0] || s->box.periodic[1] || s->box.periodic[2])
    for (size_t i = 0; i < n; i++) agglo_box_wrap(&s->box, s->x + 3 * i);
  /* 3. interactions: new links from overlaps, relaxation, repeated while the set grows */
  if (agglo_frames_scan(f, s, b->root) != 0) return agglo_fail(err, errlen, "out of memory");
  if (link_pairs(b) != 0) return agglo_fail(err, errlen, "out of memory");
  double max_overlap = 0;
  int outer = 0, touched_walls = 0;
  while (b->nseeds > 0) {
    /* one relaxation per new link, in order: each stays in cache, and a relaxation that
       disturbs an earlier one's particles takes them up again (Gauss-Seidel across links) */
    b->nmoved = 0;
    double max_move = 0;
    for (size_t q = 0; q + 1 < b->nseeds; q += 2) {
      agglo_dah_stats ds;
      b->dset.stop = s->stop;
      int rc = agglo_dah_solve(&b->L, s->x, s->r, &s->box, b->seeds + q, 2, &b->dset, b->dah, &ds,
                               NULL, 0);
      if (rc > 0) return AGGLO_STEP_STOPPED; /* (the driver undoes the step) */
      if (rc != 0) return agglo_fail(err, errlen, "out of memory in the minimiser");
      info->iterations += ds.iterations;
      if (!ds.converged) info->converged = 0;
      if (ds.max_overlap > max_overlap) max_overlap = ds.max_overlap;
      if (ds.max_move > max_move) max_move = ds.max_move;
      size_t nm;
      const int32_t *mv = agglo_dah_moved(b->dah, &nm);
      if (b->nmoved + nm > b->mcap) {
        size_t cap = 2 * (b->nmoved + nm) + 256;
        int32_t *m2 = realloc(b->moved, cap * sizeof *m2);
        if (!m2) return agglo_fail(err, errlen, "out of memory");
        b->moved = m2, b->mcap = cap;
      }
      memcpy(b->moved + b->nmoved, mv, nm * sizeof *mv);
      b->nmoved += nm;
    }
    outer++;
    const int32_t *moved = b->moved;
    size_t nm = b->nmoved;
    for (size_t k = 0; k < nm && !touched_walls; k++) {
      const double *x = s->x + 3 * (size_t)moved[k];
      for (int q = 0; q < d; q++)
        if (!s->box.periodic[q] && (x[q] - s->r[moved[k]] < s->box.lo[q] ||
                                    x[q] + s->r[moved[k]] > s->box.hi[q]))
          touched_walls = 1;
    }
    if (agglo_frames_rescan(f, s, &b->L, moved, nm, max_move) != 0 || link_pairs(b) != 0)
      return agglo_fail(err, errlen, "out of memory");
    if (outer >= 1000) {
      info->converged = 0;
      break;
    }
  }
  if (touched_walls) { /* the relaxation pushed a cluster through a wall: push it back [choice] */
    walls(b, s, 0);
  }
  /* 4. cluster velocities: mass-weighted mean of the pre-step velocities; in frames only the
     clusters that merged or hit a wall (the others keep their velocity and root) */
  size_t bad = SIZE_MAX;
  for (size_t k = 0; k < f->nsmall; k++) {
    size_t i = (size_t)f->small[k];
    if (!update_velocity(b, s, i) && i < bad) bad = i;
  }
  for (size_t q = 0; q < f->nframed; q++) {
    int32_t C = f->flist[q];
    const double *D = f->D + 3 * (size_t)C;
    if (!b->chg[C] && isfinite(D[0]) && isfinite(D[1]) && isfinite(D[2])) continue;
    /* one root and one velocity for all members (the same values update_velocity gives) */
    int32_t r = agglo_uf_find(b->parent, C);
    double inv = 1.0 / b->M[r], V[3];
    for (int k = 0; k < 3; k++) V[k] = k < d ? b->P[3 * (size_t)r + k] * inv : 0;
    int vok = isfinite(V[0]) && isfinite(V[1]) && isfinite(V[2]);
    for (int32_t m = f->mhead[C]; m >= 0; m = f->mnext[m]) {
      double *v = s->v + 3 * (size_t)m;
      const double *x = s->x + 3 * (size_t)m;
      b->root[m] = r;
      v[0] = V[0], v[1] = V[1], v[2] = V[2];
      if (!(vok && isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) && (size_t)m < bad)
        bad = (size_t)m;
    }
  }
  for (size_t q = 0; q < b->nchg; q++) b->chg[b->clist[q]] = 0;
  b->nchg = 0;
  s->step++;
  s->t += dt;
  info->outer_iterations = outer;
  info->max_violation = max_overlap;
  info->min_gap = f->min_gap;
  info->n_contacts = b->L.count;
  info->bad_particle = bad;
  if ((!stop_t && b->n_clusters <= 1) || (stop_t && s->t >= c->t_end * (1 - 1e-15)))
    info->finished = 1;
  return 0;
}

static double ball_contact_gap(const void *state) {
  const ballistic *b = state;
  double g = 10 * agglo_ballistic_of(&b->cfg)->tol;
  return (g < 0.1 ? g : 0.1) * b->r_mean;
}

/* Labels: the connected components of the links, named by their smallest id. */
static int ball_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size) {
  const ballistic *b = state;
  size_t n = s->n;
  int64_t *low = malloc((n ? n : 1) * sizeof *low);
  size_t *size = calloc(n ? n : 1, sizeof *size);
  if (!low || !size) {
    free(low); free(size);
    return -1;
  }
  for (size_t i = 0; i < n; i++) low[i] = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    int32_t r = agglo_uf_find(b->parent, (int32_t)i);
    if (s->id[i] < low[r]) low[r] = s->id[i];
    size[r]++;
  }
  size_t nc = 0, mx = 0;
  for (size_t i = 0; i < n; i++) {
    s->cluster[i] = (int32_t)low[agglo_uf_find(b->parent, (int32_t)i)];
    if (size[i]) {
      nc++;
      if (size[i] > mx) mx = size[i];
    }
  }
  *n_clusters = nc, *max_size = mx;
  free(low); free(size);
  return 0;
}

/* Restart: the links and their multipliers, then each cluster's mass and momentum as they were
   summed merge by merge (re-summing m v on loading would round differently: the restart would
   not go on bit for bit). Clusters are named by their root, the smallest index of the cluster. */
/* A start from a file's clusters: a touching pair becomes a link, as at a collision; members
   that do not touch join the cluster without one (it moves rigidly all the same). */
static int ball_join(void *state, const agglo_system *s, int32_t i, int32_t j, int touching) {
  ballistic *b = state;
  (void)s;
  if (touching && !agglo_links_has(&b->L, i, j) && agglo_links_add(&b->L, i, j, 0.5) != 0) return -1;
  unite(b, i, j);
  b->root[i] = agglo_uf_find(b->parent, i), b->root[j] = agglo_uf_find(b->parent, j);
  return 0;
}

static int ball_save(const void *state, FILE *f) {
  const ballistic *b = state;
  fprintf(f, "# ballistic links: i j lambda (storage indices)\n%zu\n", b->L.count);
  for (size_t l = 0; l < b->L.count; l++)
    fprintf(f, "%d %d %.17g\n", b->L.link[l].a, b->L.link[l].b, b->L.link[l].lambda);
  fprintf(f, "# ballistic clusters: root mass momentum (3)\n%zu\n", b->n_clusters);
  for (size_t i = 0; i < b->n; i++)
    if (b->parent[i] == (int32_t)i)
      fprintf(f, "%zu %.17g %.17g %.17g %.17g\n", i, b->M[i], b->P[3 * i], b->P[3 * i + 1],
              b->P[3 * i + 2]);
  return ferror(f) ? -1 : 0;
}

static int ball_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  ballistic *b = state;
  (void)s;
  char line[256];
  size_t cnt, at = 2;
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1)
    return agglo_fail(err, errlen, "line 2: expected the number of links");
  if (!agglo_load_count_fits(f, cnt, 3))
    return agglo_fail(err, errlen, "line 2: announces %zu links, more than the file holds", cnt);
  for (size_t k = 0; k < cnt; k++) {
    int i, j;
    double lam;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lg", &i, &j, &lam) != 3)
      return agglo_fail(err, errlen, "line %zu: not 'i j lambda'", ++at);
    if (i < 0 || j < 0 || (size_t)i >= b->n || (size_t)j >= b->n || i == j || !isfinite(lam))
      return agglo_fail(err, errlen, "line %zu: link %d %d, multiplier %g (allowed: two particles "
                        "from 0 to %zu, a finite multiplier)", ++at, i, j, lam, b->n - 1);
    at++;
    if (agglo_links_add(&b->L, i, j, lam) != 0) return agglo_fail(err, errlen, "out of memory");
    unite(b, i, j); /* members share the cluster velocity: the momenta add up to M V */
  }
  /* each cluster's sums as they were summed merge by merge */
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || sscanf(line, "%zu", &cnt) != 1 ||
      cnt != b->n_clusters)
    return agglo_fail(err, errlen, "line %zu: expected the number of clusters the links make, %zu",
                      at + 2, b->n_clusters);
  at += 2;
  for (size_t k = 0; k < cnt; k++) {
    size_t r;
    double m, p[3];
    at++;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%zu %lg %lg %lg %lg", &r, &m, &p[0], &p[1], &p[2]) != 5 || r >= b->n ||
        b->parent[r] != (int32_t)r || !(m > 0) || !isfinite(m) || !isfinite(p[0] + p[1] + p[2]))
      return agglo_fail(err, errlen, "line %zu: not 'root M P' of a cluster the links make (a "
                        "root particle, a positive mass, a finite momentum)", at);
    b->M[r] = m;
    for (int q = 0; q < 3; q++) b->P[3 * r + q] = p[q];
  }
  for (size_t i = 0; i < b->n; i++) b->root[i] = agglo_uf_find(b->parent, (int32_t)i);
  return 0;
}

const agglo_model agglo_model_ballistic = {
    .name = "ballistic (time stepping)",
    .init = ball_init,
    .step = ball_step,
    .contact_gap = ball_contact_gap,
    .neighbors = NULL,
    .save = ball_save,
    .load = ball_load,
    .destroy = ball_destroy,
    .variable_step = 1,
    .labels = ball_labels,
    .join = ball_join,
};
