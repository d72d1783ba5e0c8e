"""The package as a Python user meets it: built-in exception classes, RunStatus, the shipped
examples, Trajectory as a sequence, snapshots (id order, images, ASE), pictures, per-model
settings and ensembles."""
import errno
import os

import numpy as np
import pytest

import agglo
from agglo import analysis as an


def test_errors_are_builtin_exceptions(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        agglo.Config.from_file(tmp_path / "none.ini")
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp_path / "none.ini")
    assert isinstance(e.value, agglo.InputError)
    with pytest.raises(FileNotFoundError):
        an.Trajectory(tmp_path / "none.xyz")
    with pytest.raises(FileNotFoundError):
        agglo.Simulation.from_restart(tmp_path / "nodir")
    c = agglo.Config()
    for write in (lambda: c.__setitem__("run.dtx", 1), lambda: c.update({"run.dtx": 1}),
                  lambda: c.update(["run.dtx=1"]), lambda: c.update(run__dtx=1),
                  lambda: agglo.Config({"run.dtx": 1}), lambda: c["runx.dt"],
                  lambda: c.__setitem__("runx.dt", 1), lambda: c["run.dtx"]):
        with pytest.raises(KeyError, match="dtx|runx"):
            write()
    with pytest.raises(ValueError, match="allowed: > 0"):
        c["run.dt"] = -1
    with pytest.raises(KeyError):
        agglo.examples.path("no_such_example")


def test_version_is_the_libraries_and_cmakes():
    from conftest import ROOT
    import re
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        cmake = re.search(r"project\(agglo\s+VERSION\s+([0-9.]+)", f.read()).group(1)
    assert agglo.__version__ == cmake  # setup.py gives the distribution this version too


def test_run_status_enum(small_contact):
    sim = small_contact()
    assert sim.step(2) is agglo.RunStatus.DONE and sim.step(1) == "done"
    assert sim.run(callback=lambda s: True) is agglo.RunStatus.STOPPED
    ball = agglo.Simulation.from_file(agglo.examples.path("ballistic_paper_400"), seed=1,
                                      overrides={"particles.n": 40})
    assert ball.run() is agglo.RunStatus.FINISHED


def test_examples_are_shipped():
    names = agglo.examples.names()
    assert "maury_brownian_500" in names and len(names) >= 10
    p = agglo.examples.path("maury_brownian_500")
    assert os.path.isabs(p) and p == agglo.examples.path("maury_brownian_500.ini")
    assert agglo.Config.from_file(p)["particles.n"] == "500"


@pytest.mark.parametrize("fmt", ["xyz", "h5md"])
def test_trajectory_is_a_sequence(small_contact, tmp_path, fmt):
    sim = small_contact(output__format=fmt)
    sim.attach_outputs(tmp_path, which="trajectory")
    sim.run()
    sim.close_outputs()
    tr = an.Trajectory(tmp_path / f"trajectory.{fmt}")
    assert len(tr) == 11
    assert [f.step for f in tr] == list(range(0, 21, 2)) == [f.step for f in tr]  # twice
    assert tr[-1].step == 20 and tr[0].step == 0 and tr[3].step == 6 and tr[-11].step == 0
    assert [f.step for f in tr[2:9:3]] == [4, 10, 16] and [f.step for f in tr[::-5]] == [20, 10, 0]
    assert tr[-1].time == pytest.approx(0.4)
    with pytest.raises(IndexError):
        tr[11]
    with pytest.raises(IndexError):
        tr[-12]
    with an.Trajectory(tmp_path / f"trajectory.{fmt}") as again:
        assert again[5].step == 10


def test_box_counting_too_small_raises():
    x = np.random.default_rng(1).random((7, 2))
    with pytest.raises(ValueError, match="7 points"):
        an.box_counting(x, eps_min=0.3)


def test_cluster_labels_number_as_the_simulation(small_contact):
    sim = small_contact()
    sim.run()
    labels = an.cluster_labels(sim.positions, sim.radii, sim.contact_gap, box=sim.box,
                               ids=sim.ids)
    assert np.array_equal(labels, sim.clusters)
    by_index = an.cluster_labels(sim.positions, sim.radii, sim.contact_gap, box=sim.box)
    assert np.array_equal(np.unique(by_index, return_inverse=True)[1],
                          np.unique(labels, return_inverse=True)[1]) or \
        len(np.unique(by_index)) == len(np.unique(labels))


