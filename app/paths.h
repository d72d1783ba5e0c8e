/* Paths given on the command line. A directory's name loses its trailing slashes ("shear/" ->
   "shear"): the messages append "/" and file names to it ("/" stays). */
#ifndef AGGLO_APP_PATHS_H
#define AGGLO_APP_PATHS_H
#include <string.h>
#include <sys/stat.h>

static inline char *agglo_cli_dir_name(char *dir) {
  if (dir)
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
  return dir;
}

static inline int agglo_cli_is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static inline int agglo_cli_is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

#endif
