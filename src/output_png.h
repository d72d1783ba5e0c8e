/* PNG snapshots of a particle system, drawn with cairo. */
#ifndef AGGLO_OUTPUT_PNG_H
#define AGGLO_OUTPUT_PNG_H
#include "system.h"

/* Optional line segments between particle pairs (glued links); may be NULL/0. strength in [0,1] darkens the line. */
typedef struct { const int32_t *i, *j; const double *strength; size_t n; } agglo_png_links;

/* Render a snapshot to a PNG file. width_px: image width in pixels (height follows the box aspect ratio).
   Returns 0, or -1 with a message in err (name the path and cairo's status string). */
int agglo_png_write(const char *path, const agglo_system *s, int width_px, const agglo_png_links *links,
                    char *err, size_t errlen);

#endif