def test_snapshot_in_id_order_and_set(small_contact):
    sim = small_contact()
    sim.step(5)
    snap = sim.get_snapshot()
    order = np.argsort(sim.ids)
    assert np.array_equal(snap.ids, np.arange(200))
    assert np.array_equal(snap.positions, sim.positions[order])
    assert np.array_equal(snap.radii, sim.radii[order])
    # unwrapped positions: every cluster whole (members within 2 r + gap of a fellow member)
    u = snap.unwrapped_positions
    assert np.allclose(u, snap.positions + snap.images * sim.box.length)
    assert np.array_equal(np.abs(snap.images) > 0, np.abs(u - snap.positions) > 1e-12)
    # between steps (the contact model goes on from a new state): particles 0 and 1 swapped
    swapped = dataclass_replace(snap, positions=snap.positions[[1, 0] + list(range(2, 200))])
    sim.set_snapshot(swapped)
    assert np.array_equal(sim.get_snapshot().positions, swapped.positions)
    assert sim.step(1) == "done" and sim.step_count == 6
    # a new simulation takes the snapshot's particles (but not another time)
    fresh = small_contact()
    with pytest.raises(ValueError, match="t = "):
        fresh.set_snapshot(snap)
    start = dataclass_replace(snap, time=0.0)
    fresh.set_snapshot(start)
    again = fresh.get_snapshot()
    assert np.array_equal(again.positions, snap.positions)
    assert np.array_equal(again.velocities, snap.velocities)
    assert np.array_equal(again.masses, snap.masses)


def test_snapshot_between_steps_where_the_model_allows(examples):
    dpd = agglo.Simulation.from_file(agglo.examples.path("dpd_groot_warren"), seed=1,
                                     overrides={"particles.n": 300, "box.size": "5, 5, 5"})
    dpd.step(3)
    snap = dpd.get_snapshot()
    dpd.set_snapshot(dataclass_replace(snap, velocities=np.zeros_like(snap.velocities)))
    assert not dpd.velocities.any()
    dpd.step(1)  # the thermostat heats the fluid from rest
    kt = an.temperature(dpd.velocities, dpd.masses)
    assert 0 < kt < 1 and dpd.step_count == 4
    glue = agglo.Simulation.from_file(agglo.examples.path("gluey_plane"))
    glue.step(1)
    with pytest.raises(agglo.UsageError, match="gluey model takes a new state only before "
                                                "the first step .* at step 1"):
        glue.set_snapshot(glue.get_snapshot())


def dataclass_replace(obj, **kw):
    import dataclasses
    return dataclasses.replace(obj, **kw)


def test_unwrapped_positions_across_a_periodic_face():
    sim = agglo.Simulation.from_config({"run.model": "contact", "particles.n": 2,
                                        "particles.radius": 0.1, "particles.radius_spread": 0,
                                        "box.size": 10, "box.boundary": "periodic"})
    b = sim.box
    sim.positions = [[b.hi[0] - 0.1, 1.0], [b.lo[0] + 0.1, 1.0]]
    snap = sim.get_snapshot()
    assert sorted(snap.images[:, 0].tolist()) in ([-1, 0], [0, 1])
    assert snap.images[:, 1].tolist() == [0, 0]
    u = snap.unwrapped_positions
    assert abs(u[1, 0] - u[0, 0]) == pytest.approx(0.2, abs=1e-12)


def test_ase_round_trip(small_contact):
    ase = pytest.importorskip("ase")
    sim = small_contact()
    sim.step(3)
    snap = sim.get_snapshot()
    atoms = sim.to_ase()
    assert isinstance(atoms, ase.Atoms) and len(atoms) == 200
    assert list(atoms.pbc) == [True, True, False]
    assert np.allclose(atoms.get_positions()[:, :2] + sim.box.lo, snap.positions, atol=1e-12)
    back = agglo.Snapshot.from_ase(atoms)
    for name in ("ids", "radii", "masses", "clusters"):
        assert np.array_equal(getattr(back, name), getattr(snap, name)), name
    assert np.allclose(back.positions, snap.positions, atol=1e-12)
    assert np.allclose(back.velocities, snap.velocities, atol=1e-12)
    assert back.time == snap.time and back.dim == 2 and back.box.periodic == snap.box.periodic


