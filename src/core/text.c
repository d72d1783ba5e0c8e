#include "core/text.h"
#include "core/error.h"
#include <stdlib.h>

void agglo_free(void *p) { free(p); }

agglo_status agglo_text_open(agglo_text *t, const char *fn) {
  t->buf = NULL, t->len = 0;
  t->f = open_memstream(&t->buf, &t->len);
  return t->f ? AGGLO_OK : agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory", fn);
}

agglo_status agglo_text_close(agglo_text *t, agglo_status st, char **out) {
  int bad = ferror(t->f) != 0;
  if (fclose(t->f) != 0 || bad)
    st = st == AGGLO_OK ? agglo_error(AGGLO_ERROR_MEMORY, "out of memory for a report") : st;
  if (st == AGGLO_OK) {
    *out = t->buf;
  } else {
    free(t->buf);
    *out = NULL;
  }
  t->f = NULL, t->buf = NULL;
  return st;
}
