/* An aggregate as the input of other scattering codes (docs/scattering.md): MSTM's input file
   (Mackowski & Mishchenko, JQSRT 112, 2182, 2011; MSTM v3's keyword/value lines) and DDSCAT's
   FROM_FILE shape file (Draine & Flatau, DDSCAT 7 User Guide: a description line, NAT, the target
   axes a1 and a2, the lattice spacings (dx, dy, dz)/d, the offset x0 of site 0 0 0, a header,
   then one line "JA IX IY IZ ICOMP_x ICOMP_y ICOMP_z" per dipole). Each is written to PATH.part
   and renamed when complete. */
#include "analysis/spheres.h"
#include "agglo/scattering.h"
#include "core/error.h"
#include "core/files.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_part(const char *fn, const char *path, char *part, size_t size) {
  if ((size_t)snprintf(part, size, "%s.part", path) >= size) {
    agglo_error(AGGLO_ERROR_INPUT, "%s: %s: the path is too long (at most %zu bytes)", fn, path, size - 6);
    return NULL;
  }
  errno = 0;
  FILE *f = fopen(part, "w");
  if (!f) agglo_error(AGGLO_ERROR_INPUT, "%s: %s: cannot write: %s", fn, part, strerror(errno));
  return f;
}

static agglo_status close_part(const char *fn, FILE *f, const char *part, const char *path) {
  char err[AGGLO_ERROR_LEN - 128];
  if (agglo_file_finish(f, part, 0, err, sizeof err) != 0) {
    remove(part);
    return agglo_error(AGGLO_ERROR_INPUT, "%s: %s", fn, err);
  }
  if (rename(part, path) != 0) {
    int e = errno;
    remove(part);
    return agglo_error(AGGLO_ERROR_INPUT, "%s: cannot rename %s to %s: %s", fn, part, path, strerror(e));
  }
  return AGGLO_OK;
}

static agglo_status check_spheres(const char *fn, const char *path, const double *x, const double *r,
                                  size_t n) {
  if (!path || !x || !r) return agglo_error(AGGLO_ERROR_INPUT, "%s: path, x or r is NULL", fn);
  if (n == 0) return agglo_error(AGGLO_ERROR_INPUT, "%s: n = 0 (an aggregate needs a sphere)", fn);
  return agglo_check_spheres(fn, x, r, n);
}

/* [choice] MSTM's file centres the aggregate on the mean of its sphere centres (the origin of its
   T matrix in random orientation) and gives the lengths in the aggregate's units with
   length_scale_factor = 2 pi / lambda (MSTM multiplies every length by it: size parameters), every
   sphere with the refractive index m, in random orientation. */
agglo_status agglo_write_mstm(const char *path, const double *x, const double *r, size_t n,
                              double lambda, double m_re, double m_im) {
  const char *fn = "agglo_write_mstm";
  agglo_status st = check_spheres(fn, path, x, r, n);
  if (st != AGGLO_OK) return st;
  if (!(lambda > 0) || !isfinite(lambda))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: lambda = %g (the wavelength: finite and > 0)", fn, lambda);
  if (!isfinite(m_re) || !isfinite(m_im) || m_im < 0)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: m = %g + %gi (finite, imaginary part >= 0)", fn, m_re, m_im);
  char part[4200];
  FILE *f = open_part(fn, path, part, sizeof part);
  if (!f) return AGGLO_ERROR_INPUT;
  double c[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) c[k] += x[3 * i + k] / (double)n;
  fprintf(f, "begin_comment\nagglo: %zu spheres, wavelength %.10g, m = %.10g + %.10gi\nend_comment\n"
             "number_spheres\n%zu\nlength_scale_factor\n%.15g\nfixed_or_random_orientation\n1\n"
             "sphere_sizes_and_positions\n", n, lambda, m_re, m_im, n, 2 * M_PI / lambda);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%.15g %.15g %.15g %.15g %.10g %.10g\n", r[i], x[3 * i] - c[0], x[3 * i + 1] - c[1],
            x[3 * i + 2] - c[2], m_re, m_im);
  fprintf(f, "end_of_options\n");
  return close_part(fn, f, part, path);
}

static int by_site(const void *a, const void *b) {
  const int32_t *p = a, *q = b;
  for (int k = 2; k >= 0; k--)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return 0;
}

/* [choice] DDSCAT's dipoles: the sites (i, j, k) d of the cubic lattice of spacing d through the
   origin of the aggregate's coordinates (x0 = 0 0 0, a1 = x, a2 = y, dx = dy = dz = d) whose
   centre lies inside at least one sphere (|site - x_i| <= r_i), each once; one composition. */
