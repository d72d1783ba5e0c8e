"""Writers of the user's own from Python (agglo.writers, Simulation.add_writer): a custom
writer's file after a stop (a callback's, and SIGTERM's through request_stop) and a resume from
the restart point equals an uninterrupted run's byte for byte; a saved writer not added again is
refused, naming it; an exception in act fails the run and is re-raised."""
import importlib.util
import os
import signal

import pytest

import agglo
from agglo.writers import At, CustomWriter, End, Periodic, Trigger


def _example(root):
    spec = importlib.util.spec_from_file_location(
        "custom_writer", os.path.join(root, "examples", "python", "custom_writer.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def example(examples):
    return _example(os.path.dirname(os.path.dirname(examples("x"))))


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("stop_at", [7, 10])
def test_example_stopped_and_resumed_equals_whole(example, tmp_path, stop_at):
    whole = _read(example.run(str(tmp_path / "whole")))
    resumed = _read(example.run(str(tmp_path / "resumed"), stop_at=stop_at))
    assert resumed == whole
    lines = whole.decode().splitlines()
    assert lines[0] == "step,time,largest,rg_largest"
    assert [int(r.split(",")[0]) for r in lines[1:]] == [0, 5, 10, 15, 20]
    # the largest cluster only grows here (no breakage in this model), and a pair's rg is at
    # least its smaller radius
    sizes = [int(r.split(",")[2]) for r in lines[1:]]
    assert sizes == sorted(sizes) and sizes[0] >= 1


class Count(CustomWriter):
    def act(self, sim, timestep):
        return f"{timestep},{sim.time:.10g},{sim.cluster_count}\n"


def _sim(small_contact):
    sim = small_contact()
    sim.add_writer(Count(Periodic(3) | End(), "count.csv", name="count"))
    sim.add_writer(Count(At([0.05, 0.21]), "at.csv", name="at"))
    return sim


def test_sigterm_stop_and_resume(small_contact, tmp_path):
    whole = _sim(small_contact)
    whole.attach_outputs(tmp_path / "whole")
    whole.run()
    whole.close()
    sim = _sim(small_contact)
    out = tmp_path / "stopped"
    sim.attach_outputs(out)
    old = signal.signal(signal.SIGTERM, lambda sig, frame: sim.request_stop())
    try:
        def kill(s):
            if s.step_count == 8:
                os.kill(os.getpid(), signal.SIGTERM)
            return False
        assert sim.run(callback=kill) == agglo.RunStatus.STOPPED
    finally:
        signal.signal(signal.SIGTERM, old)
    assert sim.step_count == 8
    sim.close()
    sim = agglo.Simulation.from_restart(out)
    sim.add_writer(Count(Periodic(3) | End(), "count.csv", name="count"))
    sim.add_writer(Count(At([0.05, 0.21]), "at.csv", name="at"))
    sim.attach_outputs(out)
    sim.run()
    sim.close()
    for name in ("count.csv", "at.csv", "stats.csv"):
        assert _read(out / name) == _read(tmp_path / "whole" / name), name
    assert [int(r.split(",")[0]) for r in _read(out / "count.csv").decode().splitlines()] == \
        [0, 3, 6, 9, 12, 15, 18, 20]


def test_saved_writer_not_added_refused(small_contact, tmp_path):
    sim = _sim(small_contact)
    sim.attach_outputs(tmp_path / "r")
    assert sim.run(callback=lambda s: s.step_count == 4) == agglo.RunStatus.STOPPED
    sim.close()
    sim = agglo.Simulation.from_restart(tmp_path / "r")
    sim.add_writer(Count(Periodic(3) | End(), "count.csv", name="count"))
    sim.attach_outputs(tmp_path / "r")
    with pytest.raises(agglo.InputError, match="user writer 'at' \\(file at.csv"):
        sim.step(1)
    assert sim.step_count == 4
    sim.close()


def test_act_exception_fails_the_run(small_contact, tmp_path):
    class Broken(CustomWriter):
        def act(self, sim, timestep):
            if timestep == 2:
                raise ZeroDivisionError("measured nothing")
            return "ok\n"
    sim = small_contact()
    sim.add_writer(Broken(Periodic(1), "broken.csv"))
    sim.attach_outputs(tmp_path / "b")
    with pytest.raises(ZeroDivisionError):
        sim.run()
    assert _read(tmp_path / "b" / "broken.csv") == b"ok\nok\n"


def test_checks():
    with pytest.raises(agglo.InputError):
        Trigger(steps=2, interval=0.1)
    with pytest.raises(agglo.InputError):
        Periodic(-1)
    with pytest.raises(agglo.InputError):
        Count("every step", "x.csv")
    assert repr(Periodic(3) | End()) == "Trigger(steps=3, at_end=True)"
