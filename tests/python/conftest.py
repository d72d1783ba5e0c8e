"""pytest set-up for the agglo package: import it from PYTHONPATH (CTest sets the build tree's)
or else from the source tree's python/ (library: build/libagglo.so or $AGGLO_LIBRARY)."""
import os
import sys

import pytest

ROOT = os.environ.get("AGGLO_SOURCE_DIR") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
try:
    import agglo  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import agglo  # noqa: F401


@pytest.fixture
def examples():
    """The path of examples/NAME."""
    return lambda name: os.path.join(ROOT, "examples", name)


# small scenarios used by several tests: contact (Maury's Brownian, N = 200, 20 steps)
SMALL_CONTACT = {"particles.n": 200, "run.t_end": 0.4, "output.snapshots": "",
                 "output.trajectory_interval": 0.04, "output.stats_interval": 0.02}


@pytest.fixture
def small_contact(examples):
    def make(**over):
        o = dict(SMALL_CONTACT)
        o.update({k.replace("__", "."): v for k, v in over.items()})
        return agglo.Simulation.from_file(examples("maury_brownian_500.ini"), seed=3, overrides=o)
    return make
