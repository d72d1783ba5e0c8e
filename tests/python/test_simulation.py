"""Simulations from Python: stepping, views of the state, a user's start, callbacks, outputs."""
import gc
import os
import signal
import threading
import warnings
import weakref

import numpy as np
import pytest

import agglo


# ---------------------------------------------------------------- stepping in pieces = one run

def _run_pieces(make, out, pieces):
    sim = make()
    sim.attach_outputs(out, which=("trajectory", "stats", "state"))
    for kind, arg in pieces:
        if kind == "step":
            assert sim.step(arg) == "done"
        else:
            sim.run(arg)
    sim.close_outputs()
    return sim


def test_pieces_equal_one_run(small_contact, tmp_path):
    one = _run_pieces(small_contact, tmp_path / "one", [("run", None)])
    cut = _run_pieces(small_contact, tmp_path / "cut",
                      [("step", 1), ("step", 6), ("run", 0.21), ("step", 0), ("step", 3),
                       ("run", None)])
    assert one.step_count == cut.step_count == 20 and one.time == cut.time
    assert one.positions.tobytes() == cut.positions.tobytes()
    assert one.velocities.tobytes() == cut.velocities.tobytes()
    for name in ("trajectory.xyz", "stats.csv", "state.xyz", "contacts.txt", "scenario.ini"):
        a, b = (tmp_path / d / name for d in ("one", "cut"))
        assert a.read_bytes() == b.read_bytes(), name
    assert (tmp_path / "one" / "trajectory.xyz").read_text().count("Lattice=") == 11


def test_restart_continues_bit_for_bit(small_contact, tmp_path):
    full = small_contact()
    full.run()
    first = small_contact(run__t_end=0.2)
    first.attach_outputs(tmp_path / "a", which="state")
    assert first.run() == "done"
    first.close_outputs()
    again = agglo.Simulation.from_restart(tmp_path / "a", overrides={"run.t_end": 0.4})
    assert again.step_count == 10
    again.run()
    assert again.step_count == 20
    assert again.positions.tobytes() == full.positions.tobytes()


# ---------------------------------------------------------------- views

def test_views_are_read_only_views_that_keep_the_simulation(small_contact):
    sim = small_contact()
    p, q = sim.positions, sim.positions
    assert p.shape == (200, 2) and p.dtype == np.float64
    assert np.shares_memory(p, q)
    assert not p.flags.writeable
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    for name in ("velocities", "radii", "masses", "ids", "clusters"):
        a = getattr(sim, name)
        assert not a.flags.writeable and np.shares_memory(a, getattr(sim, name)), name
    del a
    assert sim.ids.dtype == np.int64 and sim.clusters.dtype == np.int32
    assert sim.radii.shape == sim.masses.shape == (200,)
    before = p.copy()
    sim.step(2)
    assert not np.array_equal(p, before)  # a live view: the state moved under it
    ref, x = weakref.ref(sim), p.copy()
    del sim, q
    gc.collect()
    assert ref() is not None  # kept alive by the view
    assert np.array_equal(p, x) and np.isfinite(p).all()
    del p
    gc.collect()
    assert ref() is None


def test_state_accessors(small_contact, examples):
    sim = small_contact()
    assert (sim.n, sim.dim, sim.model, sim.time, sim.step_count, sim.dt) == \
        (200, 2, "contact", 0.0, 0, 0.02)
    box = sim.box
    assert np.allclose(box.lo, 0) and np.allclose(box.hi, 2) and box.periodic == (True, True)
    assert np.allclose(box.length, 2)
    assert sim.config["particles.n"] == "200"
    sim.run()
    labels = sim.clusters
    assert len(np.unique(labels)) == sim.cluster_count
    assert set(np.unique(labels)) <= set(sim.ids)  # the smallest id of each cluster
    r = sim.report
    assert r["step"] == 20 and r["converged"] == 1 and r["warnings"] == 0
    assert "contact" in repr(sim)
    three = agglo.Simulation.from_file(examples("brownian_3d.ini"),
                                       overrides={"particles.n": 50, "run.t_end": 0.04})
    assert three.positions.shape == (50, 3) and three.positions.flags.c_contiguous
    assert len(three.box.lo) == 3


