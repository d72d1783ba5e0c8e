#include "core/error.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[AGGLO_ERROR_LEN];

int agglo_fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

agglo_status agglo_error(agglo_status status, const char *fmt, ...) {
  char msg[AGGLO_ERROR_LEN]; /* the arguments may be the last message itself */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  memcpy(last_error, msg, sizeof msg);
  return status;
}

char *agglo_error_buffer(void) { return last_error; }

void agglo_error_append(const char *fmt, ...) {
  size_t l = strlen(last_error);
  va_list ap;
  va_start(ap, fmt);
  if (l + 1 < sizeof last_error) vsnprintf(last_error + l, sizeof last_error - l, fmt, ap);
  va_end(ap);
}

void agglo_error_save(agglo_error_saved *saved) { memcpy(saved->text, last_error, sizeof last_error); }

void agglo_error_restore(const agglo_error_saved *saved) {
  memcpy(last_error, saved->text, sizeof last_error);
}

const char *agglo_last_error(void) { return last_error; }
