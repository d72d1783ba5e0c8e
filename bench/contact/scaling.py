#!/usr/bin/env python3
"""Throughput of the contact model (Maury 2004) against N, threads and solver.

Cases (both 2D, periodic, area fraction 0.2, r = 0.01, h = 0.02):
  brownian  the paper's Brownian aggregation: radii spread 0.15, tau 0.2, sigma 0.5,
            kappa = eps = 3e-3 (sqrt(h) attraction), solver tol 1e-3 r (the default)
  scopi     the case of SCoPI's figures in /work/shared/ANCHORS.md: equal discs, no attraction,
            a fresh Gaussian velocity each step (drag.tau = run.dt makes v* the noise alone),
            sigma = 0.1 r / h^1.5 (free displacement 0.1 r per component), tol 1e-6 r

Time per step is measured past the transient: two runs, to step S0 and to step S, and
(T_S - T_S0) / (S - S0), so set-up, the first steps and the final outputs cancel. Both wall
and CPU time (the child's user + system) are recorded; the machine is shared, so each point is
the best of --repeat runs. Solver iterations per step are the mean of stats.csv's
mean_solver_iterations over the same steps (the largest count among the components of a step,
in products by the contact matrix). The state after S steps is compared between thread counts
(it must be byte-identical).

usage: bench/contact/scaling.py [--agglo PATH] [--out DIR] [--case brownian|scopi|all]
                                [--sizes 1e3,1e4,...] [--threads 1,2] [--methods mprgp,...]
                                [--repeat R] [--quick] [--passive] [--twin] [--set KEY=VALUE]...
bench/contact/threads.sh runs the thread-scaling subset (Brownian, N = 1e4 and 1e5, 1 and 2
threads, MPRGP, best of 3; about 3 minutes on a quiet machine) and prints the speed-ups.
Writes OUT/results.csv and OUT/results.md (the tables of docs/performance.md) and prints them;
the load column is the machine's 1-minute load average before the point (2 cores: above 2, other
work competed for them).
Python 3 standard library only.
"""
import argparse
import csv
import filecmp
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

DT = 0.02
COMMON = ["particles.fraction=0.2", "box.size=", "box.boundary=periodic", "particles.radius=0.01",
          f"run.dt={DT}", "output.snapshots=", "output.trajectory_interval=1e9",
          "output.stats_interval=0.2"]
CASES = {
    "brownian": ["particles.radius_spread=0.15", "drag.tau=0.2", "brownian.sigma=0.5",
                 "attraction.kappa=3e-3", "attraction.epsilon=3e-3", "attraction.scaling=sqrt_h",
                 "solver.tol=1e-3"],
    "scopi": ["particles.radius_spread=0", f"drag.tau={DT}",
              f"brownian.sigma={0.1 * 0.01 / DT ** 1.5:.6g}", "attraction.kappa=0",
              "solver.tol=1e-6"],
}

# SCoPI's figures (ANCHORS.md: C++, 2 cores like this machine, single-threaded solve), per N:
# (Uzawa time/step s, iterations, APGD time/step s, iterations)
SCOPI = {1000: (4.6e-3, 75, 5.2e-3, 29), 10000: (70e-3, 104, 68e-3, 34),
         100000: (2.0, 121, 1.5, 35)}


def steps_for(case, n, quick):
    """(S0, S): the warm-up end and the run end, in steps."""
    if case == "scopi":
        return (5, 15) if quick or n >= 1e6 else (5, 25)
    if quick:
        return (20, 40)
    return (20, 50) if n >= 1e6 else (20, 80)


EXTRA = []  # -s settings added from the command line (--set)


def settings(case, n, steps, method):
    """The -s arguments of a run of `steps` steps."""
    cmd = []
    for kv in COMMON + CASES[case] + [f"particles.n={int(n)}", f"run.t_end={steps * DT:.10g}",
                                      f"solver.method={method}"] + EXTRA:
        cmd += ["-s", kv]
    return cmd


def run_dir(work, case, n, method, threads):
    """Where the measured run of one row writes (its state.xyz is compared across threads)."""
    return os.path.join(work, f"{case}_{int(n)}_{method}_t{threads}")


