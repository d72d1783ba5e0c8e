/* Programs the CLI starts (gnuplot, ffmpeg): an argument vector, never a shell (app/run_program.c). */
#ifndef AGGLO_APP_RUN_PROGRAM_H
#define AGGLO_APP_RUN_PROGRAM_H
#include <stddef.h>

/* Run argv[0] (found on PATH) with the arguments argv (NULL-terminated), in directory dir (NULL:
   this one), its standard error, and its standard output too when log_stdout, into the file log
   (NULL: this process's; a relative log is relative to this directory, not dir). 0 when it exited
   with status 0; else -1 and why in msg ("gnuplot exited with status 1", "gnuplot was killed by
   signal 9", "cannot start gnuplot: No such file or directory", "LOG: cannot write: ..."). */
int agglo_cli_run_program(char *const argv[], const char *dir, const char *log, int log_stdout,
                          char *msg, size_t msglen);

#endif
