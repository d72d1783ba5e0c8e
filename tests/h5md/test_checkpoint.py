"""state.h5 (output.checkpoint_format = hdf5, docs/formats.md) read by h5py: the same particles,
bit for bit, as the text restart point of the same run, and the model's bytes of contacts.txt."""
import h5py
import numpy as np

from conftest import read_state, run


def test_state_h5_matches_text(tmp_path):
    text = run(tmp_path / "text", 2, "xyz")
    h5 = run(tmp_path / "h5", 2, "xyz", "-s", "output.checkpoint_format=hdf5")
    assert not (h5 / "state.xyz").exists() and not (h5 / "contacts.txt").exists()
    cols, _, info = read_state(text / "state.xyz")
    with h5py.File(h5 / "state.h5", "r") as f:
        assert f.attrs["format"] == b"agglo-checkpoint" and f.attrs["version"] == 1
        pos = f["particles/position"][()]
        ids = f["particles/id"][()]
        assert pos.dtype == np.float64 and pos.shape == (len(ids), 3)
        assert ids.dtype == np.int64
        np.testing.assert_array_equal(ids, cols["id"].astype(np.int64))
        np.testing.assert_array_equal(pos, cols["pos"])
        np.testing.assert_array_equal(f["particles/velocity"][()], cols["velocities"])
        np.testing.assert_array_equal(f["particles/radius"][()], cols["radius"])
        assert int(f["step"][()]) == int(info["Step"])
        assert float(f["time"][()]) == float(info["Time"])
        assert int(f["dim"][()]) == 2
        assert list(f["box/periodic"][()]) == [1, 0, 0]
        assert f["model/contacts"][()].tobytes() == (text / "contacts.txt").read_bytes()


def test_state_h5_missing_dataset(tmp_path):
    """A restart from a state.h5 without particles/mass names the file and the dataset."""
    import subprocess
    from conftest import AGGLO
    out = run(tmp_path / "h5", 2, "xyz", "-s", "output.checkpoint_format=hdf5")
    with h5py.File(out / "state.h5", "r+") as f:
        del f["particles/mass"]
    r = subprocess.run([AGGLO, "run", "--restart", str(out), "-o", str(tmp_path / "b"), "--quiet",
                        "-s", "run.t_end=0.6"], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{out}/state.h5: dataset particles/mass missing" in r.stderr


def test_state_h5_edited(tmp_path):
    """A state.h5 whose numbers were changed (one velocity component, still finite) no longer
    matches the seal in its model/contacts: the restart is refused naming both, and the file is
    left as it is."""
    import subprocess
    from conftest import AGGLO
    out = run(tmp_path / "h5", 2, "xyz", "-s", "output.checkpoint_format=hdf5")
    with h5py.File(out / "state.h5", "r+") as f:
        v = f["particles/velocity"][()]
        v[3, 0] += 1e-3
        f["particles/velocity"][...] = v
        contacts = f["model/contacts"][()].tobytes()
    assert contacts.splitlines()[-1].startswith(b"# agglo restart point: step=")
    edited = (out / "state.h5").read_bytes()
    r = subprocess.run([AGGLO, "run", "--restart", str(out), "-o", str(out), "--quiet",
                        "-s", "run.t_end=0.6"], capture_output=True, text=True)
    assert r.returncode == 2
    assert (f"{out}/state.h5: its numbers are not those sealed in {out}/state.h5: dataset "
            "model/contacts at step") in r.stderr, r.stderr
    assert (out / "state.h5").read_bytes() == edited


def test_state_h5_forged_count(tmp_path):
    """A state.h5 announcing 10^12 particles (a chunked dataset with nothing stored) is refused
    before anything is allocated: the count must fit in the file's bytes."""
    import subprocess
    from conftest import AGGLO
    out = run(tmp_path / "h5", 2, "xyz", "-s", "output.checkpoint_format=hdf5")
    with h5py.File(out / "state.h5", "r+") as f:
        del f["particles/id"]
        f.create_dataset("particles/id", shape=(10**12,), chunks=(1024,), dtype="i8")
    r = subprocess.run([AGGLO, "run", "--restart", str(out), "-o", str(tmp_path / "b"), "--quiet",
                        "-s", "run.t_end=0.6"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2
    assert f"{out}/state.h5: announces 1000000000000 particles (76 bytes each)" in r.stderr


def test_h5md_forged_shape(tmp_path):
    """An H5MD trajectory announcing 10^6 frames of 10^6 particles in a file of a few kB (chunks
    never written) is refused at once, naming the element and the file's size."""
    import subprocess
    from conftest import AGGLO
    path = tmp_path / "forged.h5md"
    with h5py.File(path, "w") as f:
        g = f.create_group("particles/all/position")
        g.create_dataset("value", shape=(10**6, 10**6, 3), chunks=(1, 1000, 3), dtype="f8")
        g.create_dataset("step", shape=(10**6,), chunks=(1000,), dtype="i8")
        g.create_dataset("time", shape=(10**6,), chunks=(1000,), dtype="f8")
    r = subprocess.run([AGGLO, "analyze", str(path), "--radius", "0.1", "-o", str(tmp_path / "a")],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode != 0
    assert (f"{path}: particles/all/position announces 1000000 frames of 1000000 particles "
            "(2.4e+13 bytes), more than a file of") in r.stderr
