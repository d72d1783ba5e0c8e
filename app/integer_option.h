/* An integer option of the command line, through the library's one integer parser
   (core/integer.h): the message names the command, the option, the text and the range. */
#ifndef AGGLO_INTEGER_OPTION_H
#define AGGLO_INTEGER_OPTION_H
#include "core/integer.h"
#include <stdio.h>

static inline int agglo_cli_integer(const char *cmd, const char *opt, const char *text, long long lo,
                                    long long hi, long long *out) {
  if (agglo_parse_integer(text, lo, hi, out, NULL) == AGGLO_INT_OK) return 0;
  fprintf(stderr, "agglo %s: %s %s: expected an integer from %lld to %lld\n", cmd, opt, text, lo, hi);
  return -1;
}

#endif
