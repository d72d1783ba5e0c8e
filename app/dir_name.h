/* A directory given on the command line, without its trailing slashes ("shear/" -> "shear"):
   the messages append "/" and file names to it. "/" stays. */
#ifndef AGGLO_APP_DIR_NAME_H
#define AGGLO_APP_DIR_NAME_H
#include <string.h>

static inline char *agglo_cli_dir_name(char *dir) {
  if (dir)
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
  return dir;
}

#endif
