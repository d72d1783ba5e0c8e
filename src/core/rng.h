/* Counter-based random numbers (Random123 Philox4x32-10): a draw is a pure function of
   (seed, stream, step, particle id), so results do not depend on threads or storage order. */
#ifndef AGGLO_RNG_H
#define AGGLO_RNG_H
#include <stdint.h>

/* What the numbers are for: each purpose has its own stream so they never correlate. */
enum { AGGLO_STREAM_PLACEMENT = 1, AGGLO_STREAM_VELOCITY = 2, AGGLO_STREAM_BROWNIAN = 3,
       AGGLO_STREAM_RADIUS = 4, AGGLO_STREAM_PAIR = 5,
       AGGLO_STREAM_LANGEVIN = 6, AGGLO_STREAM_FLIGHT = 7, AGGLO_STREAM_AGGREGATE = 8,
       AGGLO_STREAM_PROJECTION = 9 };

/* Four uniform numbers in (0,1). */
void agglo_rng_uniform4(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double u[4]);
/* Four independent standard normal numbers (Box-Muller on the four uniforms). */
void agglo_rng_normal4(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double z[4]);

/* The first two of agglo_rng_normal4's numbers, at half the cost (2D). */
/* A vector of length scale in a uniformly random direction of dim (2 or 3) dimensions, from two
   uniform numbers in [0, 1) (z = 0 in 2D). */
void agglo_rng_direction(int dim, const double u[2], double scale, double out[3]);
void agglo_rng_normal2(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double z[2]);

/* The four 32-bit Philox words behind agglo_rng_uniform4 for 8 (step, id) at once (w[k][l]: word
   k of (step[l], id[l]); the same bits, several times cheaper per draw: the rounds run in vector
   lanes). Many ids at one step (the contact model's noise) or one id at many steps (a DLCA
   cluster's flights drawn ahead). */
void agglo_rng_philox8(uint64_t seed, uint32_t stream, const uint64_t step[8], const uint64_t id[8],
                       uint32_t w[4][8]);
/* The uniforms of agglo_rng_uniform4 from its four words: (k + 0.5) / 2^32, never exactly 0 or 1,
   so logs are finite. */
static inline void agglo_rng_uniform_words(const uint32_t r[4], double u[4]) {
  for (int i = 0; i < 4; i++) u[i] = ((double)r[i] + 0.5) * 2.3283064365386963e-10;
}
/* count (2 or 4) standard normals from the words of one id: the numbers of agglo_rng_normal2
   (count 2) and agglo_rng_normal4 (count 4), bit for bit. */
void agglo_rng_normal_words(const uint32_t r[4], int count, double z[4]);

#endif
