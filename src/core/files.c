#include "core/files.h"
#include "core/error.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

int agglo_same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  return !strcmp(a, b) || (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
                           sa.st_ino == sb.st_ino);
}

/* The refusal: the holder's pid as it wrote it (it writes it just after taking the lock). */
static int busy(const char *dir, int fd) {
  char text[32] = "";
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  long pid = n > 0 ? strtol(text, NULL, 10) : 0;
  close(fd);
  if (pid > 0)
    return agglo_error(AGGLO_ERROR_IO, "%s is in use by another run (pid %ld holds %s/agglo.lock): "
                       "wait for it to end, or give another output directory", dir, pid, dir);
  return agglo_error(AGGLO_ERROR_IO, "%s is in use by another run (a process holds %s/agglo.lock): "
                     "wait for it to end, or give another output directory", dir, dir);
}

int agglo_lock_take(agglo_lock *l, const char *dir) {
  size_t len = strlen(dir) + sizeof "/agglo.lock";
  char *path = malloc(len);
  if (!path) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  snprintf(path, len, "%s/agglo.lock", dir);
  /* a holder that releases removes the file: a lock taken on the removed file is taken again on
     the new one (bounded: each retry means another process took and released it meanwhile) */
  for (int attempt = 0; attempt < 100; attempt++) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      agglo_error(AGGLO_ERROR_IO, "%s: cannot create the lock file: %s", path, strerror(errno));
      free(path);
      return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      free(path);
      if (e == EWOULDBLOCK) return busy(dir, fd);
      close(fd);
      return agglo_error(AGGLO_ERROR_IO, "%s/agglo.lock: cannot lock: %s%s", dir, strerror(e),
                         e == ENOSYS || e == EOPNOTSUPP || e == ENOLCK
                             ? " (a file system without flock, e.g. Lustre mounted without -o flock: "
                               "give a directory on one with locks)"
                             : "");
    }
    struct stat held, now;
    if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      char pid[32];
      int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
      if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
        unlink(path);
        close(fd);
        free(path);
        return -1;
      }
      l->fd = fd;
      l->path = path;
      return 0;
    }
    close(fd);
  }
  agglo_error(AGGLO_ERROR_IO, "%s: cannot lock: other processes keep taking and releasing it", path);
  free(path);
  return -1;
}

void agglo_lock_release(agglo_lock *l) {
  if (!l->path) return;
  unlink(l->path);
  close(l->fd);
  free(l->path);
  l->path = NULL;
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

int agglo_file_finish(FILE *f, const char *path, int sync, char *err, size_t errlen) {
  int e = ferror(f) ? (errno ? errno : EIO) : 0; /* a buffered write that failed earlier */
  if (!e && fflush(f) != 0) e = errno;
  if (!e && sync && fsync(fileno(f)) != 0) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (e) return agglo_fail(err, errlen, "%s: write failed: %s", path, strerror(e));
  return 0;
}

/* The public hold of a directory (include/agglo/agglo.h): the same lock as a run's. */
struct agglo_dir_hold {
  agglo_lock lock;
};

agglo_status agglo_dir_take(const char *dir, agglo_dir_hold **held) {
  if (!dir || !held) return agglo_error(AGGLO_ERROR_USAGE, "agglo_dir_take: NULL dir or held");
  *held = calloc(1, sizeof **held);
  if (!*held) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  if (agglo_lock_take(&(*held)->lock, dir) != 0) {
    free(*held);
    *held = NULL;
    return AGGLO_ERROR_IO;
  }
  return AGGLO_OK;
}

void agglo_dir_release(agglo_dir_hold *held) {
  if (!held) return;
  agglo_lock_release(&held->lock);
  free(held);
}
