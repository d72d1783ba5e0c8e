#!/usr/bin/python3
"""Domain decomposition tests (tests/parallel.cmake): `mpirun -np K agglo run` for model = dpd.
usage: check.py CASE AGGLO MPIEXEC   (prints FAIL: ... on failure)

  np1        mpirun -np 1 writes the serial run's files byte for byte
  fluid      Groot-Warren fluid on 1, 2, 4 ranks: the same stats rows to round-off early on
             (the pressure tensor's columns too: rank 0 gathers the predicted velocities),
             the same T, P and g(r) within statistical error over the run
  attractive van der Waals DPD on 1, 2, 4 ranks: the same agglomerate statistics
  bridges    capillary bridges with memory on 1, 2, 4 ranks: the same bridges and agglomerates
  bridge_counts  an agglomerate of capillary bridges shaken apart (k_BT = 3000) on 1, 2, 4 ranks:
             stats.csv's bridges_formed and bridges_broken (each rank counts the pairs whose lower
             id it owns) equal to one rank's at every row, hundreds of breaks across the bricks
  crossing   27 free particles crossing every face, edge and corner of 2 x 2 x 2 bricks: ids,
             velocities and the exact positions x0 + v t (periodic) kept
  restart    a run on 2 ranks restarted on 4 (and on 1) equals the uninterrupted serial run
  kill       a run on 2 ranks killed (SIGKILL to mpirun and the ranks), resumed, stopped by
             SIGTERM to mpirun, resumed again on 2 ranks: the uninterrupted run's files byte for
             byte
  refusals   a grid that does not match the ranks, bricks narrower than the cut-off, a model
             that is not distributed: each refused with its message
  shear      Lees-Edwards shear (grid 1 x py x pz): 27 free particles crossing every face on
             2 and 4 ranks give the serial run's files byte for byte (the images' shifts and
             the migrants' wrap are the serial ones); a sheared Groot-Warren fluid on 1, 2, 4
             ranks: the same stats rows to round-off early on (pressure tensor, viscosity), the
             same T, P and viscosity within statistical error over the run
  shear_bridges    capillary bridges with memory straddling the sheared y faces, on 1, 2, 4
             ranks: the same bridges (the same pairs at the end), clusters, bound pairs, T
  shear_restart    a sheared run on 2 ranks resumed on 2: the uninterrupted run's files byte
             for byte; continued on 1 and on 4: equal to the serial run within round-off
  shear_grid a grid that cuts x or leaves y whole under shear: exit 2 naming parallel.grid; a
             box too thin along y and z for the ranks: the limit floor(L_y/r_c) floor(L_z/r_c)
  contact_np1      model = contact: mpirun -np 1 writes the serial run's files byte for byte
  contact_span     a sediment whose largest cluster spans 4 bricks: one step on 1, 2, 4 ranks
                   from the same state (grids 4x1 and 2x2), the crossing components gathered or
                   spread, equals the serial step within ten solver tolerances, at two
                   tolerances; 20 steps keep every gap above minus the tolerance and the same
                   clusters
  contact_restart  a restart point written by 2 ranks, continued on 4 and on 1: equal within
                   the solver tolerance
  contact_kill     the sediment settling on 2 ranks (the cut moving with it): rank 1 killed,
                   resumed, stopped by SIGTERM, resumed: the uninterrupted run's files
                   byte for byte
  contact_balance  the sediment settled onto its floor (793 of 800 particles in the lower half),
                   cut across the floor on 2 ranks: the cut follows the work (each rank within
                   10 % of half the particles, not 793 and 7) and 20 steps keep the serial run's
                   contacts, clusters and positions (within 10^-6), with no overlap
"""
import csv, math, os, shutil, signal, subprocess, sys, time

case, agglo, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS="1")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(ranks, out, args, expect=0):
    cmd = ([agglo] if ranks == 0 else [mpiexec, "--oversubscribe", "-np", str(ranks), agglo])
    cmd += ["run", *args, "-o", out, "--overwrite", "--quiet"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"{' '.join(cmd)}: exit {p.returncode} (expected {expect}): {p.stderr[-2000:]}")
    return p.stderr


def rows(out):
    with open(os.path.join(out, "stats.csv")) as f:
        return list(csv.DictReader(f))


def close(a, b, rel, what):
    a, b = float(a), float(b)
    if abs(a - b) > rel * max(abs(a), abs(b), 1e-300):
        fail(f"{what}: {a!r} against {b!r} (allowed relative difference {rel})")


def identical(a, b, what):
    """The restart-point and output files of runs a and b, byte for byte."""
    for f in ("trajectory.xyz", "stats.csv", "state.xyz", "contacts.txt"):
        if open(f"{a}/{f}", "rb").read() != open(f"{b}/{f}", "rb").read():
            fail(f"{f} differs {what}")


def sets(*pairs):
    return [x for k, v in pairs for x in ("-s", f"{k}={v}")]