# ---------------------------------------------------------------- a user's start

def _lattice(n, spacing, offset=0.1):
    side = int(np.ceil(np.sqrt(n)))
    ij = np.array([(i % side, i // side) for i in range(n)], dtype=float)
    return offset + spacing * ij


def test_set_state_then_step(small_contact):
    sim = small_contact(**{"particles.radius_spread": 0})
    x = _lattice(200, 0.1)
    sim.positions = x
    assert np.array_equal(sim.positions, x)
    sim.positions = np.column_stack([x, np.zeros(200)])  # (n, 3) is accepted too
    sim.velocities = np.zeros((200, 2), dtype=np.float32)  # float64-convertible
    sim.radii = np.full(200, 0.012)
    assert np.allclose(sim.radii, 0.012) and np.allclose(sim.masses, (0.012 / 0.01) ** 3)
    sim.masses = np.ones(200)
    assert np.array_equal(sim.masses, np.ones(200))
    sim.step(5)
    assert sim.step_count == 5 and np.isfinite(sim.positions).all()
    assert np.abs(sim.positions - x).max() < 0.05  # moved by the noise, not jumped
    sim.positions = x  # between steps too: the contact model's memory is a warm start
    assert np.array_equal(sim.positions, x) and sim.step_count == 5
    sim.step(1)
    assert sim.step_count == 6 and np.abs(sim.positions - x).max() < 0.05


@pytest.mark.parametrize("value, message", [
    (np.zeros((199, 2)), r"shape \(199, 2\); expected \(200, 2\) or \(200, 3\)"),
    (np.zeros((200, 4)), r"shape \(200, 4\)"),
    (np.zeros(400), r"shape \(400,\)"),
    (np.zeros((200, 2), dtype=complex), "dtype complex128 is not a real number type"),
    (np.full((200, 2), "a"), "is not a real number type"),
    ([[0.1, 0.2], [0.3]], "not an array of numbers"),
])
def test_bad_positions_raise_value_errors(small_contact, value, message):
    sim = small_contact()
    before = sim.positions.copy()
    with pytest.raises(agglo.InputError, match=message):
        sim.positions = value
    assert isinstance(agglo.InputError("x"), ValueError)
    assert np.array_equal(sim.positions, before)


def test_nan_and_overlapping_positions_are_refused(small_contact):
    sim = small_contact(**{"particles.radius_spread": 0})
    before = sim.positions.copy()
    x = _lattice(200, 0.1)
    x[17, 1] = np.nan
    with pytest.raises(agglo.InputError,
                       match=r"particle 17: coordinate 1 is nan \(allowed: finite\)"):
        sim.positions = x
    x = _lattice(200, 0.1)
    x[1] = x[0] + [0.005, 0]
    with pytest.raises(agglo.InputError, match="particles 0 and 1 overlap by"):
        sim.positions = x
    with pytest.raises(agglo.InputError, match="radii"):
        sim.radii = np.full(200, -1.0)
    with pytest.raises(agglo.InputError, match=r"radii: shape \(3,\)"):
        sim.radii = [1, 2, 3]
    assert np.array_equal(sim.positions, before)  # nothing changed


# ---------------------------------------------------------------- the four models

def test_ballistic_finishes_then_refuses_to_step(examples):
    sim = agglo.Simulation.from_file(examples("ballistic_paper_400.ini"), seed=2,
                                     overrides={"particles.n": 60})
    assert sim.model == "ballistic" and not sim.finished
    assert sim.model_name.startswith("ballistic")
    assert sim.run() == "finished"
    assert sim.finished and sim.cluster_count == 1
    with pytest.raises(agglo.UsageError, match="the simulation is finished"):
        sim.step()
    with pytest.raises(agglo.UsageError, match="finished"):
        sim.run()


def test_gluey_plane_lands_and_sticks(examples):
    sim = agglo.Simulation.from_file(examples("gluey_plane.ini"), overrides={"run.t_end": 3})
    assert sim.model == "gluey" and sim.n == 1
    sim.run()
    q = sim.positions[0, 1] - sim.radii[0]  # the gap to the bottom wall
    assert abs(q) < 1e-6 and abs(sim.time - 3) < 1e-9  # glued on the plane until t = 4


def test_dpd_runs(examples):
    sim = agglo.Simulation.from_file(examples("dpd_groot_warren.ini"),
                                     overrides={"particles.n": 375, "box.size": 5,
                                                "run.t_end": 0.4})
    assert sim.model == "dpd" and sim.dim == 3
    assert sim.run() == "done" and sim.step_count == 10
    kt = agglo.analysis.temperature(sim.velocities, sim.masses)
    assert 0.5 < kt < 3
    assert np.abs((sim.masses[:, None] * sim.velocities).sum(axis=0)).max() < 1e-9


def test_from_config_dict_and_default():
    sim = agglo.Simulation.from_config({"run.model": "ballistic", "particles.n": 30,
                                        "particles.fraction": 0.2, "particles.radius": 1,
                                        "particles.placement": "lattice", "box.size": ""},
                                       seed=4)
    assert sim.model == "ballistic" and sim.n == 30
    assert sim.run() == "finished"
    d = agglo.Simulation.default(overrides={"particles.n": 100})
    assert (d.model, d.n, d.dim) == ("contact", 100, 2)


# ---------------------------------------------------------------- callbacks

def test_callback_stops_at_the_right_step(small_contact):
    sim = small_contact()
    seen = []

    def f(s):
        seen.append(s.step_count)
        return s.step_count == 7

    assert sim.run(callback=f) == "stopped"
    assert sim.step_count == 7 and seen == list(range(1, 8))
    assert sim.run(callback=lambda s: s.step_count >= 12, every=5) == "stopped"
    assert sim.step_count == 15
    sim.set_callback(lambda s: seen.append(-s.step_count), every=2)
    assert sim.step(3) == "done" and seen[-2:] == [-16, -18]
    sim.set_callback(None)
    assert sim.run() == "done" and sim.step_count == 20


def test_callback_exception_propagates(small_contact):
    sim = small_contact()

    def boom(s):
        if s.step_count % 4 == 0:
            raise ZeroDivisionError(f"boom at step {s.step_count}")

    with pytest.raises(ZeroDivisionError, match="boom at step 4"):
        sim.run(callback=boom)
    assert sim.step_count == 4
    sim.set_callback(boom)
    with pytest.raises(ZeroDivisionError, match="boom at step 8"):
        sim.step(10)
    assert sim.step_count == 8
    sim.set_callback(None)
    assert sim.run() == "done" and sim.step_count == 20  # still usable


def test_callback_may_read_but_not_step(small_contact, tmp_path):
    sim = small_contact()
    counts = []

    def reader(s):
        counts.append((s.cluster_count, s.positions.shape))
        s.save_state(tmp_path / "mid")

    sim.run(0.1, callback=reader)
    assert len(counts) == 5 and (tmp_path / "mid" / "state.xyz").exists()
    with pytest.raises(agglo.UsageError, match="from inside a callback"):
        sim.run(callback=lambda s: s.step())
    with pytest.raises(agglo.UsageError, match="from inside a callback"):
        sim.run(callback=lambda s: setattr(s, "positions", s.positions))
    with pytest.raises(agglo.InputError, match="every"):
        sim.set_callback(print, every=0)


def test_keyboard_interrupt_stops_a_run(examples):
    sim = agglo.Simulation.from_file(examples("maury_brownian_2000.ini"),
                                     overrides={"run.t_end": 1000})
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run()
    finally:
        timer.cancel()
    assert sim.step_count < 50000  # stopped long before t_end
    before = sim.step_count
    sim.step()  # the state is consistent: it goes on
    assert sim.step_count == before + 1


# ---------------------------------------------------------------- errors of a run, warnings

def test_solver_warnings_go_through_warnings(small_contact):
    # (run.t_end = 100: a few capped steps among its 5000 stay under the 5% a run may have)
    sim = small_contact(**{"solver.max_iter": 1, "particles.n": 600, "run.t_end": 100})
    with pytest.warns(agglo.AggloWarning, match="iteration cap") as rec:
        sim.run(0.1)
    assert rec[0].filename == __file__  # points at the user's call
    assert sim.report["warnings"] > 0
    sim = small_contact(**{"solver.max_iter": 1, "particles.n": 600, "run.t_end": 100})
    with warnings.catch_warnings():
        warnings.simplefilter("error", agglo.AggloWarning)
        with pytest.raises(agglo.AggloWarning):
            sim.run(0.1)


def test_unconverged_run_fails(small_contact):
    """Issue 41: with solver.on_failure = warn, a run whose steps do not converge beyond 5% of
    them fails (it ended as a success), its state the last good step's."""
    sim = small_contact(**{"solver.max_iter": 1, "particles.n": 600, "run.t_end": 0.4})
    with pytest.warns(agglo.AggloWarning):
        with pytest.raises(agglo.RunError, match=r"stopped at its cap in 2 of the 20 steps of the run \(allowed: at most 5%"):
            sim.run()
    assert sim.step_count == 2 and np.isfinite(sim.positions).all()


def test_run_error_then_usage_error(small_contact):
    sim = small_contact(**{"solver.max_iter": 1, "solver.on_failure": "stop", "particles.n": 600})
    with pytest.raises(agglo.RunError, match="did not converge") as e:
        sim.run()
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(agglo.UsageError, match="failed at step"):
        sim.step()


def test_outputs_errors_and_flags(small_contact, tmp_path):
    sim = small_contact()
    (tmp_path / "file").write_text("")
    with pytest.raises(agglo.OutputError, match="cannot create directory") as e:
        sim.attach_outputs(tmp_path / "file" / "sub")
    assert isinstance(e.value, OSError)
    with pytest.raises(agglo.InputError, match="unknown output 'movie'"):
        sim.attach_outputs(tmp_path / "o", which=("stats", "movie"))
    sim.attach_outputs(tmp_path / "o", which="stats")
    sim.run(0.1)
    sim.close_outputs()
    assert sorted(os.listdir(tmp_path / "o")) == ["scenario.ini", "sizes.csv", "stats.csv"]
    with sim:
        sim.attach_outputs(tmp_path / "all")
        sim.run()
    assert {"trajectory.xyz", "stats.csv", "state.xyz", "contacts.txt"} <= \
        set(os.listdir(tmp_path / "all"))


def test_one_simulation_per_directory(small_contact, tmp_path):
    """A directory is held by the simulation whose writers are attached: another is refused,
    naming the holder's pid; once closed, the directory is free again."""
    a, b = small_contact(), small_contact()
    a.attach_outputs(tmp_path / "o", which="stats")
    assert (tmp_path / "o" / "agglo.lock").read_text() == f"{os.getpid()}\n"
    with pytest.raises(agglo.OutputError, match=f"in use by another run \\(pid {os.getpid()} holds"):
        b.attach_outputs(tmp_path / "o", which="stats", overwrite=True)
    with pytest.raises(agglo.OutputError, match="in use by another run"):
        b.save_state(tmp_path / "o")
    a.run(0.1)
    a.save_state(tmp_path / "o")  # its own directory
    a.close_outputs()
    assert not (tmp_path / "o" / "agglo.lock").exists()
    b.attach_outputs(tmp_path / "o", which="stats", overwrite=True)
    b.close_outputs()


def test_trajectory_reader(small_contact, tmp_path):
    sim = small_contact()
    sim.attach_outputs(tmp_path, which="trajectory")
    sim.run()
    sim.close_outputs()
    frames = list(agglo.analysis.Trajectory(tmp_path / "trajectory.xyz"))
    assert len(frames) == 11 and frames[-1].dim == 2
    assert [f.time for f in frames] == pytest.approx(np.arange(11) * 0.04)
    last = frames[-1]  # written in storage order, 9 to 10 digits
    assert np.allclose(last.positions, sim.positions, rtol=1e-8, atol=1e-9)
    assert np.allclose(last.radii, sim.radii, rtol=1e-8)
    with pytest.raises(agglo.InputError, match="nosuch.xyz"):
        agglo.analysis.Trajectory(tmp_path / "nosuch.xyz")


def test_trajectory_reader_columns(small_contact, tmp_path):
    """Step= of the comment line and the velo, id, cluster columns of agglo's own files."""
    sim = small_contact()
    sim.attach_outputs(tmp_path, which="trajectory")
    sim.run()
    sim.close_outputs()
    frames = list(agglo.analysis.Trajectory(tmp_path / "trajectory.xyz"))
    assert [f.step for f in frames] == list(range(0, 21, 2))
    last = frames[-1]
    assert np.array_equal(last.ids, sim.ids)
    assert np.array_equal(last.clusters, sim.clusters)
    assert np.allclose(last.velocities, sim.velocities, rtol=1e-6, atol=1e-9)


def test_other_threads_cannot_step_a_running_simulation(small_contact):
    sim = small_contact()
    inside, release = threading.Event(), threading.Event()

    def hold(s):
        inside.set()
        release.wait(10)

    worker = threading.Thread(target=sim.run, kwargs={"t_end": 0.02, "callback": hold})
    worker.start()
    try:
        assert inside.wait(10)
        with pytest.raises(agglo.UsageError, match="while it runs in another thread"):
            sim.step()
        with pytest.raises(agglo.UsageError, match="another thread"):
            sim.clusters
        assert sim.positions.shape == (200, 2)  # reading a view is fine
    finally:
        release.set()
        worker.join()
    assert sim.step_count == 1


def test_reused_output_directory_needs_overwrite(small_contact, tmp_path):
    out = tmp_path / "out"
    first = small_contact()
    first.attach_outputs(out)
    first.step(3)
    first.close_outputs()
    stats = (out / "stats.csv").read_text()
    again = small_contact()
    with pytest.raises(agglo.Error):
        again.attach_outputs(out)
    again.attach_outputs(out, overwrite=True)
    again.step(3)
    again.close_outputs()
    assert (out / "stats.csv").read_text() == stats  # the same run again, nothing of the old left


def test_absurd_velocities_refused(small_contact):
    """Issue 41: a speed that crosses the box in one step (1e308 was accepted and stepped) is
    refused, naming the particle and the bound; nothing changes."""
    sim = small_contact()
    before = sim.velocities.copy()
    with pytest.raises(agglo.InputError, match=r"particle 0: speed 1\.41421e\+308 \(allowed: at most the box's largest side"):
        sim.velocities = np.full((sim.n, 2), 1e308)
    assert np.array_equal(sim.velocities, before)


def test_request_stop_inside_a_step(small_contact):
    """Issue 41: a stop requested from another thread ends a projection that never converges
    within a second; the step is given up (step count and positions unchanged)."""
    import threading
    import time
    sim = small_contact(**{"solver.tol": 1e-300, "solver.max_iter": 1000000000, "solver.method": "apgd"})
    threading.Timer(0.5, sim.request_stop).start()
    t0 = time.monotonic()
    # the first step with a contact never converges: it is the one given up
    assert sim.step(1000) == agglo.RunStatus.STOPPED
    assert time.monotonic() - t0 < 3
    assert sim.step_count < 1000 and np.isfinite(sim.positions).all()
