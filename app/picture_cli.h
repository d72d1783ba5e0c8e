/* `agglo render`, `agglo movie` and the run plots of `agglo plot` (app/picture_cli.c). */
#ifndef AGGLO_APP_PICTURE_CLI_H
#define AGGLO_APP_PICTURE_CLI_H

int agglo_cli_render(int argc, char **argv);
int agglo_cli_movie(int argc, char **argv);
/* 1 when dir holds a run's stats.csv (and no ensemble.csv): agglo plot draws the run's plots. */
int agglo_cli_is_run_dir(const char *dir);
int agglo_cli_plot_run(int argc, char **argv);

#endif
