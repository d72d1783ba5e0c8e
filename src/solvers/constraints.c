#include "solvers/constraints.h"
#include "core/error.h"
#include "solvers/projection.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

int agglo_constraints_reserve(agglo_constraints *c, size_t need) {
  if (need <= c->cap) return 0;
  size_t cap = need + need / 4 + 64;
#define GROW(p, w)                                              \
  do {                                                          \
    void *q = realloc(c->p, cap * (w) * sizeof *c->p);          \
    if (!q) return -1;                                          \
    c->p = q;                                                   \
  } while (0)
  GROW(i, 1); GROW(j, 1); GROW(e, 3); GROW(gap, 1); GROW(lambda, 1); GROW(gamma, 1); GROW(equality, 1);
#undef GROW
  c->cap = cap;
  return 0;
}

int agglo_constraints_check_loaded(size_t n, size_t elements, const char *what, int i, int j,
                                   int pi, int pj, double lambda, double gamma, size_t line,
                                   char *err, size_t errlen) {
  if (i < 0 || (size_t)i >= n)
    return agglo_fail(err, errlen, "line %zu: particle %d (allowed: 0 to %zu)", line, i, n - 1);
  if (j >= 0 && (j <= i || (size_t)j >= n))
    return agglo_fail(err, errlen, "line %zu: pair %d %d (allowed: a partner from %d to %zu)", line,
                      i, j, i + 1, n - 1);
  if (j < 0 && !elements)
    return agglo_fail(err, errlen, "line %zu: contact %d %d with %s %lld (allowed: none, the "
                      "scenario has no %s)", line, i, j, what, -1 - (long long)j, what);
  if (j < 0 && (size_t)(-1 - (int64_t)j) >= elements)
    return agglo_fail(err, errlen, "line %zu: contact %d %d: %s %lld (allowed: %ss 0 to %lld, "
                      "written j = -1 to %lld)", line, i, j, what, -1 - (long long)j, what,
                      (long long)elements - 1, -(long long)elements);
  if (pi >= 0 && !(pi < i || (pi == i && pj < j)))
    return agglo_fail(err, errlen, "line %zu: contact %d %d after %d %d (allowed: by i, then j, "
                      "increasing, each once)", line, i, j, pi, pj);
  if (!isfinite(lambda) || !isfinite(gamma))
    return agglo_fail(err, errlen, "line %zu: contact %d %d: multiplier %g, memory %g (allowed: "
                      "finite numbers)", line, i, j, lambda, gamma);
  return 0;
}

/* Order of contacts: by i, then by j: walls (j = -1 - w < 0, so the highest wall number first)
   before pairs, pairs by ascending partner. */

/* Which pairs and walls are constraints (see constraints.h). */
typedef struct {
  double margin, h, safety, cap;
  const double *vstar, *vtry;
  /* per particle, for a quick rejection: safety h |vstar_i| (with vstar), h |vtry_i| (with vtry) */
  const double *move, *move_try;
  agglo_image img; /* the box's minimum image (set by rule_box) */
  int dim;
  int wtop; /* the walls' loops start here: 2 dim - 1, or -1 in a box without walls (rule_box) */
} rule;

static inline void rule_box(rule *R, const agglo_system *s) {
  R->img = agglo_box_image(&s->box);
  R->dim = s->dim;
  R->wtop = -1;
  for (int k = 0; k < s->dim; k++)
    if (!s->box.periodic[k]) R->wtop = 2 * s->dim - 1;
}

/* x_j - x_i, minimum image */
static inline void pair_delta(const agglo_system *s, const rule *R, size_t i, size_t j, double d[3]) {
  if (R->dim == 2) agglo_image_delta(&R->img, s->x + 3 * i, s->x + 3 * j, d, 2);
  else agglo_image_delta(&R->img, s->x + 3 * i, s->x + 3 * j, d, 3);
}

