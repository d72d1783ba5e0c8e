/* The shipped example scenarios: where they are, and a scenario file named by one of them, so
   that `agglo run maury_shear.ini` works from any directory. */
#include "examples.h"
#include "paths.h"
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *agglo_cli_examples_dir(void) {
  static char dir[PATH_MAX];
  static int done;
  if (done) return dir[0] ? dir : NULL;
  done = 1;
  /* beside the installed program (<prefix>/bin/../share/agglo/examples): whatever the prefix
     given to cmake --install */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      char rel[PATH_MAX + 64];
      snprintf(rel, sizeof rel, "%s/%s", exe, AGGLO_EXAMPLES_FROM_BIN);
      if (agglo_cli_is_dir(rel) && realpath(rel, dir)) return dir; /* without bin/.. */
    }
  }
  /* the build tree's program: the source tree's examples/; else the configured install place */
  const char *fixed[] = {AGGLO_SOURCE_EXAMPLES, AGGLO_INSTALL_EXAMPLES};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (agglo_cli_is_dir(fixed[i])) return snprintf(dir, sizeof dir, "%s", fixed[i]), dir;
  dir[0] = 0;
  return NULL;
}

const char *agglo_cli_scenario(const char *cmd, const char *given, int quiet) {
  static char found[PATH_MAX + 256];
  const char *dir;
  /* a file that is there, or a path (with a slash): taken as given; a missing path whose name
     is a shipped example's gets a hint (examples/maury_shear.ini outside the source tree) */
  if (!given || access(given, F_OK) == 0 || !(dir = agglo_cli_examples_dir())) return given;
  const char *slash = strrchr(given, '/');
  if (slash) {
    snprintf(found, sizeof found, "%s/%s", dir, slash + 1);
    if (slash[1] && agglo_cli_is_file(found))
      fprintf(stderr, "agglo %s: %s does not exist; the shipped example of that name is %s "
              "(agglo %s %s)\n", cmd, given, found, cmd, slash + 1);
    return given;
  }
  size_t len = strlen(given);
  const char *ext = len > 4 && !strcmp(given + len - 4, ".ini") ? "" : ".ini";
  snprintf(found, sizeof found, "%s/%s%s", dir, given, ext);
  if (!agglo_cli_is_file(found)) return given;
  if (!quiet)
    fprintf(stderr, "agglo %s: %s is not in this directory: taking the shipped example %s\n", cmd, given, found);
  return found;
}

/* One line on each shipped example (a file of the directory without one is listed bare). */
static const char *const described[][2] = {
    {"ballistic_paper_400.ini", "ballistic aggregation, the paper's setup, time stepping"},
    {"ballistic_event_driven_400.ini", "the same, exact event-driven dynamics"},
    {"ballistic_3d.ini", "ballistic, 3D, polydisperse, periodic"},
    {"ballistic_large_ts.ini", "ballistic time stepping, N = 100 000 (performance)"},
    {"brownian_3d.ini", "Brownian aggregation in 3D, N = 2000, periodic cube"},
    {"dlca_3d.ini", "Brownian cluster-cluster aggregation (DLCA), 3D, N = 2000"},
    {"dpd_breakup_capillary.ini", "a capillary agglomerate of 100 broken up by shear"},
    {"dpd_breakup_vdw.ini", "a van der Waals agglomerate of 100 broken up by shear"},
    {"dpd_capillary.ini", "375 particles, capillary bridges (Mokkapati Tab. 5-6)"},
    {"dpd_colloids_solvent.ini", "30 colloids aggregating in an explicit DPD solvent"},
    {"dpd_groot_warren.ini", "Groot-Warren DPD fluid, N = 24 000 (validation, benchmark)"},
    {"dpd_shear.ini", "Groot-Warren DPD fluid under Lees-Edwards shear, N = 3000"},
    {"dpd_vdw.ini", "375 particles, van der Waals, 25^3, rc = 3 (Mokkapati Tab. 3-4)"},
    {"dpd_vdw_si.ini", "the van der Waals case in SI units (prints the conversion)"},
    {"gluey_billiard.ini", "two spheres glue, rotate, separate (Lefebvre Fig. 15)"},
    {"gluey_lotto.ini", "160 particles in a rotating box (Lefebvre Fig. 16)"},
    {"gluey_plane.ini", "particle pushed onto a plane, then pulled (Lefebvre Figs. 2, 12)"},
    {"gluey_sedimentation.ini", "3000 rough gluey particles through a funnel and a wheel"},
    {"maury_brownian_500.ini", "Brownian, N = 500 (Maury Fig. 2)"},
    {"maury_brownian_2000.ini", "Brownian, N = 2000 (Maury Fig. 3; the built-in default)"},
    {"maury_brownian_5000.ini", "Brownian, N = 5000 (Maury Fig. 4)"},
    {"maury_shear.ini", "oscillating shear, N = 1000 (Maury Fig. 1)"},
    {"maury_shear_periodic_x.ini", "the shear case periodic along the flow (recommended)"},
};

int agglo_cli_list_examples(FILE *f) {
  const char *dir = agglo_cli_examples_dir();
  if (!dir) {
    fprintf(f, "example scenarios: none found (looked beside the program in %s, in %s and in %s)\n",
            AGGLO_EXAMPLES_FROM_BIN, AGGLO_SOURCE_EXAMPLES, AGGLO_INSTALL_EXAMPLES);
    return 1;
  }
  fprintf(f, "example scenarios in %s\n(`agglo run NAME.ini` takes one from any directory without "
          "a NAME.ini of its own):\n", dir);
  struct dirent **names;
  int n = scandir(dir, &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name, *what = "";
    size_t len = strlen(name);
    char path[PATH_MAX + 320];
    snprintf(path, sizeof path, "%.*s/%s", PATH_MAX, dir, name);
    if (len > 4 && !strcmp(name + len - 4, ".ini") && agglo_cli_is_file(path)) {
      for (size_t k = 0; k < sizeof described / sizeof *described; k++)
        if (!strcmp(described[k][0], name)) what = described[k][1];
      fprintf(f, "  %-31s %s\n", name, what);
    }
    free(names[i]);
  }
  if (n >= 0) free(names);
  return 0;
}
