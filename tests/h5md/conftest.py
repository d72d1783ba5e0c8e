"""Runs shared by the reader tests: a 2D and a 3D run, each written as H5MD and as extended XYZ.

AGGLO (environment) is the agglo binary; the runs go to a temporary directory per session."""
import os
import shlex
import subprocess

import pytest

AGGLO = os.environ.get("AGGLO", "agglo")
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

SCENARIOS = {
    # contact model, 2D, periodic in x, walls in y
    2: ["-s", "particles.n=200", "-s", "run.t_end=0.3", "-s", "box.size=1.5",
        "-s", "box.boundary=periodic wall"],
    # contact, 3D, periodic cube
    3: ["-s", "run.model=contact", "-s", "run.dim=3", "-s", "particles.n=150",
        "-s", "particles.radius=0.05", "-s", "box.size=1.2", "-s", "run.t_end=0.3",
        "-s", "brownian.sigma=0.5"],
}


def run(out, dim, fmt, *extra):
    """A run with frames every 5 steps and stats.csv rows every 2 (frames at steps 5 and 15 have
    no row of their own but the last): the observables must still pair with the right frame."""
    cmd = [AGGLO, "run", "-o", str(out), "--quiet", "-s", "output.snapshots=",
           "-s", "output.trajectory_interval=0.1", "-s", "output.stats_interval=0.04",
           "-s", f"output.format={fmt}", *SCENARIOS[dim], *extra]
    subprocess.run(cmd, check=True)
    return out


@pytest.fixture(scope="session", params=[2, 3], ids=["2d", "3d"])
def runs(request, tmp_path_factory):
    """(dim, directory of the H5MD run, directory of the XYZ run): the same scenario and seed."""
    dim = request.param
    base = tmp_path_factory.mktemp(f"run{dim}d")
    return dim, run(base / "h5md", dim, "h5md"), run(base / "xyz", dim, "xyz")


def read_state(path):
    """state.xyz at full precision: the columns named by Properties=, the header's keys."""
    import numpy as np
    with open(path) as f:
        n = int(f.readline())
        header = f.readline()
        rows = [f.readline().split() for _ in range(n)]
    props = header.split("Properties=")[1].split()[0].split(":")
    cols, k = {}, 0
    for name, _, count in zip(props[0::3], props[1::3], props[2::3]):
        count = int(count)
        if name != "species":
            cols[name] = np.array([[float(r[k + q]) for q in range(count)] for r in rows]).squeeze()
        k += count
    info = dict(kv.split("=", 1) for kv in shlex.split(header) if "=" in kv)
    return cols, header, info
