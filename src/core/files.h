/* Files on disk shared by the writers: directories made as needed, files closed with the reason
   of a failed write. */
#ifndef AGGLO_FILES_H
#define AGGLO_FILES_H
#include <stdio.h>

/* mkdir -p: 0, or -1 with the thread's message (agglo_last_error). */
int agglo_make_dir(const char *path);
/* Finish a file written to path (set errno = 0 before writing): flushed, synced to the disk when
   sync, closed. 0, or -1 with "path: write failed: <reason>" (e.g. No space left on device). */
int agglo_file_finish(FILE *f, const char *path, int sync, char *err, size_t errlen);

#endif
