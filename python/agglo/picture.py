"""Pictures of particles as `agglo render` and a run's snapshots draw them (docs/pictures.md):
any Simulation, Snapshot or trajectory Frame to PNG bytes, a PNG file or a numpy RGB image.

    png = agglo.picture.render(sim)                       # PNG bytes (Simulation._repr_png_)
    agglo.picture.render(sim, "frame.png", view="0, 0, 1", color="size")
    rgb = agglo.picture.to_array(png)                     # (height, width, 3) uint8

Picture keys are those of [picture] (view, color, slab_width, ...) and png_width (output.)."""
import io
import os
import tempfile
from typing import Any, Optional, Union

import numpy as np

from ._ffi import check, encode, ffi, lib
from .errors import InputError, UnknownKeyError
from .simulation import Config, PathLike

__all__ = ["render", "to_array", "render_array"]


def _settings(config: Optional[Any], keys: dict) -> Config:
    c = Config() if config is None else Config._of(config)
    for k, v in keys.items():
        if "." in k or "__" in k:
            full = k.replace("__", ".")
        elif k == "png_width":
            full = "output.png_width"
        else:
            full = "picture." + k
        if full not in c:
            raise UnknownKeyError(f"render: unknown picture key {k!r} (allowed: the [picture] "
                                  "keys of `agglo run --help`, png_width, or section.key)")
        c[full] = v
    return c


def _rows(a: Any, n: int, name: str) -> np.ndarray:
    """(n, 2) or (n, 3) vectors as a C-contiguous n x 3 float64 array (z = 0)."""
    x = np.asarray(a, dtype=np.float64)
    if x.shape[0] != n or x.ndim != 2 or x.shape[1] not in (2, 3):
        raise InputError(f"render: {name} of shape {x.shape} for {n} particles")
    out = np.zeros((n, 3))
    out[:, :x.shape[1]] = x
    return out


def render(obj: Any, path: Optional[PathLike] = None, config: Optional[Any] = None,
           **picture: Any) -> Optional[bytes]:
    """Draw obj (a Simulation, a Snapshot or an analysis.Frame) with the picture settings of
    config (a Config, a dict or a scenario path; default: every key's default) and the picture
    keys given. Writes path and returns None, or returns the PNG's bytes when path is None."""
    c = _settings(config, picture)
    n = int(getattr(obj, "n", len(obj.radii)))
    dim = int(obj.dim)
    x = _rows(obj.positions, n, "positions")
    r = np.ascontiguousarray(obj.radii, dtype=np.float64)
    if r.shape != (n,):
        raise InputError(f"render: radii of shape {r.shape} for {n} particles")
    keep = [x, r]
    f = ffi.new("agglo_picture_frame *")
    f.n, f.dim, f.time = n, dim, float(obj.time)
    f.positions, f.radii = ffi.from_buffer("double[]", x), ffi.from_buffer("double[]", r)
    clusters = getattr(obj, "clusters", None)
    if clusters is not None:
        lab = np.asarray(clusters)
        # any integers label clusters: renumber 0.. (int32) keeping which particles share one
        lab = np.ascontiguousarray(np.unique(lab, return_inverse=True)[1], dtype=np.int32)
        keep.append(lab)
        f.clusters = ffi.from_buffer("int32_t[]", lab)
    velocities = getattr(obj, "velocities", None)
    if velocities is not None:
        v = _rows(velocities, n, "velocities")
        keep.append(v)
        f.velocities = ffi.from_buffer("double[]", v)
    ids = getattr(obj, "ids", None)
    if ids is not None:
        i = np.ascontiguousarray(ids, dtype=np.int64)
        keep.append(i)
        f.ids = ffi.from_buffer("int64_t[]", i)
    box = obj.box
    for k in range(dim):
        f.box.lo[k], f.box.hi[k] = float(box.lo[k]), float(box.hi[k])
        f.box.len[k] = float(box.hi[k]) - float(box.lo[k])
        f.box.periodic[k] = lib.AGGLO_PERIODIC if box.periodic[k] else lib.AGGLO_WALL
    if path is not None:
        check(lib.agglo_picture_render(c._c, f, encode(path)))
        return None
    with tempfile.TemporaryDirectory(prefix="agglo-picture-") as d:
        out = os.path.join(d, "frame.png")
        check(lib.agglo_picture_render(c._c, f, encode(out)))
        with open(out, "rb") as fh:
            return fh.read()


def to_array(png: Union[bytes, bytearray, PathLike]) -> np.ndarray:
    """A PNG (bytes or a path) decoded into an (height, width, 3) uint8 RGB array (alpha
    dropped), with Pillow (Debian's python3-pil, which python3-matplotlib brings)."""
    from PIL import Image  # only here: the rest of the package does not need it
    if not isinstance(png, (bytes, bytearray)):
        with open(png, "rb") as fh:
            png = fh.read()
    with Image.open(io.BytesIO(png)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()


def render_array(obj: Any, config: Optional[Any] = None, **picture: Any) -> np.ndarray:
    """render(obj, ...) decoded: an (height, width, 3) uint8 RGB image."""
    png = render(obj, None, config, **picture)
    assert png is not None
    return to_array(png)
