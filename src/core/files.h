/* Files on disk shared by the writers: directories made as needed, and held by one run at a time. */
#ifndef AGGLO_FILES_H
#define AGGLO_FILES_H

/* mkdir -p: 0, or -1 with the thread's message (agglo_last_error). */
int agglo_make_dir(const char *path);

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

#endif