static inline int wall_in(const agglo_system *s, int w, size_t i, const rule *R, double *gap) {
  double g = agglo_wall_gap(s, w, i);
  *gap = g;
  if (g < R->margin) return 1;
  int k = w / 2;
  double n = (w & 1) ? -1.0 : 1.0;
  if (R->vstar && g < R->cap) {
    const double *vi = R->vstar + 3 * i;
    double sp = sqrt(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
    if (g - R->margin < R->safety * R->h * sp) return 1;
  }
  if (R->vtry && g + R->h * n * R->vtry[3 * i + k] < 0) return 1;
  return 0;
}

static inline int pair_in(const agglo_system *s, size_t i, size_t j, const rule *R, double *gap,
                          double e[3]) {
  double d[3];
  pair_delta(s, R, i, j, d);
  double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double g = dist - s->r[i] - s->r[j];
  *gap = g;
  double inv = dist > 0 ? 1.0 / dist : 0.0;
  e[0] = d[0] * inv, e[1] = d[1] * inv, e[2] = d[2] * inv;
  if (dist == 0) e[0] = 1.0; /* coincident centres: any direction */
  if (g < R->margin) return 1;
  if (R->vstar && g < R->cap) {
    const double *vi = R->vstar + 3 * i, *vj = R->vstar + 3 * j;
    double d0 = vj[0] - vi[0], d1 = vj[1] - vi[1], d2 = vj[2] - vi[2];
    if (g - R->margin < R->safety * R->h * sqrt(d0 * d0 + d1 * d1 + d2 * d2)) return 1;
  }
  if (R->vtry) {
    const double *vi = R->vtry + 3 * i, *vj = R->vtry + 3 * j;
    double gv = e[0] * (vj[0] - vi[0]) + e[1] * (vj[1] - vi[1]) + e[2] * (vj[2] - vi[2]);
    if (g + R->h * gv < 0) return 1;
  }
  return 0;
}

/* pair_in for the first pass: decides without a square root when the pair is beyond every
   reach of the rule, and then returns a lower bound of its gap. */
static inline int pair_select(const agglo_system *s, size_t i, size_t j, const rule *R,
                              double *gap_low) {
  double d[3];
  pair_delta(s, R, i, j, d);
  double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  double rr = s->r[i] + s->r[j];
  double far = R->margin;
  if (R->vstar) {
    /* the rule cannot select beyond margin + safety h (|vstar_i| + |vstar_j|), nor beyond cap */
    double f = R->margin + R->move[i] + R->move[j];
    f = f < R->cap ? f : R->cap;
    far = f > far ? f : far;
  }
  if (R->vtry) {
    /* nor, for the earlier attempt, beyond h (|vtry_i| + |vtry_j|) */
    double f = R->move_try[i] + R->move_try[j];
    far = f > far ? f : far;
  }
  double lim = rr + far;
  if (d2 >= lim * lim) {
    *gap_low = far;
    return 0;
  }
  if (R->vtry) {
    double e[3];
    return pair_in(s, i, j, R, gap_low, e);
  }
  double g = sqrt(d2) - rr;
  *gap_low = g;
  if (g < R->margin) return 1;
  if (R->vstar && g < R->cap) {
    const double *vi = R->vstar + 3 * i, *vj = R->vstar + 3 * j;
    double d0 = vj[0] - vi[0], d1 = vj[1] - vi[1], dd2 = vj[2] - vi[2];
    double t = (g - R->margin) / (R->safety * R->h);
    if (t * t < d0 * d0 + d1 * d1 + dd2 * dd2) return 1;
  }
  return 0;
}

/* Scratch kept between steps: the buffers of the next set (swapped with the current one, so
   nothing is allocated in the steady state), and per listed pair the selection and the gap of the
   last collect (count_missed uses them to skip pairs that cannot close). */
struct agglo_cscratch {
  agglo_constraints back;
  size_t by_cap, ostart_cap, pair_cap, spd_cap;
  size_t *ostart;
  uint8_t *sel;
  float *gapf;
  float *spd;
  double *move, *move_try;
  size_t move_cap;
  int missed_ok; /* the last count_missed marked its pairs (sel = 2) and found no wall */
  /* what sel and gapf were computed for */
  const agglo_neighbors *nb;
  int64_t builds, step;
  size_t npairs;
  const double *x;
};

static void scratch_free(struct agglo_cscratch *S) {
  if (!S) return;
  agglo_constraints *b = &S->back;
  free(b->i); free(b->j); free(b->e); free(b->gap); free(b->lambda); free(b->gamma);
  free(b->equality); free(b->by_i);
  free(S->ostart); free(S->sel); free(S->gapf); free(S->spd); free(S->move);
  free(S->move_try);
  free(S);
}

#define SGROW(ptr, cnt, capvar)                                          \
  do {                                                                   \
    if ((cnt) > (capvar)) {                                              \
      size_t c_ = (cnt) + (cnt) / 4 + 64;                                \
      void *q_ = realloc((ptr), c_ * sizeof *(ptr));                     \
      if (!q_) return -1;                                                \
      (ptr) = q_;                                                        \
      (capvar) = c_;                                                     \
    }                                                                    \
  } while (0)

/* The new set (built in S->back, m constraints) becomes the current one. */
static void swap_sets(agglo_constraints *c, struct agglo_cscratch *S, size_t m, size_t n) {
  agglo_constraints *f = &S->back;
#define SWAP(field)                     \
  do {                                  \
    __typeof__(c->field) t_ = c->field; \
    c->field = f->field;                \
    f->field = t_;                      \
  } while (0)
  SWAP(i); SWAP(j); SWAP(e); SWAP(gap); SWAP(lambda); SWAP(gamma); SWAP(equality); SWAP(cap);
  SWAP(by_i);
#undef SWAP
  size_t t = S->by_cap;
  S->by_cap = c->by_cap;
  c->by_cap = t;
  c->np_by = n;
  c->n = m;
  f->n = 0;
}

/* Walls of particle i in key order, and its listed pairs that the rule selects: the first pass
   marks the pairs (sel, gapf) and counts; the second writes them from slot m. */
#if defined(__AVX2__)
/* pair_select's first test for 4 listed pairs of particle i at once (2D, with vstar, without
   vtry: the first round of a step): a lane whose pair is certainly beyond the rule's reach gets
   pair_select's answer (not selected, gap_low = far, the same operations); the others are left
   to pair_select. Only the distance is compared with a margin (d2 >= (1 + 2^-36) lim^2; the
   scalar d2 may round otherwise), so the answers are the scalar ones. */
static inline size_t select_4(struct agglo_cscratch *S, const agglo_system *s, const rule *R,
                              size_t i, const int32_t *nbr, size_t p, size_t left) {
  int32_t jj[4];
  for (size_t l = 0; l < 4; l++) jj[l] = l < left ? nbr[p + l] : (int32_t)i; /* (a valid index) */
  __m128i j = _mm_loadu_si128((const __m128i *)jj);
  __m128i j3 = _mm_add_epi32(j, _mm_add_epi32(j, j));
  __m256d xj = _mm256_i32gather_pd(s->x, j3, 8), yj = _mm256_i32gather_pd(s->x + 1, j3, 8);
  __m256d rj = _mm256_i32gather_pd(s->r, j, 8), mj = _mm256_i32gather_pd(R->move, j, 8);
  __m256d d[2] = {_mm256_sub_pd(xj, _mm256_set1_pd(s->x[3 * i])),
                  _mm256_sub_pd(yj, _mm256_set1_pd(s->x[3 * i + 1]))};
  for (int k = 0; k < 2; k++) { /* agglo_image_delta */
    __m256d half = _mm256_set1_pd(R->img.half[k]), L = _mm256_set1_pd(R->img.L[k]);
    d[k] = _mm256_blendv_pd(d[k], _mm256_sub_pd(d[k], L), _mm256_cmp_pd(d[k], half, _CMP_GT_OQ));
    d[k] = _mm256_blendv_pd(d[k], _mm256_add_pd(d[k], L),
                            _mm256_cmp_pd(d[k], _mm256_sub_pd(_mm256_setzero_pd(), half), _CMP_LT_OQ));
  }
  __m256d d2 = _mm256_add_pd(_mm256_mul_pd(d[0], d[0]), _mm256_mul_pd(d[1], d[1]));
  __m256d rr = _mm256_add_pd(_mm256_set1_pd(s->r[i]), rj), margin = _mm256_set1_pd(R->margin);
  __m256d f = _mm256_add_pd(_mm256_add_pd(margin, _mm256_set1_pd(R->move[i])), mj);
  f = _mm256_min_pd(f, _mm256_set1_pd(R->cap)); /* f < cap ? f : cap */
  __m256d far = _mm256_max_pd(f, margin);       /* f > far ? f : far */
  __m256d lim = _mm256_add_pd(rr, far);
  __m256d beyond = _mm256_cmp_pd(d2, _mm256_mul_pd(_mm256_mul_pd(lim, lim), _mm256_set1_pd(1 + 0x1p-36)),
                                 _CMP_GE_OQ);
  int out = _mm256_movemask_pd(beyond);
  if (out == 15 && left >= 4) { /* (most groups) */
    memset(S->sel + p, 0, 4);
    _mm_storeu_ps(S->gapf + p, _mm256_cvtpd_ps(far));
    return 0;
  }
  double farv[4];
  _mm256_storeu_pd(farv, far);
  size_t cnt = 0;
  for (size_t l = 0; l < left && l < 4; l++) {
    double g = farv[l];
    int in = 0;
    if (!(out >> l & 1)) in = pair_select(s, i, (size_t)jj[l], R, &g);
    S->sel[p + l] = (uint8_t)in;
    S->gapf[p + l] = (float)g;
    cnt += (size_t)in;
  }
  return cnt;
}
#endif

static size_t collect_count(struct agglo_cscratch *S, const agglo_system *s,
                            const agglo_neighbors *nb, const rule *R, size_t i) {
  size_t cnt = 0;
  double g;
  for (int w = R->wtop; w >= 0; w--)
    if (!s->box.periodic[w / 2]) cnt += (size_t)wall_in(s, w, i, R, &g);
  size_t p = nb->start[i], pe = nb->start[i + 1];
#if defined(__AVX2__)
  if (s->dim == 2 && R->vstar && !R->vtry)
    for (; p < pe; p += 4) cnt += select_4(S, s, R, i, nb->nbr, p, pe - p);
#endif
  for (; p < pe; p++) {
    int in = pair_select(s, i, (size_t)nb->nbr[p], R, &g);
    S->sel[p] = (uint8_t)in;
    S->gapf[p] = (float)g;
    cnt += (size_t)in;
  }
  return cnt;
}

static void collect_write(agglo_constraints *c, const struct agglo_cscratch *S,
                          const agglo_system *s, const agglo_neighbors *nb, const rule *R,
                          size_t i, size_t k) {
  double g, e[3];
  for (int w = R->wtop; w >= 0; w--) {
    if (s->box.periodic[w / 2] || !wall_in(s, w, i, R, &g)) continue;
    c->i[k] = (int32_t)i;
    c->j[k] = -1 - w;
    double *ek = c->e + 3 * k;
    ek[0] = ek[1] = ek[2] = 0;
    ek[w / 2] = (w & 1) ? -1.0 : 1.0;
    c->gap[k] = g;
    k++;
  }
  for (size_t p = nb->start[i]; p < nb->start[i + 1]; p++) {
    if (!S->sel[p]) continue;
    int32_t j = nb->nbr[p];
    pair_in(s, i, (size_t)j, R, &g, e);
    c->i[k] = (int32_t)i;
    c->j[k] = j;
    c->e[3 * k] = e[0], c->e[3 * k + 1] = e[1], c->e[3 * k + 2] = e[2];
    c->gap[k] = g;
    k++;
  }
}

static int collect(agglo_constraints *c, const agglo_system *s, const agglo_neighbors *nb,
                   const rule *R) {
  size_t n = s->n;
  if (!c->scratch) {
    c->scratch = calloc(1, sizeof *c->scratch);
    if (!c->scratch) return -1;
  }
  struct agglo_cscratch *S = c->scratch;
  agglo_constraints *f = &S->back; /* the new set is built here, then swapped in */
  SGROW(f->by_i, n + 1, S->by_cap);
  SGROW(S->ostart, n + 1, S->ostart_cap);
  SGROW(S->sel, nb->npairs + 1, S->pair_cap);
  {
    size_t cap = S->pair_cap;
    void *q = realloc(S->gapf, cap * sizeof *S->gapf);
    if (!q) return -1;
    S->gapf = q;
  }
  rule RR = *R;
  rule_box(&RR, s);
  if (n + 1 > S->move_cap) {
    size_t cap = n + n / 4 + 64;
    double *a = realloc(S->move, cap * sizeof *a);
    if (a) S->move = a;
    double *b = realloc(S->move_try, cap * sizeof *b);
    if (b) S->move_try = b;
    if (!a || !b) return -1;
    S->move_cap = cap;
  }
  if (R->vstar || R->vtry) RR.move = S->move, RR.move_try = S->move_try;
  R = &RR;
  size_t *cnt = f->by_i + 1, m = 0;
  S->nb = nb, S->builds = nb->builds, S->step = s->step, S->npairs = nb->npairs, S->x = s->x;
  int failed = 0;
  /* one parallel region, the same static split of the particles in every loop (each thread
     finds the data of its particles in its cache) */
#pragma omp parallel if (n > AGGLO_PAR_MIN_PAIRS)
  {
    if (R->vstar || R->vtry) {
      double *mv = S->move, *mt = S->move_try;
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++) {
        if (R->vstar) {
          const double *v = R->vstar + 3 * i;
          mv[i] = R->safety * R->h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
        if (R->vtry) {
          const double *v = R->vtry + 3 * i;
          mt[i] = R->h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
      }
    }
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; i++) cnt[i] = collect_count(S, s, nb, R, i);
#pragma omp single
    {
      f->by_i[0] = 0;
      for (size_t i = 0; i < n; i++) f->by_i[i + 1] += f->by_i[i];
      m = f->by_i[n];
      failed = agglo_constraints_reserve(f, m) != 0;
    }
    if (!failed) {
#pragma omp for schedule(static) nowait
      for (size_t i = 0; i < n; i++) collect_write(f, S, s, nb, R, i, f->by_i[i]);
      /* carry lambda and gamma over from the current set, particle by particle (both
         key-ordered); the same static split: a thread reads the rows it wrote */
      const size_t *ostart = c->by_i;
      if (!ostart || c->np_by != n) {
#pragma omp single
        {
          size_t *os = S->ostart;
          memset(os, 0, (n + 1) * sizeof *os);
          for (size_t q = 0; q < c->n; q++)
            if ((size_t)c->i[q] < n) os[c->i[q] + 1]++;
          for (size_t i = 0; i < n; i++) os[i + 1] += os[i];
        }
        ostart = S->ostart;
      }
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++) {
        size_t q = ostart[i], qe = ostart[i + 1];
        for (size_t p = f->by_i[i]; p < f->by_i[i + 1]; p++) {
          while (q < qe && c->j[q] < f->j[p]) q++;
          int same = q < qe && c->j[q] == f->j[p];
          f->lambda[p] = same ? c->lambda[q] : 0.0;
          f->gamma[p] = same ? c->gamma[q] : 0.0;
          f->equality[p] = 0;
        }
      }
    }
  }
  if (failed) return -1;
  swap_sets(c, S, m, n);
  return 0;
}

