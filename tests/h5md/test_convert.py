"""agglo convert is lossless both ways: H5MD -> XYZ -> H5MD and XYZ -> H5MD -> XYZ give back every
number bit for bit (positions, velocities, radii, masses, ids, clusters, species, box, times,
steps, observables with their NaNs, units), and a second pass gives the same XYZ bytes and the
same H5MD datasets."""
import pathlib
import subprocess

import h5py
import numpy as np

from conftest import AGGLO

T = "particles/trajectory"


def convert(a, b):
    subprocess.run([AGGLO, "convert", str(a), str(b)], check=True)
    return b


def contents(path):
    """Every dataset of an H5MD file but the XDMF views, with its unit attribute; values as
    float64 bit patterns (a float32 file's values widen exactly) or integers."""
    out = {}

    def walk(group):  # every path (hard links included; visititems visits an object once)
        for name, obj in group.items():
            if isinstance(obj, h5py.Group):
                walk(obj)
            elif not obj.name.startswith("/xdmf"):
                v = obj[()]
                v = v.astype(np.float64).view(np.int64) if v.dtype.kind == "f" else v.astype(np.int64)
                out[f"{group.name}/{name}"] = (v, obj.attrs.get("unit"))

    with h5py.File(path, "r") as f:
        walk(f)
        out["parameters"] = dict(f["parameters"].attrs)
    return out


def assert_same(a, b):
    ca, cb = contents(a), contents(b)
    assert ca.keys() == cb.keys(), set(ca) ^ set(cb)
    for k in ca:
        if k == "parameters":
            assert ca[k].keys() == cb[k].keys() and all(np.array_equal(ca[k][q], cb[k][q]) for q in ca[k])
        else:
            assert np.array_equal(ca[k][0], cb[k][0]) and ca[k][1] == cb[k][1], k


def xyz_floats(path):
    """Every number of every particle line of an XYZ file (the species column left out)."""
    lines = pathlib.Path(path).read_text().splitlines()
    out, k = [], 0
    while k < len(lines):
        n = int(lines[k])
        out += [[float(x) for x in line.split()[1:]] for line in lines[k + 2:k + 2 + n]]
        k += n + 2
    return np.array(out)


def test_h5md_xyz_h5md(runs, tmp_path):
    """A run's H5MD file (single precision, observables with NaN at frames without a stats row)."""
    _, h5dir, _ = runs
    x1 = convert(h5dir / "trajectory.h5md", tmp_path / "a.xyz")
    h1 = convert(x1, tmp_path / "a.h5md")
    assert_same(h5dir / "trajectory.h5md", h1)
    x2 = convert(h1, tmp_path / "b.xyz")
    assert x1.read_bytes() == x2.read_bytes()
    head = x1.read_text().splitlines()[1]
    assert "units=reduced" in head and " n_clusters=" in head and " dt=" in head
    with h5py.File(h1, "r") as f:
        assert f[T + "/position/value"].dtype == np.float64  # converted files: double precision


def test_xyz_h5md_xyz(runs, tmp_path):
    """A run's XYZ file (9 digits): the H5MD file holds its numbers exactly, the XYZ written back
    gives them again, and a second pass changes no byte."""
    _, _, xyzdir = runs
    h1 = convert(xyzdir / "trajectory.xyz", tmp_path / "a.h5md")
    x1 = convert(h1, tmp_path / "a.xyz")
    original, back = xyz_floats(xyzdir / "trajectory.xyz"), xyz_floats(x1)
    cols = [0, 1, 2, 3, 4, 5, 9, 10, 11, 12]  # pos, velocities, masses, radius, cluster, id (momenta recomputed)
    assert np.array_equal(original[:, cols], back[:, cols])
    with h5py.File(h1, "r") as f:
        assert np.array_equal(f[T + "/position/value"][:].reshape(-1, 3), original[:, 0:3])
        assert "units" not in f["parameters"].attrs  # the run's XYZ does not say its units
        assert "unit" not in f[T + "/position/value"].attrs
    h2 = convert(x1, tmp_path / "b.h5md")
    assert_same(h1, h2)
    assert convert(h2, tmp_path / "b.xyz").read_bytes() == x1.read_bytes()


def test_species_carried(tmp_path):
    """A DPD run with two species: H5MD -> XYZ (a type column) -> H5MD keeps them."""
    out = tmp_path / "run"
    subprocess.run([AGGLO, "run", "-o", str(out), "--quiet", "-s", "run.model=dpd", "-s", "particles.n=60",
                    "-s", "dpd.species=0.5, 0.5", "-s", "run.t_end=0.05", "-s", "output.format=h5md",
                    "-s", "output.snapshots=", "-s", "output.trajectory_interval=0.01"], check=True,
                   capture_output=True)
    with h5py.File(out / "trajectory.h5md", "r") as f:
        ids, species = f[T + "/id"][:], f[T + "/species"][:]
    assert np.array_equal(species, (ids >= 30).astype(np.int32))  # dpd.species: ids in blocks
    x = convert(out / "trajectory.h5md", tmp_path / "s.xyz")
    assert ":type:I:1" in x.read_text().splitlines()[1]
    assert_same(out / "trajectory.h5md", convert(x, tmp_path / "s.h5md"))
