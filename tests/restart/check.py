#!/usr/bin/python3
"""Restart property test (tests/restart.cmake, docs/reliability.md "Every example restarts exactly").

usage: check.py [--times T1,T2,...] [--t-end T] [-s KEY=VALUE]... EXAMPLE FORMAT AGGLO STOP_AT [MPIEXEC]
       (prints FAIL: ... on failure, the row of the table on success)

For the shipped example EXAMPLE (examples/EXAMPLE.ini, its overrides below and any -s) and the
restart point format FORMAT (text or hdf5): the uninterrupted run to T (`agglo run`); for each
restart time t_k the same run stopped after its first step at t_k or later by STOP_AT
(restart_stop_at, tests/restart/stop_at.c: a callback's stop, as SIGTERM stops `agglo run`, the
restart point written at that step), then continued by `agglo run --resume DIR`. Every file the
uninterrupted run wrote (trajectory, stats, sizes, the final state and restart point) must equal
the continued run's byte for byte. With MPIEXEC every run is on 2 ranks (`mpirun -np 2`), from
the early and middle restart times to as far after the middle one as the serial run goes after
the late one (a step of these small runs costs several times more on 2 ranks than on one, most
of it waiting), or the times a fifth entry of the case gives.

The times are early, middle and late in a run long enough that the model's memory exists at
the later ones: contacts and their multipliers (contact), glued pairs and obstacle contacts
(gluey), links and merged clusters (ballistic), clusters in flight (dlca), capillary bridges and
the thermostat's temperature record (dpd); most fall between two stats rows, so that the restart
point carries the solver iterations since the last row. The overrides keep each case to seconds;
each says why. A new example needs its line in CASES (the test fails without one).
"""
import os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")

# example: (restart times, end time, overrides, what the restart points hold at the later times)
CASES = {
    # n = 300 (of 2000): 2000 particles take about 40 ms a step; a frame every 20 (of 100)
    "ballistic_3d": ((20, 63, 101), 120, {"particles.n": 300, "ballistic.stop": "t_end",
                                          "output.trajectory_interval": 20}, "links, merged clusters"),
    "ballistic_event_driven_400": ((50, 152, 251), 300, {"ballistic.stop": "t_end"},
                                   "merged clusters in flight"),
    # n = 2000 (of 100 000), a frame every 100 (none): a run of the example takes minutes
    "ballistic_large_ts": ((100, 310, 505), 600, {"particles.n": 2000, "ballistic.stop": "t_end",
                                                  "output.trajectory_interval": 100},
                           "links, merged clusters"),
    "ballistic_paper_400": ((50, 152, 251), 300, {"ballistic.stop": "t_end"}, "links, merged clusters"),
    # n = 500 (of 2000)
    "brownian_3d": ((0.2, 0.6, 1.0), 1.2, {"particles.n": 500}, "contacts, multipliers"),
    # n = 300 (of 2000), outputs every 200 (of 2000): the example aggregates to 1 cluster over hours
    "dlca_3d": ((200, 650, 1010), 1200, {"particles.n": 300, "dlca.stop": "t_end",
                                         "output.trajectory_interval": 200, "output.analysis_interval": 200},
                "clusters in flight"),
    # the restart times of issue 47's item 1 (t = 5, 15, 30) are in docs/reliability.md
    "dpd_capillary": ((0.5, 1.52, 2.51), 2.75, {}, "capillary bridges, temperature record",
                      ((0.25, 0.51), 0.6)),
    # a frame every 0.25 (of 2)
    # sheared (Lees-Edwards offset), from the aggregate file beside the example
    "dpd_breakup_capillary": ((0.25, 0.52, 0.78), 1, {}, "capillary bridges, temperature record"),
    "dpd_breakup_vdw": ((0.25, 0.52, 0.78), 1, {}, "temperature record"),
    "dpd_colloids_solvent": ((0.25, 0.52, 0.78), 1, {"output.trajectory_interval": 0.25}, "temperature record"),
    # n = 3000 in a box of 10 (the example's density 3; its 24 000 take 40 ms a step)
    "dpd_groot_warren": ((0.8, 2.44, 4.04), 4.8, {"particles.n": 3000, "box.size": 10},
                         "temperature record"),
    # n = 648 in a box of 6 (the example's density 3): the Lees-Edwards offset and the velocity
    # jump across the y faces at the restart times
    "dpd_shear": ((0.8, 2.44, 4.04), 4.8, {"particles.n": 648, "box.size": 6,
                                           "output.trajectory_interval": 0.4}, "temperature record"),
    "dpd_vdw": ((0.5, 1.02, 1.51), 1.75, {}, "temperature record"),
    # steps 1000, 2020, 3010 and 3500
    "dpd_vdw_si": ((1.734058863759e-08, 3.50279890479318e-08, 5.21951717994459e-08), 6.0692060231565e-08,
                   {}, "temperature record"),
    "gluey_billiard": ((2, 6.03, 10.05), 12, {}, "obstacle contacts"),
    "gluey_lotto": ((0.3, 0.905, 1.505), 1.8, {}, "glued pairs, obstacle contacts"),
    "gluey_plane": ((0.99, 2.49, 3.99), 4.5, {}, "obstacle contact"),
    # n = 600 (of 3000) in the same container
    "gluey_sedimentation": ((0.1, 0.305, 0.505), 0.6, {"particles.n": 600}, "glued pairs, wall contacts"),
    "maury_brownian_2000": ((0.2, 0.6, 1.0), 1.2, {}, "contacts, multipliers"),
    # stats every 3 steps (of 1): stops between rows
    "maury_brownian_500": ((0.4, 1.22, 2.02), 2.4, {"output.stats_interval": 0.06}, "contacts, multipliers"),
    # n = 2000 (of 5000)
    "maury_brownian_5000": ((0.1, 0.3, 0.5), 0.6, {"particles.n": 2000}, "contacts, multipliers"),
    # stats every 3 steps (of 1): stops between rows
    "maury_shear": ((0.4, 1.22, 2.02), 2.4, {"output.stats_interval": 0.06}, "contacts, wall contacts, multipliers"),
    "maury_shear_periodic_x": ((0.4, 1.2, 2.0), 2.4, {}, "contacts, wall contacts, multipliers"),
}
# the model of each example, for the table; the models MPI distributes (docs/parallel.md)
MPI_MODELS = ("contact", "dpd")
# (mpi_ranks.txt: the command line's note of the rank count, which restart_stop_at, an API client,
# does not write)
SKIP = ("agglo.lock", "scenario.ini", "parallel.csv", "mpi_ranks.txt")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def memory(out):
    """What the restart point in out holds, in words (text restart points: the model's records)."""
    said = []
    try:
        lines = open(os.path.join(out, "contacts.txt")).read().split("\n")
    except OSError:
        lines = []
    for k, line in enumerate(lines[:-1]):
        for head, what in (("# i j lambda gamma", "contacts"), ("# ballistic links", "links"),
                           ("# capillary bridges", "bridges")):
            if line.startswith(head):
                said.append(f"{int(lines[k + 1])} {what}")
        if line.startswith("# bricks of the MPI ranks"):
            said.append("cuts " + ", ".join(w for l in lines[k + 1:k + 4] for w in l.split()[1:]))
    try:
        with open(os.path.join(out, "stats.csv")) as f:
            head, last = f.readline().strip().split(","), f.readlines()[-1].strip().split(",")
        said.append(f"{last[head.index('n_clusters')]} clusters")
    except (OSError, IndexError, ValueError):
        pass
    return ", ".join(said)


