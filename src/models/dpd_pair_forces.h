/* Central pair forces of DPD and colloids (Mokkapati 2006, docs/dpd.md): the DPD weight functions and the
   conservative forces Groot-Warren, van der Waals (exact Hamaker sphere-sphere and the thesis's
   reduced form), capillary bridge (Rabinovich), electrostatic double layer, Lennard-Jones, each
   with its potential, plus the regularisation of the singular ones.

   Convention: r = |x_i - x_j|, e = (x_i - x_j)/r. agglo_pair_force returns the radial force F(r):
   the force on i is F e and on j is -F e, so F > 0 repels and F < 0 attracts, and F = -dU/dr
   exactly (also in the capped and core regions, which continue the potential). Units are whatever
   the caller uses consistently (dpd_model.c works in reduced units). */
#ifndef AGGLO_PAIR_FORCES_H
#define AGGLO_PAIR_FORCES_H

enum {
  AGGLO_PF_GROOT_WARREN = 0, /* a (1 - r/rc), U = a rc/2 (1 - r/rc)^2 */
  AGGLO_PF_VDW,              /* Hamaker sphere-sphere, exact, any two radii */
  AGGLO_PF_VDW_REDUCED,      /* a / (q^3 (q^2 - 1)^2), q = r / (R_i + R_j) (thesis (4.2)) */
  AGGLO_PF_CAPILLARY,        /* Rabinovich liquid bridge */
  AGGLO_PF_EDL,              /* electrostatic double layer (Derjaguin, low potential) */
  AGGLO_PF_LJ,               /* Lennard-Jones 12-6 */
  AGGLO_PF_NONE
};
/* capillary bridge volume: constant V = pi R^3 alpha^4 / 2 (the bridge formed at contact keeps
   its volume), or the thesis's V = pi R^2 alpha^2 H + pi R^3 alpha^4 / 2 at every H. */
enum { AGGLO_CAP_CONSTANT_VOLUME = 0, AGGLO_CAP_THESIS = 1 };
/* Lennard-Jones at its cut-off: shifted so that U(rc) = 0 (energy, the default), or both U(rc)
   and F(rc) = 0 (force), or cut (none: U and F jump to 0 at rc). */
enum { AGGLO_LJ_ENERGY_SHIFT = 0, AGGLO_LJ_FORCE_SHIFT = 1, AGGLO_LJ_CUT = 2 };

typedef struct {
  int kind;
  double rc;       /* cut-off of the centre distance: F = U = 0 for r >= rc */
  double a;        /* groot_warren: a_ij; vdw_reduced: a (= A/6 in diameter units) */
  double hamaker;  /* vdw: Hamaker constant A */
  double surface_tension, cos_theta, alpha; /* capillary: gamma_s, cos(contact angle), half-filling angle (rad) */
  int cap_volume;  /* AGGLO_CAP_* */
  double edl_charge2_over_eps, edl_debye; /* edl: sigma_q^2 / (eps_r eps_0), Debye length 1/kappa */
  double lj_eps, lj_sigma, lj_rmin; /* lj: epsilon, sigma, force frozen below lj_rmin * sigma */
  int lj_shift;    /* AGGLO_LJ_* */
  double min_gap;  /* vdw, vdw_reduced: evaluated at gap max(H, min_gap) (force cap, the Hamaker
                      cut-off); capillary and edl are evaluated at max(H, 0) */
  double core_k;   /* > 0: harmonic hard core k (R_i + R_j - r) for r < R_i + R_j, U = k/2 (..)^2 */
} agglo_pair_params;

/* F(r) for spheres of radii ri, rj; *U (if not NULL) receives the potential. Beyond rc both are 0;
   the potentials are not shifted (U -> 0 at infinity) except groot_warren (0 at rc), lj
   (lj_shift) and the thesis capillary (shifted to 0 at rc, it diverges logarithmically). */
double agglo_pair_force(const agglo_pair_params *p, double r, double ri, double rj, double *U);

/* The forces alone, without cap, core or cut-off (for tests and plots), as magnitudes of the
   attraction (> 0 attracts) or repulsion (edl, > 0 repels) at surface gap H between equal spheres
   of radius R: the formulas as Mokkapati 2006 prints them. */
double agglo_vdw_thesis(double A, double R, double s);        /* (A/6) 64R^6 (s+2R) / ... */
double agglo_vdw_reduced_thesis(double a, double q);         /* a / (q^3 (q^2-1)^2) */
double agglo_capillary_thesis(double R, double gamma_s, double cos_theta, double V, double H);
double agglo_edl_thesis(double R, double sigma_q, double kappa, double eps_eps0, double H);

/* Capillary bridge rupture distance of Lian, Thornton, Adams (1993): the surface gap
   D_rupt = (1 + theta/2) V^(1/3), theta the contact angle (rad), V = pi R^3 alpha^4 / 2 the volume
   of the bridge formed at contact, R = 2 ri rj / (ri + rj). */
double agglo_capillary_rupture(const agglo_pair_params *p, double ri, double rj);

/* Groot-Warren at weight w = 1 - r/rc (r < rc): F = a w, *U (if not NULL) = a rc w^2 / 2. The
   law of agglo_pair_force, and of dpd_model.c's pair loop directly (its w is 1 - r (1/rc)). */
static inline double agglo_groot_warren(double a, double rc, double w, double *U) {
  if (U) *U = 0.5 * a * rc * w * w;
  return a * w;
}

/* DPD weight w(r) = 1 - r/rc (0 beyond rc); w_D = w^2, w_R = w. */
static inline double agglo_dpd_weight(double r, double rc) { return r < rc ? 1.0 - r / rc : 0.0; }

/* A readable name of a force kind ("vdw", ...), as in the scenario key. */
const char *agglo_pair_kind_name(int kind);

#endif
