/* A stop asked of a running analysis (agglo_analysis_request_stop, include/agglo/analysis.h):
   the loops a user's numbers drive (frames, Debye sums, cut-off fits, orientations) poll it and
   give the analysis up, AGGLO_STOPPED with the message. */
#ifndef AGGLO_ANALYSIS_STOP_H
#define AGGLO_ANALYSIS_STOP_H
#include "agglo/agglo.h"

int agglo_analysis_stopping(void);
/* AGGLO_STOPPED, the message naming fn. */
agglo_status agglo_analysis_stopped(const char *fn);

#endif