int agglo_constraints_collect(agglo_constraints *c, const agglo_system *s, const agglo_neighbors *nb,
                              double reach) {
  rule R = {reach, 0, 0, INFINITY, NULL, NULL, NULL, NULL, {{0}, {0}}, 0, -1};
  return collect(c, s, nb, &R);
}

int agglo_constraints_collect_moving(agglo_constraints *c, const agglo_system *s,
                                     const agglo_neighbors *nb, double margin, double h,
                                     double safety, double cap, const double *vstar,
                                     const double *vtry) {
  rule R = {margin, h, safety, cap, vstar, vtry, NULL, NULL, {{0}, {0}}, 0, -1};
  return collect(c, s, nb, &R);
}

size_t agglo_constraints_count_missed(const agglo_constraints *c, const agglo_system *s,
                                      const agglo_neighbors *nb, double h, const double *v,
                                      uint8_t *mark) {
  size_t n = s->n, missed = 0;
  rule R = {-INFINITY, h, 0, INFINITY, NULL, v, NULL, NULL, {{0}, {0}}, 0, -1};
  rule_box(&R, s);
  struct agglo_cscratch *S = c->scratch;
  /* the last collect's gaps, if they are of this list and these positions: a pair whose gap
     exceeds h (|v_i| + |v_j|) cannot close and is skipped without looking at its geometry */
  const float *gapf = NULL;
  float *spd = NULL;
  if (S && S->nb == nb && S->builds == nb->builds && S->step == s->step &&
      S->npairs == nb->npairs && S->x == s->x) {
    if (n > S->spd_cap) {
      float *q = realloc(S->spd, (n + 64) * sizeof *q);
      if (q) S->spd = q, S->spd_cap = n + 64;
    }
    if (n <= S->spd_cap) spd = S->spd, gapf = S->gapf;
  }
  size_t walls = 0;
  /* one parallel region, the static split of collect's */
#pragma omp parallel if (n > AGGLO_PAR_MIN_PAIRS)
  {
    if (gapf) {
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++) {
        const double *vi = v + 3 * i;
        /* rounded up a little so that the float test stays conservative */
        spd[i] = (float)(1.0001 * h * sqrt(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]));
      }
    }
