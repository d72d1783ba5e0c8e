"""agglo's analysis toolkit over numpy arrays (docs/analysis.md gives every formula).

Positions are (n, 2) or (n, 3) arrays of real numbers (2D arrays get z = 0); the dimension is
their number of columns unless dim is given. box is None (open space), a Simulation's box, or
any object with lo, hi and periodic per axis."""
import collections.abc
import numbers
import os
from typing import Any, Iterator, NamedTuple, Optional, Tuple

import numpy as np

from ._ffi import check, encode, ffi, lib, last_error
from .errors import InputError
from .simulation import Box, PathLike, _box_from_c, _real_array

__all__ = ["cluster_labels", "cluster_sizes", "gyration", "box_counting", "mass_radius_dimension",
           "contacts_per_sphere", "pair_distribution", "ellipsoid", "ellipsoid_class",
           "temperature", "smoluchowski", "growth_exponent", "Trajectory", "Frame", "Gyration",
           "BoxCounting", "Ellipsoid", "Smoluchowski", "Growth", "structure_factor", "guinier_rg",
           "power_law_slope", "projected_area", "mobility_friction_length", "mobility_radius",
           "mobility_diameters", "rdg_fa", "fractal_structure_factor", "write_mstm", "write_ddscat", "StructureFactor",
           "ProjectedArea", "Mobility", "Optics"]

class Gyration(NamedTuple):
    tensor: np.ndarray
    rg: float

class BoxCounting(NamedTuple):
    dimension: float
    eps: np.ndarray
    counts: np.ndarray

class Ellipsoid(NamedTuple):
    semi: np.ndarray
    axes: np.ndarray

class Smoluchowski(NamedTuple):
    n: np.ndarray
    lost: float
    steps: int

class Growth(NamedTuple):
    z: float
    se: float
    points: int

class StructureFactor(NamedTuple):
    S: np.ndarray
    I: np.ndarray
    error: np.ndarray
    binned: bool
    bins: int
    bin_width: float
    max_error: float

class ProjectedArea(NamedTuple):
    area: float
    error: float

class Mobility(NamedTuple):
    d_continuum: float
    d_free_molecular: float
    d_knudsen: float
    rm: float
    rp: float
    rp_law: float
    projected_area: float
    projected_area_error: float

class Optics(NamedTuple):
    c_abs: float
    c_sca: float
    c_abs_monomer: float
    c_sca_monomer: float
    g: float
    E: float
    F: float
    k: float
    x_monomer: float
    rg: float
    n: float

KERNELS = {"constant": lib.AGGLO_KERNEL_CONSTANT, "additive": lib.AGGLO_KERNEL_ADDITIVE,
           "ballistic": lib.AGGLO_KERNEL_BALLISTIC, "brownian": lib.AGGLO_KERNEL_BROWNIAN,
           "fuchs": lib.AGGLO_KERNEL_FUCHS}
ELLIPSOID_CLASSES = {lib.AGGLO_SPHERE: "sphere", lib.AGGLO_PROLATE: "prolate",
                     lib.AGGLO_OBLATE: "oblate", lib.AGGLO_SCALENE: "scalene"}


def _ptr(a: np.ndarray, ctype: str = "double[]") -> Any:
    return ffi.from_buffer(ctype, a)


def _positions(x: Any, dim: Optional[int] = None,
               name: str = "positions") -> Tuple[np.ndarray, int]:
    """(n x 3 C-contiguous float64 array, dim) from (n, 2) or (n, 3) positions."""
    a = _real_array(name, x)
    if a.ndim != 2 or a.shape[1] not in (2, 3):
        raise InputError(f"{name}: shape {a.shape}; expected (n, 2) or (n, 3)")
    if dim is None:
        dim = a.shape[1]
    if dim not in (2, 3):
        raise InputError(f"dim = {dim!r} (allowed: 2 or 3)")
    if a.shape[1] == 3:
        return np.ascontiguousarray(a, dtype=np.float64), dim
    p = np.zeros((a.shape[0], 3))
    p[:, :2] = a
    return p, dim


def _values(name: str, v: Any, n: int) -> np.ndarray:
    a = _real_array(name, v)
    if a.shape != (n,):
        raise InputError(f"{name}: shape {a.shape}; expected ({n},)")
    return np.ascontiguousarray(a, dtype=np.float64)


