/* Union-find over indices 0..n-1 (parent[i] = i to start): each set's root is its smallest
   index, so the roots do not depend on the order of the unions. */
#ifndef AGGLO_UNION_FIND_H
#define AGGLO_UNION_FIND_H
#include <stdint.h>

/* The root of a's set (path halving). */
static inline int32_t agglo_uf_find(int32_t *parent, int32_t a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

/* Join the sets of a and b under the smaller root: the root that joined it, or -1 when a and b
   were already in one set. */
static inline int32_t agglo_uf_union(int32_t *parent, int32_t a, int32_t b) {
  a = agglo_uf_find(parent, a), b = agglo_uf_find(parent, b);
  if (a == b) return -1;
  if (b < a) {
    int32_t t = a;
    a = b, b = t;
  }
  parent[b] = a;
  return b;
}

/* The same for threads joining sets at once: atomic loads and stores, a link made by
   compare-and-swap on a root. A parent only ever moves to a smaller index, so the sets and their
   roots (the smallest index) do not depend on the threads or their order. */
static inline int32_t agglo_uf_find_shared(int32_t *parent, int32_t a) {
  for (;;) {
    int32_t p = __atomic_load_n(parent + a, __ATOMIC_RELAXED);
    if (p == a) return a;
    int32_t g = __atomic_load_n(parent + p, __ATOMIC_RELAXED);
    if (g != p) __atomic_store_n(parent + a, g, __ATOMIC_RELAXED); /* (halving: g is above a) */
    a = g;
  }
}

static inline void agglo_uf_union_shared(int32_t *parent, int32_t a, int32_t b) {
  for (;;) {
    a = agglo_uf_find_shared(parent, a), b = agglo_uf_find_shared(parent, b);
    if (a == b) return;
    if (b < a) {
      int32_t t = a;
      a = b, b = t;
    }
    int32_t root = b; /* (fails when another thread linked b meanwhile: again from the roots) */
    if (__atomic_compare_exchange_n(parent + b, &root, a, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return;
  }
}

#endif
