#!/usr/bin/python3
"""A measurement of one's own, written by the run as its outputs are (HOOMD-blue's custom
writers): every k steps, the size of the largest cluster and its radius of gyration, measured on
the unwrapped positions (clusters whole across the periodic faces), into gyration.csv beside
stats.csv. The file survives a stop and a resume like the built-in outputs: --stop-at S stops
the run at step S (as SIGTERM does the command line's) and resumes it from its restart point
with the writer added again; gyration.csv then holds the bytes of an uninterrupted run
(tests/python/test_writers.py checks it).

    /usr/bin/python3 examples/python/custom_writer.py [-o out_gyration/] [--every 5] [--stop-at 12]

maury_brownian_500 with 200 particles for 0.4 time units (20 steps) takes a second.
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if os.path.isdir(os.path.join(ROOT, "python", "agglo")) and "PYTHONPATH" not in os.environ:
    sys.path.insert(0, os.path.join(ROOT, "python"))  # the source tree's package, of this build
import agglo  # noqa: E402
from agglo.writers import CustomWriter, Periodic  # noqa: E402

SETTINGS = {"particles.n": 200, "run.t_end": 0.4, "output.snapshots": "",
            "output.trajectory_interval": 0.1, "output.stats_interval": 0.04}


class Gyration(CustomWriter):
    """The largest cluster's size and radius of gyration (mass weighted, unwrapped positions)."""

    def act(self, sim, timestep):
        head = "step,time,largest,rg_largest\n" if timestep == 0 else ""
        labels = sim.clusters
        ids, counts = np.unique(labels, return_counts=True)
        big = labels == ids[np.argmax(counts)]
        x, m = sim.unwrapped_positions()[big], sim.masses[big]
        centre = (m[:, None] * x).sum(axis=0) / m.sum()
        rg = np.sqrt((m * ((x - centre) ** 2).sum(axis=1)).sum() / m.sum())
        return f"{head}{timestep},{sim.time:.10g},{int(big.sum())},{rg:.17g}\n"


def run(out, every=5, stop_at=None, seed=3):
    """Run into out (replaced) with the writer; with stop_at, stop there and resume."""
    scenario = os.path.join(ROOT, "examples", "maury_brownian_500.ini")
    sim = agglo.Simulation.from_file(scenario, seed=seed, overrides=SETTINGS)
    sim.add_writer(Gyration(Periodic(every), "gyration.csv", name="gyration"))
    sim.attach_outputs(out, overwrite=True)
    if stop_at is None:
        sim.run()
    else:  # a stop as SIGTERM makes one, then the run resumed from its restart point
        status = sim.run(callback=lambda s: s.step_count == stop_at)
        assert status == agglo.RunStatus.STOPPED, status
        sim.close()
        sim = agglo.Simulation.from_restart(out)
        sim.add_writer(Gyration(Periodic(every), "gyration.csv", name="gyration"))
        sim.attach_outputs(out)
        sim.run()
    sim.close()
    return os.path.join(out, "gyration.csv")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default="out_gyration")
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--stop-at", type=int, default=None)
    a = ap.parse_args()
    path = run(a.out, a.every, a.stop_at)
    with open(path) as f:
        sys.stdout.write(f.read())


if __name__ == "__main__":
    main()
