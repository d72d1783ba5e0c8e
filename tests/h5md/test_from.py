"""particles.from: a run starts from the particles of an extended XYZ or H5MD file, for every
model; radii, masses, velocities and ids come from the file when it has them; bad files are refused
with a message naming the file, the frame, the particle and the value."""
import subprocess

import h5py
import numpy as np
import pytest

from conftest import AGGLO, read_state, run

BOX = ["-s", "box.size=1.5", "-s", "box.boundary=periodic wall"]


def start(out, source, *extra, check=True):
    cmd = [AGGLO, "run", "-o", str(out), "--quiet", "-s", "output.snapshots=", "-s", "run.t_end=0",
           "-s", f"particles.from={source}", *BOX, *extra]
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    base = tmp_path_factory.mktemp("from")
    a = run(base / "a", 2, "xyz", "-s", "particles.radius_spread=0.3", "-s", "particles.mass_rule=uniform",
            "-s", "particles.mass=2")
    subprocess.run([AGGLO, "convert", str(a / "trajectory.xyz"), str(base / "a.h5md")], check=True)
    return base, a


def by_id(cols):
    order = np.argsort(cols["id"])
    return {k: v[order] for k, v in cols.items()}


@pytest.mark.parametrize("model", ["contact", "ballistic", "gluey", "dpd"])
def test_every_model_starts_from_the_last_xyz_frame(source, tmp_path, model):
    base, a = source
    extra = ["-s", f"run.model={model}"]
    if model == "dpd":
        extra += ["-s", "dpd.rc=0.1"]
    if model == "ballistic":
        extra += ["-s", "ballistic.stop=t_end"]
    start(tmp_path / "b", a / "trajectory.xyz", *extra)
    want = by_id(read_state(a / "state.xyz")[0])  # the last frame is the final state
    got = by_id(read_state(tmp_path / "b" / "state.xyz")[0])
    np.testing.assert_allclose(got["pos"], want["pos"], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(got["radius"], want["radius"], rtol=1e-8)
    np.testing.assert_allclose(got["masses"], want["masses"], rtol=1e-6)  # 2, not the scenario's 1
    np.testing.assert_allclose(got["velocities"], want["velocities"], rtol=1e-6, atol=1e-7)
    ini = (tmp_path / "b" / "scenario.ini").read_text()
    assert "n = 200" in ini and "frame = 4" in ini


def test_h5md_frame(source, tmp_path):
    base, a = source
    start(tmp_path / "b", base / "a.h5md", "-s", "particles.frame=2")
    with h5py.File(base / "a.h5md", "r") as f:
        p = f["particles/trajectory"]
        order = np.argsort(p["id"][:])
        pos = p["position/value"][1][order]
        radius = p["radius"][:][order]
    got = by_id(read_state(tmp_path / "b" / "state.xyz")[0])
    np.testing.assert_allclose(got["pos"], pos, rtol=1e-15, atol=1e-15)  # agglo convert: float64
    np.testing.assert_allclose(got["radius"], radius)


def test_missing_columns_come_from_the_scenario(tmp_path):
    (tmp_path / "p.xyz").write_text("2\nProperties=species:S:1:pos:R:3\nX 0.5 0.5 0\nX 1 0.5 0\n")
    start(tmp_path / "b", tmp_path / "p.xyz", "-s", "particles.radius=0.05", "-s", "particles.radius_spread=0")
    got = read_state(tmp_path / "b" / "state.xyz")[0]
    assert np.all(got["radius"] == 0.05) and np.all(got["masses"] == 1)
    assert sorted(got["id"]) == [0, 1]


@pytest.mark.parametrize("text, extra, message", [
    ("2\nProperties=species:S:1:pos:R:3:radius:R:1\nX 0.5 0.5 0 0.1\nX 0.6 0.5 0 0.1\n", [],
     "p.xyz: frame 1: particles 0 and 1 overlap by 0.1"),
    ("2\nProperties=species:S:1:pos:R:3:radius:R:1\nX 0.5 nan 0 0.1\nX 1 0.5 0 0.1\n", [],
     "p.xyz:3: frame 1: particle 0: column 3 is 'nan', not a finite number"),
    ("2\nProperties=species:S:1:pos:R:3:radius:R:1\nX 0.5 0.05 0 0.1\nX 1 0.5 0 0.1\n", [],
     "p.xyz: frame 1: particle 0 \\(radius 0.1\\) at y = 0.05 crosses the wall"),
    ("2\nProperties=species:S:1:radius:R:1\nX 0.1\nX 0.1\n", [], "has no pos:R:3 column"),
    ('2\nLattice="2 0 0 0 1.5 0 0 0 0" Properties=species:S:1:pos:R:3\nX 0.5 0.5 0\nX 1 0.5 0\n', [],
     "p.xyz: frame 1: the box along x is \\[0, 2\\], the scenario's \\[0, 1.5\\]"),
    ('2\nLattice="1.5 0 0 0 1.5 0 0 0 0" pbc="T T F" Properties=species:S:1:pos:R:3\nX 0.5 0.5 0\nX 1 0.5 0\n',
     [], "the box is periodic along y, the scenario's walled"),
    ("2\nProperties=species:S:1:pos:R:3:masses:R:1\nX 0.5 0.5 0 -1\nX 1 0.5 0 1\n", [],
     "p.xyz:3: frame 1: particle 0: mass -1"),
    ("2\nProperties=species:S:1:pos:R:3:id:I:1\nX 0.5 0.5 0 7\nX 1 0.5 0 7\n", [],
     "particle id 7 is repeated"),
    ("2\nProperties=species:S:1:pos:R:3\nX 0.5 0.5 0.2\nX 1 0.5 0\n", [],
     "particle 0: z = 0.2 in a 2D simulation"),
    ("2\nProperties=species:S:1:pos:R:3\nX 0.5 0.5 0\nX 1 0.5 0\n", ["-s", "particles.frame=3"],
     "p.xyz: particles.frame = 3, but the file has 1 frames"),
])
def test_bad_files_are_refused(tmp_path, text, extra, message):
    (tmp_path / "p.xyz").write_text(text)
    r = start(tmp_path / "b", tmp_path / "p.xyz", *extra, check=False)
    assert r.returncode != 0
    import re
    assert re.search(message, r.stderr), r.stderr
