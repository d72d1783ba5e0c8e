/* Aggregates as scatterers and as aerosol particles (docs/scattering.md): the structure factor
   S(q) and intensity I(q) of monomers (Debye's pair sum, exact or binned with a stated error),
   its Guinier and power-law fits, the orientation-averaged projected area (Monte Carlo), the
   mobility diameter by the dlca model's mobility law, and RDG-FA optical cross-sections. Positions
   are n x 3 row-major, already unwrapped (one aggregate, open space); radii n values > 0. Errors
   as in agglo.h: an agglo_status and agglo_last_error(). */
#ifndef AGGLO_SCATTERING_PUBLIC_H
#define AGGLO_SCATTERING_PUBLIC_H
#include "agglo.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* How the pair sum is evaluated: AUTO exact up to exact_pairs pairs, binned beyond. */
enum { AGGLO_SQ_AUTO = 0, AGGLO_SQ_EXACT = 1, AGGLO_SQ_BINNED = 2 };
#define AGGLO_SQ_MAX_Q 100000          /* at most this many q values */
#define AGGLO_SQ_MAX_BINS 20000000     /* at most this many distance bins (3 doubles each) */
typedef struct {
  int method;         /* AGGLO_SQ_* */
  double tolerance;   /* binned: the bound on |S_binned - S_exact| at the largest q (0: 1e-3) */
  double exact_pairs; /* AUTO: the exact sum up to this many pairs (0: 2e5), and for I of
                         unequal radii up to 2e8 pairs x q values */
  double max_pairs;   /* refused beyond this many pairs (0: 5e8; at most 1e11) */
} agglo_sq_options;

typedef struct {
  int binned;          /* 1: binned Debye sum, 0: exact */
  size_t bins;         /* distance bins (binned) */
  double bin_width;    /* their width */
  double pairs;        /* monomer pairs summed */
  double max_error;    /* the largest of error[] (0 when exact) */
} agglo_sq_info;

/* The structure factor of n monomers (dim 3: S(q) = (1/n) sum_ij sin(q r_ij)/(q r_ij); dim 2, the
   planar analogue: J0(q r_ij)) at the nq values q > 0, into S; and (I not NULL) the intensity of
   the spheres (dim 2: discs) of radii r, I(q) = (1/n) sum_ij w_i w_j Phi(q r_i) Phi(q r_j)
   sinc(q r_ij), w_i = v_i / mean(v), v_i the volume (area), Phi the form-factor amplitude of a
   sphere 3 (sin x - x cos x)/x^3 (disc 2 J1(x)/x): I(0) = n for equal monomers, I = Phi^2 S. r =
   NULL: point scatterers (I = S). error (may be NULL) receives the bound on |S - S_exact| at each q
   (0 when exact). Binned: distances in bins of width chosen so the bound at the largest q is
   below o->tolerance; I of unequal radii is then NAN (its weights are per pair; raise
   exact_pairs). */
agglo_status agglo_structure_factor(const double *x, const double *r, size_t n, int dim,
                                    const double *q, size_t nq, const agglo_sq_options *o,
                                    double *S, double *intensity, double *error, agglo_sq_info *info);

/* The Guinier fit: least squares of ln S = c - q^2 R_g^2 / dim over the points below the first q
   where S < S0 exp(-1/dim) (q R_g <~ 1), S0 = S(q -> 0) (n for one aggregate). *rg NAN with fewer
   than 3 such points; *used (may be NULL) the points. */
agglo_status agglo_guinier_fit(const double *q, const double *S, size_t nq, int dim, double S0,
                               double *rg, size_t *used);
/* The power-law fit: the least-squares slope of ln S on ln q over q_lo <= q <= q_hi (NAN with
   fewer than 3 points; *used may be NULL). */
agglo_status agglo_power_law_fit(const double *q, const double *S, size_t nq, double q_lo,
                                 double q_hi, double *slope, size_t *used);
/* The cut-off model fit (docs/scattering.md): D_f and R_g minimising the squared misfit of
   ln(S / S0) against ln of the model S(q)/N = f(q R_g; D_f) of agglo_fractal_structure_factor
   (structure AGGLO_OPTICS_FISHER_BURFORD, _EXPONENTIAL or _GAUSSIAN) over the q <= q_hi, with
   D_f in (1, 3] and R_g within a factor 1.5 of rg_guess (> 0). *df, *rg NAN with fewer than 5
   points; *rms (may be NULL) the root mean square of the misfit, *used (may be NULL) the points. */
agglo_status agglo_cutoff_fit(const double *q, const double *S, size_t nq, int structure, double S0,
                              double rg_guess, double q_hi, double *df, double *rg, double *rms,
                              size_t *used);

