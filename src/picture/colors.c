#include "picture/colors.h"
#include <math.h>

static uint32_t mix32(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU;
  x ^= x >> 15; x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

static void hsv_to_rgb(double h, double s, double v, double rgb[3]) {
  double f = 6 * h - floor(6 * h), p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch ((int)floor(6 * h) % 6) {
    case 0: rgb[0] = v; rgb[1] = t; rgb[2] = p; break;
    case 1: rgb[0] = q; rgb[1] = v; rgb[2] = p; break;
    case 2: rgb[0] = p; rgb[1] = v; rgb[2] = t; break;
    case 3: rgb[0] = p; rgb[1] = q; rgb[2] = v; break;
    case 4: rgb[0] = t; rgb[1] = p; rgb[2] = v; break;
    default: rgb[0] = v; rgb[1] = p; rgb[2] = q; break;
  }
}

void agglo_label_rgb(int32_t label, double rgb[3]) {
  double hue = fmod(0.1 + 0.6180339887498949 * (double)label, 1.0);
  if (hue < 0) hue += 1.0; /* negative labels */
  uint32_t h = mix32((uint32_t)label);
  hsv_to_rgb(hue, 0.55 + 0.15 * (h & 1), 0.80 + 0.12 * ((h >> 1) & 1), rgb);
}