#pragma omp for schedule(static) reduction(+ : missed, walls)
    for (size_t i = 0; i < n; i++) {
      size_t q = c->by_i ? c->by_i[i] : 0, qe = c->by_i ? c->by_i[i + 1] : 0;
      double g, e[3];
      for (int w = R.wtop; w >= 0; w--) {
        if (s->box.periodic[w / 2]) continue;
        while (q < qe && c->j[q] < -1 - w) q++;
        if (q < qe && c->j[q] == -1 - w) continue;
        if (!wall_in(s, w, i, &R, &g)) continue;
        missed++;
        walls++;
        if (mark) {
#pragma omp atomic write
          mark[i] = 1;
        }
      }
      for (size_t p = nb->start[i]; p < nb->start[i + 1]; p++) {
        int32_t j = nb->nbr[p];
        if (gapf) {
          if (S->sel[p] || gapf[p] > 1.0001f * (spd[i] + spd[j]) + 1e-30f) continue;
        } else {
          while (q < qe && c->j[q] < j) q++;
          if (q < qe && c->j[q] == j) continue;
        }
        if (!pair_in(s, i, (size_t)j, &R, &g, e)) continue;
        missed++;
        if (gapf) S->sel[p] = 2; /* for agglo_constraints_add_missed */
        if (mark) {
#pragma omp atomic write
          mark[i] = 1;
#pragma omp atomic write
          mark[j] = 1;
        }
      }
    }
  }
  if (S) S->missed_ok = gapf != NULL && walls == 0;
  return missed;
}

