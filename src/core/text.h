/* Text the public API hands to its caller as a string (char **text, freed with agglo_free):
   written with stdio into memory. */
#ifndef AGGLO_TEXT_H
#define AGGLO_TEXT_H
#include "agglo/agglo.h"
#include <stdio.h>

typedef struct {
  FILE *f;
  char *buf;
  size_t len;
} agglo_text;

/* Start the text: AGGLO_OK, or AGGLO_ERROR_MEMORY with the message naming fn. */
agglo_status agglo_text_open(agglo_text *t, const char *fn);
/* End it: with st == AGGLO_OK *out receives the text (else NULL, the text is dropped). Returns
   st, or AGGLO_ERROR_MEMORY when the text could not be completed. */
agglo_status agglo_text_close(agglo_text *t, agglo_status st, char **out);

#endif