def test_from_ase_refusals(small_contact):
    """from_ase refuses what it dropped or what set_snapshot then refused."""
    pytest.importorskip("ase")
    atoms = small_contact().to_ase()

    def refused(change, match):
        a = atoms.copy()
        change(a)
        with pytest.raises(agglo.InputError, match=match):
            agglo.Snapshot.from_ase(a)

    def lift(a):
        x = a.get_positions()
        x[7, 2] = 0.5
        a.set_positions(x)

    def radius(a):
        a.arrays["radius"][3] = -0.1

    def dup(a):
        a.arrays["id"][5] = a.arrays["id"][2]

    def cell(a):
        a.set_cell(np.diag([0.0, a.cell[1, 1], a.cell[2, 2]]))

    refused(lift, r"dim = 2 but atom 7 has z = 0\.5 \(allowed: z = 0 in 2D; give dim=3")
    refused(radius, r"atom 3 has radius -0\.1 \(allowed: > 0 and finite\)")
    refused(dup, r"id 2 is given to atoms 2 and 5 \(allowed: distinct ids\)")
    refused(cell, r"the cell's side 0 is 0 \(allowed: > 0 and finite\)")
    a = atoms.copy()
    lift(a)
    assert agglo.Snapshot.from_ase(a, dim=3).positions[7, 2] == pytest.approx(0.5)


def test_copy_and_pickle(small_contact):
    """A Config pickles and copies through its INI text; a Simulation refuses copy and pickle
    with a TypeError saying what to do (copy.copy gave an alias stepping the original)."""
    import copy
    import pickle
    cfg = agglo.Config.from_file(agglo.examples.path("dpd_capillary"))
    assert pickle.loads(pickle.dumps(cfg)).to_dict() == cfg.to_dict()
    assert copy.deepcopy(cfg).to_dict() == cfg.to_dict()
    sim = small_contact()
    for f in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match=r"Simulation\(sim.config\).*save_state"):
            f(sim)
    assert sim.step_count == 0
    snap = pickle.loads(pickle.dumps(sim.get_snapshot()))
    assert np.array_equal(snap.positions, sim.get_snapshot().positions)


def test_run_before_now_and_huge_step(small_contact):
    """run(t_end) before the current time is refused (it returned DONE); step(2**63) raises the
    package's InputError (cffi's OverflowError before)."""
    sim = small_contact()
    sim.run(0.1)
    assert sim.run(0.1) == agglo.RunStatus.DONE and sim.run(sim.time) == agglo.RunStatus.DONE
    with pytest.raises(agglo.InputError, match=r"t = -1 is before the simulation's time 0\.1"):
        sim.run(t_end=-1)
    with pytest.raises(agglo.InputError, match=r"step: n = 9223372036854775808 \(allowed: 0 to"):
        sim.step(2**63)
    assert sim.step_count == 5

def test_pictures(small_contact, tmp_path):
    sim = small_contact(output__png_width=120)
    sim.step(2)
    png = sim._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = agglo.picture.to_array(png)
    assert img.dtype == np.uint8 and img.shape[1] == 120 and img.shape[2] == 3
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 3   # discs in several colours
    agglo.picture.render(sim.get_snapshot(), tmp_path / "s.png", png_width=80)
    assert agglo.picture.to_array(tmp_path / "s.png").shape[1] == 80
    with pytest.raises(KeyError):
        agglo.picture.render(sim, colour="size")


def test_model_settings_from_the_key_table():
    c = agglo.models.DPD(thermostat="transverse", kT=2, t_end=5, box__size=(3, 3))
    assert (c["run.model"], c["dpd.thermostat"], c["dpd.kT"], c["run.t_end"],
            c["box.size"]) == ("dpd", "transverse", "2", "5", "3, 3")
    assert isinstance(c, agglo.Config)
    assert "thermostat (dpd.thermostat" in agglo.models.DPD.__doc__
    assert "dpd.thermostat" in [k.key for k in agglo.models.DPD.keys_info()]
    with pytest.raises(KeyError, match="allowed: .*thermostat"):
        agglo.models.DPD(thermostatt="transverse")
    sim = agglo.Simulation(agglo.models.Ballistic(n=30, seed=2, fraction=0.1))
    assert sim.model == "ballistic" and sim.n == 30


def test_ensemble(tmp_path):
    ens = agglo.ensemble.Ensemble(agglo.examples.path("maury_brownian_500"), tmp_path / "e",
                                  seeds=[1, 2], vary={"particles.n": [50, 60]},
                                  overrides={"run.t_end": 0.1, "output.snapshots": ""},
                                  outputs=["stats"])
    assert ens.run() == 0
    assert len(ens) == 4 and ens.member_names()[0] == "particles.n=50/seed=1"
    members = ens.members()
    assert list(members["seed"]) == [1, 2, 1, 2] and list(members["status"]) == ["ok"] * 4
    table = ens.summary()
    assert set(table["particles.n"]) == {50, 60} and np.all(table["members"] == 2)
    ens.close()
    again = agglo.ensemble.Ensemble(agglo.examples.path("maury_brownian_500"), tmp_path / "e",
                                    seeds=[1, 2], vary={"particles.n": [50, 60]},
                                    overrides={"run.t_end": 0.1, "output.snapshots": ""},
                                    outputs=["stats"])
    assert again.run(resume=True) == 0