class Killer:
    """`mpirun -np 2 agglo run` into directory d, ended by signals at restart points (kill cases)."""

    def __init__(self, d):
        self.d = d
        shutil.rmtree(d, ignore_errors=True)
        # Open MPI 4's mpirun answers a SIGTERM with SIGCONT, SIGTERM odls_base_sigkill_timeout s
        # later (default 1), SIGKILL as long again: a stop whose restart point is fsynced on a busy
        # disk can outlast 1 s (a CI run lost it so). The grace a user is told to give
        # (docs/parallel.md).
        self.env = dict(env, OMPI_MCA_odls_base_sigkill_timeout="5")

    def start(self, extra):
        """mpirun -np 2 in a session of its own: it and its ranks are the processes this test ends."""
        cmd = [mpiexec, "--oversubscribe", "-np", "2", agglo, "run", *extra, "--quiet"]
        return subprocess.Popen(cmd, env=self.env, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def stats_rows(self):
        try:
            return len(open(f"{self.d}/stats.csv").readlines()) - 1
        except OSError:
            return 0

    def wait_rows(self, p, n):
        """Until a restart point and more than n stats rows are written."""
        while p.poll() is None and not (os.path.exists(f"{self.d}/state.xyz") and self.stats_rows() > n):
            time.sleep(0.02)

    @staticmethod
    def session(sid):
        """The processes of session sid (mpirun and its ranks, each rank in a process group of its own)."""
        found = []
        for d in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[3]) == sid:
                        found.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
        return found

    def rank(self, sid, r):
        """The pid of rank r of the mpirun of session sid (its environment names the rank)."""
        for pid in self.session(sid):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if f"OMPI_COMM_WORLD_RANK={r}".encode() in f.read().split(b"\0"):
                        return pid
            except OSError:
                pass
        fail(f"no rank {r} among the processes of mpirun {sid}")

    def ended(self, p):
        """Wait for p and every process of its session (at most 30 s)."""
        p.wait()
        for _ in range(600):
            if not self.session(p.pid):
                return
            time.sleep(0.05)
        fail(f"processes of mpirun {p.pid} still alive 30 s after it ended")

    def stop(self, targets, rows, last_step):
        """--resume, then SIGTERM to targets(mpirun's pid) once more than `rows` stats rows are
        written: the stop's step (before last_step, else the run was too short to be stopped)."""
        p = self.start(["--resume", self.d])
        self.wait_rows(p, rows)
        for pid in targets(p.pid):
            os.kill(pid, signal.SIGTERM)
        err = p.communicate()[1]
        self.ended(p)
        if "stopped by signal 15" not in err:
            fail(f"no stop after SIGTERM (exit {p.returncode}): {err[-2000:]}")
        step = int(open(f"{self.d}/state.xyz").readlines()[1].split("Step=")[1].split()[0])
        if step >= last_step:
            fail("the run ended before the SIGTERM; make it longer")
        return step


FLUID = sets(("run.model", "dpd"), ("run.dim", 3), ("particles.n", 3000), ("particles.radius", 0.1),
             ("particles.radius_spread", 0), ("box.size", 10), ("box.boundary", "periodic"),
             ("dpd.a", 25), ("dpd.gamma", 4.5), ("dpd.kT", 1), ("dpd.rc", 1), ("run.dt", 0.04),
             ("output.snapshots", ""), ("output.analysis_interval", 0), ("run.seed", 3))


def rdf(out, tag):
    d = out + "_rdf"
    p = subprocess.run([agglo, "analyze", os.path.join(out, "trajectory.xyz"), "--rdf", "--rdf-max", "2.5",
                        "--rdf-bins", "25", "--overwrite", "-o", d], env=env, capture_output=True, text=True)
    if p.returncode:
        fail(f"agglo analyze --rdf {tag}: {p.stderr}")
    with open(os.path.join(d, "rdf.csv")) as f:
        return [float(r["g"]) for r in csv.DictReader(f)]


if case == "np1":
    args = FLUID + sets(("run.t_end", 2), ("output.stats_interval", 0.4), ("output.trajectory_interval", 1))
    run(0, "np1_serial", args)
    run(1, "np1_mpi", args)
    identical("np1_serial", "np1_mpi", "between the serial run and mpirun -np 1")
    print("np1: trajectory.xyz, stats.csv, state.xyz, contacts.txt identical")

elif case == "fluid":
    args = FLUID + sets(("run.t_end", 12), ("output.stats_interval", 0.4), ("output.trajectory_interval", 2),
                        ("dpd.stress_tensor", "on"))
    res = {}
    for k in (1, 2, 4):
        run(k, f"fluid_np{k}", args)
        res[k] = rows(f"fluid_np{k}")
        g = rdf(f"fluid_np{k}", f"np{k}")
        res[k] = (res[k], g)
    (r1, g1) = res[1]
    for k in (2, 4):
        rk, gk = res[k]
        # early rows: the same to round-off (the sums run in another order)
        for col in ("temperature", "pressure", "potential_energy"):
            close(r1[1][col], rk[1][col], 1e-8, f"np{k} {col} at t = {r1[1]['time']}")
        # the tensor's components and parts: to round-off of the diagonal's size
        for col in ("pressure_xx", "pressure_xy", "pressure_yz", "pxy_kinetic", "pxy_conservative",
                    "pxy_dissipative", "pxy_random"):
            a, b = float(r1[1][col]), float(rk[1][col])
            if abs(a - b) > 1e-8 * float(r1[1]["pressure"]):
                fail(f"np{k} {col} at t = {r1[1]['time']}: {a!r} against {b!r}")
        # the run: mean T over the last half and mean P over the second half, within 1.5 %
        half = len(r1) // 2
        close(r1[-1]["temperature_mean_last_half"], rk[-1]["temperature_mean_last_half"], 0.015, f"np{k} mean T")
        p1 = sum(float(r["pressure"]) for r in r1[half:]) / (len(r1) - half)
        pk = sum(float(r["pressure"]) for r in rk[half:]) / (len(rk) - half)
        close(p1, pk, 0.01, f"np{k} mean P")
        dg = max(abs(a - b) for a, b in zip(g1, gk))
        if dg > 0.05:
            fail(f"np{k}: g(r) differs by up to {dg:.3f} from one rank")
        print(f"fluid np{k}: T {float(rk[-1]['temperature_mean_last_half']):.4f} (1 rank "
              f"{float(r1[-1]['temperature_mean_last_half']):.4f}), P {pk:.4f} ({p1:.4f}), max |dg| {dg:.4f}")

