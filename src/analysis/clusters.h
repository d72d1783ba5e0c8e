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

#endif