agglo_status agglo_write_ddscat(const char *path, const double *x, const double *r, size_t n,
                                double spacing, int64_t max_dipoles, int64_t *dipoles) {
  const char *fn = "agglo_write_ddscat";
  agglo_status st = check_spheres(fn, path, x, r, n);
  if (st != AGGLO_OK) return st;
  if (!(spacing > 0) || !isfinite(spacing))
    return agglo_error(AGGLO_ERROR_INPUT, "%s: spacing = %g (the lattice spacing: finite and > 0)", fn, spacing);
  if (max_dipoles < 1 || max_dipoles > 1000000000)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: max_dipoles = %lld (allowed 1 .. 1e9)", fn, (long long)max_dipoles);
  /* the sites of every sphere's bounding cube, counted first: the bound before any memory */
  double cube = 0;
  for (size_t i = 0; i < n; i++) {
    double side = floor((x[3 * i] + r[i]) / spacing) - ceil((x[3 * i] - r[i]) / spacing) + 1;
    cube += pow(fmax(side, 1) + 1, 3);
    if ((fabs(x[3 * i]) + r[i]) / spacing > 1e9 || (fabs(x[3 * i + 1]) + r[i]) / spacing > 1e9 ||
        (fabs(x[3 * i + 2]) + r[i]) / spacing > 1e9)
      return agglo_error(AGGLO_ERROR_INPUT, "%s: sphere %zu lies 1e9 lattice spacings (%g) from the "
                         "origin or more: a larger spacing", fn, i, spacing);
  }
  if (cube > 2.0 * (double)max_dipoles + 1e6)
    return agglo_error(AGGLO_ERROR_INPUT, "%s: spacing %g gives about %.4g dipoles, above max_dipoles "
                       "= %lld (agglo analyze: --max-dipoles, at most 1e9): a larger spacing", fn,
                       spacing, cube * M_PI / 6, (long long)max_dipoles);
  int32_t *s = malloc(((size_t)cube + 1) * 3 * sizeof *s);
  if (!s) return agglo_error(AGGLO_ERROR_MEMORY, "%s: out of memory (%.4g sites)", fn, cube);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; k++)
      lo[k] = (int32_t)ceil((x[3 * i + k] - r[i]) / spacing), hi[k] = (int32_t)floor((x[3 * i + k] + r[i]) / spacing);
    for (int32_t c = lo[2]; c <= hi[2]; c++)
      for (int32_t b = lo[1]; b <= hi[1]; b++)
        for (int32_t a = lo[0]; a <= hi[0]; a++) {
          double dx = a * spacing - x[3 * i], dy = b * spacing - x[3 * i + 1], dz = c * spacing - x[3 * i + 2];
          if (dx * dx + dy * dy + dz * dz <= r[i] * r[i]) s[3 * m] = a, s[3 * m + 1] = b, s[3 * m + 2] = c, m++;
        }
  }
  qsort(s, m, 3 * sizeof *s, by_site);
  size_t u = 0;
  for (size_t j = 0; j < m; j++)
    if (u == 0 || by_site(s + 3 * j, s + 3 * (u - 1)) != 0) memmove(s + 3 * u++, s + 3 * j, 3 * sizeof *s);
  if (u == 0 || u > (size_t)max_dipoles) {
    free(s);
    return agglo_error(AGGLO_ERROR_INPUT, "%s: spacing %g gives %zu dipoles (allowed 1 .. max_dipoles = "
                       "%lld): %s spacing", fn, spacing, u, (long long)max_dipoles, u ? "a larger" : "a smaller");
  }
  char part[4200];
  FILE *f = open_part(fn, path, part, sizeof part);
  if (!f) {
    free(s);
    return AGGLO_ERROR_INPUT;
  }
  fprintf(f, "agglo aggregate: %zu spheres, dipole spacing d = %.6g\n", n, spacing);
  fprintf(f, "%zu = NAT\n1.000000 0.000000 0.000000 = A_1 vector\n0.000000 1.000000 0.000000 = A_2 vector\n"
             "1.000000 1.000000 1.000000 = lattice spacings (d_x,d_y,d_z)/d\n"
             "0.000000 0.000000 0.000000 = lattice offset x0(1-3) = (x_TF,y_TF,z_TF)/d for dipole 0 0 0\n"
             "     JA  IX  IY  IZ ICOMP(x,y,z)\n", u);
  for (size_t j = 0; j < u; j++)
    fprintf(f, "%zu %d %d %d 1 1 1\n", j + 1, s[3 * j], s[3 * j + 1], s[3 * j + 2]);
  free(s);
  if (dipoles) *dipoles = (int64_t)u;
  return close_part(fn, f, part, path);
}
