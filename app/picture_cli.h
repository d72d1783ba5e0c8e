/* `agglo render`, `agglo movie` and the run plots of `agglo plot` (app/picture_cli.c). */
#ifndef AGGLO_APP_PICTURE_CLI_H
#define AGGLO_APP_PICTURE_CLI_H

int agglo_cli_render(int argc, char **argv);
int agglo_cli_movie(int argc, char **argv);
/* 1 when dir holds a run's stats.csv (and no ensemble.csv): agglo plot draws the run's plots. */
int agglo_cli_is_run_dir(const char *dir);
int agglo_cli_plot_run(int argc, char **argv);

/* The CSV files agglo plot reads: a regular file (not a device or a pipe, whose size bounds the
   reading), lines of at most size - 1 bytes. agglo_cli_csv_open: the file, or NULL with the
   message printed; agglo_cli_csv_line: 1, 0 at the end, -1 with the message printed (line: its
   number, for the message). */
#include <stddef.h>
#include <stdio.h>
FILE *agglo_cli_csv_open(const char *path);
int agglo_cli_csv_line(FILE *f, char *buf, size_t size, const char *path, long line);

#endif
