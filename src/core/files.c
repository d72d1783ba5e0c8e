#include "core/files.h"
#include "core/error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int agglo_make_dir(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: path too long", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return agglo_error(AGGLO_ERROR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
      *p = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST)
    return agglo_error(AGGLO_ERROR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
  return 0;
}
