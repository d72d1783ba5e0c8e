/* The stats row of a step: composed once, shared by the writers that follow it (stats.csv,
   sizes.csv, the H5MD observables), so that a row given up (a non-finite value) leaves no trace
   in any of them. Its columns are docs/formats.md's; the model's own come as numbers
   (agglo_model.stats_numbers) and are printed here. */
#ifndef AGGLO_IO_STATS_ROW_H
#define AGGLO_IO_STATS_ROW_H
#include "core/model.h"
#include <stdint.h>
#include <stdio.h>

struct agglo_sim;

typedef struct {
  int64_t step; /* the step composed (-1: none) */
  char *text;   /* stats.csv's row is text[0..cut) (no newline); the whole text, up to its
                   newline, adds the counts by size class (the H5MD observables' row) */
  size_t cut, len;
  char *sizes;  /* sizes.csv's lines of the row (long format) */
  size_t sizes_len;
} agglo_stats_row;

/* The columns of stats.csv (also the observables of an H5MD trajectory), with a newline. */
void agglo_stats_header(FILE *f, const agglo_model *m);
/* The size classes of the H5MD observables: clusters of 2^b to 2^(b+1) - 1 particles, b = 0 ..
   agglo_stats_size_classes(n) - 1 (docs/formats.md), and their names (",clusters_size_1_1,..."). */
int agglo_stats_size_classes(size_t n);
void agglo_stats_size_class_names(FILE *f, size_t n);
/* The row of the current step into sim->out.row (the clusters labelled; with the aggregate
   indicators when analysis_due): 0, -1 with the message (memory), or AGGLO_ERROR_RUN when a
   value is not finite (the message names it). The solver's iteration counts restart either way. */
int agglo_stats_row_compose(struct agglo_sim *sim, int analysis_due);
void agglo_stats_row_free(agglo_stats_row *r);

#endif
