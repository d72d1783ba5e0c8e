"""The outputs of `agglo run` opened by the real readers (Debian's h5py, MDAnalysis, ASE; the XDMF
checked with h5py and an XML parser, ParaView itself in test_paraview.py): positions, velocities,
radii, masses, ids, clusters, box, periodicity, time, units and observables, in 2D and 3D, against
the run's own full-precision state.xyz and stats.csv."""
import os
import pathlib
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pytest

from conftest import AGGLO, read_state, run

F32 = dict(rtol=2e-7, atol=1e-7)  # single-precision positions and velocities


T = "particles/trajectory"


def observable_at(f, name, step):
    """The value of observables/<name> at a step (its own step axis), or None."""
    steps = list(f[f"observables/{name}/step"][:])
    return f[f"observables/{name}/value"][steps.index(step)] if step in steps else None


def test_h5py_layout_and_values(runs):
    dim, h5dir, _ = runs
    state, header, info = read_state(h5dir / "state.xyz")
    with h5py.File(h5dir / "trajectory.h5md", "r") as f:
        assert list(f["h5md"].attrs["version"]) == [1, 1]
        assert f["h5md/creator"].attrs["name"] == b"agglo"
        assert "name" in f["h5md/author"].attrs
        assert f["parameters"].attrs["dimension"] == dim
        assert f["parameters"].attrs["units"] == "reduced" and "modules" not in f["h5md"]
        assert list(f["particles"]) == ["trajectory"]  # MDAnalysis's topology comes from this name
        p = f[T]
        pos, vel = p["position/value"], p["velocity/value"]
        assert pos.dtype == np.float32 and vel.dtype == np.float32  # output.precision = single
        assert pos.chunks[0] == 1 and pos.compression is None  # output.compression = 0
        assert p["cluster/value"].compression == "gzip" and p["cluster/value"].shuffle
        t = p["position/time"][:]
        assert np.allclose(t, [0, 0.1, 0.2, 0.3])
        assert list(p["position/step"][:]) == [0, 5, 10, 15]
        # one clock: box, velocity and cluster hard-link position's step and time (H5MD 1.1)
        for el in ("box/edges", "velocity", "cluster"):
            assert p[f"{el}/step"] == p["position/step"] and p[f"{el}/time"] == p["position/time"]
        n = len(state["id"])
        assert pos.shape == (4, n, 3) and vel.shape == (4, n, 3)
        np.testing.assert_allclose(pos[-1], state["pos"], **F32)
        np.testing.assert_allclose(vel[-1], state["velocities"], **F32)
        assert np.array_equal(p["radius"][:], state["radius"])
        assert np.array_equal(p["mass"][:], state["masses"])
        assert np.array_equal(p["id"][:], state["id"].astype(np.int64))
        assert np.array_equal(p["cluster/value"][-1], state["cluster"].astype(np.int32))
        assert "species" not in p  # one species
        box = p["box"]
        assert box.attrs["dimension"] == 3
        bnd = [b.decode() for b in box.attrs["boundary"]]
        expect = ["periodic", "none", "none"] if dim == 2 else ["periodic"] * 3
        assert bnd == expect
        lat = [float(x) for x in info["Lattice"].split()]
        np.testing.assert_allclose(box["edges/value"][-1], np.array(lat).reshape(3, 3))
        if dim == 2:
            assert np.all(pos[:, :, 2] == 0)
        # units (reduced: the names MDAnalysis reads as they are), variable-length strings
        units = {"position/value": "Angstrom", "position/time": "ps", "velocity/value": "Angstrom ps-1",
                 "box/edges/value": "Angstrom", "radius": "Angstrom", "mass": "u"}
        for path, unit in units.items():
            assert p[path].attrs["unit"] == unit, path
        obs = f["observables"]
        assert obs["kinetic_energy/value"].attrs["unit"] == "u Angstrom+2 ps-2"
        assert obs["n_clusters/value"].attrs["unit"] == "1" and obs["min_gap/value"].attrs["unit"] == "Angstrom"
        # observables: a row per frame on their own step and time axis, the stats.csv row of the
        # frame's step (NaN at a frame without one), dt from the previous frame
        stats = np.genfromtxt(h5dir / "stats.csv", delimiter=",", names=True)
        sizes = np.genfromtxt(h5dir / "sizes.csv", delimiter=",", names=True)
        rows = {int(s): k for k, s in enumerate(stats["step"])}
        assert 5 not in rows and 10 in rows and 15 in rows  # stats every 2 steps, and the last
        for name in obs:
            o = obs[name]
            assert o["step"] != p["position/step"]  # its own datasets
            assert list(o["step"][:]) == [0, 5, 10, 15] and np.array_equal(o["time"][:], t)
            for k, step in enumerate(o["step"][:]):
                if name.startswith("clusters_size_"):  # sizes.csv's clusters in the size class
                    lo, hi = (int(x) for x in name.split("_")[2:])
                    at = (sizes["step"] == step) & (sizes["size"] >= lo) & (sizes["size"] <= hi)
                    want = sizes["clusters"][at].sum() if step in rows else np.nan
                else:
                    want = (t[k] - t[k - 1] if k else t[1] - t[0]) if name == "dt" else \
                        stats[name][rows[step]] if step in rows else np.nan
                np.testing.assert_equal(o["value"][k], want)