def run(agglo, case, n, steps, threads, method, out, env=None):
    """One run of `steps` steps; returns (wall s, cpu s, peak resident MB)."""
    if os.path.isdir(out):
        shutil.rmtree(out)
    cmd = [agglo, "run", "--quiet", "--threads", str(threads), "-o", out] + \
        settings(case, n, steps, method)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}\n{err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def run_twin(agglo, case, n, steps, method, outs, env):
    """Two 1-thread runs of `steps` steps started together; returns their wall times (s)."""
    cmds, procs = [], []
    for out in outs:
        if os.path.isdir(out):
            shutil.rmtree(out)
        cmds.append([agglo, "run", "--quiet", "--threads", "1", "-o", out] +
                    settings(case, n, steps, method))
    t0 = time.perf_counter()
    for cmd in cmds:
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      env=env))
    walls = {}
    while len(walls) < len(procs):
        pid, status = os.wait()[:2]
        if status != 0:
            sys.exit(f"failed ({status}): a twin run of N = {int(n)}")
        walls[pid] = time.perf_counter() - t0
    return [walls[p.pid] for p in procs]


def measure_twin(agglo, case, n, method, repeat, quick, work, env):
    """Wall per step of each of two 1-thread runs at once (mean of the two, best of repeat):
    what the machine gives two independent copies of the work, the ceiling of 2 threads."""
    s0, s = steps_for(case, n, quick)
    best = None
    for rep in range(repeat):
        outs = [os.path.join(work, f"twin{k}") for k in (0, 1)]
        wa = run_twin(agglo, case, n, s0, method, outs, env)
        wb = run_twin(agglo, case, n, s, method, outs, env)
        per = sum(b - a for a, b in zip(wa, wb)) / 2 / (s - s0)
        best = per if best is None else min(best, per)
    return best


def stats_window(path, s0):
    """Means over the stats rows after step s0: iterations, contacts; worst overlap; all converged."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if int(r["step"]) > s0]
    it = sum(float(r["mean_solver_iterations"]) for r in rows) / len(rows)
    con = sum(float(r["n_contacts"]) for r in rows) / len(rows)
    viol = max(float(r["max_violation"]) for r in rows)
    conv = all(r["converged"] == "1" for r in rows)
    clusters = float(rows[-1]["n_clusters"])
    return it, con, viol, conv, clusters


def measure_once(agglo, case, n, threads, method, quick, work, env):
    """Wall and CPU per step over the window (a run to s0 subtracted from one to s), peak MB."""
    s0, s = steps_for(case, n, quick)
    a = os.path.join(work, "a")
    b = run_dir(work, case, n, method, threads)
    wa, ca, _ = run(agglo, case, n, s0, threads, method, a, env)
    wb, cb, mem = run(agglo, case, n, s, threads, method, b, env)
    return (wb - wa) / (s - s0), (cb - ca) / (s - s0), mem


def summarise(case, n, threads, method, reps, load, quick, work):
    """The best of the repeats, with the window's solver statistics."""
    s0, s = steps_for(case, n, quick)
    best = min(reps)
    b = run_dir(work, case, n, method, threads)
    it, con, viol, conv, clusters = stats_window(os.path.join(b, "stats.csv"), s0)
    return {"case": case, "n": int(n), "threads": threads, "method": method, "s0": s0, "s": s,
            "wall_per_step": best[0], "cpu_per_step": best[1], "iterations": it,
            "contacts": con, "max_violation": viol, "converged": int(conv), "peak_mb": best[2],
            "load_before": load, "clusters_at_end": clusters, "dir": b,
            "walls": [w for w, _, _ in reps]}


def measure_group(agglo, group, repeat, quick, work, env):
    """The runs of one (case, N), repeat times in turn (1 thread, 2 threads, 1, 2, ...): the
    machine's speed drifts over minutes on a shared host, and runs in turn see the same drift,
    so that the ratio of the repeats taken together means something."""
    reps = {key: [] for key in group}
    load = {}
    for _ in range(repeat):
        for key in group:
            case, n, t, m = key
            load.setdefault(key, os.getloadavg()[0])
            reps[key].append(measure_once(agglo, case, n, t, m, quick, work, env))
    return [summarise(*key, reps[key], load[key], quick, work) for key in group]


