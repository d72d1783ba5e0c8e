/* The stop of a running analysis (analysis/stop.h). One flag for the process: a signal handler
   can set it and nothing else is needed to reach the loops. */
#include "analysis/stop.h"
#include "agglo/analysis.h"
#include "core/error.h"
#include <stdatomic.h>

static _Atomic int requested;

void agglo_analysis_request_stop(int stop) { atomic_store(&requested, stop != 0); }

int agglo_analysis_stopping(void) { return atomic_load_explicit(&requested, memory_order_relaxed); }

agglo_status agglo_analysis_stopped(const char *fn) {
  return agglo_error(AGGLO_STOPPED, "%s: stopped (a stop was requested: a signal, or "
                     "agglo_analysis_request_stop)", fn);
}
