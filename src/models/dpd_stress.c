/* The pressure tensor's stats.csv columns (dpd_stress.h, docs/dpd.md). */
#include "models/dpd_stress.h"
#include "models/dpd_config.h"

double agglo_dpd_shear_rate(const agglo_config *c) { return agglo_dpd_of(c)->shear_rate; }

int agglo_dpd_stress_columns(const agglo_config *c) {
  const int mode = agglo_dpd_of(c)->stress_tensor;
  const double rate = agglo_dpd_shear_rate(c);
  if (mode == DPD_STRESS_OFF || (mode == DPD_STRESS_AUTO && rate == 0)) return 0;
  return (c->dim == 2 ? 3 : 6) + 5 + (rate != 0);
}

void agglo_dpd_stress_values(const agglo_config *c, const agglo_dpd_stress *t, double *v) {
  static const int comp3[] = {DPD_P_XX, DPD_P_YY, DPD_P_ZZ, DPD_P_XY, DPD_P_XZ, DPD_P_YZ};
  static const int comp2[] = {DPD_P_XX, DPD_P_YY, DPD_P_XY};
  const int nc = c->dim == 2 ? 3 : 6;
  int k = 0;
  for (int q = 0; q < nc; q++) {
    const int a = c->dim == 2 ? comp2[q] : comp3[q];
    double sum = 0;
    for (int p = 0; p < DPD_P_PARTS; p++) sum += t->part[p][a];
    v[k++] = sum;
  }
  for (int p = 0; p < DPD_P_PARTS; p++) v[k++] = t->part[p][DPD_P_XY];
  const double rate = agglo_dpd_shear_rate(c);
  if (rate != 0) v[k] = -v[c->dim == 2 ? 2 : 3] / rate; /* -P_xy / shear rate */
}
