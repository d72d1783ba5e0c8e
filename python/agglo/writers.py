"""Writers of the user's own, as HOOMD-blue's custom writers: a class with act(sim, timestep) and
a trigger, whose text the library appends to a file of the run's output directory.

    class Gyration(agglo.writers.CustomWriter):
        def act(self, sim, timestep):
            return f"{timestep},{sim.time},{sim.cluster_count}\\n"

    sim.add_writer(Gyration(agglo.writers.Periodic(10), "gyration.csv"))
    sim.attach_outputs("run")

The library owns the file (agglo_sim_add_writer, docs/api.md): made with the outputs, held with
the directory, recorded in every restart point (its length, its trigger's position), so that a
run resumed with Simulation.from_restart(dir) and the same writer added again (same name) goes
on as if never stopped; a saved writer not added again makes the first step fail, naming it.
"""
import numbers
from typing import Any, Iterable, Optional, Sequence, Tuple, Union

from .errors import InputError


class Trigger:
    """When a writer writes: every `steps` steps, or every `interval` of simulated time (a model of
    fixed step: every round(interval / run.dt) steps), at each of `times`, at the first step
    (at_start) and at the run's end (at_end); whichever come, never twice at one step. Triggers
    combine with |."""

    def __init__(self, steps: int = 0, interval: float = 0.0, times: Iterable[float] = (),
                 at_start: bool = False, at_end: bool = False) -> None:
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
            raise InputError(f"Trigger: steps = {steps!r} (allowed: an integer >= 0)")
        if not isinstance(interval, numbers.Real) or not interval >= 0:
            raise InputError(f"Trigger: interval = {interval!r} (allowed: a number >= 0)")
        self.steps: int = int(steps)
        self.interval: float = float(interval)
        self.times: Tuple[float, ...] = tuple(sorted(float(t) for t in times))
        self.at_start: bool = bool(at_start)
        self.at_end: bool = bool(at_end)
        if self.steps and self.interval:
            raise InputError(f"Trigger: steps = {self.steps} and interval = {self.interval} "
                             "(allowed: one of the two)")

    def __or__(self, other: "Trigger") -> "Trigger":
        if not isinstance(other, Trigger):
            return NotImplemented
        return Trigger(self.steps or other.steps, self.interval or other.interval,
                       self.times + other.times, self.at_start or other.at_start,
                       self.at_end or other.at_end)

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in (("steps", self.steps), ("interval", self.interval),
                                            ("times", self.times), ("at_start", self.at_start),
                                            ("at_end", self.at_end)) if v]
        return f"Trigger({', '.join(parts)})"


def Periodic(steps: int) -> Trigger:
    """Every `steps` steps (step 0 included), as hoomd.trigger.Periodic(period)."""
    return Trigger(steps=steps)


def Interval(interval: float) -> Trigger:
    """Every `interval` of simulated time."""
    return Trigger(interval=interval)


def At(times: Union[float, Sequence[float]]) -> Trigger:
    """At these times (a fixed-step model: the step nearest each)."""
    if isinstance(times, (int, float)):
        return Trigger(times=[float(times)])
    return Trigger(times=[float(t) for t in times])


def End() -> Trigger:
    """At the run's end only."""
    return Trigger(at_end=True)


class CustomWriter:
    """A writer of the user's own: subclass it and define act(sim, timestep), which returns the
    text (str or bytes; None or "": nothing) appended to `filename` in the run's output directory
    each time `trigger` fires. `name` (default: the class's name) identifies the writer in the
    restart point: add the same writer again after Simulation.from_restart. Inside act, read the
    state (sim.positions, sim.clusters, ...) but do not step or change it; an exception fails the
    run and is re-raised by run/step."""

    def __init__(self, trigger: Trigger, filename: str, name: Optional[str] = None) -> None:
        if not isinstance(trigger, Trigger):
            raise InputError(f"{type(self).__name__}: trigger = {trigger!r} (allowed: an "
                             "agglo.writers.Trigger, e.g. Periodic(10))")
        self.trigger = trigger
        self.filename = str(filename)
        self.name = str(name) if name is not None else type(self).__name__

    def act(self, sim: Any, timestep: int) -> Union[str, bytes, None]:
        raise NotImplementedError(f"{type(self).__name__}.act(sim, timestep) is not defined")
