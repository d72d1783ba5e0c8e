/* The pressure tensor of the DPD model (docs/dpd.md, "Pressure tensor"): its parts, the stats.csv
   columns that show it (dpd.stress_tensor) and the viscosity under shear. The sums over the
   pairs are dpd_model.c's (agglo_dpd_stress_of), one serial pass over the pairs of the last force
   evaluation with the separations and random numbers the forces used: the same numbers with
   any thread count. */
#ifndef AGGLO_MODELS_DPD_STRESS_H
#define AGGLO_MODELS_DPD_STRESS_H
#include "config/config.h"

/* The parts: kinetic sum m v'_a v'_b (v' the peculiar velocity, v without shear); the pair
   forces F_a r_b of the Groot-Warren repulsion (conservative), of the pair thermostat's
   friction and noise (dissipative, random; the hard core's dashpot with them), and of every
   other pair law, the colloids' attractions with their hard core (bridge). */
enum { DPD_P_KINETIC, DPD_P_CONSERVATIVE, DPD_P_DISSIPATIVE, DPD_P_RANDOM, DPD_P_BRIDGE, DPD_P_PARTS };
/* Components, in this order: xx yy zz xy xz yz; ab = sum m v'_a v'_b + sum_pairs F_a r_b (r = x_i
   - x_j, F the force on i): the flux of a-momentum through planes normal to b. */
enum { DPD_P_XX, DPD_P_YY, DPD_P_ZZ, DPD_P_XY, DPD_P_XZ, DPD_P_YZ, DPD_P_COMPONENTS };

typedef struct {
  double part[DPD_P_PARTS][DPD_P_COMPONENTS]; /* each divided by the volume (area in 2D) */
} agglo_dpd_stress;

/* The tensor of the model's state (a dpd_state.h dpd) after its last step, scenario units. */
void agglo_dpd_stress_of(const void *state, agglo_dpd_stress *out);

/* The stress columns of a scenario: 0 (dpd.stress_tensor off, or auto without shear), else their
   count: the components (6 in 3D, 3 in 2D), the xy one of each part (5), and viscosity under
   shear (1). */
int agglo_dpd_stress_columns(const agglo_config *c);
/* dpd.shear_rate (0 before Lees-Edwards shear exists in the build) */
double agglo_dpd_shear_rate(const agglo_config *c);
/* The values of those columns (v[0 .. agglo_dpd_stress_columns)), from the tensor. */
void agglo_dpd_stress_values(const agglo_config *c, const agglo_dpd_stress *t, double *v);

#endif
