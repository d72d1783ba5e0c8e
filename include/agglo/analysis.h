/* agglo's analysis toolkit over plain arrays (docs/analysis.md gives every formula). Positions are
   n x 3 row-major (z = 0 in 2D); box = NULL means open space (no periodic images). Errors as in
   agglo.h: an agglo_status and agglo_last_error(). */
#ifndef AGGLO_ANALYSIS_PUBLIC_H
#define AGGLO_ANALYSIS_PUBLIC_H
#include "agglo.h"
#include "scattering.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Cluster labels: particles i, j touch when |x_i - x_j| - r_i - r_j < contact_gap; labels[i] is
   the smallest index of i's cluster. *n_clusters (if not NULL) receives the count. */
agglo_status agglo_analysis_cluster_labels(const double *x, const double *r, size_t n, int dim,
                                           const agglo_box *box, double contact_gap,
                                           int32_t *labels, size_t *n_clusters);

/* Sizes of the clusters of a labelling, largest first, into sizes (room for n). */
agglo_status agglo_analysis_cluster_sizes(const int32_t *labels, size_t n, size_t *sizes,
                                          size_t *n_clusters);

/* Gyration tensor (3 x 3, row-major) about the centre of mass of n points (already unwrapped),
   weights m (NULL: equal), and the radius of gyration (sqrt of its trace). */
agglo_status agglo_analysis_gyration(const double *x, const double *m, size_t n, double tensor[9],
                                     double *rg);

/* Box-counting dimension of n points on the bounding grid (docs/analysis.md): occupied cells of
   the 2^k grids over the smallest square (cube) holding the points, fitted over cell sides in
   [eps_min, L/2]. eps and counts (if not NULL, room for 64) receive the curve and *npoints its
   length. */
agglo_status agglo_analysis_box_counting(const double *x, size_t n, int dim, double eps_min,
                                         double *dimension, double *eps, double *counts,
                                         int *npoints);
/* The same on the grid of Degond et al. 2024 (eq. 4.15): 2^k cells per axis over the box
   (required), eps_k = L/2^k with L its largest side; the points lie in the box. */
agglo_status agglo_analysis_box_counting_box(const double *x, size_t n, int dim,
                                             const agglo_box *box, double eps_min,
                                             double *dimension, double *eps, double *counts,
                                             int *npoints);
/* Which grid the run statistics and agglo_analyze_trajectory count on. */
/* AUTO (analysis.box_counting of a run only): the grid the model's entry names (box_grid) */
enum { AGGLO_BOX_COUNTING_BOX = 0, AGGLO_BOX_COUNTING_BOUNDING = 1, AGGLO_BOX_COUNTING_AUTO = 2 };

/* Mass-radius dimension: the slope D of R_g ~ s^(1/D) over clusters with size >= min_size, and
   (kf not NULL) the prefactor k_f of s = k_f (R_g/a)^D for particles of radius a > 0. */
agglo_status agglo_analysis_mass_radius(const size_t *sizes, const double *rg, size_t n_clusters,
                                        size_t min_size, double *dimension);
agglo_status agglo_analysis_mass_radius_prefactor(const size_t *sizes, const double *rg,
                                                  size_t n_clusters, size_t min_size, double a,
                                                  double *dimension, double *kf);

/* Relative contacts per sphere N_c: (1/(k N)) sum_{i,j} 1{|x_i - x_j| <= dist}, i = j included,
   k = 6 in 2D and 12 in 3D. */
agglo_status agglo_analysis_contacts_per_sphere(const double *x, size_t n, int dim,
                                                const agglo_box *box, double dist, double *nc);

/* Cumulative pair distribution P(r_k) = (1/N) sum_{i, j != i} 1{|x_i - x_j| <= r_k}. */
agglo_status agglo_analysis_pair_distribution(const double *x, size_t n, int dim,
                                              const agglo_box *box, const double *radii_r,
                                              size_t n_r, double *p);

/* The ellipsoid with the second moments of n member spheres (centres x, already unwrapped, radii
   r): semi-axes (descending) and their directions (columns of axes, may be NULL). */
agglo_status agglo_analysis_ellipsoid(const double *x, const double *r, size_t n, double semi[3],
                                      double axes[9]);
