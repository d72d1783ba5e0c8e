/* agglo: direct simulation of particle aggregation. The public API: settings and a run. */
#ifndef AGGLO_AGGLO_H
#define AGGLO_AGGLO_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scenario settings (opaque). Every function returning int gives 0 on success or -1 with a
   message a user can act on in err. The library never prints and never exits. */
typedef struct agglo_config agglo_config;

agglo_config *agglo_config_new(void); /* all defaults */
void agglo_config_destroy(agglo_config *c);
int agglo_config_load(agglo_config *c, const char *path, char *err, size_t errlen);
int agglo_config_override(agglo_config *c, const char *assignment, char *err, size_t errlen);
int agglo_config_check(const agglo_config *c, char *err, size_t errlen);

typedef struct {
  const char *out_dir;     /* where outputs go (created) */
  const char *restart_dir; /* continue the run saved there (NULL: start afresh) */
  int threads;             /* 0: OpenMP's default */
  int progress;            /* 1: progress bar on stderr */
  int verbose;             /* 1: a summary line at the start and end on stderr */
} agglo_run_options;

/* Run a scenario to its end time. Returns 0; the signal number if stopped by SIGINT or SIGTERM
   (state saved);
   -1 on error (the last good state is saved where possible). */
int agglo_run(const agglo_config *c, const agglo_run_options *opt, char *err, size_t errlen);

const char *agglo_version(void);

#ifdef __cplusplus
}
#endif
#endif
