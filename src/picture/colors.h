/* Colours shared by the pictures: a hue per cluster label, stable across frames. */
#ifndef AGGLO_COLORS_H
#define AGGLO_COLORS_H
#include <stdint.h>

/* The colour of a cluster label: golden-ratio hue steps spread nearby labels far apart on the
   colour wheel; two hash bits vary saturation and value so labels on close hues still differ. */
void agglo_label_rgb(int32_t label, double rgb[3]);

#endif