/* Its class with relative tolerance tol, by the axis ratios of a1 >= a2 >= a3 (any order given):
   "a ~ b" when b >= (1 - tol) a; sphere a1 ~ a2 and a2 ~ a3, prolate a2 ~ a3 only, oblate
   a1 ~ a2 only, else scalene (the rule of `agglo agglomerates`). -1 (and the message) on bad
   input. */
enum { AGGLO_SPHERE = 0, AGGLO_PROLATE = 1, AGGLO_OBLATE = 2, AGGLO_SCALENE = 3 };
int agglo_analysis_ellipsoid_class(const double semi[3], double tol);

/* Kinetic temperature k_B T = sum m |v - v_cm|^2 / (dim (n - 1)) (the centre-of-mass motion
   removed), as the DPD model reports it. */
agglo_status agglo_analysis_temperature(const double *v, const double *m, size_t n, int dim,
                                        double *kT);
/* The same of the peculiar velocities v - u(y) in a sheared box: u_x(y) = box->shear_rate (y -
   y_mid), y_mid the middle of the box along y (DPD's dpd.shear_rate, docs/dpd.md "Shear": the
   `temperature` column of stats.csv); x: the n x 3 positions. box->shear_rate = 0 (or box NULL):
   agglo_analysis_temperature, the same bits. */
agglo_status agglo_analysis_peculiar_temperature(const double *x, const double *v, const double *m,
                                                 size_t n, int dim, const agglo_box *box, double *kT);

/* Smoluchowski's coagulation equation (docs/analysis.md, "Kinetics"), discrete, truncated at
   kmax: n_k = clusters of size k per initial particle. Kernels K(i, j), with r ~ s^(1/df):
   constant 1; additive i + j; ballistic (free molecular) (i^(1/df) + j^(1/df))^(dim-1)
   sqrt(1/i + 1/j); Brownian (continuum) (i^(1/df) + j^(1/df)) (i^(-1/df) + j^(-1/df)); Fuchs
   (3D, every Knudsen regime: agglo_fuchs_kernel over 4 pi D_1 a, in units of a monomer's radius a
   and diffusion coefficient D_1; its persistence length lambda_1 = persistence a; a cluster of i
   monomers has collision radius i^(1/df), mean thermal speed c_1 / sqrt(i) and the dlca model's
   friction law at the gas Knudsen number knudsen (docs/dlca.md); persistence -> 0 is Brownian). */
enum { AGGLO_KERNEL_CONSTANT = 0, AGGLO_KERNEL_ADDITIVE = 1, AGGLO_KERNEL_BALLISTIC = 2,
       AGGLO_KERNEL_BROWNIAN = 3, AGGLO_KERNEL_FUCHS = 4 };
#define AGGLO_SMOLUCHOWSKI_KMAX 4096
typedef struct {
  int kernel;        /* AGGLO_KERNEL_* */
  int dim;           /* 2 or 3 (the ballistic cross-section) */
  double df;         /* the clusters' fractal dimension in r ~ s^(1/df); 0: dim */
  size_t kmax;       /* the largest size kept (2 .. AGGLO_SMOLUCHOWSKI_KMAX) */
  int64_t max_steps; /* bound on the Runge-Kutta steps (1 .. 1e9) */
  /* AGGLO_KERNEL_FUCHS only: a monomer's persistence length and the gas's mean free path, in
     monomer radii; the projected-area exponent (0: 0.92) and the mobility law (0: adjusted
     sphere, 1: mobility sphere; dlca.mobility) */
  double persistence, knudsen, area_exponent;
  int mobility;
} agglo_smoluchowski_options;
double agglo_smoluchowski_kernel(int kernel, int dim, double df, double i, double j);
/* K(i, j) of the options' kernel (any kernel, Fuchs's included). */
double agglo_smoluchowski_kernel_of(const agglo_smoluchowski_options *o, double i, double j);
/* Fuchs's coagulation kernel (Seinfeld & Pandis, Atmospheric Chemistry and Physics, 2016, Table
   13.1) of two spheres of radii r_i, r_j, diffusion coefficients D_i, D_j and mean thermal speeds
   c_i, c_j (consistent units; the collision rate per unit density of each): continuum
   4 pi (D_i + D_j)(r_i + r_j) to free molecular pi (r_i + r_j)^2 sqrt(c_i^2 + c_j^2). */
