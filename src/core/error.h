/* Errors: the library never prints; a failing function writes a message a user can act on.
   Internal functions fill a caller's buffer (agglo_fail); the public API (include/agglo) returns an
   agglo_status and keeps the message per thread for agglo_last_error() (agglo_error). */
#ifndef AGGLO_ERROR_H
#define AGGLO_ERROR_H
#include "agglo/agglo.h"
#include <stddef.h>

/* Format the message into err (errlen bytes) and return -1. */
int agglo_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Public API: set this thread's last error and return status. */
agglo_status agglo_error(agglo_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The buffer of this thread's last error, for internal functions that take (err, errlen). */
char *agglo_error_buffer(void);
/* Add to the end of this thread's last error (what follows from it: the state kept, ...). */
void agglo_error_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
enum { AGGLO_ERROR_LEN = 2048 };

/* A copy of this thread's message, put back after clean-up calls that may overwrite it. */
typedef struct {
  char text[AGGLO_ERROR_LEN];
} agglo_error_saved;
void agglo_error_save(agglo_error_saved *saved);
void agglo_error_restore(const agglo_error_saved *saved);

#endif
