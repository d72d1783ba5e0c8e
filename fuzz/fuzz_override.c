/* libFuzzer target: `-s section.key=value` overrides (NUL-separated in the input), then checks. */
#include "config/config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  agglo_config c;
  agglo_config_defaults(&c);
  char err[1024];
  for (char *p = text; p < text + size; p += strlen(p) + 1) agglo_config_read_assignment(&c, p, err, sizeof err);
  agglo_config_validate(&c, err, sizeof err);
  free(text);
  return 0;
}
