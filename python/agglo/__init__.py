"""agglo: direct simulation of particle aggregation (contact, gluey, ballistic, dpd) from Python.

    import agglo
    sim = agglo.Simulation.from_file("examples/maury_brownian_500.ini", seed=7,
                                     overrides={"run.t_end": 1})
    sim.run()
    print(sim.time, sim.cluster_count, sim.positions.shape)

A cffi binding (ABI mode) of libagglo's public C API; docs/python.md documents it.
"""
from . import _ffi
from .errors import (AggloMemoryError, AggloWarning, Error, InputError, OutputError, RunError,
                     UnknownKeyError, UsageError)
from .simulation import OUTPUTS, Box, Config, KeyInfo, Simulation, config_keys
from . import analysis

__version__ = _ffi.ffi.string(_ffi.lib.agglo_version()).decode()
library_path = _ffi.LIBRARY

__all__ = ["Simulation", "Config", "Box", "config_keys", "KeyInfo", "OUTPUTS", "analysis",
           "set_threads", "Error", "InputError", "UnknownKeyError", "UsageError", "RunError",
           "OutputError", "AggloMemoryError", "AggloWarning", "__version__"]


def set_threads(n):
    """OpenMP threads of the hot loops (0: OpenMP's default). Results never depend on it."""
    _ffi.check(_ffi.lib.agglo_set_threads(int(n)))