int agglo_constraints_add_missed(agglo_constraints *c, const agglo_system *s,
                                 const agglo_neighbors *nb) {
  struct agglo_cscratch *S = c->scratch;
  size_t n = s->n;
  if (!S || !S->missed_ok || S->nb != nb || S->builds != nb->builds || S->step != s->step ||
      S->npairs != nb->npairs || S->x != s->x || !c->by_i || c->np_by != n)
    return 1;
  S->missed_ok = 0;
  agglo_constraints *f = &S->back;
  SGROW(f->by_i, n + 1, S->by_cap);
  size_t *cnt = f->by_i + 1;
#pragma omp parallel for schedule(dynamic, 1024) if (n > AGGLO_PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    size_t k = c->by_i[i + 1] - c->by_i[i];
    for (size_t p = nb->start[i]; p < nb->start[i + 1]; p++) k += S->sel[p] == 2;
    cnt[i] = k;
  }
  f->by_i[0] = 0;
  for (size_t i = 0; i < n; i++) f->by_i[i + 1] += f->by_i[i];
  size_t m = f->by_i[n];
  if (agglo_constraints_reserve(f, m)) return -1;
  rule R0 = {-INFINITY, 0, 0, INFINITY, NULL, NULL, NULL, NULL, {{0}, {0}}, 0, -1}; /* geometry only */
  rule_box(&R0, s);
