/* gnuplot scripts of the CLI (analyze, plot): user text quoted for gnuplot, and gnuplot run
   without a shell (app/gnuplot.c). */
#ifndef AGGLO_APP_GNUPLOT_H
#define AGGLO_APP_GNUPLOT_H
#include <stdio.h>

/* 0 when text fits on one line of a script, else -1 with a message naming who. */
int agglo_cli_gp_one_line(const char *text, const char *who);
/* text as a gnuplot single-quoted string ('' for a quote; no substitution happens inside). 0, or
   -1 when text holds a line break, which a gnuplot string cannot (the message is printed). */
int agglo_cli_gp_string(FILE *f, const char *text, const char *who);

/* gnuplot SCRIPT run in dir (NULL: here), its messages (and its output when log_stdout) into log.
   0, or 1 with a message on stderr naming who, the failure and the log. */
int agglo_cli_gnuplot(const char *who, const char *dir, const char *script, const char *log,
                      int log_stdout);

#endif