def test_mdanalysis_universe(runs):
    """mda.Universe(path), no topology file, default unit conversion: every frame's positions,
    velocities, box, time, dt and observables as h5py reads them, observables at the frame's
    step."""
    mda = pytest.importorskip("MDAnalysis")
    dim, h5dir, _ = runs
    path = h5dir / "trajectory.h5md"
    u = mda.Universe(str(path))
    with h5py.File(path, "r") as f:
        p = f[T]
        n_frames, n = p["position/value"].shape[:2]
        assert u.atoms.n_atoms == n and len(u.trajectory) == n_frames == 4
        assert u.trajectory.dt == pytest.approx(0.1, rel=1e-12)
        for ts in u.trajectory:
            k = ts.frame
            assert ts.time == p["position/time"][k] and ts.data["step"] == p["position/step"][k]
            assert np.array_equal(ts.positions, p["position/value"][k])
            assert np.array_equal(ts.velocities, p["velocity/value"][k])
            np.testing.assert_allclose(ts.dimensions, list(np.diag(p["box/edges/value"][k])) + [90, 90, 90],
                                       rtol=1e-7)
            assert ts.dt == pytest.approx(0.1, rel=1e-12)
            for name in f["observables"]:
                np.testing.assert_equal(ts.data[name], observable_at(f, name, int(ts.data["step"])))
        # radii, masses, ids, clusters: not read by MDAnalysis from H5MD; h5py gives them
        u.add_TopologyAttr("masses", p["mass"][:])
        u.add_TopologyAttr("radii", p["radius"][:])
        assert np.array_equal(u.atoms.masses, p["mass"][:])