def _box(box: Any, dim: int) -> Any:
    """An agglo_box * from None, a Box or any object with lo, hi, periodic."""
    if box is None:
        return ffi.NULL
    if isinstance(box, dict):
        box = Box(box["lo"], box["hi"], box.get("periodic", False))
    try:
        lo, hi, periodic = box.lo, box.hi, box.periodic
    except AttributeError:
        raise InputError(f"box: expected None or an object with lo, hi and periodic, not "
                         f"{type(box).__name__}") from None
    lo = np.atleast_1d(np.asarray(lo, dtype=np.float64))
    hi = np.atleast_1d(np.asarray(hi, dtype=np.float64))
    per = np.atleast_1d(np.asarray(periodic, dtype=bool))
    if lo.size == 1:
        lo = np.repeat(lo, dim)
    if hi.size == 1:
        hi = np.repeat(hi, dim)
    if per.size == 1:
        per = np.repeat(per, dim)
    for nm, arr in (("lo", lo), ("hi", hi), ("periodic", per)):
        if arr.shape != (dim,):
            raise InputError(f"box.{nm}: {arr.size} values for dim = {dim}")
    b = ffi.new("agglo_box *")
    for k in range(dim):
        b.lo[k], b.hi[k] = lo[k], hi[k]
        b.len[k] = hi[k] - lo[k]
        b.periodic[k] = lib.AGGLO_PERIODIC if per[k] else lib.AGGLO_WALL
    b.shear_x = float(getattr(box, "shear_x", 0.0))  # (a trajectory frame's Lees-Edwards offset)
    if not np.isfinite(b.shear_x):
        raise InputError(f"box.shear_x = {b.shear_x} (allowed: a finite number)")
    return b


def cluster_labels(positions: Any, radii: Any, contact_gap: Optional[float] = None,
                   box: Any = None, dim: Optional[int] = None, ids: Any = None) -> np.ndarray:
    """Cluster labels (int32; int64 with ids): particles i, j touch when |x_i - x_j| - r_i - r_j < contact_gap
    (default: 0.1 times the mean radius); labels[i] is the smallest id of i's cluster, ids being
    the given particle ids or else the indices 0..n-1 -- the numbering of Simulation.clusters
    (cluster_labels(sim.positions, sim.radii, sim.contact_gap, sim.box, ids=sim.ids) equals
    sim.clusters)."""
    x, dim = _positions(positions, dim)
    n = x.shape[0]
    r = _values("radii", radii, n)
    if contact_gap is None:
        contact_gap = 0.1 * float(r.mean()) if n else 0.0
    labels = np.empty(n, dtype=np.int32)
    count = ffi.new("size_t *")
    b = _box(box, dim)
    check(lib.agglo_analysis_cluster_labels(_ptr(x), _ptr(r), n, dim, b, float(contact_gap),
                                            _ptr(labels, "int32_t[]"), count))
    if ids is None:
        return labels  # the smallest index of each cluster
    ident = _real_array("ids", ids)
    if ident.shape != (n,) or ident.dtype.kind not in "iu":
        raise InputError(f"ids: expected ({n},) integers, got shape {ident.shape} dtype "
                         f"{ident.dtype}")
    smallest = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(smallest, labels, ident.astype(np.int64))
    return smallest[labels]


def cluster_sizes(labels: Any) -> np.ndarray:
    """Sizes of the clusters of a labelling, largest first (int64 array)."""
    lab = _real_array("labels", labels)
    if lab.ndim != 1 or lab.dtype.kind not in "iu":
        raise InputError(f"labels: expected a 1-D integer array, got shape {lab.shape} dtype "
                         f"{lab.dtype}")
    if lab.size and (lab.min() < np.iinfo(np.int32).min or lab.max() > np.iinfo(np.int32).max):
        raise InputError("labels: values outside the int32 range")
    lab = np.ascontiguousarray(lab, dtype=np.int32)
    n = lab.size
    sizes = np.zeros(max(n, 1), dtype=np.uintp)
    count = ffi.new("size_t *")
    check(lib.agglo_analysis_cluster_sizes(_ptr(lab, "int32_t[]"), n, _ptr(sizes, "size_t[]"),
                                           count))
    return sizes[:count[0]].astype(np.int64)