#pragma omp parallel for schedule(dynamic, 1024) if (n > AGGLO_PAR_MIN)
  for (size_t i = 0; i < n; i++) {
    size_t q = c->by_i[i], qe = c->by_i[i + 1], k = f->by_i[i];
    size_t p = nb->start[i], pe = nb->start[i + 1];
    for (;;) {
      while (p < pe && S->sel[p] != 2) p++;
      int take_old = q < qe && (p >= pe || c->j[q] < nb->nbr[p]);
      if (take_old) {
        f->i[k] = c->i[q], f->j[k] = c->j[q];
        memcpy(f->e + 3 * k, c->e + 3 * q, 3 * sizeof *f->e);
        f->gap[k] = c->gap[q], f->lambda[k] = c->lambda[q], f->gamma[k] = c->gamma[q];
        f->equality[k] = c->equality[q];
        q++, k++;
      } else if (p < pe) {
        double g, e[3];
        int32_t j = nb->nbr[p];
        pair_in(s, i, (size_t)j, &R0, &g, e);
        f->i[k] = (int32_t)i, f->j[k] = j;
        f->e[3 * k] = e[0], f->e[3 * k + 1] = e[1], f->e[3 * k + 2] = e[2];
        f->gap[k] = g, f->lambda[k] = 0, f->gamma[k] = 0, f->equality[k] = 0;
        S->sel[p] = 1;
        p++, k++;
      } else {
        break;
      }
    }
  }
  swap_sets(c, S, m, n);
  return 0;
}

