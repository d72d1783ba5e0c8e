/* agglo plot RUN_DIR --kernel K: the kinetics of a run (app/kinetics_cli.c). */
#ifndef AGGLO_APP_KINETICS_CLI_H
#define AGGLO_APP_KINETICS_CLI_H
#include "agglo/analysis.h"

/* AGGLO_KERNEL_* of a name (constant, additive, ballistic, brownian), or -1. */
int agglo_cli_kernel_named(const char *name);
/* dir/stats.csv's mean size against Smoluchowski's solution with options o, and the growth
   exponent over t_lo .. t_hi (t_hi <= t_lo: the default window); prints the numbers, writes
   kinetics.png and its data into out. 0, or 1 with the message printed. */
int agglo_cli_kinetics(const char *dir, const char *out, const agglo_smoluchowski_options *o,
                       double t_lo, double t_hi);

#endif
