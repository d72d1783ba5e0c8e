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

#endif
