/* agglo_parse_integer (include/agglo/agglo.h): the public face of core/integer.h. */
#include "core/integer.h"
#include "agglo/agglo.h"
#include "core/error.h"

agglo_status agglo_parse_integer(const char *what, const char *text, long long lo, long long hi,
                                 long long *out) {
  long long v = 0;
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_parse_integer: NULL result pointer");
  if (agglo_integer_prefix(text, lo, hi, &v, NULL) != AGGLO_INT_OK)
    return agglo_error(AGGLO_ERROR_INPUT, "%s %s: expected an integer from %lld to %lld",
                       what ? what : "value", text ? text : "(null)", lo, hi);
  *out = v;
  return AGGLO_OK;
}
