"""The example scenarios of agglo (examples/*.ini of the repository): shipped inside the package
by pip, found in <prefix>/share/agglo/examples after `cmake --install`, in examples/ of the
source tree from a build or the source tree.

    import agglo
    sim = agglo.Simulation.from_file(agglo.examples.path("maury_brownian_500"))
"""
import os
from typing import List

from ..errors import UnknownKeyError

_HERE = os.path.dirname(os.path.abspath(__file__))
# running from the source tree (PYTHONPATH=python): the repository's examples/
_SOURCE = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "examples"))

__all__ = ["path", "names"]


def _directory() -> str:
    from .._ffi import _paths
    places = [_HERE, getattr(_paths, "EXAMPLES_DIR", None), _SOURCE]
    for d in places:
        if d and os.path.isdir(d) and any(f.endswith(".ini") for f in os.listdir(d)):
            return d
    raise FileNotFoundError("agglo.examples: no example scenarios in "
                            + ", ".join(d for d in places if d))


def names() -> List[str]:
    """The example scenarios, by name (without .ini), sorted."""
    return sorted(f[:-4] for f in os.listdir(_directory()) if f.endswith(".ini"))


def path(name: str) -> str:
    """The absolute path of the example scenario name ("maury_brownian_500" or
    "maury_brownian_500.ini"); an unknown name raises agglo.UnknownKeyError (a KeyError) listing the names."""
    base = name[:-4] if name.endswith(".ini") else name
    p = os.path.join(_directory(), base + ".ini")
    if os.sep in base or not os.path.isfile(p):
        raise UnknownKeyError(f"agglo.examples: no example {name!r} (allowed: {', '.join(names())})")
    return p
