/* Clusters: connected components of the pairs closer than a contact gap (union-find). */
#ifndef AGGLO_CLUSTERS_H
#define AGGLO_CLUSTERS_H
#include "core/cells.h"

typedef struct {
  size_t n_clusters, max_size;
  double mean_size;
} agglo_cluster_stats;

/* Label every particle with the smallest id of its cluster (s->cluster), pairs with gap < gap_max.
   nb must list every pair with gap < gap_max (NULL: a list is built here). */
int agglo_clusters_label(agglo_system *s, const agglo_neighbors *nb, double gap_max,
                         agglo_cluster_stats *st);

/* The size distribution of a labelling: count[k] = clusters of k particles, k = 1..n (count has
   room for n + 1 and is zeroed here). 0, or -1 out of memory. */
int agglo_size_counts(const int32_t *labels, size_t n, size_t *count);

#endif