def gyration(positions: Any, masses: Any = None) -> Gyration:
    """Gyration tensor (dim x dim) about the centre of mass of points already unwrapped, with
    optional weights, and the radius of gyration R_g (sqrt of its trace)."""
    x, dim = _positions(positions)
    n = x.shape[0]
    m = ffi.NULL if masses is None else _ptr(_values("masses", masses, n))
    t = np.zeros(9)
    rg = ffi.new("double *")
    check(lib.agglo_analysis_gyration(_ptr(x), m, n, _ptr(t), rg))
    return Gyration(t.reshape(3, 3)[:dim, :dim].copy(), rg[0])


def box_counting(positions: Any, eps_min: float = 0.0, dim: Optional[int] = None,
                 box: Any = None) -> BoxCounting:
    """Box-counting dimension of points: occupied cells of 2^k grids fitted over cell sides in
    [eps_min, L/2]. With a box, the grid of Degond et al. 2024 (2^k cells per axis over the box,
    L its largest side); without, the grid over the smallest square (cube) holding the points.
    Returns BoxCounting(dimension, eps, counts). Too few points or scales for a slope (fewer
    than two cell sides in the range) raise InputError instead of giving nan."""
    x, dim = _positions(positions, dim)
    eps, counts = np.zeros(64), np.zeros(64)
    d, npts = ffi.new("double *"), ffi.new("int *")
    if box is None:
        check(lib.agglo_analysis_box_counting(_ptr(x), x.shape[0], dim, float(eps_min), d,
                                              _ptr(eps), _ptr(counts), npts))
    else:
        check(lib.agglo_analysis_box_counting_box(_ptr(x), x.shape[0], dim, _box(box, dim),
                                                  float(eps_min), d, _ptr(eps), _ptr(counts), npts))
    k = npts[0]
    if k < 2 or not np.isfinite(d[0]):
        raise InputError(f"box_counting: {x.shape[0]} points give {k} cell side(s) in "
                         f"[eps_min = {eps_min:g}, L/2] (allowed: at least 2 for a slope; a "
                         "larger cluster or a smaller eps_min)")
    return BoxCounting(d[0], eps[:k].copy(), counts[:k].copy())


def mass_radius_dimension(sizes: Any, rg: Any, min_size: int = 3) -> float:
    """Mass-radius dimension: the slope D of R_g ~ s^(1/D) over clusters of size >= min_size
    (nan with fewer than 3 such clusters or sizes within a factor 3)."""
    s = _real_array("sizes", sizes)
    if s.ndim != 1 or (s.size and s.min() < 0):
        raise InputError(f"sizes: expected a 1-D array of counts >= 0, got shape {s.shape}")
    s = np.ascontiguousarray(s, dtype=np.uintp)
    g = _values("rg", rg, s.size)
    d = ffi.new("double *")
    check(lib.agglo_analysis_mass_radius(_ptr(s, "size_t[]"), _ptr(g), s.size, int(min_size), d))
    return d[0]


def contacts_per_sphere(positions: Any, dist: float, box: Any = None,
                        dim: Optional[int] = None) -> float:
    """Relative contacts per sphere N_c = (1/(k N)) sum_{i,j} 1{|x_i - x_j| <= dist}, i = j
    included, k = 6 in 2D and 12 in 3D."""
    x, dim = _positions(positions, dim)
    nc = ffi.new("double *")
    check(lib.agglo_analysis_contacts_per_sphere(_ptr(x), x.shape[0], dim, _box(box, dim),
                                                 float(dist), nc))
    return nc[0]


def pair_distribution(positions: Any, r: Any, box: Any = None,
                      dim: Optional[int] = None) -> Any:
    """Cumulative pair distribution P(r_k) = (1/N) sum_{i, j != i} 1{|x_i - x_j| <= r_k} at the
    distances r (array or scalar)."""
    x, dim = _positions(positions, dim)
    rr = _real_array("r", r)
    scalar = rr.ndim == 0
    rr = np.ascontiguousarray(np.atleast_1d(rr), dtype=np.float64)
    if rr.ndim != 1:
        raise InputError(f"r: shape {rr.shape}; expected a 1-D array of distances")
    p = np.zeros(max(rr.size, 1))
    check(lib.agglo_analysis_pair_distribution(_ptr(x), x.shape[0], dim, _box(box, dim),
                                               _ptr(rr), rr.size, _ptr(p)))
    return p[0] if scalar else p[:rr.size]


