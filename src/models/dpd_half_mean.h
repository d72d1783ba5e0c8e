/* The mean of a series x_1, x_2, ... over its last half, at any length, in bounded memory: sums
   over blocks of equal length (a power of two, doubled by merging neighbours when more than
   AGGLO_HALF_MEAN_BLOCKS are complete). Used for the DPD end-of-run temperature check
   (dpd_model.c). The blocks depend only on the number of values added, so the state saved and
   loaded with a restart gives the same means bit for bit, whatever the planned length of the
   run. */
#ifndef AGGLO_HALF_MEAN_H
#define AGGLO_HALF_MEAN_H
#include <stdint.h>
#include <stdio.h>

#define AGGLO_HALF_MEAN_BLOCKS 1024

typedef struct {
  double sum[AGGLO_HALF_MEAN_BLOCKS]; /* complete blocks */
  int64_t block;                      /* values per block */
  int64_t nb;                         /* complete blocks */
  double part;                        /* the block being filled */
  int64_t npart;
} agglo_half_mean;

void agglo_half_mean_init(agglo_half_mean *h);
void agglo_half_mean_add(agglo_half_mean *h, double x);
/* Mean of the values from the first block starting in the second half of the series to the
   last value (within 2 / AGGLO_HALF_MEAN_BLOCKS of the series of exactly the last half); *n
   (if not NULL) receives how many values it averages. 0 values: NAN. */
double agglo_half_mean_value(const agglo_half_mean *h, int64_t *n);
/* The standard error of that mean by blocking (Flyvbjerg and Petersen, J. Chem. Phys. 91, 461,
   1989): the complete blocks of the last half (as agglo_half_mean_value's) grouped into batches
   of 1, 2, 4, ... blocks (the first blocks left over), sd(batch means) / sqrt(batches) at each
   length; the largest over the lengths with at least AGGLO_HALF_MEAN_MIN_BATCHES batches (batches
   shorter than the correlation time underestimate it: the thesis examples' temperature
   correlates over a tenth of the last half, and 8 batches at least gave 5 false alarms in 25 runs
   that hold it, 4 none; docs/dpd.md). NAN with fewer blocks. */
#define AGGLO_HALF_MEAN_MIN_BATCHES 4
double agglo_half_mean_stderr(const agglo_half_mean *h);
/* One line of text (exact: %a); read back by agglo_half_mean_load. Returns 0 or -1. */
int agglo_half_mean_save(const agglo_half_mean *h, FILE *f);
int agglo_half_mean_load(agglo_half_mean *h, FILE *f);

#endif
