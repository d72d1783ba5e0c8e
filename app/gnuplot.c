/* gnuplot for the CLI's plots. Text from the user (paths, column and key names) reaches a
   script only as single-quoted strings, where gnuplot substitutes nothing (no `command`, no
   @macro) and a quote is written twice. */
#include "gnuplot.h"
#include "run_program.h"
#include <string.h>

int agglo_cli_gp_one_line(const char *text, const char *who) {
  if (!strpbrk(text, "\n\r")) return 0;
  fprintf(stderr, "%s: '%s' holds a line break, which a gnuplot script cannot quote\n", who, text);
  return -1;
}

int agglo_cli_gp_string(FILE *f, const char *text, const char *who) {
  if (agglo_cli_gp_one_line(text, who) != 0) return -1;
  fputc('\'', f);
  for (const char *p = text; *p; p++) {
    if (*p == '\'') fputc('\'', f);
    fputc(*p, f);
  }
  fputc('\'', f);
  return 0;
}

int agglo_cli_gnuplot(const char *who, const char *dir, const char *script, const char *log,
                      int log_stdout) {
  char arg[4200], msg[4600];
  /* a script named like an option is given as a path */
  snprintf(arg, sizeof arg, "%s%s", script[0] == '-' ? "./" : "", script);
  char *argv[] = {"gnuplot", arg, NULL};
  if (agglo_cli_run_program(argv, dir, log, log_stdout, msg, sizeof msg) == 0) return 0;
  fprintf(stderr, "%s: %s%s; see %s\n", who, msg,
          strstr(msg, "cannot start gnuplot:") ? " (apt-get install gnuplot)" : "", log);
  return 1;
}
