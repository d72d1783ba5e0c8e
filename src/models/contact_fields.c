#include "models/contact_fields.h"
#include "config/config.h"
#include "models/contact_config.h"
#include <math.h>

void agglo_flow_velocity(const agglo_flow *f, const agglo_box *b, const double *x, double t,
                         double u[3]) {
  u[0] = u[1] = u[2] = 0;
  double y = x[1] - b->lo[1], X = x[0] - b->lo[0];
  switch (f->type) {
  case FLOW_UNIFORM:
    for (int k = 0; k < 3; k++) u[k] = f->velocity[k];
    break;
  case FLOW_SHEAR: u[0] = f->rate * y; break;
  case FLOW_OSC_SHEAR: u[0] = sin(f->omega * t) * f->rate * y; break;
  case FLOW_POISEUILLE: u[0] = 4.0 * f->rate * y * (b->len[1] - y) / (b->len[1] * b->len[1]); break;
  case FLOW_VORTEX: {
    double a = M_PI * X / b->len[0], c = M_PI * y / b->len[1];
    u[0] = f->rate * sin(a) * cos(c);
    u[1] = -f->rate * cos(a) * sin(c);
    break;
  }
  default: break;
  }
}
