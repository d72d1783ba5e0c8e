/* PNG snapshots of a particle system, drawn with cairo. */
#ifndef AGGLO_OUTPUT_PNG_H
#define AGGLO_OUTPUT_PNG_H
#include "core/shapes.h"
#include "core/system.h"

/* links and obstacles (may be NULL) are drawn under the particles. */
/* Render a snapshot to a PNG file. width_px: image width in pixels (height follows the box aspect ratio).
   Returns 0, or -1 with a message in err (name the path and cairo's status string). */
int agglo_png_write(const char *path, const agglo_system *s, int width_px, const agglo_link_lines *links,
                    const agglo_obstacle_shapes *obstacles, char *err, size_t errlen);
/* The same with a colour per particle (rgb: 3 per particle in [0, 1]; rgb[3 i] < 0 hides
   particle i) and a caption of the caller's (NULL: t, N and clusters). */
int agglo_png_write_colours(const char *path, const agglo_system *s, int width_px,
                            const agglo_link_lines *links, const agglo_obstacle_shapes *obstacles,
                            const float *rgb, const char *caption, char *err, size_t errlen);

#endif