elif case in ("attractive", "bridges"):
    # van der Waals, and capillary bridges with memory (their set follows migrating particles)
    name = "dpd_vdw.ini" if case == "attractive" else "dpd_capillary.ini"
    args = [os.path.join(os.path.dirname(__file__), "..", "..", "examples", name)] + \
        sets(("run.t_end", 1), ("output.snapshots", ""), ("output.stats_interval", 0.1),
             ("output.trajectory_interval", 0))
    res = {k: (run(k, f"{case}_np{k}", args), rows(f"{case}_np{k}"))[1] for k in (1, 2, 4)}
    for k in (2, 4):
        for a, b in zip(res[1], res[k]):
            for col in ("n_clusters", "max_cluster_size", "bound_pairs"):
                if a[col] != b[col]:
                    fail(f"{case} np{k}, t = {a['time']}: {col} {b[col]} against {a[col]} on one rank")
            close(a["temperature"], b["temperature"], 1e-6, f"np{k} T at t = {a['time']}")
        last = res[k][-1]
        print(f"{case} np{k}: {last['n_clusters']} clusters, largest {last['max_cluster_size']}, "
              f"{last['bound_pairs']} bound pairs at t = {last['time']}, as on one rank")

elif case == "bridge_counts":
    # the break-up example, unsheared (shear runs on one rank) and hot: bridges break everywhere
    args = [os.path.join(os.path.dirname(__file__), "..", "..", "examples", "dpd_breakup_capillary.ini")] + \
        sets(("dpd.shear_rate", 0), ("dpd.kT", 3000), ("run.t_end", 0.5), ("output.snapshots", ""),
             ("output.stats_interval", 0.01), ("output.trajectory_interval", 0))
    res = {k: (run(k, f"{case}_np{k}", args), rows(f"{case}_np{k}"))[1] for k in (1, 2, 4)}
    broken = sum(int(r["bridges_broken"]) for r in res[1])
    if broken < 100:
        fail(f"{case}: only {broken} bridges broken on one rank: not a test of the counts")
    for k in (2, 4):
        for a, b in zip(res[1], res[k]):
            for col in ("bridges_formed", "bridges_broken", "bound_pairs"):
                if a[col] != b[col]:
                    fail(f"{case} np{k}, t = {a['time']}: {col} {b[col]} against {a[col]} on one rank")
        print(f"{case} np{k}: {sum(int(r['bridges_formed']) for r in res[k])} bridges formed, "
              f"{sum(int(r['bridges_broken']) for r in res[k])} broken over {len(res[k])} rows, as on one rank")

elif case == "crossing":
    # 27 particles, one per cell of a 3 x 3 x 3 lattice, with velocities that carry them across
    # the brick faces, edges and corners (and the box's periodic edges) several times
    L, T = 4.0, 6.0
    lines = []
    for i in range(27):
        a, b, c = i % 3, i // 3 % 3, i // 9
        x = (0.3 + 1.3 * a, 0.4 + 1.3 * b, 0.5 + 1.3 * c)
        v = ((a - 1) * 0.9 + 0.35, (b - 1) * 0.8 - 0.45, (c - 1) * 0.7 + 0.55)
        lines.append((i, x, v))
    with open("crossing_start.xyz", "w") as f:
        f.write(f"27\nLattice=\"{L} 0 0 0 {L} 0 0 0 {L}\" Properties=species:S:1:pos:R:3:"
                "velocities:R:3:radius:R:1:masses:R:1:id:I:1 pbc=\"T T T\"\n")
        for i, x, v in lines:
            f.write("X %r %r %r %r %r %r 0.05 1 %d\n" % (*x, *v, i))
    args = sets(("run.model", "dpd"), ("run.dim", 3), ("particles.from", os.path.abspath("crossing_start.xyz")),
                ("box.size", L), ("box.boundary", "periodic"), ("dpd.conservative", "none"),
                ("dpd.gamma", 0), ("dpd.rc", 1), ("run.dt", 0.01), ("run.t_end", T),
                ("output.snapshots", ""), ("output.stats_interval", 1), ("output.trajectory_interval", 1),
                ("parallel.grid", "2 2 2"))
    run(8, "crossing", args)
    with open("crossing/state.xyz") as f:
        f.readline(); f.readline()
        got = {}
        for line in f:
            w = line.split()
            got[int(w[-2])] = [float(t) for t in w[1:7]]
    if sorted(got) != list(range(27)):
        fail(f"ids after crossing: {sorted(got)}")
    worst = 0
    for i, x, v in lines:
        for k in range(3):
            want = (x[k] + v[k] * T) % L
            d = abs(got[i][k] - want)
            worst = max(worst, min(d, L - d), abs(got[i][3 + k] - v[k]))
    if worst > 1e-9:
        fail(f"crossing: positions or velocities off by {worst}")
    print(f"crossing: 27 particles on 2 x 2 x 2 bricks, ids kept, |x - (x0 + v t)| and |v - v0| <= {worst:.2e}")

