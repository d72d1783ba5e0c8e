/* The one parser of a user's integer (command-line options, --seeds lists): decimal digits with an
   optional minus sign, checked against [lo, hi] with the overflow of strtoll caught (ERANGE: a
   value past the long long range was clamped to it, and `--seeds 9223372036854775807` then looped
   forever). The command line reaches it through agglo_parse_integer (include/agglo/agglo.h). */
#ifndef AGGLO_INTEGER_H
#define AGGLO_INTEGER_H
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

enum { AGGLO_INT_OK = 0, AGGLO_INT_NOT_INTEGER = -1, AGGLO_INT_OUT_OF_RANGE = -2 };

/* The integer at the start of text into *out. With end NULL the whole text must be the number;
   else *end receives where it stops. Returns AGGLO_INT_OK, AGGLO_INT_NOT_INTEGER or
   AGGLO_INT_OUT_OF_RANGE (*out untouched unless OK). */
static inline int agglo_integer_prefix(const char *text, long long lo, long long hi, long long *out,
                                       const char **end) {
  if (!text) return AGGLO_INT_NOT_INTEGER;
  const char *p = text + (text[0] == '-');
  if (!isdigit((unsigned char)*p)) return AGGLO_INT_NOT_INTEGER;
  char *stop;
  errno = 0;
  long long v = strtoll(text, &stop, 10);
  if (end) *end = stop;
  else if (*stop) return AGGLO_INT_NOT_INTEGER;
  if (errno == ERANGE || v < lo || v > hi) return AGGLO_INT_OUT_OF_RANGE;
  *out = v;
  return AGGLO_INT_OK;
}

#endif
