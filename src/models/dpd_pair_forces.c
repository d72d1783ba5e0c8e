#include "models/dpd_pair_forces.h"
#include <math.h>
#include <stddef.h>

const char *agglo_pair_kind_name(int kind) {
  static const char *names[] = {"groot_warren", "vdw", "vdw_reduced", "capillary", "edl", "lj",
                                "none"};
  return kind >= 0 && kind <= AGGLO_PF_NONE ? names[kind] : "?";
}

/* ---- the formulas as printed in Mokkapati 2006 (4.1)-(4.4) ---- */

double agglo_vdw_thesis(double A, double R, double s) {
  double a = s * s + 4 * R * s, b = s * s + 4 * R * s + 4 * R * R;
  return A / 6 * 64 * pow(R, 6) * (s + 2 * R) / (a * a * b * b);
}

double agglo_vdw_reduced_thesis(double a, double q) {
  double t = q * q - 1;
  return a / (q * q * q * t * t);
}

double agglo_capillary_thesis(double R, double gamma_s, double cos_theta, double V, double H) {
  double dsp = H / 2 * (-1 + sqrt(1 + 2 * V / (M_PI * R * H * H)));
  return 2 * M_PI * R * gamma_s * cos_theta / (1 + H / (2 * dsp));
}

double agglo_edl_thesis(double R, double sigma_q, double kappa, double eps_eps0, double H) {
  return 2 * M_PI * R * sigma_q * sigma_q * exp(-kappa * H) / (kappa * eps_eps0);
}

/* ---- the forces used by the simulation: F(r) = -dU/dr, F > 0 repels ---- */

/* Hamaker sphere-sphere, radii R1, R2, centre distance r > R1 + R2:
   U = -(A/6) [2R1R2/(r^2-S^2) + 2R1R2/(r^2-D^2) + ln((r^2-S^2)/(r^2-D^2))], S = R1+R2, D = R1-R2,
   F = -dU/dr = -(A/6) 64 R1^3 R2^3 r / ((r^2-S^2)^2 (r^2-D^2)^2). r^2 - S^2 = H (r + S) keeps
   the digits near contact. */
static double vdw(double A, double R1, double R2, double r, double *U) {
  double S = R1 + R2, D = R1 - R2, P = 2 * R1 * R2;
  double a = (r - S) * (r + S), b = (r - D) * (r + D);
  if (U) *U = -A / 6 * (P / a + P / b + log(a / b));
  return -A / 6 * 8 * P * P * P * r / (a * a * b * b);
}

/* Thesis (4.2): F = -a / (q^3 (q^2-1)^2), q = r/d, d = R1 + R2; it is -dU/dr of
   U = -a d [1/(2(q^2-1)) + 1/(2q^2) + ln((q^2-1)/q^2)] (the Hamaker form with A = 6a, R = d/2, in
   units of d). */
static double vdw_reduced(double a, double d, double r, double *U) {
  double q = r / d, t = (q - 1) * (q + 1), q2 = q * q;
  if (U) *U = -a * d * (0.5 / t + 0.5 / q2 + log(t / q2));
  return -a / (q2 * q * t * t);
}

/* Rabinovich: F0 = 2 pi R gamma_s cos(theta), R = 2R1R2/(R1+R2).
   constant volume V = pi R^3 alpha^4 / 2, c = 2V/(pi R) = R^2 alpha^4: with
   d_sp = (H/2)(-1 + sqrt(1 + c/H^2)), 1 + H/(2 d_sp) = sqrt(H^2+c)(sqrt(H^2+c)+H)/c, so
   F = -F0 c / (sqrt(H^2+c) (sqrt(H^2+c)+H)) and U = -F0 c / (sqrt(H^2+c)+H).
   thesis volume V = pi R^2 alpha^2 H + pi R^3 alpha^4/2: then H^2 + c = (H + R alpha^2)^2 and
   d_sp = R alpha^2/2 exactly, F = -F0 / (1 + H/b), b = R alpha^2, U = -F0 b ln((1+Hc/b)/(1+H/b)). */
static double capillary(const agglo_pair_params *p, double R1, double R2, double H, double Hc,
                        double *U) {
  double R = 2 * R1 * R2 / (R1 + R2), F0 = 2 * M_PI * R * p->surface_tension * p->cos_theta;
  double a2 = p->alpha * p->alpha;
  if (p->cap_volume == AGGLO_CAP_THESIS) {
    double b = R * a2;
    if (U) *U = -F0 * b * log((1 + Hc / b) / (1 + H / b));
    return -F0 / (1 + H / b);
  }
  double c = R * R * a2 * a2, s = sqrt(H * H + c), u = s + H;
  if (H < 0) u = c / (s - H); /* same value, no cancellation */
  if (U) *U = -F0 * c / u;
  return -F0 * c / (s * u);
}

