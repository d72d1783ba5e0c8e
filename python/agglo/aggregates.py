"""Tunable aggregates: N monomers with a prescribed fractal dimension D_f and prefactor k_f,
N = k_f (R_g/a)^D_f (docs/aggregates.md; the C API is include/agglo/aggregates.h).

    import agglo
    a = agglo.aggregate(n=1000, fractal_dimension=1.8, prefactor=1.3, seed=3)
    a.positions.shape, a.radii.shape, a.rg          # (1000, 3), (1000,), 40.12...
    agglo.write_aggregates("agg.xyz", [a], 1.8, 1.3)  # a start for particles.from
"""
import os
from typing import Any, List, NamedTuple, Sequence, Union

import numpy as np

from ._ffi import check, encode, ffi, lib

__all__ = ["Aggregate", "aggregate", "write_aggregates", "METHODS", "RADIUS_DISTRIBUTIONS"]

METHODS = {"pc": lib.AGGLO_AGGREGATE_PC, "cc": lib.AGGLO_AGGREGATE_CC}
RADIUS_DISTRIBUTIONS = {"uniform": lib.AGGLO_RADII_UNIFORM, "lognormal": lib.AGGLO_RADII_LOGNORMAL}


class Aggregate(NamedTuple):
    """One aggregate: centres (n, 3) with the centre of mass at the origin (z = 0 in 2D), radii,
    R_g measured (mass-weighted, of the centres) and prescribed, the geometric mean radius a, the
    placements tried and the restarts."""
    positions: np.ndarray
    radii: np.ndarray
    dim: int
    rg: float
    rg_target: float
    radius_geo: float
    trials: int
    restarts: int


def _choice(name: str, value: str, table: dict) -> int:
    if value not in table:
        raise ValueError(f"{name} = {value!r} (allowed: {', '.join(table)})")
    return int(table[value])


def aggregate(n: int, fractal_dimension: float = 1.8, prefactor: float = 1.3, method: str = "cc",
              dim: int = 3, radius: float = 1.0, radius_distribution: str = "uniform",
              radius_spread: float = 0.0, radius_sigma: float = 1.25, seed: int = 1,
              index: int = 0, max_trials: int = 100000, max_restarts: int = 3) -> Aggregate:
    """Build one aggregate (agglo_aggregate_build). The radius keys mean what the [particles] keys
    of the same names mean; index picks aggregate `index` of the ensemble of `seed` (the same
    numbers as `agglo aggregate --seed S --count K` gives its aggregate index + 1).
    Raises agglo.InputError for (D_f, k_f) that cannot be built, naming why, and agglo.RunError
    when a joining found no place within max_trials."""
    o = ffi.new("agglo_aggregate_options *")
    lib.agglo_aggregate_defaults(o)
    o.n = int(n)
    o.fractal_dimension = float(fractal_dimension)
    o.prefactor = float(prefactor)
    o.method = _choice("method", method, METHODS)
    o.dim = int(dim)
    o.radius = float(radius)
    o.radius_distribution = _choice("radius_distribution", radius_distribution, RADIUS_DISTRIBUTIONS)
    o.radius_spread = float(radius_spread)
    o.radius_sigma = float(radius_sigma)
    o.seed = int(seed)
    o.index = int(index)
    o.max_trials = int(max_trials)
    o.max_restarts = int(max_restarts)
    out = ffi.new("agglo_aggregate *")
    check(lib.agglo_aggregate_build(o, out), "agglo_aggregate_build")
    try:
        k = int(out.n)
        x = np.frombuffer(ffi.buffer(out.x, 3 * k * 8), dtype=np.float64).reshape(k, 3).copy()
        r = np.frombuffer(ffi.buffer(out.r, k * 8), dtype=np.float64).copy()
        return Aggregate(x, r, int(out.dim), float(out.rg), float(out.rg_target),
                         float(out.radius_geo), int(out.trials), int(out.restarts))
    finally:
        lib.agglo_aggregate_free(out)


def write_aggregates(path: Union[str, "os.PathLike[str]"], aggregates: Sequence[Aggregate],
                     fractal_dimension: float, prefactor: float, radius: float = 1.0,
                     box: float = 0.0, periodic: bool = True, frames: bool = False) -> None:
    """Write aggregates as one frame (agglo_aggregates_write): H5MD for .h5md/.h5, else extended
    XYZ, side by side in a box [0, box]^dim (0: the smallest that holds them), periodic or walled,
    masses (r/radius)^3: a start for particles.from with box.size = box. frames=True: aggregate k
    as frame k + 1 instead, each alone in one box (agglo_aggregates_write_frames)."""
    if len(aggregates) == 0:
        raise ValueError("write_aggregates: no aggregate")
    c = ffi.new("agglo_aggregate[]", len(aggregates))
    keep: List[Any] = []
    for k, a in enumerate(aggregates):
        x = np.ascontiguousarray(a.positions, dtype=np.float64)
        r = np.ascontiguousarray(a.radii, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != 3 or r.shape != (x.shape[0],):
            raise ValueError(f"aggregate {k}: positions (n, 3) and radii (n,) expected")
        keep += [x, r]
        c[k].n = x.shape[0]
        c[k].dim = int(a.dim)
        c[k].x = ffi.from_buffer("double[]", x)
        c[k].r = ffi.from_buffer("double[]", r)
        c[k].rg = a.rg
    write = lib.agglo_aggregates_write_frames if frames else lib.agglo_aggregates_write
    check(write(encode(path), c, len(aggregates), float(fractal_dimension), float(prefactor),
                float(radius), float(box), 1 if periodic else 0), "agglo_aggregates_write")
