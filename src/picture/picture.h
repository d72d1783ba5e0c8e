/* Pictures of a frame (include/agglo/picture.h): the options of the [picture] keys, the colour of
   each particle, and the choice between flat discs (png_write.c) and shaded spheres
   (picture_shaded.c). */
#ifndef AGGLO_PICTURE_INTERNAL_H
#define AGGLO_PICTURE_INTERNAL_H
#include "agglo/picture.h"
#include "core/shapes.h"
#include <stddef.h>

struct agglo_config;

/* The checks of the [picture] keys across values (agglo_config_validate). */
int agglo_picture_check(const struct agglo_config *c, char *err, size_t errlen);

/* The snapshot writer's entry: a frame, and what the model shows besides (may be NULL). */
int agglo_picture_draw(const struct agglo_config *c, const agglo_picture_frame *f,
                       const agglo_link_lines *links, const agglo_obstacle_shapes *obstacles,
                       const char *path, char *err, size_t errlen);

/* What picture_shaded.c draws: unit vectors of the camera, the particles' colours (rgb[3 i] < 0:
   hidden) and the caption. */
typedef struct {
  int perspective, draw_box, width;
  double view[3], up[3], light[3];
  double fov_deg, zoom, fog;
} agglo_shaded_options;

int agglo_shaded_write(const char *path, const agglo_shaded_options *o, const agglo_picture_frame *f,
                       const float *rgb, const char *caption, char *err, size_t errlen);

#endif
