#include "core/rng.h"
#include <Random123/philox.h>
#include <math.h>

void agglo_rng_uniform4(uint64_t seed, uint32_t stream, uint64_t step, uint64_t id, double u[4]) {
  philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  philox4x32_ctr_t c = {{(uint32_t)id, (uint32_t)(id >> 32), (uint32_t)step,
                         ((uint32_t)(step >> 32) & 0xffffu) | (stream << 16)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  /* (k + 0.5) / 2^32: never exactly 0 or 1, so logs below are finite. */
  for (int i = 0; i < 4; i++) u[i] = ((double)r.v[i] + 0.5) * 2.3283064365386963e-10;
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

int agglo_rng_direction_disc(int dim, const double u[4], double scale, double out[3]) {
  for (int p = 0; p < 4; p += 2) {
    double a = 2 * u[p] - 1, b = 2 * u[p + 1] - 1, s = a * a + b * b;
    if (!(s < 1 && s > 0)) continue;
    if (dim == 2) {
      out[0] = scale * (a * a - b * b) / s, out[1] = scale * 2 * a * b / s, out[2] = 0;
    } else {
      double q = 2 * scale * sqrt(1 - s);
      out[0] = a * q, out[1] = b * q, out[2] = scale * (1 - 2 * s);
    }
    return 1;
  }
  return 0;
}