def ellipsoid(positions: Any, radii: Any) -> Ellipsoid:
    """The ellipsoid with the second moments of the member spheres (centres unwrapped):
    Ellipsoid(semi, axes), semi-axes descending and their directions as the columns of axes."""
    x, _ = _positions(positions)
    r = _values("radii", radii, x.shape[0])
    semi, axes = np.zeros(3), np.zeros(9)
    check(lib.agglo_analysis_ellipsoid(_ptr(x), _ptr(r), x.shape[0], _ptr(semi), _ptr(axes)))
    return Ellipsoid(semi, axes.reshape(3, 3))


def ellipsoid_class(semi: Any, tol: float = 0.05) -> str:
    """"sphere", "prolate", "oblate" or "scalene" for semi-axes (or an Ellipsoid), with
    relative tolerance tol on axis equality."""
    if isinstance(semi, Ellipsoid):
        semi = semi.semi
    a = _values("semi", semi, 3)
    c = lib.agglo_analysis_ellipsoid_class(_ptr(a), float(tol))
    if c < 0:
        raise InputError(last_error())
    return ELLIPSOID_CLASSES[c]


def temperature(velocities: Any, masses: Any, dim: Optional[int] = None) -> float:
    """Kinetic temperature k_B T = sum m |v - v_cm|^2 / (dim (n - 1)), as the DPD model
    reports it."""
    v, dim = _positions(velocities, dim, name="velocities")
    m = _values("masses", masses, v.shape[0])
    kt = ffi.new("double *")
    check(lib.agglo_analysis_temperature(_ptr(v), _ptr(m), v.shape[0], dim, kt))
    return kt[0]


def smoluchowski(kernel: str, t_end: float, kmax: int = 512, dim: int = 3, df: float = 0.0,
                 n0: Any = None, max_steps: int = 10**7, persistence: float = 0.0,
                 knudsen: float = 0.0, area_exponent: float = 0.0,
                 mobility: str = "adjusted_sphere") -> Smoluchowski:
    """Smoluchowski's equation (docs/analysis.md, "Kinetics") from n0 (kmax values; default
    n_1 = 1) to t_end with kernel "constant", "additive", "ballistic", "brownian" or "fuchs"
    (clusters of radius ~ size^(1/df), df = 0: dim; "fuchs": 3D, a monomer's persistence length
    and the gas's mean free path in monomer radii, the dlca mobility law "adjusted_sphere" or
    "sphere" with its projected-area exponent, 0: 0.92). Returns Smoluchowski(n, lost, steps):
    n_k at t_end (n[k-1] for size k), the share of the mass that passed kmax, the Runge-Kutta
    steps."""
    if kernel not in KERNELS:
        raise InputError(f"kernel = {kernel!r} (allowed: {', '.join(KERNELS)})")
    laws = {"adjusted_sphere": 0, "sphere": 1}
    if mobility not in laws:
        raise InputError(f"mobility = {mobility!r} (allowed: {', '.join(laws)})")
    o = ffi.new("agglo_smoluchowski_options *", {"kernel": KERNELS[kernel], "dim": int(dim),
                                                 "df": float(df), "kmax": int(kmax),
                                                 "max_steps": int(max_steps),
                                                 "persistence": float(persistence),
                                                 "knudsen": float(knudsen),
                                                 "area_exponent": float(area_exponent),
                                                 "mobility": laws[mobility]})
    n = np.zeros(int(kmax)) if n0 is None else _values("n0", n0, int(kmax)).copy()
    if n0 is None:
        n[0] = 1
    lost, steps = ffi.new("double *"), ffi.new("int64_t *")
    check(lib.agglo_smoluchowski_solve(o, float(t_end), _ptr(n), lost, steps))
    return Smoluchowski(n, lost[0], steps[0])


def growth_exponent(t: Any, size: Any, t_lo: float = 0.0,
                    t_hi: float = float("inf")) -> Growth:
    """The growth exponent z of S ~ t^z over t_lo <= t <= t_hi (least squares of log S on log t):
    Growth(z, standard error, points used); z nan with fewer than 2 points."""
    t = np.ascontiguousarray(_real_array("t", t), dtype=np.float64)
    s = _values("size", size, t.size)
    se, used = ffi.new("double *"), ffi.new("size_t *")
    z = lib.agglo_growth_exponent(_ptr(t), _ptr(s), t.size, float(t_lo), float(t_hi), se, used)
    return Growth(z, se[0], used[0])


