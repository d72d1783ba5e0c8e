/* Cuts of a grid of bricks along one axis placed where they balance the ranks' work
   (docs/parallel.md, "Cuts that follow the work"). */
#ifndef AGGLO_MPI_BALANCE_H
#define AGGLO_MPI_BALANCE_H
#include <mpi.h>
#include <stddef.h>

/* The p - 1 inner cuts of one axis (cut[0] = lo, cut[p] = lo + len, unchanged) moved to where
   the weights w of the particles (coordinate x[stride * i] along the axis, n of them on this
   rank) split into p equal shares, summed over comm (collective; every rank gets the same cuts
   when the weights are integers). Each brick stays at least wmin wide and each cut moves by at
   most half the narrower of its two bricks, so that no particle is more than one brick from its
   new brick; cuts that cannot meet both stay where they are. Scratch: hist (AGGLO_BALANCE_BINS
   doubles), next (p + 1). Returns 1 when a cut moved, else 0. */
enum { AGGLO_BALANCE_BINS = 1024 };
int agglo_balance_cuts(MPI_Comm comm, int p, double lo, double len, int periodic, const double *x,
                       size_t stride, const double *w, size_t n, double wmin, double *cut,
                       double *hist, double *next);

#endif
