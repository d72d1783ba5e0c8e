/* Cuts that follow the work (balance.h). A gel under gravity settles onto its floor: with cuts
   at equal widths the lower brick came to hold most particles and constraints (3D gel of 8 000
   on 2 ranks: 4 562 against 3 438 particles after 10 steps, 7 699 against 301 after 40), and the
   spread solve waits at every iteration for the rank with more rows. The weights summed here
   are integers, so the sums and the cuts are the same on every rank whatever the order of the
   reduction. */
#include "mpi/balance.h"
#include <math.h>
#include <string.h>

int agglo_balance_cuts(MPI_Comm comm, int p, double lo, double len, int periodic, const double *x,
                       size_t stride, const double *w, size_t n, double wmin, double *cut,
                       double *hist, double *next) {
  enum { B = AGGLO_BALANCE_BINS };
  memset(hist, 0, B * sizeof *hist);
  for (size_t i = 0; i < n; i++) {
    double q = (x[stride * i] - lo) / len;
    if (periodic) q -= floor(q); /* (a particle may have left the box before its migration) */
    double b = floor(q * B);
    hist[!(b >= 0) ? 0 : b >= B ? B - 1 : (size_t)b] += w[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, hist, B, MPI_DOUBLE, MPI_SUM, comm);
  double total = 0;
  for (int b = 0; b < B; b++) total += hist[b];
  if (!(total > 0)) return 0;
  next[0] = cut[0], next[p] = cut[p];
  double below = 0; /* the weight of the bins before b */
  int b = 0;
  for (int j = 1; j < p; j++) {
    double want = total * j / p;
    while (b < B - 1 && below + hist[b] < want) below += hist[b++];
    double frac = hist[b] > 0 ? (want - below) / hist[b] : 0;
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    double c = lo + len * (b + frac) / B, move = 0.5 * fmin(cut[j] - cut[j - 1], cut[j + 1] - cut[j]);
    c = fmax(fmin(c, cut[j] + move), cut[j] - move);
    c = fmax(c, next[j - 1] + wmin);
    next[j] = c;
  }
  int moved = 0;
  for (int j = 1; j < p; j++) {
    double move = 0.5 * fmin(cut[j] - cut[j - 1], cut[j + 1] - cut[j]);
    if (next[j + 1] - next[j] < wmin || next[j] - next[j - 1] < wmin || fabs(next[j] - cut[j]) > move)
      return 0; /* (cannot meet both: keep every cut) */
    moved |= next[j] != cut[j];
  }
  memcpy(cut, next, (size_t)(p + 1) * sizeof *cut);
  return moved;
}
