/* Errors: the library never prints; a failing function writes a message a user can act on. */
#ifndef AGGLO_ERROR_H
#define AGGLO_ERROR_H
#include <stddef.h>

/* Format the message into err (errlen bytes) and return -1. */
int agglo_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
