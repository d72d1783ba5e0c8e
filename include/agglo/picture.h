/* agglo's pictures: one frame of particles drawn into a PNG (cairo), as the snapshots of a run,
   `agglo render` and `agglo movie` draw them. The options are the [picture] keys of the settings
   (docs/pictures.md; agglo_config_set(c, "picture.view", "0, 0, 1")) and output.png_width:

       agglo_picture_frame f = {.n = n, .dim = 3, .positions = x, .radii = r, .clusters = labels,
                                .box = box, .time = t};
       agglo_picture_render(c, &f, "frame.png");       (c = NULL: every key at its default)

   3D frames are drawn as shaded spheres seen from picture.view (perspective or orthographic, a
   slab, fog, colours by cluster, cluster size, species or speed); 2D frames as flat discs.
   Errors as in agglo.h: an agglo_status and agglo_last_error(). */
#ifndef AGGLO_PICTURE_H
#define AGGLO_PICTURE_H
#include "agglo.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct {
  size_t n;
  int dim;                  /* 2 or 3 */
  const double *positions;  /* n x 3, row-major (z = 0 in 2D) */
  const double *radii;      /* n */
  const int32_t *clusters;  /* n cluster labels (any integers; equal = same cluster), or NULL:
                               every particle alone */
  const double *velocities; /* n x 3, or NULL (needed by picture.color = speed) */
  const int64_t *ids;       /* n global ids, or NULL (species from the ids as the settings'
                               run.model assigns them: DPD's blocks of ids by dpd.species) */
  const int32_t *species;   /* n species indices, or NULL (then from ids and the settings) */
  agglo_box box;            /* a zero extent along an axis: the particles' extent is used */
  double time;              /* shown in the caption */
} agglo_picture_frame;

/* Draw frame into a PNG file at path with the picture options of settings (NULL: defaults). */
agglo_status agglo_picture_render(const agglo_config *settings, const agglo_picture_frame *frame,
                                  const char *path);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
