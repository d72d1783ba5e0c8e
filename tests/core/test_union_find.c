/* Union-find (src/core/union_find.h): the sets joined by threads at once (agglo_uf_union_shared)
   against a breadth-first search of the same graph, and against the serial union; the root of
   every set must be its smallest index whatever the thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <omp.h>
#include <stdlib.h>

#include "core/union_find.h"

/* the smallest index of each vertex's connected component, by breadth-first search */
static void bfs_labels(size_t n, size_t m, const int32_t *ea, const int32_t *eb, int32_t *lab) {
  size_t *deg = calloc(n + 1, sizeof *deg), *fill = malloc((n + 1) * sizeof *fill);
  int32_t *adj = malloc(2 * m * sizeof *adj), *queue = malloc(n * sizeof *queue);
  assert_non_null(deg), assert_non_null(fill), assert_non_null(adj), assert_non_null(queue);
  for (size_t k = 0; k < m; k++) deg[ea[k] + 1]++, deg[eb[k] + 1]++;
  for (size_t v = 0; v < n; v++) deg[v + 1] += deg[v];
  for (size_t v = 0; v <= n; v++) fill[v] = deg[v];
  for (size_t k = 0; k < m; k++) adj[fill[ea[k]]++] = eb[k], adj[fill[eb[k]]++] = ea[k];
  for (size_t v = 0; v < n; v++) lab[v] = -1;
  for (size_t v = 0; v < n; v++) { /* v ascending: the first vertex met is the smallest */
    if (lab[v] >= 0) continue;
    size_t head = 0, tail = 0;
    queue[tail++] = (int32_t)v, lab[v] = (int32_t)v;
    while (head < tail) {
      int32_t u = queue[head++];
      for (size_t e = deg[u]; e < deg[u + 1]; e++)
        if (lab[adj[e]] < 0) lab[adj[e]] = (int32_t)v, queue[tail++] = adj[e];
    }
  }
  free(deg), free(fill), free(adj), free(queue);
}

static void shared_union_matches_search(void **st) {
  (void)st;
  size_t n = 20000;
  int32_t *parent = malloc(n * sizeof *parent), *lab = malloc(n * sizeof *lab);
  assert_non_null(parent), assert_non_null(lab);
  for (int shape = 0; shape < 3; shape++) {
    /* shape 0: sparse random edges (many small sets); 1: dense (one giant set); 2: edges between
       near indices (chains, long paths to the roots) */
    size_t m = shape == 0 ? n / 2 : shape == 1 ? 3 * n : 2 * n;
    int32_t *ea = malloc(m * sizeof *ea), *eb = malloc(m * sizeof *eb);
    assert_non_null(ea), assert_non_null(eb);
    uint64_t q = 12345 + (uint64_t)shape;
    for (size_t k = 0; k < m; k++) {
      q = q * 6364136223846793005ULL + 1442695040888963407ULL;
      size_t a = (size_t)(q >> 33) % n, b;
      q = q * 6364136223846793005ULL + 1442695040888963407ULL;
      if (shape == 2) b = (a + 1 + (size_t)(q >> 33) % 3) % n;
      else b = (size_t)(q >> 33) % n;
      ea[k] = (int32_t)a, eb[k] = (int32_t)b;
    }
    bfs_labels(n, m, ea, eb, lab);
    for (int threads = 1; threads <= 4; threads++) {
      for (size_t v = 0; v < n; v++) parent[v] = (int32_t)v;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
      for (size_t k = 0; k < m; k++) agglo_uf_union_shared(parent, ea[k], eb[k]);
      for (size_t v = 0; v < n; v++) assert_int_equal(agglo_uf_find(parent, (int32_t)v), lab[v]);
    }
    /* the serial union gives the same roots */
    for (size_t v = 0; v < n; v++) parent[v] = (int32_t)v;
    for (size_t k = 0; k < m; k++) agglo_uf_union(parent, ea[k], eb[k]);
    for (size_t v = 0; v < n; v++) assert_int_equal(agglo_uf_find(parent, (int32_t)v), lab[v]);
    free(ea), free(eb);
  }
  free(parent), free(lab);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shared_union_matches_search),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