double agglo_fuchs_kernel(double ri, double rj, double Di, double Dj, double ci, double cj);
/* n (kmax values) advanced from t = 0 to t_end; *lost (may be NULL) = the share of the mass
   that passed kmax, *steps (may be NULL) the steps taken. AGGLO_ERROR_RUN when max_steps end
   before t_end (n then holds the state reached). */
agglo_status agglo_smoluchowski_solve(const agglo_smoluchowski_options *o, double t_end, double *n,
                                      double *lost, int64_t *steps);
/* A measured mean size size[a] at t[a] (a < m) against the solution from n_1(0) = 1 whose time
   is tau = scale * t: scale fitted (the mean of log(tau_S / t), tau_S the solution's time of
   the measured S), and the relative deviation |S - S_smol(scale t)| / S_smol over the points. The
   solution runs until it passes the largest measured size or loses 1e-3 of its mass past kmax.
   curve_tau/curve_size (if not NULL, room for curve_max) receive the solution. */
typedef struct {
  double scale;                         /* tau per unit of t (NAN: no point to fit) */
  size_t points, compared;              /* points fitted, points compared */
  double max_deviation, mean_deviation; /* relative */
  double lost, size_reached;            /* the solution's mass loss and largest mean size */
  int64_t steps;
} agglo_smoluchowski_fit_result;
agglo_status agglo_smoluchowski_fit(const agglo_smoluchowski_options *o, const double *t,
                                    const double *size, size_t m, agglo_smoluchowski_fit_result *r,
                                    double *curve_tau, double *curve_size, size_t *curve_n,
                                    size_t curve_max);

/* The growth exponent z of the mean size, S(t) ~ t^z: the least-squares slope of log S against
   log t over the points with t_lo <= t <= t_hi, t > 0 and S > 0; *se its standard error
   (NAN with fewer than 3 points), *used the points. NAN with fewer than 2 points. */
double agglo_growth_exponent(const double *t, const double *size, size_t m, double t_lo,
                             double t_hi, double *se, size_t *used);

/* Reading trajectories (extended XYZ: agglo's, or any with positions, and radii or a default):
   one frame at a time, its arrays viewed as for a simulation (valid until the next frame). */
/* Trajectories, frame by frame: extended XYZ (columns by Properties=) or H5MD (told apart by the
   HDF5 signature; docs/formats.md). */
typedef struct agglo_trajectory agglo_trajectory;
/* default_radius: the radius of every particle when a frame has none (<= 0: an error then). */
agglo_status agglo_trajectory_open(const char *path, double default_radius, agglo_trajectory **out);
/* Read the next frame: AGGLO_OK with *got = 1, or *got = 0 at the end of the file. */
agglo_status agglo_trajectory_next(agglo_trajectory *tr, int *got);
size_t agglo_trajectory_count(const agglo_trajectory *tr);
int agglo_trajectory_dim(const agglo_trajectory *tr);
double agglo_trajectory_time(const agglo_trajectory *tr);
int64_t agglo_trajectory_step(const agglo_trajectory *tr);
agglo_status agglo_trajectory_box(const agglo_trajectory *tr, agglo_box *box);
const double *agglo_trajectory_positions(const agglo_trajectory *tr);
const double *agglo_trajectory_velocities(const agglo_trajectory *tr);
const double *agglo_trajectory_radii(const agglo_trajectory *tr);
const int64_t *agglo_trajectory_ids(const agglo_trajectory *tr);
const int32_t *agglo_trajectory_clusters(const agglo_trajectory *tr);
void agglo_trajectory_close(agglo_trajectory *tr);
/* Copy every frame of a trajectory (extended XYZ or H5MD, as agglo_trajectory_open reads) into
   out: H5MD when out ends in .h5md or .h5 (with its .xdmf beside it), else extended XYZ.
   Lossless both ways (docs/formats.md): H5MD in double precision, XYZ with each double's shortest exact text, the
   observables (H5MD observables/ <-> key=value pairs of the XYZ comment line), the units and the
   species (an XYZ type column) carried. */
agglo_status agglo_trajectory_convert(const char *in, const char *out, double default_radius);

/* The analysis of a trajectory file behind `agglo analyze` (docs/analysis.md): the indicator
   files written into out_dir (created if needed), the reported frame's numbers returned. out_dir
   is held as a run holds its directory (agglo.lock); the files are written as NAME.part and
   renamed only when all are written (a failed analysis leaves the earlier one as it was); a
   directory holding an earlier analysis is refused unless overwrite. */
