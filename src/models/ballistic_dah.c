/* Damped Arrow-Hurwicz minimiser on a local active set (see ballistic_dah.h and
   docs/ballistic.md). */
#include "models/ballistic_dah.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- links ---- */

int agglo_links_init(agglo_links *L, size_t n) {
  memset(L, 0, sizeof *L);
  L->n = n;
  L->head = malloc((n ? n : 1) * sizeof *L->head);
  L->degree = calloc(n ? n : 1, sizeof *L->degree);
  if (!L->head || !L->degree) return -1;
  for (size_t i = 0; i < n; i++) L->head[i] = -1;
  return 0;
}

void agglo_links_free(agglo_links *L) {
  free(L->link); free(L->head); free(L->degree);
  memset(L, 0, sizeof *L);
}

int agglo_links_has(const agglo_links *L, int32_t i, int32_t j) {
  /* walk the shorter list */
  if (L->degree[j] < L->degree[i]) { int32_t t = i; i = j; j = t; }
  for (int32_t e = L->head[i]; e >= 0; e = AGGLO_LINK_NEXT(L, e)) {
    const agglo_link *k = &L->link[e >> 1];
    if ((e & 1 ? k->a : k->b) == j) return 1;
  }
  return 0;
}

int agglo_links_add(agglo_links *L, int32_t i, int32_t j, double lambda0) {
  if (L->count == L->cap) {
    size_t cap = L->cap ? 2 * L->cap : 64;
    agglo_link *k = realloc(L->link, cap * sizeof *k);
    if (!k) return -1;
    L->link = k;
    L->cap = cap;
  }
  size_t l = L->count++;
  agglo_link *k = &L->link[l];
  k->a = i, k->b = j, k->lambda = lambda0;
  k->next[0] = L->head[i], L->head[i] = (int32_t)(2 * l);
  k->next[1] = L->head[j], L->head[j] = (int32_t)(2 * l + 1);
  L->degree[i]++, L->degree[j]++;
  return 0;
}

/* ---- solver ---- */

void agglo_dah_defaults(agglo_dah_settings *s) {
  s->alpha = 0.02, s->beta = 0.05, s->gamma = 0.05, s->c = 0.3;
  s->tol = 1e-3;
  s->max_iter = 5000;
  s->max_restarts = 3;
  s->adapt = 1;
  s->length = 1;
  s->stop = NULL;
}

struct agglo_dah_work {
  size_t n;
  uint32_t stamp;       /* current solve */
  uint32_t *act;        /* n: == stamp when active */
  uint32_t *bnd;        /* n: boundary check marker */
  uint32_t bstamp;
  int32_t *loc;         /* n: local index of an active particle */
  size_t na, cap_a;     /* particles touched by this solve */
  int32_t *idx;         /* local -> particle */
  size_t nw;            /* awake (iterating) particles: local indices in wake[] */
  int32_t *wake;
  unsigned char *asleep; /* per local index */
  double *P, *x0, *F;   /* 3 per active: pseudo-velocity, start position, force */
  size_t nl, cap_l;     /* live links */
  int32_t *live;
  double *lam0;         /* multiplier of each live link at the start (for restarts) */
  uint32_t *lstamp;     /* per link (grows with the link set) */
  size_t lstamp_cap;
};

agglo_dah_work *agglo_dah_work_new(size_t n) {
  agglo_dah_work *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->n = n;
  size_t m = n ? n : 1;
  w->act = calloc(m, sizeof *w->act);
  w->bnd = calloc(m, sizeof *w->bnd);
  w->loc = malloc(m * sizeof *w->loc);
  if (!w->act || !w->bnd || !w->loc) {
    agglo_dah_work_free(w);
    return NULL;
  }
  return w;
}

void agglo_dah_work_free(agglo_dah_work *w) {
  if (!w) return;
  free(w->act); free(w->bnd); free(w->loc); free(w->idx); free(w->P); free(w->x0); free(w->F);
  free(w->wake); free(w->asleep);
  free(w->live); free(w->lam0); free(w->lstamp);
  free(w);
}

const int32_t *agglo_dah_moved(const agglo_dah_work *w, size_t *count) {
  *count = w->na;
  return w->idx;
}

static int grow_links_stamp(agglo_dah_work *w, const agglo_links *L) {
  if (w->lstamp_cap >= L->cap) return 0;
  uint32_t *s = realloc(w->lstamp, (L->cap ? L->cap : 1) * sizeof *s);
  if (!s) return -1;
  memset(s + w->lstamp_cap, 0, (L->cap - w->lstamp_cap) * sizeof *s);
  w->lstamp = s;
  w->lstamp_cap = L->cap;
  return 0;
}

