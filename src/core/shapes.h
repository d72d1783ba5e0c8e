/* What a model shows besides its particles: links between particles (e.g. glued pairs) and the
   outlines of obstacles. Models fill them; pictures draw them. */
#ifndef AGGLO_SHAPES_H
#define AGGLO_SHAPES_H
#include <stddef.h>
#include <stdint.h>

/* Segments between particle pairs (storage indices i, j); strength in [0, 1] (darker = stronger). */
typedef struct { const int32_t *i, *j; const double *strength; size_t n; } agglo_link_lines;

/* Obstacles at the current time: seg = x0, y0, x1, y1 per wall segment (clipped to the box),
   disc = x, y, r per sphere. */
typedef struct { const double *seg; size_t nseg; const double *disc; size_t ndisc; } agglo_obstacle_shapes;

#endif
