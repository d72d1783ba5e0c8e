/* `agglo analyze --sq --mobility --optics --mstm --ddscat` (docs/scattering.md): the reported
   frame's aggregates as scatterers and aerosol particles. */
#ifndef AGGLO_ANALYSIS_AGGREGATE_OUTPUTS_H
#define AGGLO_ANALYSIS_AGGREGATE_OUTPUTS_H
#include "agglo/analysis.h"
#include "analysis/analysis.h"
#include <stdio.h>

/* Checks the options (0, or -1 with a message naming the option and what is allowed). */
int agglo_aggregate_options_check(const agglo_analyze_options *o, char *err, size_t errlen);

/* The frame s (labels set), its clusters info[0..nc) (largest first): sq.csv into sq, mobility.csv
   into mob, optics.csv into opt (each NULL when not asked), and the numbers into res. 0, or -1 with the message in err. */
int agglo_aggregate_outputs(const agglo_analyze_options *o, const agglo_system *s, double gap,
                            const agglo_cluster_info *info, size_t nc, FILE *sq, FILE *mob,
                            FILE *opt, agglo_analyze_result *res, char *err, size_t errlen);

/* The MSTM and DDSCAT files of the largest cluster (o->mstm, o->ddscat; each written whole or
   not at all): the analysis's last step, after its own files, so that a failed analysis leaves
   none of them. 0, or -1 with the message in err. */
int agglo_aggregate_writers(const agglo_analyze_options *o, const agglo_system *s, double gap,
                            const agglo_cluster_info *info, size_t nc, agglo_analyze_result *res,
                            char *err, size_t errlen);

#endif
