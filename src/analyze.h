/* `agglo analyze`: indicators of the frames of a trajectory, CSV/JSON reports and plots. */
#ifndef AGGLO_ANALYZE_H
#define AGGLO_ANALYZE_H
#include <stddef.h>

typedef struct {
  const char *path;      /* extended XYZ trajectory */
  const char *out_dir;   /* analysis.csv, clusters.csv, plots */
  int frame;             /* frame to report in detail (1-based; 0 = last) */
  int all;               /* indicators for every frame (else only the chosen one) */
  double contact_gap;    /* > 0: touching below this gap; else the file's ContactGap or 0.1 r */
  double radius;         /* radius when the file has none */
  int json, plots;
  int quiet;
  int rdf;               /* g(r) into rdf.csv: averaged over every frame, or frame `frame` */
  double rdf_max;        /* its range (<= 0: half the smallest box side) */
  int rdf_bins;          /* its bins (0: 100) */
  int msd;               /* mean-square displacement over every frame into msd.csv, and D */
} agglo_analyze_options;

/* Returns 0 or -1 with a message. Prints the summary (or JSON) on stdout: this is the CLI's
   reporting layer, kept out of the simulation code. */
int agglo_analyze(const agglo_analyze_options *o, char *err, size_t errlen);

#endif