# ---------------------------------------------------------------------------------------------
# trajectories

class Frame(NamedTuple):
    """One frame of a trajectory file (arrays are copies; None where the file has no such
    column)."""

    time: float
    step: int
    dim: int
    box: Box
    positions: Optional[np.ndarray]
    velocities: Optional[np.ndarray]
    radii: Optional[np.ndarray]
    ids: Optional[np.ndarray]
    clusters: Optional[np.ndarray]


def _copy(ptr: Any, shape: Tuple[int, ...], dtype: Any) -> Optional[np.ndarray]:
    if ptr == ffi.NULL:
        return None
    n = int(np.prod(shape))
    a = np.frombuffer(ffi.buffer(ptr, n * np.dtype(dtype).itemsize), dtype=dtype).copy()
    return a.reshape(shape)


class Trajectory(collections.abc.Sequence):
    """The frames of a trajectory file, extended XYZ or H5MD (agglo's own or any that agglo
    analyze reads), as a sequence: len(tr), tr[i] (negative i from the end), tr[a:b:c] (a list),
    ``for frame in tr``. A frame is Frame(time, step, dim, box, positions, velocities, radii,
    ids, clusters) with copied arrays (None where the file has no such column).

    The reader is sequential and keeps no frame in memory: iteration reads the file once,
    len() once (then remembers the count), tr[i] reads up to frame i, a slice one pass."""

    def __init__(self, path: PathLike, default_radius: float = 0.0) -> None:
        self.path = os.fsdecode(path)
        self.default_radius = float(default_radius)
        self._len: Optional[int] = None
        self._open().close()  # a missing or unreadable file raises here

    def _open(self) -> "_Reader":
        return _Reader(self.path, self.default_radius)

    def __iter__(self) -> Iterator[Frame]:
        with self._open() as rd:
            while True:
                frame = rd.next()
                if frame is None:
                    return
                yield frame

    def __len__(self) -> int:
        if self._len is None:
            with self._open() as rd:
                n = 0
                while rd.skip():
                    n += 1
            self._len = n
        return self._len

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            wanted = range(*index.indices(len(self)))
            picked = {}
            with self._open() as rd:
                for k in range(max(wanted, default=-1) + 1):
                    if k in wanted:
                        picked[k] = rd.next()
                    else:
                        rd.skip()
            return [picked[k] for k in wanted]
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise TypeError(f"Trajectory indices are integers or slices, not "
                            f"{type(index).__name__}")
        k = int(index)
        if k < 0:
            k += len(self)
        if k < 0:
            raise IndexError(f"{self.path}: frame {index} (the file has {len(self)} frames)")
        with self._open() as rd:
            for _ in range(k):
                if not rd.skip():
                    break
            frame = rd.next()
        if frame is None:
            raise IndexError(f"{self.path}: frame {index} (the file has {len(self)} frames)")
        return frame

    def __repr__(self) -> str:
        return f"<agglo.analysis.Trajectory {self.path!r}>"

    # `with Trajectory(path) as tr:` as before it was a sequence (no file is held between calls)
    def close(self) -> None:
        """Nothing to release: each pass opens and closes the file."""

    def __enter__(self) -> "Trajectory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Reader:
    """One pass over a trajectory file (agglo_trajectory_*)."""

    def __init__(self, path: PathLike, default_radius: float) -> None:
        out = ffi.new("agglo_trajectory **")
        check(lib.agglo_trajectory_open(encode(path), float(default_radius), out))
        self._tr = ffi.gc(out[0], lib.agglo_trajectory_close)

    def skip(self) -> bool:
        """Read the next frame; False at the end."""
        if self._tr is None:
            return False
        got = ffi.new("int *")
        check(lib.agglo_trajectory_next(self._tr, got))
        if not got[0]:
            self.close()
        return bool(got[0])

    def next(self) -> Optional[Frame]:
        """The next frame, or None at the end."""
        if not self.skip():
            return None
        tr = self._tr
        n, dim = int(lib.agglo_trajectory_count(tr)), int(lib.agglo_trajectory_dim(tr))
        b = ffi.new("agglo_box *")
        check(lib.agglo_trajectory_box(tr, b))
        x = _copy(lib.agglo_trajectory_positions(tr), (n, 3), np.float64)
        v = _copy(lib.agglo_trajectory_velocities(tr), (n, 3), np.float64)
        return Frame(float(lib.agglo_trajectory_time(tr)), int(lib.agglo_trajectory_step(tr)),
                     dim, _box_from_c(b, dim), None if x is None else x[:, :dim],
                     None if v is None else v[:, :dim],
                     _copy(lib.agglo_trajectory_radii(tr), (n,), np.float64),
                     _copy(lib.agglo_trajectory_ids(tr), (n,), np.int64),
                     _copy(lib.agglo_trajectory_clusters(tr), (n,), np.int32))

    def close(self) -> None:
        if self._tr is not None:
            tr, self._tr = self._tr, None
            ffi.release(tr)

    def __enter__(self) -> "_Reader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# aggregates as scatterers and aerosol particles (include/agglo/scattering.h, docs/scattering.md)

