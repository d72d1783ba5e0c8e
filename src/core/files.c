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

FILE *agglo_open_read(const char *path, const char *mode, char *err, size_t errlen) {
  FILE *f = fopen(path, mode);
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    int e = errno;
    agglo_fail(err, errlen, "%s: cannot open: %s", path, strerror(e));
    if (f) fclose(f);
    errno = e;
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    const char *what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISFIFO(st.st_mode) ? "a pipe"
                                              : "not a regular file";
    agglo_fail(err, errlen, "%s: is %s; agglo reads regular files only (their size bounds what "
               "is read)", path, what);
    fclose(f);
    errno = EINVAL;
    return NULL;
  }
  return f;
}

long agglo_read_line(FILE *f, char *buf, size_t size) {
  size_t n = 0;
  int c;
  while ((c = getc_unlocked(f)) != EOF) {
    if (c == 0) return AGGLO_LINE_NUL;
    if (n + 1 >= size) return AGGLO_LINE_LONG;
    buf[n++] = (char)c;
    if (c == '\n') break;
  }
  if (ferror(f)) return AGGLO_LINE_IO;
  buf[n] = 0;
  return (long)n;
}

int agglo_line_fail(char *err, size_t errlen, const char *where, long rc, size_t size) {
  if (rc == AGGLO_LINE_LONG)
    return agglo_fail(err, errlen, "%s: line longer than %zu bytes (the limit of a line)", where, size - 1);
  if (rc == AGGLO_LINE_NUL) return agglo_fail(err, errlen, "%s: a NUL byte (not a text file)", where);
  return agglo_fail(err, errlen, "%s: cannot read: %s", where, strerror(errno));
}