static int activate(agglo_dah_work *w, const agglo_links *L, const double *x, int32_t i) {
  if (w->act[i] == w->stamp) return 0;
  if (w->na == w->cap_a) {
    size_t cap = w->cap_a ? 2 * w->cap_a : 256;
    int32_t *idx = realloc(w->idx, cap * sizeof *idx);
    if (idx) w->idx = idx;
    double *P = realloc(w->P, 3 * cap * sizeof *P);
    if (P) w->P = P;
    double *x0 = realloc(w->x0, 3 * cap * sizeof *x0);
    if (x0) w->x0 = x0;
    double *F = realloc(w->F, 6 * cap * sizeof *F);
    if (F) w->F = F;
    int32_t *wk = realloc(w->wake, cap * sizeof *wk);
    if (wk) w->wake = wk;
    unsigned char *as = realloc(w->asleep, cap * sizeof *as);
    if (as) w->asleep = as;
    if (!idx || !P || !x0 || !F || !wk || !as) return -1;
    w->cap_a = cap;
  }
  size_t k = w->na++;
  w->act[i] = w->stamp;
  w->loc[i] = (int32_t)k;
  w->idx[k] = i;
  w->asleep[k] = 0;
  w->wake[w->nw++] = (int32_t)k;
  for (int q = 0; q < 3; q++) w->P[3 * k + q] = 0, w->x0[3 * k + q] = x[3 * (size_t)i + q];
  for (int32_t e = L->head[i]; e >= 0; e = AGGLO_LINK_NEXT(L, e)) {
    int32_t l = e >> 1;
    if (w->lstamp[l] == w->stamp) continue;
    if (w->nl == w->cap_l) {
      size_t cap = w->cap_l ? 2 * w->cap_l : 256;
      int32_t *lv = realloc(w->live, cap * sizeof *lv);
      if (lv) w->live = lv;
      double *l0 = realloc(w->lam0, cap * sizeof *l0);
      if (l0) w->lam0 = l0;
      if (!lv || !l0) return -1;
      w->cap_l = cap;
    }
    w->lstamp[l] = w->stamp;
    w->lam0[w->nl] = L->link[l].lambda;
    w->live[w->nl++] = l;
  }
  return 0;
}

/* Separation D = X_i - X_j in reference units, phi and (ri+rj)^2 in the same units. */
static inline double link_geom(const agglo_links *L, const double *x, const double *r,
                               const agglo_box *box, double inv_len, int32_t l, double D[3],
                               double *s2) {
  int32_t i = L->link[l].a, j = L->link[l].b;
  double d[3];
  agglo_box_delta(box, x + 3 * (size_t)j, x + 3 * (size_t)i, d); /* x_i - x_j */
  for (int q = 0; q < 3; q++) D[q] = d[q] * inv_len;
  double s = (r[i] + r[j]) * inv_len;
  *s2 = s * s;
  double D2 = D[0] * D[0] + D[1] * D[1] + D[2] * D[2];
  if (D2 < 1e-12 * *s2) {
    /* coincident centres (a head-on overlap of a full diameter): no direction to separate them
       along; take the x axis, signed by the order of the indices [choice] */
    D[0] = (i < j ? 1e-6 : -1e-6) * s, D[1] = D[2] = 0;
    D2 = D[0] * D[0];
  }
  return *s2 - D2;
}

/* grad_X L of particle i (reference units) and its stiffness bound sum 4 lambda s^2. Also the
   worst link residuals of i: phi+/s2 and lambda|phi|/s2. */
static void particle_grad(const agglo_links *L, const double *x, const double *r,
                          const agglo_box *box, double inv_len, int32_t i, double g[3],
                          double gam_term[3], double *stiff, double *res_link) {
  g[0] = g[1] = g[2] = 0;
  gam_term[0] = gam_term[1] = gam_term[2] = 0;
  double k = 0, rl = 0;
  for (int32_t e = L->head[i]; e >= 0; e = AGGLO_LINK_NEXT(L, e)) {
    int32_t l = e >> 1;
    double D[3], s2;
    double phi = link_geom(L, x, r, box, inv_len, l, D, &s2);
    double sgn = (e & 1) ? -1.0 : 1.0; /* D is X_a - X_b: flip for end b */
    double lam = L->link[l].lambda;
    double w1 = sgn * (1 - 2 * lam), w2 = sgn * 2 * lam * phi;
    for (int q = 0; q < 3; q++) g[q] += w1 * D[q], gam_term[q] += w2 * D[q];
    k += 4 * (lam > 0.5 ? lam : 0.5) * s2;
    double r1 = phi > 0 ? phi / s2 : 0, r2 = lam * fabs(phi) / s2;
    if (r1 > rl) rl = r1;
    if (r2 > rl) rl = r2;
  }
  *stiff = k;
  *res_link = rl;
}

