#!/usr/bin/python3
"""Reading the state from Python is a view, not a copy: the time to return sim.positions (and the
other arrays) for a 10^6-particle system, against the time to copy the same array.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/view_bench.py [--n 1000000] [--dim 2]

The system is the ballistic setup of the paper (square lattice, area fraction 0.2, radius 1),
created but not stepped."""
import argparse
import os
import sys
import time
import timeit

import numpy as np

try:
    import agglo
except ImportError:  # from the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import agglo


def per_call(stmt, number):
    """Best of 5 repeats, seconds per call."""
    return min(timeit.repeat(stmt, number=number, repeat=5)) / number


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=2, choices=(2, 3))
    args = ap.parse_args()
    t0 = time.perf_counter()
    sim = agglo.Simulation.from_config({
        "run.model": "ballistic", "run.dim": args.dim, "particles.n": args.n,
        "particles.radius": 1, "particles.radius_spread": 0, "particles.placement": "lattice",
        "particles.fraction": 0.2, "box.size": "", "box.boundary": "wall"})
    created = time.perf_counter() - t0
    x = sim.positions
    assert x.shape == (args.n, args.dim) and not x.flags.writeable
    assert np.shares_memory(x, sim.positions), "not a view"
    mb = sim.n * 3 * 8 / 1e6
    print(f"agglo {agglo.__version__}: {sim.model}, dim {sim.dim}, N = {sim.n} "
          f"(created in {created:.2f} s); positions: {x.shape} float64 view of {mb:.0f} MB")
    print(f"{'array':<12}{'view (us)':>12}{'copy (ms)':>12}{'ratio':>10}")
    for name in ("positions", "velocities", "radii", "masses", "ids"):
        view = per_call(lambda: getattr(sim, name), 2000)
        copy = per_call(lambda: getattr(sim, name).copy(), 5)
        print(f"{name:<12}{view * 1e6:>12.2f}{copy * 1e3:>12.2f}{copy / view:>10.0f}")
    # a view reads the library's memory: its data pointer is agglo_sim_positions()
    from agglo._ffi import ffi, lib
    c_ptr = int(ffi.cast("uintptr_t", lib.agglo_sim_positions(sim._handle)))
    same = x.__array_interface__["data"][0] == c_ptr
    print(f"view data pointer == agglo_sim_positions(): {same}; "
          f"np.shares_memory(sim.positions, sim.positions): {np.shares_memory(x, sim.positions)}")

if __name__ == "__main__":
    main()