SQ_METHODS = {"auto": 0, "exact": 1, "binned": 2}
OPTICS_STRUCTURES = {"debye": 0, "fisher_burford": 1, "exponential": 2, "gaussian": 3}
MOBILITY_LAWS = {"adjusted_sphere": 0, "sphere": 1}


def _sq_options(method: str, tolerance: float, exact_pairs: float, max_pairs: float) -> Any:
    if method not in SQ_METHODS:
        raise InputError(f"method = {method!r} (allowed: {', '.join(SQ_METHODS)})")
    return {"method": SQ_METHODS[method], "tolerance": float(tolerance),
            "exact_pairs": float(exact_pairs), "max_pairs": float(max_pairs)}


def _spheres(positions: Any, radii: Any) -> Tuple[np.ndarray, np.ndarray, int]:
    x, dim = _positions(positions)
    return x, _values("radii", radii, x.shape[0]), dim


def structure_factor(positions: Any, q: Any, radii: Any = None, dim: Optional[int] = None,
                     method: str = "auto", tolerance: float = 1e-3, exact_pairs: float = 2e5,
                     max_pairs: float = 5e8) -> StructureFactor:
    """Debye's structure factor of one aggregate (centres unwrapped) at the wave numbers q:
    S(q) = (1/n) sum_ij sin(q r_ij)/(q r_ij) (dim 2: J0(q r_ij)), and with radii the intensity of
    the spheres I(q) = (1/n) sum_ij w_i w_j Phi_i Phi_j sinc (Phi the sphere's form factor, w the
    volume over the mean volume; point scatterers without radii: I = S). method "auto" is exact
    up to exact_pairs pairs and binned beyond, with bins making the bound on |S - exact| at the
    largest q below tolerance; error holds that bound per q. StructureFactor(S, I, error,
    binned, bins, bin_width, max_error)."""
    x, dim = _positions(positions, dim)
    n = x.shape[0]
    qq = np.ascontiguousarray(np.atleast_1d(_real_array("q", q)), dtype=np.float64)
    r = ffi.NULL if radii is None else _ptr(_values("radii", radii, n))
    S, I, err = np.zeros(max(qq.size, 1)), np.zeros(max(qq.size, 1)), np.zeros(max(qq.size, 1))
    o = ffi.new("agglo_sq_options *", _sq_options(method, tolerance, exact_pairs, max_pairs))
    info = ffi.new("agglo_sq_info *")
    check(lib.agglo_structure_factor(_ptr(x), r, n, dim, _ptr(qq), qq.size, o, _ptr(S), _ptr(I),
                                     _ptr(err), info))
    k = qq.size
    return StructureFactor(S[:k], I[:k], err[:k], bool(info.binned), int(info.bins),
                           float(info.bin_width), float(info.max_error))


def guinier_rg(q: Any, S: Any, S0: float, dim: int = 3) -> Tuple[float, int]:
    """Guinier's R_g: least squares of ln S = c - q^2 R_g^2 / dim below the first q where
    S < S0 exp(-1/dim) (S0 = n for one aggregate). (R_g, points); nan with fewer than 3."""
    qq = np.ascontiguousarray(_real_array("q", q), dtype=np.float64)
    ss = _values("S", S, qq.size)
    rg, used = ffi.new("double *"), ffi.new("size_t *")
    check(lib.agglo_guinier_fit(_ptr(qq), _ptr(ss), qq.size, int(dim), float(S0), rg, used))
    return rg[0], int(used[0])