static void restore(agglo_dah_work *w, agglo_links *L, double *x) {
  w->nw = 0;
  for (size_t k = 0; k < w->na; k++) {
    for (int q = 0; q < 3; q++) {
      x[3 * (size_t)w->idx[k] + q] = w->x0[3 * k + q];
      w->P[3 * k + q] = 0;
    }
    w->asleep[k] = 0;
    w->wake[w->nw++] = (int32_t)k;
  }
  for (size_t m = 0; m < w->nl; m++) L->link[w->live[m]].lambda = w->lam0[m];
}

int agglo_dah_solve(agglo_links *L, double *x, const double *r, const agglo_box *box,
                    const int32_t *seeds, size_t nseeds, const agglo_dah_settings *set,
                    agglo_dah_work *w, agglo_dah_stats *st, double *trace, int trace_len) {
  memset(st, 0, sizeof *st);
  if (grow_links_stamp(w, L) != 0) return -1;
  if (++w->stamp == 0) { /* wrapped: clear the markers */
    memset(w->act, 0, w->n * sizeof *w->act);
    memset(w->lstamp, 0, w->lstamp_cap * sizeof *w->lstamp);
    w->stamp = 1;
  }
  w->na = 0, w->nl = 0, w->nw = 0;
  for (size_t k = 0; k < nseeds; k++)
    if (activate(w, L, x, seeds[k]) != 0) return -1;
  double inv_len = 1.0 / set->length, len = set->length;
  double alpha = set->alpha, beta = set->beta, gamma = set->gamma, c = set->c, tol = set->tol;
  double tol_dx = tol * 1e-2, act_tol = 0.5 * tol;
  st->gamma_used = gamma;
  int attempt = 0, it = 0, it_attempt = 0;
  double gam_eff = gamma;
  for (;;) {
    /* 1. forces on the awake particles at (X, lambda); the quiet ones (no motion, residuals
       below half the tolerance) fall asleep: they count as converged and wake up if a
       neighbour's motion gives them a residual again (step 2) */
    double kmax = 0;
    int bad = 0;
    size_t nw = 0;
    for (size_t m = 0; m < w->nw; m++) {
      int32_t k = w->wake[m];
      double g[3], gt[3], stiff, rl, *P = w->P + 3 * (size_t)k;
      particle_grad(L, x, r, box, inv_len, w->idx[k], g, gt, &stiff, &rl);
      double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
      double pn = sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]);
      if (!isfinite(gn) || !isfinite(pn) || pn > 1.0) bad = 1;
      if (pn < tol_dx && gn < act_tol && rl < act_tol) {
        w->asleep[k] = 1;
        P[0] = P[1] = P[2] = 0;
        continue;
      }
      w->wake[nw++] = k;
      if (stiff > kmax) kmax = stiff;
      for (int q = 0; q < 3; q++) w->F[6 * (size_t)k + q] = -alpha * g[q], w->F[6 * (size_t)k + 3 + q] = gt[q];
    }
    w->nw = nw;
    /* 2. boundary: particles linked to awake ones join (or wake) if they feel a residual */
    int grew = 0;
    if (++w->bstamp == 0) {
      memset(w->bnd, 0, w->n * sizeof *w->bnd);
      w->bstamp = 1;
    }
    /* every 4th iteration (the neighbours react a little late; harmless), and always before
       declaring convergence */
    int full = w->nw == 0; /* all asleep: check the neighbours of every touched particle */
    st->full_checks += full;
    size_t nsrc = full ? w->na : (it % 4 == 0 ? w->nw : 0);
    for (size_t m = 0; m < nsrc; m++)
      for (int32_t e = L->head[w->idx[full ? (int32_t)m : w->wake[m]]]; e >= 0; e = AGGLO_LINK_NEXT(L, e)) {
        int32_t l = e >> 1, j = (e & 1) ? L->link[l].a : L->link[l].b;
        int touched = w->act[j] == w->stamp;
        if ((touched && !w->asleep[w->loc[j]]) || w->bnd[j] == w->bstamp) continue;
        w->bnd[j] = w->bstamp;
        st->checks++;
        double g[3], gt[3], stiff, rl;
        particle_grad(L, x, r, box, inv_len, j, g, gt, &stiff, &rl);
        double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (gn > act_tol || rl > act_tol) {
          if (touched) {
            int32_t k = w->loc[j];
            w->asleep[k] = 0;
            w->wake[w->nw++] = k;
          } else if (grow_links_stamp(w, L) != 0 || activate(w, L, x, j) != 0) {
            return -1;
          }
          grew = 1;
        }
      }
    if (grew) continue; /* forces of the newcomers first */
    if (w->nw == 0) {
      st->converged = 1;
      break;
    }
    if (it_attempt >= set->max_iter || bad) {
      /* cap or divergence: fall back to smaller coefficients, from the start */
      if (attempt >= set->max_restarts) break;
      attempt++;
      alpha *= 0.5, gamma *= 0.5, beta *= 0.5;
      restore(w, L, x);
      it_attempt = 0;
      continue;
    }
    /* 3. adapt gamma to the stiffness of the awake set (Gershgorin, with margin 2) */
    if (set->adapt && kmax > 0) {
      double cap = 0.5 * (2 - c) / kmax;
      gam_eff = gamma < cap ? gamma : cap;
      if (gam_eff < st->gamma_used) st->gamma_used = gam_eff;
    } else {
      gam_eff = gamma;
    }
    /* 4. heavy-ball step on the positions */
    st->work += (double)w->nw;
    for (size_t m = 0; m < w->nw; m++) {
      size_t k = (size_t)w->wake[m];
      double *P = w->P + 3 * k, *xi = x + 3 * (size_t)w->idx[k], *F = w->F + 6 * k;
      for (int q = 0; q < 3; q++) {
        P[q] = (1 - c) * P[q] + F[q] + gam_eff * F[3 + q];
        xi[q] += len * P[q];
      }
    }
    /* 5. projected dual ascent on the links with an awake end, at the new positions (each link
       once: from end a if it is awake, else from end b) */
    for (size_t m = 0; m < w->nw; m++) {
      int32_t i = w->idx[w->wake[m]];
      for (int32_t e = L->head[i]; e >= 0; e = AGGLO_LINK_NEXT(L, e)) {
        int32_t l = e >> 1;
        if (e & 1) { /* i is end b: skip if end a is awake too */
          int32_t a = L->link[l].a;
          if (w->act[a] == w->stamp && !w->asleep[w->loc[a]]) continue;
        }
        double D[3], s2;
        double phi = link_geom(L, x, r, box, inv_len, l, D, &s2);
        double lam = L->link[l].lambda + beta * phi;
        L->link[l].lambda = lam > 0 ? lam : 0;
      }
    }
    if (trace && it < trace_len && L->count > 0) {
      double D[3], s2;
      double phi = link_geom(L, x, r, box, inv_len, 0, D, &s2);
      trace[2 * it] = sqrt(s2 - phi) * len;
      trace[2 * it + 1] = L->link[0].lambda;
    }
    it++, it_attempt++;
    if (set->stop && atomic_load_explicit(set->stop, memory_order_relaxed)) return 1;
  }
  st->iterations = it;
  st->restarts = attempt;
  st->active = w->na;
  /* results: link errors, displacements; wrap periodic axes */
  for (size_t m = 0; m < w->nl; m++) {
    int32_t l = w->live[m];
    double D[3], s2;
    link_geom(L, x, r, box, inv_len, l, D, &s2);
    double dist = sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]) * len;
    double err = (r[L->link[l].a] + r[L->link[l].b]) - dist;
    if (err > st->max_overlap) st->max_overlap = err;
    if (-err > st->max_stretch) st->max_stretch = -err;
  }
  for (size_t k = 0; k < w->na; k++) {
    double *xi = x + 3 * (size_t)w->idx[k], d2 = 0;
    for (int q = 0; q < 3; q++) d2 += (xi[q] - w->x0[3 * k + q]) * (xi[q] - w->x0[3 * k + q]);
    if (d2 > st->max_move * st->max_move) st->max_move = sqrt(d2);
    agglo_box_wrap(box, xi);
  }
  return 0;
}
