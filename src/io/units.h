/* The units of the quantities a trajectory file carries (H5MD `unit` attributes, docs/formats.md):
   each quantity's dimension as powers of mass, length and time, written in SI (kg, m, s) for a
   run in SI units (dpd.units = si) or, for a run in reduced units, in the names MDAnalysis reads
   without converting (u, Angstrom, ps), which stand for the run's own units. */
#ifndef AGGLO_IO_UNITS_H
#define AGGLO_IO_UNITS_H
#include <stddef.h>

typedef enum { AGGLO_UNITS_UNKNOWN = 0, AGGLO_UNITS_REDUCED, AGGLO_UNITS_SI } agglo_units;

/* "reduced", "SI" (NULL for unknown), and back (AGGLO_UNITS_UNKNOWN for anything else). */
const char *agglo_units_name(agglo_units u);
agglo_units agglo_units_parse(const char *name);

typedef struct { int mass, length, time; } agglo_dimension;

/* The dimension of a particle element (position, velocity, radius, mass, box edges, time) or of a
   stats.csv column (docs/analysis.md, docs/dpd.md, docs/gluey.md) in a run of dimension dim;
   gamma_weighted: gluey.radius_weighting = on (gluey's gamma per length squared). 0, or -1 for a
   name the table does not have. */
int agglo_quantity_dimension(const char *name, int dim, int gamma_weighted, agglo_dimension *d);

/* The H5MD unit string of dimension d ("kg m+2 s-2", "Angstrom ps-1", "1" for a dimensionless
   quantity) in units u (not AGGLO_UNITS_UNKNOWN). */
void agglo_unit_string(agglo_dimension d, agglo_units u, char *out, size_t len);

#endif