def power_law_slope(q: Any, S: Any, q_lo: float, q_hi: float) -> Tuple[float, int]:
    """The least-squares slope of ln S on ln q over q_lo <= q <= q_hi: (slope, points); nan with
    fewer than 3 (an aggregate's fractal regime: -D_f between 5/R_g and 1/a, docs/scattering.md)."""
    qq = np.ascontiguousarray(_real_array("q", q), dtype=np.float64)
    ss = _values("S", S, qq.size)
    sl, used = ffi.new("double *"), ffi.new("size_t *")
    check(lib.agglo_power_law_fit(_ptr(qq), _ptr(ss), qq.size, float(q_lo), float(q_hi), sl, used))
    return sl[0], int(used[0])


def cutoff_fit(q: Any, S: Any, S0: float, rg_guess: float, q_hi: float,
               structure: str = "gaussian") -> Tuple[float, float, float, int]:
    """The cut-off model fit of `agglo analyze --sq` (agglo_cutoff_fit, docs/scattering.md):
    D_f and R_g minimising the squared misfit of ln(S/S0) against the model S(q)/N of structure
    ("gaussian", "fisher_burford" or "exponential") over q <= q_hi, R_g within a factor 1.5 of
    rg_guess. (D_f, R_g, rms misfit, points); nan with fewer than 5 points."""
    if structure not in OPTICS_STRUCTURES or structure == "debye":
        raise InputError(f"structure = {structure!r} (allowed: fisher_burford, exponential, gaussian)")
    qq = np.ascontiguousarray(_real_array("q", q), dtype=np.float64)
    ss = _values("S", S, qq.size)
    d, g, rms, used = ffi.new("double *"), ffi.new("double *"), ffi.new("double *"), ffi.new("size_t *")
    check(lib.agglo_cutoff_fit(_ptr(qq), _ptr(ss), qq.size, OPTICS_STRUCTURES[structure], float(S0),
                               float(rg_guess), float(q_hi), d, g, rms, used))
    return d[0], g[0], rms[0], int(used[0])


def projected_area(positions: Any, radii: Any, orientations: int = 200, rays: int = 4000,
                   seed: int = 0) -> ProjectedArea:
    """Orientation-averaged projected area of spheres (2D positions: spheres in the plane z = 0)
    by Monte Carlo: ProjectedArea(mean, standard error over the orientations)."""
    x, r, _ = _spheres(positions, radii)
    a, e = ffi.new("double *"), ffi.new("double *")
    check(lib.agglo_projected_area(_ptr(x), _ptr(r), x.shape[0], int(seed), int(orientations),
                                   int(rays), a, e))
    return ProjectedArea(a[0], e[0])


def mobility_friction_length(rm: float, rp: float, mfp: float,
                             law: str = "adjusted_sphere") -> float:
    """The dlca model's mobility law (docs/dlca.md): friction over 6 pi mu of a cluster of
    continuum mobility radius rm and projected-area radius rp at the gas's mean free path mfp."""
    if law not in MOBILITY_LAWS:
        raise InputError(f"law = {law!r} (allowed: {', '.join(MOBILITY_LAWS)})")
    return float(lib.agglo_mobility_friction_length(MOBILITY_LAWS[law], float(rm), float(rp),
                                                    float(mfp)))


def mobility_radius(friction_length: float, mfp: float) -> float:
    """The radius of the sphere of the same friction: r / C_c(mfp / r) = friction_length."""
    return float(lib.agglo_mobility_radius(float(friction_length), float(mfp)))