int agglo_constraints_index(agglo_constraints *c, size_t np) {
  if (c->np != np || !c->inc_start) {
    free(c->inc_start);
    c->inc_start = calloc(np + 1, sizeof *c->inc_start);
    if (!c->inc_start) return -1;
    c->np = np;
  }
  memset(c->inc_start, 0, (np + 1) * sizeof *c->inc_start);
  for (size_t k = 0; k < c->n; k++) {
    c->inc_start[c->i[k] + 1]++;
    if (c->j[k] >= 0) c->inc_start[c->j[k] + 1]++;
  }
  int zmax = 0;
  for (size_t p = 0; p < np; p++) {
    if ((int)c->inc_start[p + 1] > zmax) zmax = (int)c->inc_start[p + 1];
    c->inc_start[p + 1] += c->inc_start[p];
  }
  c->max_per_particle = zmax;
  size_t total = c->inc_start[np];
  if (total > c->inc_cap) {
    free(c->inc);
    c->inc_cap = total + total / 2 + 64;
    c->inc = malloc(c->inc_cap * sizeof *c->inc);
    if (!c->inc) return -1;
  }
  size_t *fill = malloc((np + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, c->inc_start, (np + 1) * sizeof *fill);
  /* constraints in ascending order, so each particle's list is ascending: sums are deterministic */
  for (size_t k = 0; k < c->n; k++) {
    c->inc[fill[c->i[k]]++] = (uint32_t)(2 * k);
    if (c->j[k] >= 0) c->inc[fill[c->j[k]]++] = (uint32_t)(2 * k + 1);
  }
  free(fill);
  return 0;
}

void agglo_constraints_free(agglo_constraints *c) {
  free(c->i); free(c->j); free(c->e); free(c->gap); free(c->lambda); free(c->gamma);
  free(c->equality); free(c->inc_start); free(c->inc); free(c->by_i);
  scratch_free(c->scratch);
  agglo_projection_workspace_free(c->ws);
  memset(c, 0, sizeof *c);
}
