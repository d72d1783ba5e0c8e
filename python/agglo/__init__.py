"""agglo: direct simulation of particle aggregation (contact, gluey, ballistic, dpd) from Python.

    import agglo
    sim = agglo.Simulation.from_file(agglo.examples.path("maury_brownian_500"), seed=7,
                                     overrides={"run.t_end": 1})
    sim.run()
    print(sim.time, sim.cluster_count, sim.positions.shape)

A cffi binding (ABI mode) of libagglo's public C API; docs/python.md documents it.
"""
from . import _ffi
from .errors import (AggloMemoryError, AggloWarning, Error, InputError, MissingFileError,
                     OutputError, RunError, RunStatus, UnknownKeyError, UsageError)
from .simulation import OUTPUTS, Box, Config, KeyInfo, Simulation, Snapshot, config_keys
from .aggregates import Aggregate, aggregate, write_aggregates
from . import aggregates, analysis, ensemble, examples, models, picture, plots, writers

__version__: str = _ffi.ffi.string(_ffi.lib.agglo_version()).decode()
library_path: str = _ffi.LIBRARY

__all__ = ["Simulation", "Snapshot", "Config", "Box", "config_keys", "KeyInfo", "OUTPUTS",
           "RunStatus", "aggregate", "write_aggregates", "Aggregate", "aggregates", "analysis", "ensemble", "examples", "models", "picture", "plots", "writers",
           "set_threads",
           "Error", "InputError", "UnknownKeyError", "MissingFileError", "UsageError",
           "RunError", "OutputError", "AggloMemoryError", "AggloWarning", "__version__"]


def set_threads(n: int) -> None:
    """OpenMP threads of the hot loops (0: OpenMP's default). Results never depend on it."""
    _ffi.check(_ffi.lib.agglo_set_threads(int(n)))
