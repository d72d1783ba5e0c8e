/* PNG snapshots of a particle system, drawn with cairo. */
#ifndef AGGLO_OUTPUT_PNG_H
#define AGGLO_OUTPUT_PNG_H
#include "system.h"

/* Optional line segments between particle pairs (glued links); may be NULL/0. strength in [0,1] darkens the line. */
typedef struct { const int32_t *i, *j; const double *strength; size_t n; } agglo_png_links;

/* Optional obstacles drawn in grey under the particles; may be NULL/0. seg: x0, y0, x1, y1 per wall
   segment (drawn as a line); disc: x, y, r per sphere (drawn as a grey disc). */
typedef struct { const double *seg; size_t nseg; const double *disc; size_t ndisc; } agglo_png_obstacles;

/* Render a snapshot to a PNG file. width_px: image width in pixels (height follows the box aspect ratio).
   Returns 0, or -1 with a message in err (name the path and cairo's status string). */
int agglo_png_write(const char *path, const agglo_system *s, int width_px, const agglo_png_links *links,
                    const agglo_png_obstacles *obstacles, char *err, size_t errlen);

#endif