elif case == "restart":
    args = FLUID + sets(("output.stats_interval", 0.4), ("output.trajectory_interval", 0))
    run(0, "restart_serial", args + sets(("run.t_end", 1.6)))
    run(2, "restart_np2", args + sets(("run.t_end", 0.8)))
    for k in (4, 1):
        shutil.rmtree(f"restart_np2_np{k}", ignore_errors=True)
        run(k, f"restart_np2_np{k}", ["--restart", "restart_np2", "-s", "run.t_end=1.6"])
        a, b = rows("restart_serial")[-1], rows(f"restart_np2_np{k}")[-1]
        for col in ("temperature", "pressure", "potential_energy", "temperature_mean_last_half"):
            close(a[col], b[col], 1e-7, f"2 ranks then {k}: {col} at t = {a['time']}")
        print(f"restart: 2 ranks to t = 0.8, then {k} rank(s) to 1.6: T {b['temperature']} "
              f"(serial {a['temperature']}), P {b['pressure']} ({a['pressure']})")

elif case == "kill":
    args = FLUID + sets(("particles.n", 8000), ("box.size", 13.9), ("run.t_end", 16),
                        ("output.stats_interval", 0.4), ("output.trajectory_interval", 2),
                        ("output.checkpoint_interval", 0.8))
    run(2, "uninterrupted", args)
    k = Killer("interrupted")
    # SIGKILL to mpirun and the ranks, once a restart point and a few more rows are written
    p = k.start([*args, "-o", "interrupted", "--overwrite"])
    k.wait_rows(p, 12)
    for pid in k.session(p.pid):
        os.kill(pid, signal.SIGKILL)
    k.ended(p)
    killed_at = k.stats_rows()
    # resumed, then SIGTERM to mpirun and its ranks, as a batch system ends a job at its time limit
    # (Slurm signals every process of the job): rank 0 stops the run after its step and writes a
    # restart point there; the other ranks ignore it and follow rank 0
    stopped_at = k.stop(k.session, killed_at + 12, 400)
    run(2, "interrupted", ["--resume", "interrupted"])
    identical("uninterrupted", "interrupted", "after a SIGKILL, a SIGTERM and --resume")
    print(f"kill: killed after {killed_at} stats rows, stopped by SIGTERM at step {stopped_at}, "
          "resumed on 2 ranks: the same files")

elif case == "refusals":
    small = FLUID + sets(("run.t_end", 0.08))
    err = run(2, "ref_grid", small + sets(("parallel.grid", "3 1 1")), expect=2)
    if "parallel.grid = 3 1 1 makes 3 bricks for 2 ranks" not in err:
        fail(f"grid of 3 for 2 ranks: {err}")
    err = run(4, "ref_narrow", small + sets(("box.size", 3), ("particles.n", 81), ("parallel.grid", "4 1 1")), expect=2)
    if "less than the cut-off" not in err:
        fail(f"bricks narrower than rc: {err}")
    # a box narrower than two cut-offs (n = 1): the true reason, not "at most 0 bricks along x"
    err = run(2, "ref_tiny", [os.path.join(os.path.dirname(__file__), "..", "..", "examples", "brownian_3d.ini")] + sets(("particles.n", 1), ("run.t_end", 0.02)), expect=2)
    if "holds at most 1 brick at least the cut-off" not in err or "run it on at most 1 rank (mpirun -np 1, or without mpirun)" not in err:
        fail(f"a box too small for 2 bricks: {err}")
    err = run(2, "ref_gluey", sets(("run.model", "gluey"), ("particles.n", 50), ("run.t_end", 0.01)), expect=2)
    if "domain decomposition is for model = dpd and contact" not in err:
        fail(f"gluey on 2 ranks: {err}")
    # --resume on another rank count continues, but says its files will not be the
    # uninterrupted run's bytes (it said nothing); on the same count it says nothing
    few = FLUID + sets(("particles.n", 300), ("box.size", 5), ("output.checkpoint_interval", 0.04))
    run(2, "ref_ranks", few + sets(("run.t_end", 0.12)))
    for k, args in ((1, ["--resume", "ref_ranks", "-s", "run.t_end=0.2"]),
                    (3, ["--resume", "ref_ranks", "-s", "run.t_end=0.28"]),
                    (2, ["--resume", "ref_ranks", "-s", "run.t_end=0.36"])):
        cmd = ([agglo] if k == 1 else [mpiexec, "--oversubscribe", "-np", str(k), agglo]) + ["run", *args, "--quiet"]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        said = f"--resume on {k} MPI rank{'' if k == 1 else 's'} continues a run made on 2" in p.stderr
        if p.returncode != 0 or said != (k != 2):
            fail(f"{' '.join(cmd)}: exit {p.returncode}, warning {said}: {p.stderr[-1000:]}")
    print("refusals: grid/rank mismatch, narrow bricks, a box too small for the ranks, a model not "
          "distributed; --resume on another rank count warns")
