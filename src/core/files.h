/* Files on disk: directories made as needed (the writers) and held by one run at a time, files
   closed with the reason of a failed write, and files read with a bound on what is read (every
   reader of a user's file; docs/reliability.md lists them with their bounds). */
#ifndef AGGLO_FILES_H
#define AGGLO_FILES_H
#include <stddef.h>
#include <stdio.h>

/* mkdir -p: 0, or -1 with the thread's message (agglo_last_error). */
int agglo_make_dir(const char *path);
/* Finish a file written to path (set errno = 0 before writing): flushed, synced to the disk when
   sync, closed. 0, or -1 with "path: write failed: <reason>" (e.g. No space left on device). */
int agglo_file_finish(FILE *f, const char *path, int sync, char *err, size_t errlen);

/* 1 when a and b name the same directory (the same string, or the same inode). */
int agglo_same_dir(const char *a, const char *b);

/* A directory held by one process at a time (docs/reliability.md#one-run-per-directory): an
   advisory lock (flock) on DIR/agglo.lock, which holds the holder's pid. The kernel drops it when
   the process dies, so a lock file left by a killed run is simply taken over. Not held: path NULL
   (a zeroed agglo_lock). Descendants forked without exec keep it (an ensemble's members). */
typedef struct {
  int fd;
  char *path;
} agglo_lock;
/* Take dir's lock (dir exists): 0, or -1 with a message naming dir and the holder's pid. */
int agglo_lock_take(agglo_lock *l, const char *dir);
/* Release it (nothing if not held): the lock file is removed, then closed. */
void agglo_lock_release(agglo_lock *l);

/* The longest line (newline included) the text readers accept, in bytes, unless they say less. */
enum { AGGLO_LINE_MAX = 65536 };

/* HDF5 files: deflate (their compression) stores at most 1032 bytes of data in one byte, so data
   announced beyond 1032 times the file's size is not in the file (a damaged or forged header). */
enum { AGGLO_DEFLATE_MAX_RATIO = 1032 };

/* fopen(path, mode) of a regular file. Devices (/dev/zero), directories and pipes are refused:
   a regular file's size bounds every read. NULL with the message in err (errno kept: ENOENT for a
   missing file). */
FILE *agglo_open_read(const char *path, const char *mode, char *err, size_t errlen);

/* The next line of f, newline kept, into buf (size bytes, NUL-terminated): its length, 0 at the end
   of the file, or one of the AGGLO_LINE_ errors (nothing more is read). */
enum { AGGLO_LINE_LONG = -1, AGGLO_LINE_NUL = -2, AGGLO_LINE_IO = -3 };
long agglo_read_line(FILE *f, char *buf, size_t size);

/* The message "WHERE: what" of agglo_read_line's error rc (where: "file:line", maybe more; size:
   the buffer it was given): -1. */
int agglo_line_fail(char *err, size_t errlen, const char *where, long rc, size_t size);

#endif
