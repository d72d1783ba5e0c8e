/* The list values of scenario keys: numbers (box.size, dpd.a_ij, ...) and choices (box.boundary). */
#ifndef AGGLO_CONFIG_LISTS_H
#define AGGLO_CONFIG_LISTS_H

#define AGGLO_LIST_MAX 64
typedef struct { double v[AGGLO_LIST_MAX]; int n; } agglo_list;
typedef struct { int v[AGGLO_LIST_MAX]; int n; } agglo_enum_list;

/* Component k of a per-axis list given with one value (all axes) or one per axis; 0 if empty. */
static inline double agglo_list_component(const agglo_list *l, int k) {
  return l->n == 0 ? 0 : (l->n == 1 ? l->v[0] : l->v[k]);
}

#endif