typedef struct {
  const char *path;    /* trajectory (extended XYZ or H5MD) */
  const char *out_dir; /* analysis.csv (a row per analysed frame), clusters.csv (the reported
                          frame's clusters) */
  int frame;           /* frame to report in detail (1-based; 0 = the last) */
  int all;             /* indicators of every frame (else only the reported one) */
  double contact_gap;  /* > 0: touching below this gap; else 0.1 times the mean radius */
  double radius;       /* radius when the file has none */
  int rdf;             /* g(r) into rdf.csv: averaged over every frame, or frame `frame` */
  double rdf_max;      /* its range (<= 0: half the smallest box side) */
  int rdf_bins;        /* its bins (0: 100) */
  int msd;             /* mean-square displacement over every frame into msd.csv, and D */
  int curves;          /* the reported frame's curves (implies all): box_counting.dat (largest
                          cluster), pair_distribution.dat, size_distribution.dat, rg_size.dat */
  int box_counting;    /* AGGLO_BOX_COUNTING_BOX (0, the paper's grid) or _BOUNDING */
  size_t min_size;     /* mass-radius fit over clusters of at least this size (0: 3) */
  int mass_radius_fracval; /* also the fit with the tunable aggregates' definitions (R_g weighted
                              by r^3, each cluster's geometric mean radius: FracVAL's; the result's
                              fractal_dimension_fracval, prefactor_fracval; else they are NAN) */
  int overwrite;       /* replace an earlier analysis in out_dir (else it is refused); every
                          file of it goes, those this one does not write too */
  /* the reported frame's aggregates as scatterers and aerosol particles (docs/scattering.md) */
  int clusters_all;    /* which: 0 the largest cluster, 1 every cluster (S and I averaged per
                          monomer, a mobility and an optics row each) */
  int sq;              /* S(q), I(q) into sq.csv (q, S, I, S_error), Guinier and power-law fits */
  double q_min, q_max; /* its range (0: 0.05 / R_g of the largest cluster, 1e-3 / a if R_g = 0;
                          10 / a), a the monomers' volume-equivalent mean radius */
  int q_count;         /* q values, log-spaced (0: 200; at most AGGLO_SQ_MAX_Q) */
  agglo_sq_options sq_options;
  double fit_q_min, fit_q_max; /* the power-law fit's range (0: 5 / R_g and 1 / a) */
  int mobility;        /* projected area and mobility diameters into mobility.csv */
  int64_t orientations, rays; /* its Monte Carlo (0: 200 orientations of 4000 rays) */
  uint64_t seed;       /* its random numbers */
  double knudsen;      /* mean free path over a for the transition's mobility diameter (0: none) */
  double mobility_df;  /* D_fm of R_m = a N^(1/D_fm) (0: the dlca default, 1.8 in 3D, 1.45 in 2D) */
  double area_exponent; /* gamma of the law's R_p = a N^(gamma/2), reported beside the measured
                           R_p (0: 0.92) */
  int mobility_law;    /* 0 adjusted sphere, 1 mobility sphere (dlca.mobility) */
  int optics;          /* RDG-FA cross-sections into optics.csv */
  double wavelength, m_re, m_im; /* for optics, mstm */
  agglo_optics_options optics_options;
  const char *mstm;    /* MSTM input file of the largest cluster (not NULL: written) */
  const char *ddscat;  /* DDSCAT shape file of the largest cluster */
  double dipole_spacing; /* its lattice spacing (0: a / 5) */
  int64_t max_dipoles; /* its bound (0: 1e7) */
} agglo_analyze_options;