elif case == "shear":
    # free particles crossing every face of the sheared box: bytes of the serial run
    L, T = 4.0, 6.0
    with open("shear_crossing_start.xyz", "w") as f:
        f.write(f"27\nLattice=\"{L} 0 0 0 {L} 0 0 0 {L}\" Properties=species:S:1:pos:R:3:"
                "velocities:R:3:radius:R:1:masses:R:1:id:I:1 pbc=\"T T T\"\n")
        for i in range(27):
            a, b, c = i % 3, i // 3 % 3, i // 9
            f.write("X %r %r %r %r %r %r 0.05 1 %d\n" % (0.3 + 1.3 * a, 0.4 + 1.3 * b, 0.5 + 1.3 * c,
                    (a - 1) * 0.9 + 0.35, (b - 1) * 0.8 - 0.45, (c - 1) * 0.7 + 0.55, i))
    args = sets(("run.model", "dpd"), ("run.dim", 3), ("particles.from", os.path.abspath("shear_crossing_start.xyz")),
                ("box.size", L), ("box.boundary", "periodic"), ("dpd.conservative", "none"),
                ("dpd.gamma", 0), ("dpd.rc", 1), ("run.dt", 0.01), ("run.t_end", T), ("dpd.shear_rate", 0.3),
                ("output.snapshots", ""), ("output.stats_interval", 1), ("output.trajectory_interval", 1))
    run(0, "shear_crossing_serial", args)
    for k, grid in ((2, "1 2 1"), (4, "1 2 2"), (4, "1 4 1")):
        out = f"shear_crossing_{grid.replace(' ', 'x')}"
        run(k, out, args + sets(("parallel.grid", grid)))
        for f in ("trajectory.xyz", "stats.csv", "state.xyz"):
            if open(f"shear_crossing_serial/{f}", "rb").read() != open(f"{out}/{f}", "rb").read():
                fail(f"sheared crossing on {k} ranks ({grid}): {f} differs from the serial run's")
    # the sheared fluid
    args = FLUID + sets(("run.t_end", 12), ("output.stats_interval", 0.4), ("output.trajectory_interval", 4),
                        ("dpd.stress_tensor", "on"), ("dpd.shear_rate", 0.5))
    res = {k: (run(k, f"shear_np{k}", args), rows(f"shear_np{k}"))[1] for k in (0, 2, 4)}
    r1 = res[0]
    half = len(r1) // 2

    def mean_se(rs, col):
        x = [float(r[col]) for r in rs[half:]]
        m = sum(x) / len(x)
        return m, math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1) / len(x))
    for k in (2, 4):
        rk = res[k]
        for i in (1, 5):  # (t = 0.4 and 2: the same to round-off)
            for col in ("temperature", "pressure", "potential_energy", "viscosity"):
                close(r1[i][col], rk[i][col], 1e-8, f"sheared np{k} {col} at t = {r1[i]['time']}")
            for col in ("pressure_xy", "pressure_yz", "pxy_kinetic", "pxy_conservative", "pxy_dissipative",
                        "pxy_random"):
                a, b = float(r1[i][col]), float(rk[i][col])
                if abs(a - b) > 1e-8 * float(r1[i]["pressure"]):
                    fail(f"sheared np{k} {col} at t = {r1[i]['time']}: {a!r} against {b!r}")
        close(r1[-1]["temperature_mean_last_half"], rk[-1]["temperature_mean_last_half"], 0.015, f"sheared np{k} mean T")
        for col, rel in (("pressure", 0.01),):
            close(mean_se(r1, col)[0], mean_se(rk, col)[0], rel, f"sheared np{k} mean {col}")
        (e1, s1), (ek, sk) = mean_se(r1, "viscosity"), mean_se(rk, "viscosity")
        if abs(e1 - ek) > 4 * math.hypot(s1, sk):
            fail(f"sheared np{k}: mean viscosity {ek:.4f} +- {sk:.4f} against {e1:.4f} +- {s1:.4f} serial")
        print(f"shear np{k}: crossing bytes equal; T {float(rk[-1]['temperature_mean_last_half']):.4f} "
              f"(serial {float(r1[-1]['temperature_mean_last_half']):.4f}), viscosity {ek:.3f} +- {sk:.3f} "
              f"(serial {e1:.3f} +- {s1:.3f})")

