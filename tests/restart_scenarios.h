/* Scenarios whose runs are cut and restarted, shared by test_run.c (text restart points) and
   test_checkpoint_h5.c (state.h5). Each ends at `snapshots = `, which each test completes: the
   pictures are worth their time in one of the two only. */
#ifndef AGGLO_TEST_RESTART_SCENARIOS_H
#define AGGLO_TEST_RESTART_SCENARIOS_H

/* 2D periodic Brownian aggregation, area fraction ~0.2: contacts and warm starts matter. */
#define SCENARIO_BROWNIAN_2D                                                                       \
  "[run]\ndim = 2\nseed = 11\ndt = 0.02\nt_end = 1\n"                                             \
  "[particles]\nn = 300\nradius = 0.01\nradius_spread = 0.15\n"                                   \
  "[box]\nsize = 0.8\nboundary = periodic\n"                                                      \
  "[drag]\ntau = 0.2\n[brownian]\nsigma = 1\n"                                                    \
  "[attraction]\nkappa = 0.003\nepsilon = 0.003\n"                                                \
  "[output]\ntrajectory_interval = 0.1\nstats_interval = 0\nsnapshots = "

/* Gluey particles falling through a funnel onto spheres: obstacle lists longer than a line of
   scenario.ini (written on continuation lines), glued rows, the active-set solver. */
#define SCENARIO_GLUEY_FUNNEL                                                                      \
  "[run]\nmodel = gluey\ndim = 2\nseed = 2\nt_end = 0.3\ndt = 0.001\n"                            \
  "[particles]\nn = 120\nradius = 0.02\nradius_spread = 0.25\nmass_rule = uniform\nmass = 2\n"   \
  "[box]\nsize = 1, 1.5\nboundary = wall\n[gravity]\ng = 0, -10\n"                                \
  "[gluey]\ngamma_min = -10\nregion = 0.05, 0.85, 0.95, 1.45\nglued_rows = keep\n"               \
  "[solver]\nmethod = active_set\ntol = 1e-4\ncompliance = 1e-4\n"                                \
  "[obstacles]\nsegments = 0, 0.8, 0.45, 0.6, 1, 0.8, 0.55, 0.6\n"                                \
  "spheres = 0.3, 0.3, 0.08, 0.5, 0.25, 0.08,\n  0.7, 0.3, 0.08\n"                                \
  "[output]\ntrajectory_interval = 0.05\nstats_interval = 0.01\nsnapshots = "

/* DPD with capillary bridges with memory and the transverse thermostat: the bridges and the
   temperature record are restart state (contacts.txt). */
#define SCENARIO_DPD_CAPILLARY                                                                     \
  "[run]\nmodel = dpd\ndim = 3\nseed = 4\ndt = 0.0005\nt_end = 0.2\n"                             \
  "[particles]\nn = 300\nradius = 0.5\nradius_spread = 0.1\nmass = 1\n"                           \
  "[box]\nsize = 12\nboundary = periodic\n"                                                       \
  "[dpd]\nconservative = capillary\ncapillary_bridge = memory\nthermostat = transverse\n"         \
  "kT = 0.3333333333333333\ngamma = 13.5\nrc = 3\nmin_gap = 0.02\ncore_k = 100000\n"              \
  "[output]\ntrajectory_interval = 0.05\nstats_interval = 0.01\nsnapshots = "

/* Ballistic time stepping with walls, 2D, on a lattice. */
#define SCENARIO_BALLISTIC_2D                                                                      \
  "[run]\nmodel = ballistic\ndim = 2\nseed = 3\nt_end = 400\n"                                    \
  "[particles]\nn = 400\nradius = 1\nradius_spread = 0\nplacement = lattice\nfraction = 0.2\n"   \
  "[box]\nsize =\nboundary = wall\n"                                                              \
  "[ballistic]\nmethod = time_stepping\nvelocity = uniform\nstop = t_end\n"                       \
  "[output]\ntrajectory_interval = 40\nstats_interval = 40\nsnapshots = "

#endif