typedef struct {
  int frames;          /* complete frames read */
  int frame;           /* the reported one (1-based) */
  int dim;
  /* the file ends inside a frame (a killed run): the complete frames before it were analysed,
     and warning says where it ends ("" otherwise) */
  char warning[2048];
  /* the reported frame's indicators, as in analysis.csv */
  double time;
  size_t n_particles, n_clusters, max_cluster_size;
  double mean_cluster_size, weight_avg_cluster_size;
  double fractal_dimension_box, fractal_dimension_mass, contacts_per_sphere;
  int box_levels;                  /* grid levels of the box-counting fit, eps from .. to */
  double box_eps_min, box_eps_max;
  double mass_prefactor;           /* k_f of s = k_f (R_g/r)^D_f */
  size_t mass_min_size;            /* the fit's smallest cluster size */
  /* mass_radius_fracval: D_f and k_f of s = k_f (R_g,v / a_geo)^D_f over the same clusters, R_g,v
     weighted by r^3 and a_geo each cluster's geometric mean radius (docs/aggregates.md) */
  double fractal_dimension_fracval, prefactor_fracval;
  /* the growth exponent of the mean cluster size over the frames, S ~ t^z, and its standard
     error, fitted over t_lo .. t_hi (the frames with mean size >= 2 and >= 10 clusters) */
  double growth_z, growth_se, growth_t_lo, growth_t_hi;
  size_t growth_points;
  double aspect_ratio, rg_largest; /* of the largest cluster */
  double contact_gap, r_mean;
  /* rdf: the highest value of g(r), where, over how many frames, its range */
  double rdf_peak, rdf_peak_r, rdf_max;
  size_t rdf_frames;
  /* msd: the diffusion coefficient of its linear part, over how many frames */
  double diffusion;
  size_t msd_frames;
  /* curves: points of box_counting.dat and clusters of rg_size.dat (R_g > 0), and the means of
     their logarithms (log eps, log N; log s, log R_g), where the fitted lines pass */
  int box_points;
  double box_log_eps, box_log_count;
  size_t rg_points;
  double rg_log_size, rg_log_rg;
  /* sq: clusters and monomers summed, the q range, how the sum was made (binned: bins, width,
     the largest error bound of S), the Guinier R_g (over guinier_points) and the direct one
     (the largest cluster's; all clusters: sqrt(sum N^2 R_g^2 / sum N^2), what Guinier sees),
     the power-law slope over fit_q_lo .. fit_q_hi (fit_points) */
  size_t sq_clusters, sq_monomers;
  double sq_q_min, sq_q_max;
  agglo_sq_info sq_info;
  double guinier_rg, direct_rg, sq_slope, fit_q_lo, fit_q_hi;
  double sq_s0, sq_log_prefactor; /* S(0) (sum N^2 / sum N) and c of the fitted ln S = c + slope ln q */
  /* 3D: the Gaussian cut-off model fitted to S over q <= fit_q_hi (agglo_cutoff_fit, D_f and R_g
     free; NAN in 2D), the root mean square of its ln S misfit */
  double sq_df_gaussian, sq_rg_gaussian, sq_gaussian_rms;
  size_t guinier_points, fit_points;
  /* mobility, of the largest cluster: its size, mean radius a, projected area (and standard
     error), R_p measured and by the law's exponent, R_m, and the mobility diameters */
  size_t mobility_size;
  double mobility_a, projected_area, projected_area_error, rp, rp_law, rm;
  double d_continuum, d_free_molecular, d_knudsen;
  agglo_optics_result optics; /* of the largest cluster (all: c_abs, c_sca summed) */
  int64_t ddscat_dipoles;
} agglo_analyze_result;
agglo_status agglo_analyze_trajectory(const agglo_analyze_options *o, agglo_analyze_result *r);
/* Ask the running analysis to stop (1; 0 withdraws the request), from a signal handler or
   another thread: agglo_analyze_trajectory and the long loops of agglo_structure_factor,
   agglo_cutoff_fit and agglo_projected_area give up within a fraction of a second, returning
   AGGLO_STOPPED (agglo_analyze_trajectory: its .part files removed, the directory released, the
   earlier analysis left; the request withdrawn). */
void agglo_analysis_request_stop(int stop);

enum { AGGLO_ELLIPSOID_MOMENTS = 0, AGGLO_ELLIPSOID_THESIS = 1 }; /* docs/dpd.md */
typedef struct {
  const char *path; /* extended XYZ trajectory */
  int frame;        /* 1-based; 0 = the last */
  double gap;       /* surface gap below which particles are bound */
  double tol;       /* relative tolerance of the ellipsoid classes */
  int bins;         /* histogram bins of the volumes */
  int row;          /* one line instead of the report */
  int definition;   /* AGGLO_ELLIPSOID_MOMENTS (same second moments) or _THESIS (the literal one) */
  double min_radius; /* only particles of radius >= min_radius (colloids among solvent beads) */
} agglo_agglomerates_options;
/* The report of `agglo agglomerates` into *text (free it with agglo_free). */
agglo_status agglo_agglomerates_report(const agglo_agglomerates_options *o, char **text);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
