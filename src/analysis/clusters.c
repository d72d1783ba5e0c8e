#include "analysis/clusters.h"
#include "core/compare.h"
#include "core/union_find.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int agglo_clusters_label(agglo_system *s, const agglo_neighbors *nb, double gap_max,
                         agglo_cluster_stats *st) {
  size_t n = s->n;
  agglo_neighbors own = {0};
  if (!nb) {
    if (agglo_neighbors_build(&own, s, gap_max, 0) != 0) return -1;
    nb = &own;
  }
  int32_t *parent = malloc((n ? n : 1) * sizeof *parent);
  int64_t *root_id = malloc((n ? n : 1) * sizeof *root_id);
  size_t *size = calloc(n ? n : 1, sizeof *size);
  if (!parent || !root_id || !size) {
    free(parent); free(root_id); free(size); agglo_neighbors_free(&own);
    return -1;
  }
  for (size_t i = 0; i < n; i++) parent[i] = (int32_t)i;
  for (size_t i = 0; i < n; i++)
    for (size_t p = nb->start[i]; p < nb->start[i + 1]; p++) {
      size_t j = (size_t)nb->nbr[p];
      double d[3];
      agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
      double lim = s->r[i] + s->r[j] + gap_max;
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= lim * lim) continue;
      agglo_uf_union(parent, (int32_t)i, (int32_t)j);
    }
  for (size_t i = 0; i < n; i++) root_id[i] = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    int32_t root = agglo_uf_find(parent, (int32_t)i);
    if (s->id[i] < root_id[root]) root_id[root] = s->id[i];
    size[root]++;
  }
  agglo_cluster_stats out = {0};
  for (size_t i = 0; i < n; i++) {
    s->cluster[i] = (int32_t)root_id[agglo_uf_find(parent, (int32_t)i)];
    if (size[i]) {
      out.n_clusters++;
      if (size[i] > out.max_size) out.max_size = size[i];
    }
  }
  out.mean_size = out.n_clusters ? (double)n / (double)out.n_clusters : 0;
  if (st) *st = out;
  free(parent); free(root_id); free(size);
  agglo_neighbors_free(&own);
  return 0;
}

int agglo_size_counts(const int32_t *labels, size_t n, size_t *count) {
  memset(count, 0, (n + 1) * sizeof *count);
  int small = 1; /* labels that are indices (ours): a counting pass, else a sort */
  for (size_t i = 0; i < n; i++) small &= labels[i] >= 0 && (size_t)labels[i] < n;
  size_t *members = small ? calloc(n ? n : 1, sizeof *members) : NULL;
  int32_t *sorted = small ? NULL : malloc((n ? n : 1) * sizeof *sorted);
  if (!members && !sorted) return -1;
  if (small) {
    for (size_t i = 0; i < n; i++) members[labels[i]]++;
    for (size_t i = 0; i < n; i++) count[members[i]] += members[i] > 0;
  } else {
    memcpy(sorted, labels, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, agglo_cmp_i32);
    for (size_t a = 0, b; a < n; a = b) {
      for (b = a + 1; b < n && sorted[b] == sorted[a]; b++) {}
      count[b - a]++;
    }
  }
  free(members); free(sorted);
  return 0;
}