def model_of(path):
    for line in open(path):
        w = line.split("=")
        if len(w) == 2 and w[0].strip() == "model":
            return w[1].strip()
    return "contact"


def main(argv):
    times = t_end = None
    extra = {}
    while argv and argv[0].startswith("-"):
        opt, val = argv[0], argv[1]
        argv = argv[2:]
        if opt == "--times":
            times = tuple(float(t) for t in val.split(","))
        elif opt == "--t-end":
            t_end = float(val)
        elif opt == "-s":
            extra[val.split("=")[0]] = val.split("=", 1)[1]
        else:
            fail(f"unknown option {opt}")
    name, fmt, agglo, stop_at = argv[:4]
    mpiexec = argv[4] if len(argv) > 4 else None
    if name not in CASES:
        fail(f"examples/{name}.ini has no restart times in {__file__} (CASES): add its line")
    case = CASES[name]
    on_ranks = case[4] if len(case) > 4 else (case[0][:2], case[0][1] + case[1] - case[0][2])
    times = times or (on_ranks[0] if mpiexec else case[0])
    t_end = t_end if t_end is not None else on_ranks[1] if mpiexec else case[1]
    ini = os.path.join(EXAMPLES, name + ".ini")
    model = model_of(ini)
    if mpiexec and model not in MPI_MODELS:
        fail(f"{name}: model {model} does not run on MPI ranks")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    sets = dict(case[2], **extra, **{"output.snapshots": "", "output.checkpoint_format": fmt,
                            "output.checkpoint_minutes": 0})
    tag = f"{name}_{fmt}" + ("_np2" if mpiexec else "")
    start = time.time()

    def run(extra, program=None):
        cmd = ([mpiexec, "--oversubscribe", "-np", "2"] if mpiexec else []) + \
              ([program] if program else [agglo, "run", "--quiet"]) + extra
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-3000:]}")

    sets["run.t_end"] = repr(t_end)
    args = [a for k, v in sets.items() for a in ("-s", f"{k}={v}")]
    ref = f"{tag}_to_{t_end:g}"
    run([ini, *args, "-o", ref, "--overwrite"])
    files = sorted(f for f in os.listdir(ref) if f not in SKIP)
    want = "state.h5" if fmt == "hdf5" else "contacts.txt"
    if want not in files:
        fail(f"{ref}: no {want} (files: {files})")
    for t in times:
        out = f"{tag}_from_{t:g}"
        run([ini, out, repr(t), *(f"{k}={v}" for k, v in sets.items())], stop_at)
        held = memory(out)
        run(["--resume", out])
        got = sorted(f for f in os.listdir(out) if f not in SKIP)
        if got != files:
            fail(f"{out}: files {got}, the uninterrupted run wrote {files}")
        for f in files:
            if open(os.path.join(ref, f), "rb").read() != open(os.path.join(out, f), "rb").read():
                fail(f"{name} ({model}, {fmt}{', 2 ranks' if mpiexec else ''}): restarted at t = {t:g}, "
                     f"{f} differs from the uninterrupted run's at t = {t_end:g}")
        shutil.rmtree(out)
    shutil.rmtree(ref)
    over = ", ".join(f"{k} = {v}" for k, v in dict(case[2], **extra).items()) or "none"
    print(f"| {name} | {model} | {fmt} | {'2' if mpiexec else '1'} | "
          f"{', '.join(f'{t:g}' for t in times)} → {t_end:g} | {over} | {held or case[3]} | identical "
          f"({len(files)} files, {time.time() - start:.1f} s) |")


main(sys.argv[1:])
