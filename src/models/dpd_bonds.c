#include "models/dpd_bonds.h"
#include "core/compare.h"
#include <stdlib.h>
#include <string.h>

int agglo_bond_set_assign(agglo_bond_set *s, const uint64_t *keys, size_t n) {
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  if (cap != s->cap) {
    uint64_t *k = malloc(cap * sizeof *k);
    if (!k) return -1;
    free(s->key);
    s->key = k;
    s->cap = cap;
  }
  memset(s->key, 0, cap * sizeof *s->key);
  s->n = 0;
  size_t m = cap - 1;
  for (size_t t = 0; t < n; t++) {
    uint64_t k = keys[t];
    size_t i = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & m;
    while (s->key[i] && s->key[i] != k) i = (i + 1) & m;
    if (!s->key[i]) s->key[i] = k, s->n++;
  }
  return 0;
}

void agglo_bond_set_sorted(const agglo_bond_set *s, uint64_t *out) {
  size_t q = 0;
  for (size_t i = 0; i < s->cap; i++)
    if (s->key[i]) out[q++] = s->key[i];
  qsort(out, q, sizeof *out, agglo_cmp_u64);
}

void agglo_bond_set_free(agglo_bond_set *s) {
  free(s->key);
  memset(s, 0, sizeof *s);
}
