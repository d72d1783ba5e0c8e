#include "core/files.h"
#include "core/error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int agglo_file_finish(FILE *f, const char *path, int sync, char *err, size_t errlen) {
  int e = ferror(f) ? (errno ? errno : EIO) : 0; /* a buffered write that failed earlier */
  if (!e && fflush(f) != 0) e = errno;
  if (!e && sync && fsync(fileno(f)) != 0) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (e) return agglo_fail(err, errlen, "%s: write failed: %s", path, strerror(e));
  return 0;
}
