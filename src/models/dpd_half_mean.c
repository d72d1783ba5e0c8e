#include "models/dpd_half_mean.h"
#include <math.h>
#include <string.h>

void agglo_half_mean_init(agglo_half_mean *h) {
  memset(h, 0, sizeof *h);
  h->block = 1;
}

void agglo_half_mean_add(agglo_half_mean *h, double x) {
  h->part += x;
  if (++h->npart < h->block) return;
  h->sum[h->nb++] = h->part;
  h->part = 0, h->npart = 0;
  if (h->nb < AGGLO_HALF_MEAN_BLOCKS) return;
  for (int64_t k = 0; k < h->nb / 2; k++) h->sum[k] = h->sum[2 * k] + h->sum[2 * k + 1];
  h->nb /= 2;
  h->block *= 2;
}

double agglo_half_mean_value(const agglo_half_mean *h, int64_t *n) {
  int64_t total = h->nb * h->block + h->npart;
  /* first complete block whose first value (index k * block, from 0) is in the second half */
  int64_t k0 = (total / 2 + h->block - 1) / h->block;
  double s = h->part;
  int64_t cnt = h->npart;
  for (int64_t k = k0; k < h->nb; k++) s += h->sum[k], cnt += h->block;
  if (n) *n = cnt;
  return cnt ? s / (double)cnt : NAN;
}

double agglo_half_mean_stderr(const agglo_half_mean *h) {
  int64_t total = h->nb * h->block + h->npart, k0 = (total / 2 + h->block - 1) / h->block;
  double se = NAN;
  for (int64_t per = 1; (h->nb - k0) / per >= AGGLO_HALF_MEAN_MIN_BATCHES; per *= 2) {
    const int64_t nbat = (h->nb - k0) / per, first = h->nb - nbat * per;
    double sum = 0, sum2 = 0;
    for (int64_t b = 0; b < nbat; b++) {
      double s = 0;
      for (int64_t k = first + b * per; k < first + (b + 1) * per; k++) s += h->sum[k];
      s /= (double)(per * h->block);
      sum += s, sum2 += s * s;
    }
    double mean = sum / (double)nbat, var = fmax(0, (sum2 - nbat * mean * mean) / (double)(nbat - 1));
    double e = sqrt(var / (double)nbat);
    if (!(e <= se)) se = e; /* the largest (NAN at first) */
  }
  return se;
}

int agglo_half_mean_save(const agglo_half_mean *h, FILE *f) {
  fprintf(f, "%lld %lld %lld %a", (long long)h->block, (long long)h->nb, (long long)h->npart,
          h->part);
  for (int64_t k = 0; k < h->nb; k++) fprintf(f, " %a", h->sum[k]);
  fputc('\n', f);
  return ferror(f) ? -1 : 0;
}

int agglo_half_mean_load(agglo_half_mean *h, FILE *f) {
  long long b, nb, np;
  agglo_half_mean_init(h);
  if (fscanf(f, "%lld %lld %lld %la", &b, &nb, &np, &h->part) != 4 || b < 1 || nb < 0 ||
      nb >= AGGLO_HALF_MEAN_BLOCKS || np < 0 || np >= b || !isfinite(h->part))
    return -1;
  h->block = b, h->nb = nb, h->npart = np;
  for (int64_t k = 0; k < h->nb; k++)
    if (fscanf(f, "%la", &h->sum[k]) != 1 || !isfinite(h->sum[k])) return -1;
  return 0;
}