elif case == "shear_bridges":
    # capillary bridges with memory (dpd_capillary.ini) between pairs of particles that straddle
    # the sheared y faces (touching across them), plus a bulk of free ones
    L, n_pairs = 25.0, 30
    lines = []
    for i in range(n_pairs):
        x, z = 0.4 + 0.83 * i, (3.7 * i) % L
        lines.append((x, 0.5, z))
        lines.append((x + 0.3, L - 0.505, z))
    for i in range(200):
        a, b, c = i % 6, i // 6 % 6, i // 36
        lines.append((1 + 4 * a + 0.3 * c, 3 + 3.3 * b, 1 + 4 * c))
    with open("shear_bridges_start.xyz", "w") as f:
        f.write(f"{len(lines)}\nLattice=\"{L} 0 0 0 {L} 0 0 0 {L}\" Properties=species:S:1:pos:R:3:"
                "radius:R:1:id:I:1 pbc=\"T T T\"\n")
        for i, (x, y, z) in enumerate(lines):
            f.write("X %r %r %r 0.5 %d\n" % (x, y, z, i))
    args = [os.path.join(os.path.dirname(__file__), "..", "..", "examples", "dpd_capillary.ini")] + \
        sets(("particles.from", os.path.abspath("shear_bridges_start.xyz")), ("run.t_end", 0.5),
             ("dpd.shear_rate", 0.05), ("output.snapshots", ""), ("output.stats_interval", 0.05),
             ("output.trajectory_interval", 0))

    def bridges(out):
        with open(f"{out}/state.xyz") as f:
            n = int(f.readline())
            f.readline()
            y = {int(w[-2]): float(w[2]) for w in (f.readline().split() for _ in range(n))}
        text = open(f"{out}/contacts.txt").read().split("# capillary bridges: count, then id pairs\n")[1].split("\n")
        pairs = sorted(tuple(map(int, text[1 + q].split())) for q in range(int(text[0])))
        return pairs, sum(abs(y[a] - y[b]) > L / 2 for a, b in pairs)
    res = {k: (run(k, f"shear_bridges_np{k}", args), rows(f"shear_bridges_np{k}"))[1] for k in (0, 2, 4)}
    b1, across = bridges("shear_bridges_np0")
    if across < 5:
        fail(f"only {across} bridges straddle the sheared faces at the end (serial run); the test needs them")
    for k in (2, 4):
        for a, b in zip(res[0], res[k]):
            for col in ("n_clusters", "max_cluster_size", "bound_pairs"):
                if a[col] != b[col]:
                    fail(f"shear_bridges np{k}, t = {a['time']}: {col} {b[col]} against {a[col]} on one rank")
            close(a["temperature"], b["temperature"], 1e-6, f"shear_bridges np{k} T at t = {a['time']}")
        bk, _ = bridges(f"shear_bridges_np{k}")
        if bk != b1:
            fail(f"shear_bridges np{k}: bridges at the end differ from the serial run's")
        print(f"shear_bridges np{k}: {len(bk)} bridges ({across} across the sheared faces), "
              f"{res[k][-1]['bound_pairs']} bound pairs at t = {res[k][-1]['time']}, as on one rank")

elif case == "shear_restart":
    args = FLUID + sets(("output.stats_interval", 0.4), ("output.trajectory_interval", 0.8),
                        ("dpd.shear_rate", 0.5), ("dpd.stress_tensor", "on"))
    run(0, "shear_restart_serial", args + sets(("run.t_end", 1.6)))
    run(2, "shear_restart_whole", args + sets(("run.t_end", 1.6)))
    run(2, "shear_restart_np2", args + sets(("run.t_end", 0.8)))
    for k in (4, 1):
        shutil.rmtree(f"shear_restart_np2_np{k}", ignore_errors=True)
        run(k, f"shear_restart_np2_np{k}", ["--restart", "shear_restart_np2", "-s", "run.t_end=1.6"])
        a, b = rows("shear_restart_serial")[-1], rows(f"shear_restart_np2_np{k}")[-1]
        for col in ("temperature", "pressure", "potential_energy", "temperature_mean_last_half", "viscosity"):
            close(a[col], b[col], 1e-7, f"sheared, 2 ranks then {k}: {col} at t = {a['time']}")
    # resumed on 2 ranks: the uninterrupted run's bytes
    run(2, "shear_restart_np2", ["--resume", "shear_restart_np2", "-s", "run.t_end=1.6"])
    identical("shear_restart_whole", "shear_restart_np2", "after --resume of a sheared run on 2 ranks")
    print("shear_restart: resumed on 2 ranks, the uninterrupted run's files; continued on 4 and 1 "
          "rank(s): T, P, viscosity as the serial run's within 1e-7")

