/* A set of particle pairs {a, b} (32-bit ids), open addressing: the capillary bridges of the DPD
   model (dpd_model.c), which must persist between steps and through a restart. Lookups are
   read-only and may run on many threads; the set is rebuilt whole, between force evaluations,
   from the pairs that hold a bridge after them. Membership does not depend on insertion order,
   so the forces do not depend on the thread count. */
#ifndef AGGLO_BOND_SET_H
#define AGGLO_BOND_SET_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t *key; /* 0 = empty slot; a pair is (min id << 32 | max id) + 1 */
  size_t cap, n; /* cap: a power of two >= 2n (or 0) */
} agglo_bond_set;

static inline uint64_t agglo_bond_key(uint32_t a, uint32_t b) {
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  return ((uint64_t)lo << 32 | hi) + 1;
}

static inline int agglo_bond_set_has(const agglo_bond_set *s, uint64_t k) {
  if (!s->cap) return 0;
  size_t m = s->cap - 1, i = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & m;
  while (s->key[i]) {
    if (s->key[i] == k) return 1;
    i = (i + 1) & m;
  }
  return 0;
}

/* Replace the content by keys[0..n) (duplicates allowed). Returns 0 or -1 (memory; the set is
   then unchanged). */
int agglo_bond_set_assign(agglo_bond_set *s, const uint64_t *keys, size_t n);
/* The keys in ascending order into out (room for s->n). */
void agglo_bond_set_sorted(const agglo_bond_set *s, uint64_t *out);
void agglo_bond_set_free(agglo_bond_set *s);

#endif