def mobility_diameters(positions: Any, radii: Any, knudsen: float = 0.0,
                       mobility_df: Optional[float] = None, area_exponent: float = 0.92,
                       law: str = "adjusted_sphere", orientations: int = 200, rays: int = 4000,
                       seed: int = 0) -> Mobility:
    """What `agglo analyze --mobility` reports of one aggregate: R_m = a N^(1/D_fm) (D_fm default
    1.8, 1.45 for 2D positions), R_p from the Monte Carlo projected area, the law's
    a N^(area_exponent/2), and the mobility diameters in the continuum, free molecular (mean free
    path 1e8 R_m) and (knudsen > 0) at mean free path knudsen * a, a the volume-equivalent mean
    radius."""
    x, r, dim = _spheres(positions, radii)
    n = x.shape[0]
    a = float(np.cbrt(np.mean(r ** 3)))
    df = mobility_df if mobility_df else (1.45 if dim == 2 else 1.8)
    pa = projected_area(x, r, orientations, rays, seed)
    rp, rm = float(np.sqrt(pa.area / np.pi)), a * n ** (1 / df)

    def diameter(mfp: float) -> float:
        return 2 * mobility_radius(mobility_friction_length(rm, rp, mfp, law), mfp)

    return Mobility(diameter(0.0), diameter(1e8 * rm),
                    diameter(knudsen * a) if knudsen > 0 else float("nan"), rm, rp,
                    a * n ** (area_exponent / 2), pa.area, pa.error)


def rdg_fa(positions: Any, radii: Any, wavelength: float, m: complex,
           structure: str = "debye", df: float = 1.8, angles: int = 64,
           method: str = "auto", tolerance: float = 1e-3, exact_pairs: float = 2e5,
           max_pairs: float = 5e8) -> Optics:
    """RDG-FA cross-sections (Sorensen 2001) of an aggregate of Rayleigh monomers of refractive
    index m at the wavelength: C_abs = sum of the monomers', C_sca through the structure factor
    "debye" (the aggregate's own, volume-weighted), "fisher_burford", "exponential" or
    "gaussian" (cut-off models of fractal dimension df) integrated over the angle."""
    if structure not in OPTICS_STRUCTURES:
        raise InputError(f"structure = {structure!r} (allowed: {', '.join(OPTICS_STRUCTURES)})")
    x, r, _ = _spheres(positions, radii)
    m = complex(m)
    o = ffi.new("agglo_optics_options *", {"structure": OPTICS_STRUCTURES[structure],
                                           "df": float(df), "angles": int(angles),
                                           "sq": _sq_options(method, tolerance, exact_pairs,
                                                             max_pairs)})
    res = ffi.new("agglo_optics_result *")
    check(lib.agglo_rdg_fa(_ptr(x), _ptr(r), x.shape[0], float(wavelength), m.real, m.imag, o,
                           res))
    return Optics(res.c_abs, res.c_sca, res.c_abs_monomer, res.c_sca_monomer, res.g, res.E,
                  res.F, res.k, res.x_monomer, res.rg, res.n)


def fractal_structure_factor(structure: str, df: float, x: Any) -> Any:
    """The model S(q)/N at x = q R_g of "fisher_burford", "exponential" or "gaussian" (Sorensen
    2001; docs/scattering.md) for fractal dimension df."""
    if structure not in OPTICS_STRUCTURES or structure == "debye":
        raise InputError(f"structure = {structure!r} (allowed: fisher_burford, exponential, gaussian)")
    if not 1 < df <= 3:
        raise InputError(f"df = {df!r} (allowed: 1 < df <= 3)")
    f = np.vectorize(lambda v: lib.agglo_fractal_structure_factor(OPTICS_STRUCTURES[structure],
                                                                   float(df), float(v)))
    out = f(np.asarray(x, dtype=np.float64))
    return float(out) if np.ndim(out) == 0 else out


def write_mstm(path: PathLike, positions: Any, radii: Any, wavelength: float, m: complex) -> None:
    """MSTM's input file of an aggregate (centred, random orientation, length_scale_factor
    2 pi / wavelength, every sphere of index m)."""
    x, r, _ = _spheres(positions, radii)
    m = complex(m)
    check(lib.agglo_write_mstm(encode(path), _ptr(x), _ptr(r), x.shape[0], float(wavelength),
                               m.real, m.imag))


def write_ddscat(path: PathLike, positions: Any, radii: Any, spacing: float,
                 max_dipoles: int = 10**7) -> int:
    """DDSCAT's FROM_FILE shape file: a dipole at every site of the cubic lattice of the given
    spacing whose centre lies in a sphere. Returns the number of dipoles."""
    x, r, _ = _spheres(positions, radii)
    nat = ffi.new("int64_t *")
    check(lib.agglo_write_ddscat(encode(path), _ptr(x), _ptr(r), x.shape[0], float(spacing),
                                 int(max_dipoles), nat))
    return int(nat[0])
