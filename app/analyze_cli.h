/* `agglo analyze`'s own output (app/analyze_cli.c): the report of agglo_analyze_trajectory as
   text or JSON, and its plots drawn by gnuplot. */
#ifndef AGGLO_APP_ANALYZE_CLI_H
#define AGGLO_APP_ANALYZE_CLI_H
#include "agglo/analysis.h"

/* The warning of a cut file on stderr, the report on stdout, then with plots the plots into
   o->out_dir (o->curves was set). The exit status: 0, or 1 when the plots failed. */
int agglo_cli_analyze_report(const agglo_analyze_options *o, const agglo_analyze_result *r,
                             int json, int plots);

#endif
