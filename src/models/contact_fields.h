/* Prescribed fluid velocity fields U(x, t). */
#ifndef AGGLO_FIELDS_H
#define AGGLO_FIELDS_H
#include "core/system.h"

typedef struct {
  int type;        /* FLOW_* of config.h */
  double rate, omega, velocity[3];
  double len[3];   /* box lengths, for flows shaped by the box */
} agglo_flow;

void agglo_flow_velocity(const agglo_flow *f, const agglo_box *b, const double *x, double t,
                         double u[3]);

#endif