double agglo_capillary_rupture(const agglo_pair_params *p, double ri, double rj) {
  double R = 2 * ri * rj / (ri + rj), a2 = p->alpha * p->alpha;
  double V = 0.5 * M_PI * R * R * R * a2 * a2;
  double theta = acos(fmin(1, fmax(-1, p->cos_theta)));
  return (1 + 0.5 * theta) * cbrt(V);
}

/* Derjaguin with the low-potential plate energy 2 sigma^2 lambda e^{-H/lambda} / eps:
   F = 4 pi R_eff (sigma^2/eps) lambda e^{-H/lambda}, R_eff = R1R2/(R1+R2) (equal spheres:
   2 pi R sigma^2 e^{-kappa H} / (kappa eps eps0), Mokkapati 2006); U = F lambda. */
static double edl(const agglo_pair_params *p, double R1, double R2, double H, double *U) {
  double Reff = R1 * R2 / (R1 + R2), lam = p->edl_debye;
  double F = 4 * M_PI * Reff * p->edl_charge2_over_eps * lam * exp(-H / lam);
  if (U) *U = F * lam;
  return F;
}

static double lj_cut(const agglo_pair_params *p, double r, double *U) {
  double s2 = p->lj_sigma * p->lj_sigma / (r * r), s6 = s2 * s2 * s2;
  if (U) *U = 4 * p->lj_eps * (s6 * s6 - s6);
  return 24 * p->lj_eps / r * (2 * s6 * s6 - s6);
}

/* Lennard-Jones, cut at rc (none), energy-shifted (U(rc) = 0, the force unchanged) or
   force-shifted (F(rc) = U(rc) = 0: F - F(rc), U - U(rc) + (r - rc) F(rc)). */
static double lj(const agglo_pair_params *p, double r, double *U) {
  double F = lj_cut(p, r, U);
  if (p->lj_shift == AGGLO_LJ_CUT) return F;
  double Uc, Fc = lj_cut(p, p->rc, &Uc);
  if (p->lj_shift == AGGLO_LJ_ENERGY_SHIFT) Fc = 0;
  if (U) *U += -Uc + (r - p->rc) * Fc;
  return F - Fc;
}

/* The force law at centre distance r (no cap, no core). */
static double law(const agglo_pair_params *p, double r, double ri, double rj, double *U) {
  double S = ri + rj, H = r - S;
  switch (p->kind) {
  case AGGLO_PF_GROOT_WARREN: return agglo_groot_warren(p->a, p->rc, 1 - r / p->rc, U);
  case AGGLO_PF_VDW: return vdw(p->hamaker, ri, rj, r, U);
  case AGGLO_PF_VDW_REDUCED: return vdw_reduced(p->a, S, r, U);
  case AGGLO_PF_CAPILLARY: return capillary(p, ri, rj, H, p->rc - S, U);
  case AGGLO_PF_EDL: return edl(p, ri, rj, H, U);
  case AGGLO_PF_LJ: return lj(p, r, U);
  default:
    if (U) *U = 0;
    return 0;
  }
}

double agglo_pair_force(const agglo_pair_params *p, double r, double ri, double rj, double *U) {
  if (!(r < p->rc)) {
    if (U) *U = 0;
    return 0;
  }
  double S = ri + rj, F, Ulaw = 0;
  /* the regularised region: the force is frozen below r_cap and the potential continued
     linearly, so that F = -dU/dr everywhere */
  double r_cap = 0;
  switch (p->kind) {
  /* van der Waals diverges at contact: the Hamaker cut-off distance min_gap */
  case AGGLO_PF_VDW:
  case AGGLO_PF_VDW_REDUCED: r_cap = S + fmax(p->min_gap, 1e-9 * S); break;
  /* finite at contact (the bridge: F0 = 2 pi R gamma cos(theta), Mokkapati 2006 (4.4)): the
     laws are written for gaps H >= 0, overlapping spheres keep the contact value */
  case AGGLO_PF_CAPILLARY:
  case AGGLO_PF_EDL: r_cap = S; break;
  case AGGLO_PF_LJ: r_cap = p->lj_rmin * p->lj_sigma; break;
  default: break;
  }
  if (r < r_cap) {
    F = law(p, r_cap, ri, rj, U ? &Ulaw : NULL);
    Ulaw -= F * (r - r_cap);
  } else {
    F = law(p, r, ri, rj, U ? &Ulaw : NULL);
  }
  if (p->core_k > 0 && r < S) {
    double o = S - r;
    F += p->core_k * o;
    Ulaw += 0.5 * p->core_k * o * o;
  }
  if (U) *U = Ulaw;
  return F;
}