elif case == "shear_grid":
    small = FLUID + sets(("run.t_end", 0.08), ("dpd.shear_rate", 0.5))
    for k, grid, why in ((2, "2 1 1", "it cuts x, the flow direction"), (4, "1 1 4", "it leaves y whole")):
        err = run(k, f"shear_grid_{k}", small + sets(("parallel.grid", grid)), expect=2)
        if f"parallel.grid = {grid} with dpd.shear_rate = 0.5: {why}; allowed under shear: 1 py pz with py > 1" not in err:
            fail(f"grid {grid} under shear: {err}")
    # 2D, L_y = 2 r_c: at most 2 bricks (x is not cut), 3 ranks refused with the limit
    # (a refusal of the bricks at the start: exit 1 here, 2 where agglo run exits 2 for every
    # refusal at the start; either, the message is the check)
    cmd = [mpiexec, "--oversubscribe", "-np", "3", agglo, "run", *small, *sets(("run.dim", 2), ("particles.n", 60),
           ("box.size", "10 2")), "-o", "shear_grid_thin", "--overwrite", "--quiet"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    err = p.stderr
    if p.returncode not in (1, 2):
        fail(f"{' '.join(cmd)}: exit {p.returncode} (expected a refusal, 2 or 1): {err[-2000:]}")
    if "holds at most 2 bricks at least the cut-off 1 wide (under shear x is not cut" not in err:
        fail(f"a box too thin along y for 3 sheared bricks: {err}")
    print("shear_grid: a grid cutting x, a grid leaving y whole, a box too thin along y: refused")

elif case.startswith("contact"):
    # 2D sediment: periodic along x (cut into bricks), a floor at y = 0, gravity, attraction and
    # noise. solver.tol = 1e-8 mean radii = 1e-10.
    SED = sets(("run.model", "contact"), ("run.dim", 2), ("run.seed", 5), ("run.dt", 0.01),
               ("particles.n", 800), ("particles.radius", 0.01), ("particles.radius_spread", 0.15),
               ("particles.mass_rule", "volume"), ("particles.fraction", 0.4), ("box.size", ""),
               ("box.boundary", "periodic wall"), ("drag.tau", 0.2), ("gravity.g", "0 -2"),
               ("attraction.kappa", 3e-3), ("attraction.epsilon", 3e-3), ("attraction.scaling", "sqrt_h"),
               ("brownian.sigma", 0.3), ("solver.tol", 1e-8), ("output.snapshots", ""),
               ("output.trajectory_interval", 0), ("output.stats_interval", 0.05))
    TOL = 1e-10

    def state(out):
        with open(os.path.join(out, "state.xyz")) as f:
            n = int(f.readline())
            box = float(f.readline().split('"')[1].split()[0])
            rows = [f.readline().split() for _ in range(n)]
        return box, {int(r[-2]): (float(r[1]), float(r[2]), int(r[-1])) for r in rows}

    def worst_shift(a, b):
        box, pa = state(a)
        _, pb = state(b)
        if pa.keys() != pb.keys():
            fail(f"{a} and {b} hold different ids")
        dx = max(abs((pa[i][0] - pb[i][0] + box / 2) % box - box / 2) for i in pa)
        return max(dx, max(abs(pa[i][1] - pb[i][1]) for i in pa))

    def gaps(out, tag):
        g = min(float(r["min_gap"]) for r in rows(out))
        if g < -TOL:
            fail(f"{tag}: smallest gap {g:.3g}, an overlap beyond the tolerance {TOL}")
        return g

    if case == "contact_np1":
        args = SED + sets(("run.t_end", 0.3))
        run(0, "cnp1_serial", args)
        run(1, "cnp1_mpi", args)
        identical("cnp1_serial", "cnp1_mpi", "between the serial contact run and mpirun -np 1")
        print("contact_np1: trajectory.xyz, stats.csv, state.xyz, contacts.txt identical")
    elif case == "contact_span":
        run(0, "cspan_start", SED + sets(("run.t_end", 0.5)))
        box, p = state("cspan_start")
        sizes = {}
        for x, y, c in p.values():
            sizes.setdefault(c, []).append(x)
        big = max(sizes.values(), key=len)
        bricks = {min(int(x / box * 4), 3) for x in big}
        if len(bricks) != 4:
            fail(f"the largest cluster ({len(big)} particles) spans bricks {sorted(bricks)}, not all 4")
        # the answers differ by rounding paths through the solver: within a few tolerances, and
        # closer as the tolerance tightens (the start made again at a 100 times tighter one)
        run(0, "cspan_tight", SED + sets(("run.t_end", 0.5), ("solver.tol", 1e-10)))
        for start, tol, t_end, steps in (("cspan_start", TOL, 0.51, 1), ("cspan_tight", TOL / 100, 0.51, 1),
                                         ("cspan_start", TOL, 0.7, 20)):
            ref = f"{start}_serial_{steps}"
            shutil.rmtree(ref, ignore_errors=True)
            run(0, ref, ["--restart", start, "-s", f"run.t_end={t_end}"])
            for k, how, grid in ((1, "gather", "1 1"), (2, "gather", "2 1"), (2, "spread", "2 1"),
                                 (4, "gather", "4 1"), (4, "spread", "4 1"), (4, "spread", "2 2")):
                out = f"{start}_np{k}_{how}_{grid.replace(' ', 'x')}_{steps}"
                shutil.rmtree(out, ignore_errors=True)
                run(k, out, ["--restart", start, "-s", f"run.t_end={t_end}", "-s", f"parallel.grid={grid}",
                             "-s", f"parallel.crossing={how}"])
                shift, g = worst_shift(ref, out), gaps(out, f"{k} ranks")
                a, b = rows(ref)[-1], rows(out)[-1]
                if steps == 1 and shift > 10 * tol:
                    fail(f"one step on {k} ranks ({how}): positions differ by {shift:.3g} from the serial "
                         f"step (allowed: ten times the solver tolerance {tol})")
                for col in ("n_clusters", "max_cluster_size", "n_contacts"):
                    if a[col] != b[col]:
                        fail(f"{steps} steps on {k} ranks ({how}): {col} {b[col]} (serial {a[col]})")
                print(f"contact_span: largest cluster {len(big)} particles over 4 bricks; {steps} step(s) "
                      f"at tolerance {tol:.0e} on {k} rank(s) ({grid}), {how}: positions within {shift:.2g} of the "
                      f"serial run, smallest gap {g:.3g}, {b['n_contacts']} contacts as serial")
    elif case == "contact_restart":
        run(2, "crest_np2", SED + sets(("run.t_end", 0.3), ("parallel.grid", "2 1 1")))
        gaps("crest_np2", "2 ranks")
        for k in (1, 4):
            out = f"crest_np2_np{k}"
            shutil.rmtree(out, ignore_errors=True)
            run(k, out, ["--restart", "crest_np2", "-s", "run.t_end=0.31", "-s", f"parallel.grid={k} 1 1"])
        shutil.rmtree("crest_serial", ignore_errors=True)
        run(0, "crest_serial", ["--restart", "crest_np2", "-s", "run.t_end=0.31"])
        for k in (1, 4):
            shift = worst_shift("crest_serial", f"crest_np2_np{k}")
            if shift > TOL:
                fail(f"restart point of 2 ranks, one step on {k}: positions differ by {shift:.3g} (allowed {TOL})")
            print(f"contact_restart: written by 2 ranks, one step on {k} rank(s): within {shift:.2g} of serial")
    elif case == "contact_kill":
        # the sediment settling on 2 ranks cut across its floor (the cut follows it down), rank 1
        # killed (SIGKILL: mpirun ends rank 0), resumed, stopped by SIGTERM (to mpirun and its ranks,
        # as in `kill`: mpirun alone passes it on only after its grace), resumed:
        # the uninterrupted run's files. A restart once handed the particles out at equal widths
        # and in the order of the restart point, where the run had its cut where the balance
        # left it and each rank its particles in the order of their migrations (issue 47)
        args = SED + sets(("run.t_end", 1), ("parallel.grid", "1 2"), ("output.trajectory_interval", 0.1),
                          ("output.checkpoint_interval", 0.05))
        run(2, "ckill_uninterrupted", args)
        k = Killer("ckill")
        p = k.start([*args, "-o", "ckill", "--overwrite"])
        k.wait_rows(p, 6)
        os.kill(k.rank(p.pid, 1), signal.SIGKILL)
        k.ended(p)
        killed_at = k.stats_rows()
        with open("ckill/contacts.txt") as f:
            lines = f.readlines()
        at = lines.index("# bricks of the MPI ranks: per axis the count, then the inner cuts\n")
        cut, box = float(lines[at + 2].split()[1]), state("ckill")[0]
        if abs(cut - box / 2) < 0.1 * box:
            fail(f"the restart point's cut {cut} is near the middle of the box ({box / 2}): the test "
                 "would not see a restart that forgets it")
        stopped_at = k.stop(k.session, killed_at + 3, 100)
        run(2, "ckill", ["--resume", "ckill"])
        identical("ckill_uninterrupted", "ckill", "after a SIGKILL of rank 1, a SIGTERM and --resume")
        print(f"contact_kill: rank 1 killed after {killed_at} stats rows (the cut at {cut:.4f} of a box "
              f"of {box:.4f}), stopped by SIGTERM at step {stopped_at}, resumed on 2 ranks: the same files")
    elif case == "contact_balance":
        run(0, "cbal_start", SED + sets(("run.t_end", 1.5)))
        box, p = state("cbal_start")
        low = sum(y < box / 2 for _, y, _ in p.values())
        if low < 0.95 * len(p):
            fail(f"the start is not settled: {low} of {len(p)} particles in the lower half")
        shutil.rmtree("cbal_serial", ignore_errors=True)
        run(0, "cbal_serial", ["--restart", "cbal_start", "-s", "run.t_end=1.7"])
        shutil.rmtree("cbal_np2", ignore_errors=True)
        run(2, "cbal_np2", ["--restart", "cbal_start", "-s", "run.t_end=1.7", "-s", "parallel.grid=1 2"])
        with open("cbal_np2/parallel.csv") as f:
            par = next(csv.DictReader(f))
        most, mean = float(par["particles_max"]), float(par["particles_mean"])
        if most > 1.1 * mean:
            fail(f"cut across the floor: a rank holds {most:.0f} particles, {most / mean:.2f} times the "
                 f"mean (allowed 1.1; at equal widths {low} of {len(p)})")
        shift, g = worst_shift("cbal_serial", "cbal_np2"), gaps("cbal_np2", "2 ranks")
        a, b = rows("cbal_serial")[-1], rows("cbal_np2")[-1]
        for col in ("n_clusters", "max_cluster_size", "n_contacts"):
            if a[col] != b[col]:
                fail(f"20 steps on 2 ranks, cut balanced: {col} {b[col]} (serial {a[col]})")
        if shift > 1e-6:
            fail(f"20 steps on 2 ranks, cut balanced: positions differ by {shift:.3g} from serial")
        print(f"contact_balance: {low} of {len(p)} particles in the lower half; on 2 ranks at most "
              f"{most:.0f} per rank (mean {mean:.0f}); 20 steps within {shift:.2g} of serial, "
              f"{b['n_contacts']} contacts as serial, smallest gap {g:.3g}")
else:
    fail(f"unknown case {case}")
