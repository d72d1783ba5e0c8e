"""ParaView (Debian's paraview 5.11: pvpython; under xvfb-run to render) opens trajectory.xdmf with
each XDMF reader it offers: every frame, every point, every per-particle array and the times, as h5py reads
the H5MD file. Also a run in double precision with two species, and the shipped script
scripts/paraview_spheres.py (spheres of their radius coloured by cluster: a picture and a state)."""
import os
import pathlib
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import AGGLO

HERE = pathlib.Path(__file__).parent
READERS = ["Xdmf3ReaderS", "Xdmf3ReaderT", "XDMFReader"]
T = "particles/trajectory"
if not (shutil.which("pvpython") and shutil.which("xvfb-run")):
    pytest.skip("pvpython or xvfb-run missing (scripts/setup.sh installs paraview xvfb)", allow_module_level=True)


def pvpython(*args, display=False):
    """pvpython on a script; display: under a virtual X server (rendering needs one, reading does
    not). The server is started with -noreset: by default Xvfb resets when its last client leaves,
    and pvpython, which connects more than once, then meets "bad X server connection" and aborts
    in vtkXOpenGLRenderWindow::CreateAWindow if it reconnects during the reset (3 runs in 4 under
    a load of 4; 0 in 5 with -noreset). Its depth is 24 bits (xvfb-run's default is 8). Its
    number is searched from one of this process's own, because concurrent `xvfb-run -a` may take
    the same number; the loser's pvpython fails the same way. That failure alone is tried again
    once, on another number; any other failure fails at once."""
    x_failures = ("bad X server connection", "CreateAWindow")
    for attempt in range(2 if display else 1):
        xvfb = ["xvfb-run", "-a", "-n", str(100 + (os.getpid() + 7 * attempt) % 5000),
                "-s", "-screen 0 1280x1024x24 -noreset"] if display else []
        r = subprocess.run([*xvfb, "pvpython", *map(str, args)], capture_output=True, text=True, timeout=300)
        if r.returncode == 0 or not any(f in r.stderr for f in x_failures):
            break
    assert r.returncode == 0, f"attempt {attempt + 1}: " + r.stderr[:1500] + " ... " + r.stderr[-1500:]
    return r


@pytest.fixture(scope="module")
def read_all(tmp_path_factory):
    """What each reader gives of an XDMF file (one pvpython per file), by reader name."""
    done = {}

    def read(xdmf):
        if xdmf not in done:
            out = tmp_path_factory.mktemp("pv") / "read.npz"
            r = pvpython(HERE / "paraview_read.py", xdmf, out)
            assert "Skipping unrecognized array type" not in r.stderr + r.stdout
            npz = np.load(out)
            done[xdmf] = {reader: {key.split("/", 1)[1]: npz[key] for key in npz.files if key.startswith(reader + "/")}
                          for reader in READERS}
        return done[xdmf]
    return read


def check_against_h5md(got, h5md, arrays):
    with h5py.File(h5md, "r") as f:
        p = f[T]
        times = p["position/time"][:]
        assert np.array_equal(got["times"], times)
        for k in range(len(times)):
            assert np.array_equal(got[f"{k}/points"], p["position/value"][k])
            assert np.array_equal(got[f"{k}/velocity"], p["velocity/value"][k])
            assert np.array_equal(got[f"{k}/cluster"], p["cluster/value"][k])
            for name in arrays:
                assert np.array_equal(got[f"{k}/{name}"], p[name][:]), name
            names = {key.split("/", 1)[1] for key in got if key.startswith(f"{k}/")}
            assert names == {"points", "velocity", "cluster", *arrays}


@pytest.mark.parametrize("reader", READERS)
def test_reader(runs, reader, read_all):
    _, h5dir, _ = runs
    got = read_all(h5dir / "trajectory.xdmf")[reader]
    assert len(got["times"]) == 4
    check_against_h5md(got, h5dir / "trajectory.h5md", ["radius", "mass", "id"])


@pytest.fixture(scope="module")
def dpd_double(tmp_path_factory):
    out = tmp_path_factory.mktemp("dpd") / "run"
    subprocess.run([AGGLO, "run", "-o", str(out), "--quiet", "-s", "run.model=dpd", "-s", "run.dim=3",
                    "-s", "particles.n=120", "-s", "dpd.species=0.25, 0.75", "-s", "run.t_end=0.2",
                    "-s", "output.format=h5md", "-s", "output.precision=double", "-s", "output.snapshots=",
                    "-s", "output.trajectory_interval=0.05"], check=True)
    return out


@pytest.mark.parametrize("reader", READERS)
def test_reader_double_precision_and_species(dpd_double, reader, read_all):
    got = read_all(dpd_double / "trajectory.xdmf")[reader]
    assert got["0/points"].dtype == np.float64 and got["0/species"].dtype == np.int32
    check_against_h5md(got, dpd_double / "trajectory.h5md", ["radius", "mass", "id", "species"])


def test_spheres_script(runs, tmp_path):
    dim, h5dir, _ = runs
    if dim == 2:
        pytest.skip("drawn once, for the 3D run")
    png = tmp_path / "p.png"
    pvpython(HERE.parent.parent / "scripts" / "paraview_spheres.py", h5dir, "-o", png, "--size", "320x240",
             display=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (h5dir / "spheres.pvsm").exists()
    state = (h5dir / "spheres.pvsm").read_text()
    assert "Glyph" in state and "radius" in state and "cluster" in state