def test_plots(small_contact, tmp_path):
    pytest.importorskip("matplotlib")
    sim = small_contact()
    sim.attach_outputs(tmp_path / "run", which="stats")
    sim.run()
    sim.close_outputs()
    ax = agglo.plots.stats(tmp_path / "run", y=("n_clusters", "max_cluster_size"))
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["n_clusters", "max_cluster_size"]
    table = agglo.ensemble.read_table(tmp_path / "run" / "stats.csv")
    assert np.array_equal(lines[0].get_ydata(), table["n_clusters"])
    assert table["n_clusters"][-1] == sim.cluster_count
    with pytest.raises(KeyError, match="n_cluster: no such column"):
        agglo.plots.stats(table, y="n_cluster")


def test_ensemble_lock_released_after_run(tmp_path):
    """run() releases the directory at its end (it was held until close()), and an Ensemble is
    a context manager."""
    args = (agglo.examples.path("maury_brownian_500"), tmp_path / "e")
    kw = dict(seeds=[1], overrides={"particles.n": 30, "run.t_end": 0.05, "output.snapshots": ""},
              outputs=["stats"])
    ens = agglo.ensemble.Ensemble(*args, **kw)
    assert ens.run() == 0
    # a second ensemble resumes at once (refused before, naming this process's pid)
    again = agglo.ensemble.Ensemble(*args, **kw)
    assert again.run(resume=True) == 0
    assert ens.member_names() == ["seed=1"] and len(ens) == 1
    assert list(ens.members()["status"]) == ["ok"]
    with pytest.raises(agglo.UsageError, match="the ensemble is closed"):
        ens.run()
    with agglo.ensemble.Ensemble(*args, **kw) as held:
        held.prepare("resume")
        with pytest.raises(agglo.OutputError, match="in use by another run"):
            agglo.ensemble.Ensemble(*args, **kw).prepare("resume")
    agglo.ensemble.Ensemble(*args, **kw).prepare("resume").close()


def test_ensemble_arguments(tmp_path):
    """seeds and vary in the forms the docs give; the others refused clearly."""
    path = agglo.examples.path("maury_brownian_500")
    ens = agglo.ensemble.Ensemble(path, tmp_path / "a", seeds="1-2",
                                  vary={"particles.n": "100,200"}).prepare()
    assert ens.member_names() == ["particles.n=100/seed=1", "particles.n=100/seed=2",
                                  "particles.n=200/seed=1", "particles.n=200/seed=2"]
    ens.close()
    ens = agglo.ensemble.Ensemble(path, tmp_path / "b", seeds=range(3, 5),
                                  vary={"box.size": ["1,1", "2,2"]}).prepare()
    assert ens.member_names()[-1] == "box.size=2_2/seed=4"
    ens.close()
    with pytest.raises(TypeError, match=r"seeds=5: give a list of seeds \(\[5\]\), a range"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", seeds=5)
    with pytest.raises(TypeError, match="seeds: 2.5 is not an integer"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", seeds=[1, 2.5])
    with pytest.raises(agglo.InputError, match=r"vary\['particles.n'\] has no values"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", vary={"particles.n": []})
    with pytest.raises(TypeError, match=r"vary\['particles.n'\] = 100: give a list"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", vary={"particles.n": 100})
    with pytest.raises(agglo.InputError, match="value 2 is empty"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", vary={"particles.n": "100,,200"})
    with pytest.raises(agglo.InputError, match="a seed is out of range"):
        agglo.ensemble.Ensemble(path, tmp_path / "c", seeds=[2**63 - 1])


def test_plot_ensemble_all_failed(tmp_path):
    """An ensemble whose members all failed: the plot says so (it said "no such column")."""
    ens = agglo.ensemble.Ensemble(agglo.examples.path("maury_brownian_500"), tmp_path / "e",
                                  seeds=[1], vary={"particles.n": [-4]})
    assert ens.run() == 1
    with pytest.raises(agglo.InputError, match="no member finished"):
        agglo.plots.ensemble(ens, y="n_clusters")
