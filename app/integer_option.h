/* An integer option of the command line, through the library's one integer parser
   (agglo_parse_integer): the message names the command, the option, the text and the range. */
#ifndef AGGLO_INTEGER_OPTION_H
#define AGGLO_INTEGER_OPTION_H
#include "agglo/agglo.h"
#include <stdio.h>

static inline int agglo_cli_integer(const char *cmd, const char *opt, const char *text, long long lo,
                                    long long hi, long long *out) {
  if (agglo_parse_integer(opt, text, lo, hi, out) == AGGLO_OK) return 0;
  fprintf(stderr, "agglo %s: %s\n", cmd, agglo_last_error());
  return -1;
}

#endif
