#include "core/rng.h"
#include <Random123/philox.h>
#include <math.h>

void agglo_rng_uniform4(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double u[4]) {
  philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  philox4x32_ctr_t c = {{(uint32_t)id, (uint32_t)(id >> 32), (uint32_t)step,
                         ((uint32_t)(step >> 32) & 0xffffu) | (stream << 16)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  agglo_rng_uniform_words(r.v, u);
}


void agglo_rng_philox8(uint64_t seed, uint32_t stream, const uint64_t step[8], const uint64_t id[8],
                       uint32_t w[4][8]) {
  /* Philox4x32-10 as in Random123's philox.h (round, then key bump, ten rounds), lane by lane:
     the loops over the 8 lanes are what the compiler vectorises */
  uint32_t c0[8], c1[8], c2[8], c3[8], k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int l = 0; l < 8; l++) {
    c0[l] = (uint32_t)id[l], c1[l] = (uint32_t)(id[l] >> 32), c2[l] = (uint32_t)step[l];
    c3[l] = ((uint32_t)(step[l] >> 32) & 0xffffu) | (stream << 16);
  }
  for (int round = 0; round < 10; round++) {
    if (round) k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    for (int l = 0; l < 8; l++) {
      uint64_t p0 = (uint64_t)0xD2511F53u * c0[l], p1 = (uint64_t)0xCD9E8D57u * c2[l];
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
      c0[l] = n0, c1[l] = (uint32_t)p1, c2[l] = n2, c3[l] = (uint32_t)p0;
    }
  }
  for (int l = 0; l < 8; l++) w[0][l] = c0[l], w[1][l] = c1[l], w[2][l] = c2[l], w[3][l] = c3[l];
}

void agglo_rng_normal_words(const uint32_t r[4], int count, double z[4]) {
  for (int i = 0; i < count; i += 2) {
    double u0 = ((double)r[i] + 0.5) * 2.3283064365386963e-10,
           u1 = ((double)r[i + 1] + 0.5) * 2.3283064365386963e-10;
    double rad = sqrt(-2.0 * log(u0)), ang = 6.283185307179586 * u1;
    z[i] = rad * cos(ang);
    z[i + 1] = rad * sin(ang);
  }
}

void agglo_rng_normal4(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double z[4]) {
  double u[4];
  agglo_rng_uniform4(seed, stream, step, id, u);
  for (int i = 0; i < 4; i += 2) {
    double rad = sqrt(-2.0 * log(u[i])), ang = 6.283185307179586 * u[i + 1];
    z[i] = rad * cos(ang);
    z[i + 1] = rad * sin(ang);
  }
}

void agglo_rng_normal2(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double z[2]) {
  double u[4];
  agglo_rng_uniform4(seed, stream, step, id, u);
  double rad = sqrt(-2.0 * log(u[0])), ang = 6.283185307179586 * u[1];
  z[0] = rad * cos(ang);
  z[1] = rad * sin(ang);
}

void agglo_rng_direction(int dim, const double u[2], double scale, double out[3]) {
  if (dim == 2) {
    double a = 2 * M_PI * u[0];
    out[0] = scale * cos(a), out[1] = scale * sin(a), out[2] = 0;
  } else {
    double z = 2 * u[0] - 1, a = 2 * M_PI * u[1], q = sqrt(fmax(0, 1 - z * z));
    out[0] = scale * q * cos(a), out[1] = scale * q * sin(a), out[2] = scale * z;
  }
}
