/* `agglo aggregate` (app/aggregate_cli.c): tunable aggregates into files. */
#ifndef AGGLO_APP_AGGREGATE_CLI_H
#define AGGLO_APP_AGGREGATE_CLI_H

/* argv after "aggregate"; the exit status (0, 1 failed, 2 usage). */
int agglo_cli_aggregate(int argc, char **argv);

#endif
