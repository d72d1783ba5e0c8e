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
