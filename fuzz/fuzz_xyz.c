/* libFuzzer target: the extended XYZ reader of `agglo analyze`, every frame of the input. */
#include "io/xyz_read.h"
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  agglo_xyz_reader r = {0};
  r.f = fmemopen((void *)data, size, "r");
  if (!r.f) return 0;
  r.path = "fuzz.xyz";
  r.default_radius = 0.5;
  agglo_system s = {0};
  char err[1024];
  for (int k = 0; k < 64 && agglo_xyz_next(&r, &s, err, sizeof err) == 1; k++) {
  }
  agglo_system_free(&s);
  agglo_xyz_close(&r);
  return 0;
}