def fit_exponent(points):
    """Least-squares slope of log(time) against log(N)."""
    if len(points) < 2:
        return float("nan")
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def fmt_time(t):
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agglo", default=None, help="agglo binary (default: build*/agglo)")
    ap.add_argument("--out", default="bench-contact-out")
    ap.add_argument("--case", default="all", choices=["brownian", "scopi", "all"])
    ap.add_argument("--sizes", default=None, help="comma list (default 1e3,1e4,1e5,1e6; "
                    "scopi 1e3,1e4,1e5)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--methods", default=None, help="comma list; default: mprgp for every N, "
                    "plus apgd and uzawa at N = 1e4 (brownian) and every N (scopi, 1 thread)")
    ap.add_argument("--repeat", type=int, default=2, help="best of R runs (N < 1e6)")
    ap.add_argument("--quick", action="store_true", help="fewer steps (a smoke test)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra scenario setting for every run, e.g. solver.tol=1e-6")
    ap.add_argument("--twin", action="store_true", help="also time two 1-thread runs at once "
                    "per N: how much the machine slows one copy of the work when both cores "
                    "run it (2 / that slowdown bounds the speed-up of 2 threads)")
    ap.add_argument("--print-settings", metavar="STEPS", type=int, default=None,
                    help="print the -s arguments of one run of STEPS steps of the first --case, "
                    "--sizes and --methods (for other tools, e.g. thread_work.sh) and stop")
    ap.add_argument("--passive", action="store_true", help="OMP_WAIT_POLICY=passive: idle threads "
                    "sleep instead of spinning (much better on cores busy with other work)")
    args = ap.parse_args()
    EXTRA.extend(args.set)
    if args.print_settings is not None:
        case = "brownian" if args.case == "all" else args.case
        n = float(args.sizes.split(",")[0]) if args.sizes else 1e4
        method = args.methods.split(",")[0] if args.methods else "mprgp"
        words = settings(case, n, args.print_settings, method)
        if any(c.isspace() for w in words for c in w):
            sys.exit("--print-settings: a setting holds a space; it cannot be printed as words")
        print(" ".join(words))
        return

    agglo = args.agglo
    if not agglo:
        for d in ("build", "build-perf", "build-release"):
            cand = os.path.join(ROOT, d, "agglo")
            if os.access(cand, os.X_OK):
                agglo = cand
                break
    if not agglo or not os.access(agglo, os.X_OK):
        sys.exit("no agglo binary: build it (cmake -S . -B build && cmake --build build) or give --agglo")
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "runs")
    os.makedirs(work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    env = dict(os.environ)
    if args.passive:
        env["OMP_WAIT_POLICY"] = "passive"

    plan = []  # (case, n, threads, method)
    for case in (["brownian", "scopi"] if args.case == "all" else [args.case]):
        sizes = [float(x) for x in args.sizes.split(",")] if args.sizes else (
            [1e3, 1e4, 1e5, 1e6] if case == "brownian" else [1e3, 1e4, 1e5])
        for n in sizes:
            for t in threads:
                methods = args.methods.split(",") if args.methods else ["mprgp"]
                if not args.methods and t == threads[0]:
                    if case == "brownian" and n == 1e4:
                        methods = ["mprgp", "apgd", "uzawa"]
                    if case == "scopi":
                        methods = ["mprgp", "apgd", "uzawa"]
                for m in methods:
                    plan.append((case, n, t, m))

    results = []
    groups = {}
    for key in plan:
        groups.setdefault(key[:2], []).append(key)
    for (case, n), group in groups.items():
        rep = args.repeat if n < 1e6 else 1
        for r in measure_group(agglo, group, rep, args.quick, work, env):
            results.append(r)
            print(f"{case:8s} N={int(n):>8d} threads={r['threads']} {r['method']:5s}: "
                  f"{fmt_time(r['wall_per_step'])}/step (cpu {fmt_time(r['cpu_per_step'])}), "
                  f"{r['iterations']:.1f} it/step, {r['contacts']:.0f} contacts, converged "
                  f"{r['converged']}, load {r['load_before']:.1f}; repeats "
                  f"{', '.join(fmt_time(w) for w in r['walls'])}", flush=True)

    twins = {}
    if args.twin:
        for case, n in sorted({(r["case"], r["n"]) for r in results if r["threads"] == 1}):
            m = next(r["method"] for r in results if (r["case"], r["n"], r["threads"]) == (case, n, 1))
            twins[(case, n)] = (m, measure_twin(agglo, case, n, m, args.repeat, args.quick, work, env))
            print(f"{case:8s} N={int(n):>8d} two 1-thread runs at once {m:5s}: "
                  f"{fmt_time(twins[(case, n)][1])}/step each", flush=True)

    # byte-identical states across thread counts
    ident = {}
    for r in results:
        for q in results:
            if (q["case"], q["n"], q["method"]) == (r["case"], r["n"], r["method"]) and \
                    q["threads"] > r["threads"]:
                same = filecmp.cmp(os.path.join(r["dir"], "state.xyz"),
                                   os.path.join(q["dir"], "state.xyz"), shallow=False)
                ident[(r["case"], r["n"], r["method"])] = same

    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        keys = [k for k in results[0] if k not in ("dir", "walls")]
        w = csv.DictWriter(f, fieldnames=keys + ["pstep_per_s_per_core", "pstep_per_cpu_s"])
        w.writeheader()
        for r in results:
            row = {k: r[k] for k in keys}
            row["pstep_per_s_per_core"] = r["n"] / (r["wall_per_step"] * r["threads"])
            row["pstep_per_cpu_s"] = r["n"] / r["cpu_per_step"]
            w.writerow(row)

    md = []
    for case in ("brownian", "scopi"):
        rs = [r for r in results if r["case"] == case]
        if not rs:
            continue
        md.append(f"### {case}\n")
        md.append("| N | threads | method | steps | wall/step | CPU/step | iterations/step | "
                  "contacts | particle-steps/s/core (wall) | per CPU s | peak MB | load | "
                  "same bytes 1 vs 2 threads |")
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rs:
            same = ident.get((case, r["n"], r["method"]))
            md.append(f"| {r['n']:.0e} | {r['threads']} | {r['method']} | {r['s0']}–{r['s']} | "
                      f"{fmt_time(r['wall_per_step'])} | {fmt_time(r['cpu_per_step'])} | "
                      f"{r['iterations']:.1f} | {r['contacts']:.0f} | "
                      f"{r['n'] / (r['wall_per_step'] * r['threads']):.3g} | "
                      f"{r['n'] / r['cpu_per_step']:.3g} | {r['peak_mb']:.0f} | "
                      f"{r['load_before']:.1f} | "
                      f"{'' if same is None else ('yes' if same else 'NO')} |")
        md.append("")
        sp = [(r, q) for r in rs for q in rs if r["threads"] == 1 and q["threads"] > 1 and
              (q["n"], q["method"]) == (r["n"], r["method"])]
        if sp:
            md.append("| N | method | threads | wall/step 1 thread | wall/step | speed-up (wall) | "
                      "speed-up of each repeat's pair | CPU/step 1 thread | CPU/step | load |")
            md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            for r, q in sp:
                pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(r["walls"], q["walls"]))
                md.append(f"| {r['n']:.0e} | {r['method']} | {q['threads']} | "
                          f"{fmt_time(r['wall_per_step'])} | {fmt_time(q['wall_per_step'])} | "
                          f"{r['wall_per_step'] / q['wall_per_step']:.2f}x | {pairs} | "
                          f"{fmt_time(r['cpu_per_step'])} | {fmt_time(q['cpu_per_step'])} | "
                          f"{r['load_before']:.1f}, {q['load_before']:.1f} |")
            md.append("")
        tw = [(r, twins[(case, r["n"])][1]) for r in rs if r["threads"] == 1 and
              (case, r["n"]) in twins and twins[(case, r["n"])][0] == r["method"]]
        if tw:
            md.append("| N | method | wall/step alone | each of two 1-thread runs at once | "
                      "slowdown | ceiling of 2 threads (2 / slowdown) |")
            md.append("| --- | --- | --- | --- | --- | --- |")
            for r, t in tw:
                md.append(f"| {r['n']:.0e} | {r['method']} | {fmt_time(r['wall_per_step'])} | "
                          f"{fmt_time(t)} | {t / r['wall_per_step']:.2f} | "
                          f"{2 * r['wall_per_step'] / t:.2f}x |")
            md.append("")
        md.append("| threads | method | exponent of wall/step vs N (all N) | (N >= 1e4) | "
                  "CPU/step (all N) |")
        md.append("| --- | --- | --- | --- | --- |")
        for t in sorted({r["threads"] for r in rs}):
            for m in sorted({r["method"] for r in rs}):
                pts = [(r["n"], r["wall_per_step"]) for r in rs if r["threads"] == t and r["method"] == m]
                cpts = [(r["n"], r["cpu_per_step"]) for r in rs if r["threads"] == t and r["method"] == m]
                if len(pts) < 2:
                    continue
                big = [p for p in pts if p[0] >= 1e4]
                md.append(f"| {t} | {m} | {fit_exponent(pts):.3f} | {fit_exponent(big):.3f} | "
                          f"{fit_exponent(cpts):.3f} |")
        md.append("")
        if case == "scopi":
            md.append("Against SCoPI's figures from ANCHORS.md (not measured in this run; ratio > 1: "
                      "agglo faster; 1 thread):\n")
            md.append("| N | agglo method | agglo wall/step | agglo it/step | SCoPI Uzawa | ratio | "
                      "SCoPI APGD | ratio |")
            md.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
            for r in rs:
                if r["threads"] != 1 or r["n"] not in SCOPI:
                    continue
                u, ui, a, ai = SCOPI[r["n"]]
                md.append(f"| {r['n']:.0e} | {r['method']} | {fmt_time(r['wall_per_step'])} | "
                          f"{r['iterations']:.1f} | {fmt_time(u)}, {ui} it | "
                          f"{u / r['wall_per_step']:.2g} | {fmt_time(a)}, {ai} it | "
                          f"{a / r['wall_per_step']:.2g} |")
            md.append("")
    text = "\n".join(md)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text + "\n")
    print()
    print(text)


if __name__ == "__main__":
    main()