/* Orientation-averaged projected area of n spheres (centres x, radii r; 2D runs: spheres in the
   plane z = 0) by Monte Carlo: `orientations` uniformly random orientations (1 .. 1e7), each
   with `rays` rays (1 .. 1e8; orientations x rays at most 1e10) uniform over the bounding
   rectangle of the projection, a ray counting when it meets a sphere. *area the mean, *error the
   standard error of the mean (the spread of the per-orientation estimates over sqrt(orientations);
   NAN with one orientation). seed: the Philox seed (the same seed, the same numbers). */
agglo_status agglo_projected_area(const double *x, const double *r, size_t n, uint64_t seed,
                                  int64_t orientations, int64_t rays, double *area, double *error);

/* The mobility law of the dlca model (docs/dlca.md, "The mobility of a cluster"): the friction
   of a cluster over 6 pi mu, a length, from its continuum mobility radius Rm and the radius Rp of
   the sphere of its orientation-averaged projected area, at the gas's mean free path mfp
   (0: continuum, Rm). law: 0 adjusted sphere (Rm / C_c(mfp Rm / Rp^2)), 1 mobility sphere
   (Rm / C_c(mfp / Rm)). */
double agglo_mobility_friction_length(int law, double Rm, double Rp, double mfp);
/* The mobility radius: the radius of the sphere with friction length f at mfp (r / C_c(mfp / r)
   = f; the continuum's r = f). */
double agglo_mobility_radius(double f, double mfp);

/* RDG-FA optics (Sorensen, Aerosol Sci. Technol. 35, 648, 2001) of n monomers of radii r in
   vacuum (or a medium: wavelength and m relative to it), wavelength lambda, refractive index
   m = m_re + i m_im. The structure factor of the scattering integral: */
enum { AGGLO_OPTICS_DEBYE = 0, AGGLO_OPTICS_FISHER_BURFORD = 1, AGGLO_OPTICS_EXPONENTIAL = 2,
       AGGLO_OPTICS_GAUSSIAN = 3 };
/* The model structure factors S(q)/N of a fractal of dimension df (1 < df <= 3) at x = q R_g >= 0
   (Sorensen 2001): Fisher-Burford (1 + 2 x^2 / (3 df))^(-df/2); the exponential cut-off of the
   pair correlation, sin((df - 1) atan(x c)) / ((df - 1) x c (1 + x^2 c^2)^((df - 1)/2)),
   c^2 = 2 / (df (df + 1)); the Gaussian cut-off 1F1(df/2; 3/2; -x^2/df). NAN for another
   structure or df out of range. */
double agglo_fractal_structure_factor(int structure, double df, double x);
#define AGGLO_OPTICS_MAX_ANGLES 100000
typedef struct {
  int structure;  /* AGGLO_OPTICS_*: the aggregate's own Debye sum (Rayleigh monomers, volume
                     weights) or a model S(q R_g) of fractal dimension df
                     (agglo_fractal_structure_factor) */
  double df;      /* the models' fractal dimension (1 < df <= 3) */
  int angles;     /* Gauss-Legendre points per panel of the integral over cos(theta) (0: 64;
                     1 .. AGGLO_OPTICS_MAX_ANGLES) */
  agglo_sq_options sq; /* the Debye sum's */
} agglo_optics_options;
typedef struct {
  double E, F;               /* E(m) = Im((m^2-1)/(m^2+2)), F(m) = |(m^2-1)/(m^2+2)|^2 */
  double k;                  /* 2 pi / lambda */
  double x_monomer;          /* k a, a the volume-equivalent mean radius of the monomers */
  double rg;                 /* radius of gyration of the centres */
  double c_abs_monomer, c_sca_monomer; /* Rayleigh, of a monomer of radius a */
  double c_abs, c_sca;       /* the aggregate's */
  double n;                  /* monomers */
  double g;                  /* c_sca / (n^2 c_sca_monomer) */
} agglo_optics_result;
agglo_status agglo_rdg_fa(const double *x, const double *r, size_t n, double lambda, double m_re,
                          double m_im, const agglo_optics_options *o, agglo_optics_result *res);

/* Input files of other codes for an aggregate (docs/scattering.md): MSTM's (Mackowski &
   Mishchenko 2011; keywords, then "sphere_sizes_and_positions": radius x y z Re(m) Im(m) per
   sphere, lengths times length_scale_factor = 2 pi / lambda) and DDSCAT's FROM_FILE shape file
   (Draine & Flatau: a cubic lattice of spacing d, a dipole at every site whose centre lies in a
   sphere). Both are written as PATH.part and renamed when complete. */
agglo_status agglo_write_mstm(const char *path, const double *x, const double *r, size_t n,
                              double lambda, double m_re, double m_im);
/* spacing: the lattice spacing d (> 0); *dipoles (may be NULL) the count written; refused
   beyond max_dipoles (1 .. 1e9). */
agglo_status agglo_write_ddscat(const char *path, const double *x, const double *r, size_t n,
                                double spacing, int64_t max_dipoles, int64_t *dipoles);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
