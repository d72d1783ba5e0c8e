/* Files on disk shared by the writers: directories made as needed. */
#ifndef AGGLO_FILES_H
#define AGGLO_FILES_H

/* mkdir -p: 0, or -1 with the thread's message (agglo_last_error). */
int agglo_make_dir(const char *path);

#endif