def test_ase_extended_xyz(runs):
    ase_io = pytest.importorskip("ase.io")
    dim, _, xyzdir = runs
    state, header, info = read_state(xyzdir / "state.xyz")
    frames = ase_io.read(str(xyzdir / "trajectory.xyz"), index=":")
    assert len(frames) == 4
    a = frames[-1]
    assert a.info["Time"] == pytest.approx(0.3) and a.info["Step"] == 15 and a.info["dim"] == dim
    np.testing.assert_allclose(a.positions, state["pos"], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(a.get_masses(), state["masses"], rtol=1e-6)
    np.testing.assert_allclose(a.get_velocities(), state["velocities"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(a.arrays["velocities"], state["velocities"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(a.arrays["radius"], state["radius"], rtol=1e-8)
    assert np.array_equal(a.arrays["id"], state["id"].astype(int))
    assert np.array_equal(a.arrays["cluster"], state["cluster"].astype(int))
    assert list(a.pbc) == [c == "T" for c in info["pbc"].split()]
    lat = [float(x) for x in info["Lattice"].split()]
    np.testing.assert_allclose(a.cell[:], np.array(lat).reshape(3, 3))
    assert set(a.get_chemical_symbols()) == {"X"}


def test_mdanalysis_extended_xyz_positions(runs):
    mda = pytest.importorskip("MDAnalysis")
    _, _, xyzdir = runs
    state, _, _ = read_state(xyzdir / "state.xyz")
    u = mda.Universe(str(xyzdir / "trajectory.xyz"), format="XYZ")
    u.trajectory[-1]
    np.testing.assert_allclose(u.atoms.positions, state["pos"], rtol=1e-6, atol=1e-6)


def test_xdmf_matches_h5md(runs):
    """Every frame of the XDMF is plain datasets (what every ParaView XDMF reader reads; the
    readers themselves: test_paraview.py) holding that frame of the H5MD series."""
    _, h5dir, _ = runs
    root = ET.parse(h5dir / "trajectory.xdmf").getroot()
    coll = root.find("Domain/Grid")
    assert coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal"
    grids = coll.findall("Grid")
    with h5py.File(h5dir / "trajectory.h5md", "r") as f:
        times = f[T + "/position/time"][:]
        n = f[T + "/position/value"].shape[1]
        assert len(grids) == len(times)
        for k, g in enumerate(grids):
            assert float(g.find("Time").get("Value")) == times[k]
            assert int(g.find("Topology").get("NumberOfElements")) == n
            names = {a.get("Name") for a in g.findall("Attribute")}
            assert names == {"radius", "cluster", "velocity", "mass", "id"}
            for item in g.iter("DataItem"):
                assert item.get("Format") == "HDF" and item.get("ItemType") is None
                fname, path = item.text.strip().split(":")
                assert fname == "trajectory.h5md"
                shape = tuple(int(x) for x in item.get("Dimensions").split())
                assert f[path].shape == shape, (path, f[path].shape, shape)
                if path.startswith("/xdmf/"):
                    el, frame = path.split("/")[2:]
                    src = f[T + ("/box/edges" if el == "edges" else "/" + el) + "/value"]
                    assert int(frame) == k and np.array_equal(f[path][()], src[k])


def test_analyze_and_convert(runs, tmp_path):
    dim, h5dir, xyzdir = runs
    out = subprocess.run([AGGLO, "analyze", str(h5dir / "trajectory.h5md"), "-o", str(tmp_path / "a"),
                          "--json"], check=True, capture_output=True, text=True).stdout
    assert '"n_clusters"' in out
    # xyz -> h5md -> xyz keeps every frame, and the columns agglo reads
    subprocess.run([AGGLO, "convert", str(xyzdir / "trajectory.xyz"), str(tmp_path / "c.h5md")], check=True)
    subprocess.run([AGGLO, "convert", str(tmp_path / "c.h5md"), str(tmp_path / "c.xyz")], check=True)
    assert (tmp_path / "c.xdmf").exists()
    with h5py.File(tmp_path / "c.h5md", "r") as f:
        assert f[T + "/position/value"].shape[0] == 4
        state, _, _ = read_state(xyzdir / "state.xyz")
        np.testing.assert_allclose(f[T + "/position/value"][-1], state["pos"], rtol=1e-8, atol=1e-9)
    a = open(xyzdir / "trajectory.xyz").read().split("\n")
    b = open(tmp_path / "c.xyz").read().split("\n")
    assert len(a) == len(b) and a[1].split("Properties=")[1].split()[0] == b[1].split("Properties=")[1].split()[0]


def test_sigkill_keeps_complete_frames(tmp_path):
    """A run killed with SIGKILL leaves every frame it flushed readable, by h5py and agglo analyze."""
    out = tmp_path / "killed"
    cmd = [AGGLO, "run", "-o", str(out), "--quiet", "-s", "output.format=h5md", "-s", "output.snapshots=",
           "-s", "particles.n=3000", "-s", "run.t_end=1000", "-s", "output.trajectory_interval=0.02"]
    p = subprocess.Popen(cmd)
    path = out / "trajectory.h5md"
    frames, deadline = 0, time.time() + 60
    while frames < 5 and time.time() < deadline:
        time.sleep(0.2)
        try:
            with h5py.File(path, "r") as f:
                frames = f[T + "/position/value"].shape[0]
        except (OSError, KeyError):
            pass
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert frames >= 5, "the run did not write 5 frames in 60 s"
    with h5py.File(path, "r") as f:
        pos = f[T + "/position"]
        k = min(pos["value"].shape[0], pos["time"].shape[0], f[T + "/cluster/value"].shape[0])
        assert k >= frames
        assert np.all(np.isfinite(pos["value"][k - 1]))
        assert np.allclose(pos["time"][:k], 0.02 * np.arange(k))
    rep = subprocess.run([AGGLO, "analyze", str(path), "-o", str(tmp_path / "an"), "--json"],
                         check=True, capture_output=True, text=True).stdout
    assert '"n_clusters"' in rep


def _reorder_state(src, dst, order):
    """state.xyz with its columns permuted (Properties= says where each is)."""
    lines = open(src).read().splitlines()
    n = int(lines[0])
    head = lines[1]
    props = head.split("Properties=")[1].split()[0].split(":")
    cols, k = [], 0
    for name, typ, count in zip(props[0::3], props[1::3], props[2::3]):
        cols.append((name, typ, int(count), k))
        k += int(count)
    cols = [cols[i] for i in order]
    newprops = ":".join(f"{c[0]}:{c[1]}:{c[2]}" for c in cols)
    out = [lines[0], head.replace("Properties=" + ":".join(props), "Properties=" + newprops)]
    for line in lines[2:2 + n]:
        f = line.split()
        out.append(" ".join(" ".join(f[c[3]:c[3] + c[2]]) for c in cols))
    open(dst, "w").write("\n".join(out) + "\n")


def test_restart_reads_columns_by_properties(tmp_path):
    """A state.xyz with reordered columns restarts to the same result; one without masses is refused."""
    a = run(tmp_path / "a", 2, "xyz")
    subprocess.run([AGGLO, "run", "--restart", str(a), "-o", str(tmp_path / "a2"), "--quiet",
                    "-s", "run.t_end=0.4"], check=True)
    b = tmp_path / "b"
    b.mkdir()
    for name in ("scenario.ini", "contacts.txt"):
        (b / name).write_bytes((a / name).read_bytes())
    _reorder_state(a / "state.xyz", b / "state.xyz", [6, 4, 3, 0, 2, 5, 1])
    subprocess.run([AGGLO, "run", "--restart", str(b), "-o", str(tmp_path / "b2"), "--quiet",
                    "-s", "run.t_end=0.4"], check=True)
    assert (tmp_path / "a2/state.xyz").read_bytes() == (tmp_path / "b2/state.xyz").read_bytes()
    _reorder_state(a / "state.xyz", b / "state.xyz", [0, 1, 2, 3, 5, 6])  # no masses
    r = subprocess.run([AGGLO, "run", "--restart", str(b), "-o", str(tmp_path / "b3"), "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "no masses (or mass) column" in r.stderr, r.stderr


def test_restart_appends_to_h5md(tmp_path):
    """A restart continues the H5MD file; frames written after the restart point (a run killed
    after it) are replaced, not repeated."""
    a = run(tmp_path / "a", 2, "h5md", "-s", "output.compression=1")
    saved = {name: (a / name).read_bytes() for name in ("state.xyz", "contacts.txt")}
    subprocess.run([AGGLO, "run", "--restart", str(a), "-o", str(a), "--quiet", "-s", "run.t_end=0.5"],
                   check=True)
    for name, data in saved.items():  # back to the restart point at t = 0.3
        (a / name).write_bytes(data)
    subprocess.run([AGGLO, "run", "--restart", str(a), "-o", str(a), "--quiet", "-s", "run.t_end=0.5"],
                   check=True)
    with h5py.File(a / "trajectory.h5md", "r") as f:
        assert f[T + "/position/value"].compression == "gzip"
        t = f[T + "/position/time"][:]
        np.testing.assert_allclose(t, [0, 0.1, 0.2, 0.3, 0.4, 0.5])
        assert f[T + "/velocity/value"].shape[0] == 6
        obs = f["observables/n_clusters"]
        assert obs["time"].shape == obs["value"].shape and np.array_equal(obs["time"][:], t)
    assert len(ET.parse(a / "trajectory.xdmf").getroot().findall("Domain/Grid/Grid")) == 6


def test_output_directory_reuse(tmp_path):
    """A directory holding another run's outputs is refused; --overwrite deletes them (not the
    user's files); a restart continues in its own directory."""
    d = tmp_path / "d"
    run(d, 2, "xyz", "-s", "output.snapshots=0.1")
    assert list(d.glob("snapshot_*.png"))  # snapshot_STEP.png
    (d / "notes.txt").write_text("mine")
    cmd = [AGGLO, "run", "-o", str(d), "--quiet", "-s", "output.snapshots=", "-s", "particles.n=100",
           "-s", "run.t_end=0.1"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 1 and "holds the outputs of another run" in r.stderr and "--overwrite" in r.stderr
    subprocess.run(cmd + ["--overwrite"], check=True)
    assert not list(d.glob("snapshot_*.png")) and (d / "notes.txt").read_text() == "mine"
    assert int(open(d / "trajectory.xyz").readline()) == 100
    subprocess.run([AGGLO, "run", "--restart", str(d), "-o", str(d), "--quiet", "-s", "run.t_end=0.2"],
                   check=True)
    other = run(tmp_path / "other", 2, "xyz")
    r = subprocess.run([AGGLO, "run", "--restart", str(d), "-o", str(other), "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "holds the outputs of another run" in r.stderr


def test_si_units_and_double_precision(tmp_path):
    """A run in SI units (dpd.units = si) says so: the H5MD units module's SI system and SI unit
    strings. MDAnalysis 2.4 knows no metre: it refuses the file, with a message naming the unit,
    whatever convert_units (docs/formats.md gives the way through h5py). output.precision = double
    keeps the run's positions bit for bit."""
    mda = pytest.importorskip("MDAnalysis")
    out = tmp_path / "si"
    subprocess.run([AGGLO, "run", "examples/dpd_vdw_si.ini", "-o", str(out), "--quiet", "-s", "particles.n=60",
                    "-s", "run.t_end=1.734058864e-10", "-s", "output.trajectory_interval=3.468117728e-11",
                    "-s", "output.snapshots=", "-s", "output.format=h5md", "-s", "output.precision=double"],
                   check=True, capture_output=True, cwd=pathlib.Path(__file__).parents[2])
    state, _, _ = read_state(out / "state.xyz")
    path = out / "trajectory.h5md"
    with h5py.File(path, "r") as f:
        assert f["h5md/modules/units"].attrs["system"] == "SI" and list(f["h5md/modules/units"].attrs["version"]) == [1, 0]
        assert f["parameters"].attrs["units"] == "SI"
        p = f[T]
        units = {"position/value": "m", "position/time": "s", "velocity/value": "m s-1", "radius": "m", "mass": "kg"}
        for name, unit in units.items():
            assert p[name].attrs["unit"] == unit, name
        assert f["observables/kinetic_energy/value"].attrs["unit"] == "kg m+2 s-2"
        assert f["observables/pressure/value"].attrs["unit"] == "kg m-1 s-2"  # 3D: Pa
        assert p["position/value"].dtype == np.float64
        assert np.array_equal(p["position/value"][-1], state["pos"])
        assert np.array_equal(p["velocity/value"][-1], state["velocities"])
    with pytest.raises(RuntimeError, match="length unit 'm' is not recognized"):
        mda.Universe(str(path))
    with pytest.raises(RuntimeError, match="length unit 'm' is not recognized"):
        mda.Universe.empty(60, trajectory=True).load_new(str(path), format="H5MD", convert_units=False)
    # the way docs/formats.md gives: the arrays through h5py into MDAnalysis's memory reader
    from MDAnalysis.coordinates.memory import MemoryReader
    with h5py.File(path, "r") as f:
        p = f[T]
        u = mda.Universe.empty(p["position/value"].shape[1], trajectory=True)
        u.load_new(p["position/value"][:], format=MemoryReader, velocities=p["velocity/value"][:],
                   dimensions=np.array([list(np.diag(e)) + [90, 90, 90] for e in p["box/edges/value"][:]]),
                   dt=f["observables/dt/value"][0])
    assert len(u.trajectory) == 6 and u.trajectory.dt == pytest.approx(3.468117728e-11, rel=1e-9)
    np.testing.assert_allclose(u.trajectory[-1].positions, state["pos"], rtol=1e-6)


@pytest.mark.parametrize("model", ["contact", "ballistic", "ballistic_ed", "gluey", "dpd"])
def test_every_model_writes_its_observables_with_units(tmp_path, model):
    """Every model's stats columns are H5MD observables with a unit (src/io/units.c has them all:
    a column it lacks stops the run at its start), one row per frame."""
    extra = {"ballistic": ["-s", "ballistic.stop=t_end"],
             "ballistic_ed": ["-s", "ballistic.stop=t_end", "-s", "ballistic.method=event_driven"],
             "dpd": ["-s", "dpd.rc=0.1"]}.get(model, [])
    out = run(tmp_path / model, 2, "h5md", "-s", f"run.model={model.split('_')[0]}", *extra)
    columns = open(out / "stats.csv").readline().strip().split(",")[2:]
    with h5py.File(out / "trajectory.h5md", "r") as f:
        frames = f[T + "/position/value"].shape[0]
        n = f[T + "/position/value"].shape[1]
        classes = [f"clusters_size_{2**b}_{2**(b + 1) - 1}" for b in range(n.bit_length())]
        assert sorted(f["observables"]) == sorted(columns + ["dt"] + classes)
        for name in f["observables"]:
            assert f[f"observables/{name}/value"].attrs["unit"] and f[f"observables/{name}/value"].shape == (frames,)
