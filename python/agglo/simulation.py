"""Settings (Config) and a steppable simulation (Simulation) over libagglo's public API."""
import collections
import collections.abc
import dataclasses
import numbers
import os
import re
import sys
import threading
import types
import warnings
import weakref

from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Set,
                    Tuple, Union)

import numpy as np

from ._ffi import check, encode, ffi, lib, take_text
from .errors import AggloWarning, InputError, RunStatus, UsageError

__all__ = ["Config", "Simulation", "Snapshot", "Box", "config_keys", "KeyInfo", "OUTPUTS"]

# ---------------------------------------------------------------------------------------------
# settings

PathLike = Union[str, bytes, "os.PathLike[str]"]
Settings = Mapping[str, Any]
Callback = Callable[["Simulation"], Any]

KeyInfo = collections.namedtuple("KeyInfo", "key default allowed meaning")
_KEYS: Optional[List["KeyInfo"]] = None


def config_keys() -> List["KeyInfo"]:
    """Every scenario key as KeyInfo(key, default, allowed, meaning), in the order of
    `agglo run --help` (docs/config.md's table)."""
    global _KEYS
    if _KEYS is None:
        text = take_text(lambda out: lib.agglo_config_keys_text(1, out))
        row = re.compile(r"^\| `([^`]+)` \| (`[^`]*`|\(none\)) \| (.*?) \| (.*) \|$")
        keys = []
        for line in text.splitlines():
            m = row.match(line)
            if m:
                default = m.group(2)
                default = "" if default == "(none)" else default.strip("`")
                keys.append(KeyInfo(m.group(1), default, m.group(3), m.group(4)))
        _KEYS = keys
    return list(_KEYS)


def _key_set() -> Set[str]:
    return {k.key for k in config_keys()}


def format_value(value: Any) -> str:
    """A Python value as scenario text: str as is, bool as on/off, numbers at full precision,
    sequences joined by ", ", None as empty."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    if isinstance(value, collections.abc.Iterable):
        return ", ".join(format_value(v) for v in np.ravel(np.asarray(value, dtype=object)))
    raise InputError(f"cannot write {value!r} ({type(value).__name__}) as a scenario value")


_MISSING = object()


class Config(collections.abc.Mapping):  # Mapping[str, str]
    """A scenario: every key of `agglo run --help` with its value, read as a dict of strings.

    ``Config()`` has every key's default, ``Config.default()`` the built-in default scenario,
    ``Config.from_file(path)`` an INI scenario. ``cfg["run.dt"] = 0.01`` sets a key (numbers,
    lists, on/off booleans or text); ``cfg["run.dt"]`` gives its text ("0.01")."""

    def __init__(self, values: Optional[Settings] = None, **kw: Any) -> None:
        c = lib.agglo_config_new()
        if c == ffi.NULL:
            check(lib.AGGLO_ERROR_MEMORY)
        self._c = ffi.gc(c, lib.agglo_config_destroy)
        self.update(values or {}, **kw)

    @classmethod
    def default(cls) -> "Config":
        """The built-in default scenario (Maury's Brownian aggregation, 2D, N = 2000)."""
        c = cls()
        check(lib.agglo_config_load_default(c._c))
        return c

    @classmethod
    def from_file(cls, path: PathLike, overrides: Optional[Settings] = None) -> "Config":
        """An INI scenario file over the defaults, then the overrides (a dict key -> value)."""
        c = cls()
        c.load(path)
        c.update(overrides or {})
        return c

    @classmethod
    def from_string(cls, text: str, name: str = "(string)") -> "Config":
        """An INI scenario given as text (name appears in messages)."""
        c = cls()
        c.load_string(text, name)
        return c

    @classmethod
    def _of(cls, obj: Any) -> "Config":
        """A Config from a Config (copied), a dict (over the defaults) or a path."""
        if isinstance(obj, Config):
            return obj.copy()
        if isinstance(obj, (str, bytes, os.PathLike)):
            return cls.from_file(obj)
        if isinstance(obj, collections.abc.Mapping):
            return cls(obj)
        raise InputError(f"settings: expected a Config, a dict or a scenario path, not "
                         f"{type(obj).__name__}")

    def load(self, path: PathLike) -> "Config":
        """Read an INI scenario over the current settings (errors name file:line and key)."""
        check(lib.agglo_config_load(self._c, encode(path)))
        return self

    def load_string(self, text: str, name: str = "(string)") -> "Config":
        """Read INI text over the current settings."""
        check(lib.agglo_config_load_string(self._c, text.encode(), encode(name)))
        return self

    def set(self, key: str, value: Any) -> None:
        """Set one key ("section.key") to a value; errors name the key and its allowed range."""
        check(lib.agglo_config_set(self._c, key.encode(), format_value(value).encode()))

    def get(self, key: str, default: Any = _MISSING) -> Any:
        """The value of a key as text; an unknown key raises (or gives default if given)."""
        size = 4096
        while True:
            buf = ffi.new("char[]", size)
            st = lib.agglo_config_get(self._c, key.encode(), buf, size)
            if st == lib.AGGLO_OK:
                return ffi.string(buf).decode()
            if key in _key_set() and size < (1 << 24):  # only a short buffer can fail here
                size *= 16
                continue
            if default is not _MISSING:
                return default
            check(st)  # UnknownKeyError (a KeyError)

    def __getitem__(self, key: str) -> str:
        return self.get(key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.set(key, value)

    def __contains__(self, key: object) -> bool:
        return key in _key_set()

    def __iter__(self) -> Iterator[str]:
        return iter(k.key for k in config_keys())

    def __len__(self) -> int:
        return len(config_keys())

    def update(self, values: Union[Settings, Iterable[str]] = (), **kw: Any) -> None:
        """Set several keys: a dict {"run.dt": 0.01, ...} or "section.key=value" strings."""
        items: Iterable[Any] = (values.items() if isinstance(values, collections.abc.Mapping)
                                else values)
        for item in items:
            if isinstance(item, str):
                check(lib.agglo_config_assign(self._c, item.encode()))
            else:
                self.set(*item)
        for k, v in kw.items():  # run__dt=0.01 -> run.dt
            self.set(k.replace("__", "."), v)

    def check(self) -> "Config":
        """The checks across keys that a simulation makes at creation (InputError if any fails)."""
        check(lib.agglo_config_check(self._c))
        return self

    def save(self, path: PathLike) -> None:
        """Write every key as a reloadable scenario file."""
        check(lib.agglo_config_save(self._c, encode(path)))

    def copy(self) -> "Config":
        c = lib.agglo_config_copy(self._c)
        if c == ffi.NULL:
            check(lib.AGGLO_ERROR_MEMORY)
        new = Config.__new__(Config)
        new._c = ffi.gc(c, lib.agglo_config_destroy)
        return new

    __copy__ = copy

    def __deepcopy__(self, memo: Any) -> "Config":
        return self.copy()

    def __reduce__(self) -> Any:
        # pickled as its INI text (every key, reloadable), not the C handle
        return (Config.from_string, (self.to_ini(), "(pickled Config)"))

    def to_dict(self) -> Dict[str, str]:
        """{key: text} of every key."""
        return {k: self.get(k) for k in self}

    def summary(self) -> str:
        """What the model derives from the settings (e.g. DPD units), as text."""
        return take_text(lambda out: lib.agglo_config_summary_text(self._c, out))

    def to_ini(self) -> str:
        """The scenario as INI text (what save writes)."""
        return take_text(lambda out: lib.agglo_config_text(self._c, out))

    def __repr__(self) -> str:
        g = self.get
        return (f"<agglo.Config model={g('run.model')} dim={g('run.dim')} "
                f"n={g('particles.n')} t_end={g('run.t_end')}>")


# ---------------------------------------------------------------------------------------------
# the box

class Box(collections.namedtuple("Box", "lo hi periodic shear_x", defaults=(0.0,))):
    """A simulation box: lo and hi corners (arrays of length dim) and periodic flags per axis;
    shear_x: the Lees-Edwards offset of a sheared DPD run (the images across the upper y face
    shifted by +shear_x along x; 0: none; docs/dpd.md "Shear")."""

    __slots__ = ()

    @property
    def length(self) -> np.ndarray:
        return self.hi - self.lo

    @property
    def dim(self) -> int:
        return len(self.lo)


def _box_from_c(b: Any, dim: int) -> "Box":
    lo = np.array([b.lo[k] for k in range(dim)])
    hi = np.array([b.hi[k] for k in range(dim)])
    return Box(lo, hi, tuple(bool(b.periodic[k]) for k in range(dim)), float(b.shear_x))


# ---------------------------------------------------------------------------------------------
# snapshots

@dataclasses.dataclass
class Snapshot:
    """A simulation's state at one time, copied, rows in id order (HOOMD-blue's
    get_snapshot/set_snapshot, ASE's Atoms): ids (n,) int64; positions, velocities (n, dim)
    float64, positions wrapped into the box; radii, masses (n,); clusters (n,) the smallest id of
    each cluster; images (n, dim) int64 image counts with every aggregate whole, so
    unwrapped_positions = positions + images * box.length."""

    time: float
    step: int
    dim: int
    box: "Box"
    ids: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    radii: np.ndarray
    masses: np.ndarray
    clusters: np.ndarray
    images: np.ndarray

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def unwrapped_positions(self) -> np.ndarray:
        return self.positions + self.images * self.box.length

    def to_ase(self) -> Any:
        """An ase.Atoms: positions (z = 0 in 2D), velocities, masses; cell = box.length, pbc =
        box.periodic, the cell's origin at box.lo (positions shifted by -box.lo); arrays
        "radius", "id", "cluster" and info {"time", "step", "dim", "box_lo"}. Needs
        python3-ase."""
        import ase
        pad = 3 - self.dim
        lo = np.pad(self.box.lo, (0, pad))
        length = np.pad(self.box.length, (0, pad))
        if pad:  # a 2D box: a thin third axis that holds the particles
            length[2] = 2 * float(self.radii.max()) if self.n else 1.0
        x = np.pad(self.positions, ((0, 0), (0, pad))) - lo
        atoms = ase.Atoms(numbers=np.zeros(self.n, dtype=int), positions=x, cell=np.diag(length),
                          pbc=tuple(self.box.periodic) + (False,) * pad, masses=self.masses)
        atoms.set_velocities(np.pad(self.velocities, ((0, 0), (0, pad))))
        atoms.new_array("radius", self.radii.copy())
        atoms.new_array("id", self.ids.copy())
        atoms.new_array("cluster", self.clusters.astype(np.int64))
        atoms.info.update(time=self.time, step=self.step, dim=self.dim,
                          box_lo=np.asarray(self.box.lo, dtype=float).tolist())
        return atoms

    @classmethod
    def from_ase(cls, atoms: Any, dim: Optional[int] = None,
                 radius: Optional[float] = None) -> "Snapshot":
        """A Snapshot from an ase.Atoms (to_ase's inverse): dim from info["dim"] (else 3), radii
        from the "radius" array (else radius), ids from "id" (else 0..n-1), box.lo from
        info["box_lo"] (else 0), the box from the cell's diagonal (an orthorhombic cell only).
        Refused (InputError): a cell side <= 0, z != 0 with dim 2 (it would be dropped), radii
        <= 0 or not finite, negative or repeated ids."""
        info = atoms.info
        dim = int(dim if dim is not None else info.get("dim", 3))
        if dim not in (2, 3):
            raise InputError(f"from_ase: dim = {dim} (allowed: 2 or 3)")
        cell = np.asarray(atoms.get_cell())
        if np.any(cell != np.diag(np.diag(cell))):
            raise InputError("from_ase: the cell is not orthorhombic (agglo's boxes are)")
        n = len(atoms)
        lo = np.asarray(info.get("box_lo", np.zeros(dim)), dtype=float)[:dim]
        lo = np.pad(lo, (0, dim - len(lo)))  # a 2D snapshot's atoms read with dim=3: z from 0
        if "radius" in atoms.arrays:
            radii = np.asarray(atoms.arrays["radius"], dtype=float)
        elif radius is not None:
            radii = np.full(n, float(radius))
        else:
            raise InputError("from_ase: the atoms have no \"radius\" array; give radius=")
        ids = (np.asarray(atoms.arrays["id"], dtype=np.int64) if "id" in atoms.arrays
               else np.arange(n, dtype=np.int64))
        clusters = (np.asarray(atoms.arrays["cluster"], dtype=np.int64)
                    if "cluster" in atoms.arrays else ids.copy())
        # what set_snapshot would refuse, or what would be lost, refused here by name
        side = np.diag(cell)[:dim]
        for k in range(dim):
            if not (np.isfinite(side[k]) and side[k] > 0):
                raise InputError(f"from_ase: the cell's side {k} is {side[k]:g} (allowed: > 0 and "
                                 f"finite)")
        pos = atoms.get_positions()
        if dim == 2 and n and np.any(pos[:, 2] != 0):
            i = int(np.flatnonzero(pos[:, 2] != 0)[0])
            raise InputError(f"from_ase: dim = 2 but atom {i} has z = {pos[i, 2]:g} (allowed: z = 0 "
                             f"in 2D; give dim=3 to keep the third axis)")
        if len(radii) != n:
            raise InputError(f"from_ase: {len(radii)} radii for {n} atoms")
        bad = np.flatnonzero(~(np.isfinite(radii) & (radii > 0)))
        if len(bad):
            raise InputError(f"from_ase: atom {int(bad[0])} has radius {radii[bad[0]]:g} (allowed: "
                             f"> 0 and finite)")
        if n and ids.min() < 0:
            raise InputError(f"from_ase: id {int(ids.min())} (allowed: ids >= 0)")
        uniq, counts = np.unique(ids, return_counts=True)
        if np.any(counts > 1):
            dup = int(uniq[counts > 1][0])
            at = np.flatnonzero(ids == dup)
            raise InputError(f"from_ase: id {dup} is given to atoms {int(at[0])} and {int(at[1])} "
                             f"(allowed: distinct ids)")
        x = pos[:, :dim] + lo
        v = atoms.get_velocities()
        v = np.zeros((n, dim)) if v is None else v[:, :dim]
        box = Box(lo, lo + side, tuple(bool(p) for p in atoms.pbc[:dim]))
        return cls(time=float(info.get("time", 0.0)), step=int(info.get("step", 0)), dim=dim,
                   box=box, ids=ids, positions=x, velocities=v.copy(), radii=radii,
                   masses=np.asarray(atoms.get_masses(), dtype=float),
                   clusters=clusters, images=np.zeros((n, dim), dtype=np.int64))


# ---------------------------------------------------------------------------------------------
# views

class _View:
    """Exposes C memory to numpy (read only) and keeps the Simulation owning it alive: the
    arrays made from it have it as their base."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner: Any, address: int, shape: Tuple[int, ...], typestr: str) -> None:
        self.owner = owner
        self.__array_interface__ = {"data": (address, True), "shape": shape,
                                    "typestr": typestr, "version": 3}


_F8, _I8, _I4 = np.dtype(np.float64).str, np.dtype(np.int64).str, np.dtype(np.int32).str

OUTPUTS = {
    "trajectory": lib.AGGLO_OUTPUT_TRAJECTORY,
    "stats": lib.AGGLO_OUTPUT_STATS,
    "snapshots": lib.AGGLO_OUTPUT_SNAPSHOTS,
    "state": lib.AGGLO_OUTPUT_STATE,
}

# Without a user callback, the run calls back into Python every this many steps so that Ctrl-C
# (KeyboardInterrupt) can stop it.
INTERRUPT_EVERY = 16


def _real_array(name: str, value: Any) -> np.ndarray:
    """value as a numpy array of a real number type (InputError otherwise)."""
    try:
        a = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise InputError(f"{name}: not an array of numbers ({e})") from None
    if a.dtype.kind not in "fiu":
        raise InputError(f"{name}: dtype {a.dtype} is not a real number type (float64 expected)")
    return a


def _user_stacklevel() -> int:
    """The stacklevel of warnings.warn, called from the caller of this function, that names
    the first frame outside the agglo package (the user's call to run or step)."""
    here = os.path.dirname(os.path.abspath(__file__))
    f: Optional[types.FrameType] = sys._getframe(1)
    level = 1
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f, level = f.f_back, level + 1
    return level


def _destroy(handle: Any, keep: Any) -> None:
    # the C side must not call back into Python objects that are being torn down
    lib.agglo_sim_set_callback(handle, 1, ffi.NULL, ffi.NULL)
    lib.agglo_sim_set_log(handle, ffi.NULL, ffi.NULL)
    lib.agglo_sim_destroy(handle)


class Simulation:
    """A simulation: made from settings, stepped, its state read as numpy views.

    Make one with Simulation.from_file, from_config, default or from_restart. The arrays
    (positions, velocities, radii, masses, ids, clusters) are read-only views of the library's
    memory, updated in place as the simulation steps (copy them to keep a frame)."""

    def __init__(self, config: Any = None, *, seed: Optional[int] = None,
                 overrides: Optional[Settings] = None) -> None:
        """Simulation(config) with config a Config, a dict of keys over the defaults, a scenario
        path, or None for the built-in default scenario; seed sets run.seed, overrides is a
        dict of keys applied last."""
        cfg = Config.default() if config is None else Config._of(config)
        self._setup(cfg, seed, overrides, None)

    # -- copies ---------------------------------------------------------------------------

    _NO_COPY = ("a Simulation holds the library's state, which Python cannot copy (copy.copy "
                "once gave an alias stepping the original): for another one from the same start "
                "use Simulation(sim.config); to carry the state on, sim.save_state(dir) then "
                "Simulation.from_restart(dir) (every model, bit for bit), or "
                "other.set_snapshot(sim.get_snapshot()); sim.config and sim.get_snapshot() pickle")

    def __copy__(self) -> "Simulation":
        raise TypeError(f"copy.copy: {self._NO_COPY}")

    def __deepcopy__(self, memo: Any) -> "Simulation":
        raise TypeError(f"copy.deepcopy: {self._NO_COPY}")

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"pickle: {self._NO_COPY}")

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: PathLike, seed: Optional[int] = None,
                  overrides: Optional[Settings] = None) -> "Simulation":
        """From an INI scenario file (examples/*.ini), with run.seed = seed and overrides."""
        return cls(Config.from_file(path), seed=seed, overrides=overrides)

    @classmethod
    def from_config(cls, config: Any, seed: Optional[int] = None,
                    overrides: Optional[Settings] = None) -> "Simulation":
        """From a Config or a dict {"section.key": value} over the key defaults."""
        return cls(Config._of(config), seed=seed, overrides=overrides)

    @classmethod
    def default(cls, seed: Optional[int] = None,
                overrides: Optional[Settings] = None) -> "Simulation":
        """The built-in default scenario (Maury's Brownian aggregation, 2D, N = 2000)."""
        return cls(None, seed=seed, overrides=overrides)

    @classmethod
    def from_restart(cls, directory: PathLike, overrides: Optional[Settings] = None,
                     config: Any = None) -> "Simulation":
        """Continue the run saved in directory (state.xyz, contacts.txt) bit for bit. The
        settings are directory/scenario.ini (or config), then the overrides (e.g. run.t_end)."""
        if config is None:
            cfg = Config.from_file(os.path.join(os.fsdecode(directory), "scenario.ini"))
        else:
            cfg = Config._of(config)
        self = cls.__new__(cls)
        self._setup(cfg, None, overrides, directory)
        return self

    def _setup(self, cfg: Config, seed: Optional[int], overrides: Optional[Settings],
               restart_dir: Optional[PathLike]) -> None:
        self._handle = None
        if seed is not None:
            cfg.set("run.seed", seed)
        cfg.update(overrides or {})
        out = ffi.new("agglo_sim **")
        if restart_dir is None:
            check(lib.agglo_sim_create(cfg._c, out))
        else:
            check(lib.agglo_sim_create_from_restart(cfg._c, encode(restart_dir), out))
        h = out[0]
        self._handle = h
        self._config = cfg
        self._n = int(lib.agglo_sim_count(h))
        self._dim = int(lib.agglo_sim_dim(h))
        self._model = cfg["run.model"]
        self._model_name = ffi.string(lib.agglo_sim_model(h)).decode()
        self._busy = threading.Lock()
        self._run_thread: Optional[int] = None
        self._pending: List[BaseException] = []  # raised by callbacks during the current call
        self._user_fn, self._every = None, 1
        ref = weakref.ref(self)

        def on_step(handle: Any, user: Any) -> int:
            sim = ref()
            return 1 if sim is None else sim._on_step()

        def on_log(message: Any, user: Any) -> None:
            sim = ref()
            if sim is not None:
                sim._on_log(ffi.string(message).decode("utf-8", "replace"))

        def on_error(exc_type: Any, exc_value: Optional[BaseException], tb: Any) -> None:
            # an exception outside the handlers' own try (a KeyboardInterrupt delivered on
            # entry): keep it for run/step to raise, and stop the run
            sim = ref()
            if sim is not None and exc_value is not None:
                sim._pending.append(exc_value.with_traceback(tb))
            return None

        self._c_step = ffi.callback("agglo_callback", on_step, error=1, onerror=on_error)
        self._c_log = ffi.callback("agglo_log_fn", on_log, onerror=on_error)
        self._on_error = on_error
        # the C callbacks must live as long as the handle: the finalizer holds them (the
        # writers' too, added to the list)
        self._keep: List[Any] = [self._c_step, self._c_log]
        self._writers: List[Any] = []
        self._finalizer = weakref.finalize(self, _destroy, h, self._keep)
        check(lib.agglo_sim_set_log(h, self._c_log, ffi.NULL))
        check(lib.agglo_sim_set_callback(h, INTERRUPT_EVERY, self._c_step, ffi.NULL))

    # -- callbacks ------------------------------------------------------------------------

    def _on_step(self) -> int:
        try:
            fn = self._user_fn
            return 1 if fn is not None and fn(self) else 0
        except BaseException as e:  # KeyboardInterrupt included: stop, re-raise from run/step
            self._pending.append(e)
            return 1

    def _on_log(self, message: str) -> None:
        try:
            warnings.warn(message, AggloWarning, stacklevel=_user_stacklevel())
        except BaseException as e:  # warnings turned into errors
            self._pending.append(e)

    def set_callback(self, fn: Optional[Callback], every: int = 1) -> None:
        """Call fn(sim) after every `every`-th step; a true return value stops the run (run and
        step then return RunStatus.STOPPED); an exception stops it and is re-raised. fn = None removes
        it. Inside fn, read the state (and save_state) but do not step."""
        if fn is not None and not callable(fn):
            raise InputError(f"set_callback: {fn!r} is not callable")
        if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
            raise InputError(f"set_callback: every = {every!r} (allowed: an integer >= 1)")
        with self._exclusive("set_callback"):
            c_every = int(every) if fn is not None else INTERRUPT_EVERY
            check(lib.agglo_sim_set_callback(self._handle, c_every, self._c_step, ffi.NULL))
            self._user_fn, self._every = fn, int(every)

    # -- writers of the user's own ----------------------------------------------------------

    def add_writer(self, writer: Any) -> Any:
        """Add a writer of the user's own (agglo.writers.CustomWriter, or any object with act(sim,
        timestep), trigger, filename and name): act's text is appended to writer.filename in the
        output directory each time writer.trigger fires, after the outputs of that step. After
        Simulation.from_restart, add the writers of the stopped run again (same names) before
        the first step: their files are cut back to the restart point and go on as if never
        stopped. Returns the writer."""
        from .writers import Trigger
        trig = getattr(writer, "trigger", None)
        if not callable(getattr(writer, "act", None)) or not isinstance(trig, Trigger):
            raise InputError(f"add_writer: {writer!r} has no act(sim, timestep) or no trigger "
                             "(allowed: an agglo.writers.CustomWriter)")
        ref = weakref.ref(self)

        def on_write(handle: Any, step: int, out: Any, user: Any) -> int:
            sim = ref()
            if sim is None:
                return 1
            try:
                text = writer.act(sim, int(step))
                if text:
                    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
                    check(lib.agglo_writer_append(out, data, len(data)))
                return 0
            except BaseException as e:  # stop the run; re-raised by run/step
                sim._pending.append(e)
                return 1

        c_write = ffi.callback("agglo_writer_fn", on_write, error=1, onerror=self._on_error)
        times = ffi.new("double[]", list(trig.times) or [0.0])
        spec = ffi.new("agglo_trigger_spec *", {"steps": trig.steps, "interval": trig.interval,
                                                "times": times if trig.times else ffi.NULL,
                                                "n_times": len(trig.times),
                                                "at_start": int(trig.at_start),
                                                "at_end": int(trig.at_end)})
        with self._exclusive("add_writer"):
            check(lib.agglo_sim_add_writer(self._handle, encode(str(writer.name)),
                                           encode(str(writer.filename)), spec, c_write, ffi.NULL))
        self._keep.append(c_write)
        self._writers.append(writer)
        return writer

    @property
    def writers(self) -> List[Any]:
        """The writers added with add_writer, in order."""
        return list(self._writers)

    # -- stepping -------------------------------------------------------------------------

    class _Guard:
        def __init__(self, sim: "Simulation", what: str) -> None:
            self.sim, self.what = sim, what

        def __enter__(self) -> None:
            if not self.sim._busy.acquire(blocking=False):
                where = ("from inside a callback" if self.sim._run_thread == threading.get_ident()
                         else "while it runs in another thread")
                raise UsageError(f"Simulation.{self.what}: not allowed {where} (a callback stops "
                                 "the run by returning True)")
            self.sim._run_thread = threading.get_ident()

        def __exit__(self, *exc: Any) -> None:
            self.sim._run_thread = None
            self.sim._busy.release()

    def _exclusive(self, what: str) -> "Simulation._Guard":
        return Simulation._Guard(self, what)

    def _drive(self, what: str, fn: Callable[..., int], *args: Any) -> RunStatus:
        with self._exclusive(what):
            self._pending = []
            st = fn(self._handle, *args)
            pending, self._pending = self._pending, []
        # a callback's exception (or Ctrl-C) first, then the library's error, then a warning
        # turned into an error
        for e in pending:
            if not isinstance(e, Warning):
                raise e
        try:
            check(st)
        except Exception as e:
            raise e from (pending[0] if pending else None)
        if pending:
            raise pending[0]
        if st == lib.AGGLO_STOPPED:
            return RunStatus.STOPPED
        return RunStatus.FINISHED if self.finished else RunStatus.DONE

    def step(self, n: int = 1) -> RunStatus:
        """Advance n steps (or events/windows of the model). Returns RunStatus.DONE, STOPPED (by the
        callback) or FINISHED (the model has nothing left to do)."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise InputError(f"step: n = {n!r} (allowed: an integer >= 0)")
        if not 0 <= int(n) < 2**63:  # beyond int64_t: cffi's OverflowError, not the library's
            raise InputError(f"step: n = {n} (allowed: 0 to {2**53 - self.step_count}, the steps "
                             f"left before step 2^53)")
        return self._drive("step", lib.agglo_sim_step, int(n))

    def run(self, t_end: Optional[float] = None, callback: Optional[Callback] = None,
            every: int = 1) -> RunStatus:
        """Run to time t_end (the first step at or after it; event-driven models stop at it exactly), or with t_end = None to run.t_end
        or until the model is finished. callback(sim), if given, is called every `every` steps
        for this run only (see set_callback). Returns a RunStatus: DONE, STOPPED or FINISHED.
        A t_end before the current time raises InputError."""
        if callback is not None:
            old = (self._user_fn, self._every)
            self.set_callback(callback, every)
            try:
                return self.run(t_end)
            finally:
                self.set_callback(*old)
        if t_end is None:
            return self._drive("run", lib.agglo_sim_run)
        return self._drive("run", lib.agglo_sim_run_until, float(t_end))

    def request_stop(self) -> None:
        """Ask a step or run going on in another thread to stop: it returns RunStatus.STOPPED at
        the end of the current step, or within a fraction of a second inside a long one (the
        contact projection, the ballistic and DLCA engines), that step then given up and the state
        the one before it (the restart point written with the state writer; a further call runs
        it again). Safe from any thread; not serialised with the run it stops."""
        if self._handle is not None:
            lib.agglo_sim_request_stop(self._handle)

    @property
    def finished(self) -> bool:
        """True when the model has nothing left to do (e.g. one ballistic cluster left)."""
        return bool(lib.agglo_sim_finished(self._handle))

    # -- the state ------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of particles."""
        return self._n

    @property
    def dim(self) -> int:
        """Space dimension, 2 or 3."""
        return self._dim

    @property
    def model(self) -> str:
        """The model: contact, gluey, ballistic or dpd."""
        return self._model

    @property
    def model_name(self) -> str:
        """The model as the library names it, e.g. "ballistic (time stepping)"."""
        return self._model_name

    @property
    def time(self) -> float:
        return float(lib.agglo_sim_time(self._handle))

    @property
    def step_count(self) -> int:
        """Steps done (counting those before a restart)."""
        return int(lib.agglo_sim_step_count(self._handle))

    @property
    def dt(self) -> float:
        """run.dt (the ballistic model chooses its own steps)."""
        return float(lib.agglo_sim_dt(self._handle))

    @property
    def box(self) -> Box:
        """Box(lo, hi, periodic, shear_x); box.length = hi - lo."""
        b = ffi.new("agglo_box *")
        check(lib.agglo_sim_box(self._handle, b))
        return _box_from_c(b, self._dim)

    @property
    def config(self) -> Config:
        """A copy of the settings the simulation was made with."""
        return self._config.copy()

    def _view(self, ptr: Any, shape: Tuple[int, ...], typestr: str) -> np.ndarray:
        if self._n == 0:
            a = np.empty(shape, dtype=typestr)
            a.flags.writeable = False
            return a
        if ptr == ffi.NULL:
            check(lib.AGGLO_ERROR_USAGE)
        return np.asarray(_View(self, int(ffi.cast("uintptr_t", ptr)), shape, typestr))

    def _vectors(self, ptr: Any) -> np.ndarray:
        a = self._view(ptr, (self._n, 3), _F8)
        return a[:, :self._dim] if self._dim < 3 else a

    @property
    def positions(self) -> np.ndarray:
        """Positions, a read-only (n, dim) view of the library's n x 3 array (storage order:
        see ids). Setting it (before the first step) takes (n, dim) or (n, 3)."""
        return self._vectors(lib.agglo_sim_positions(self._handle))

    @positions.setter
    def positions(self, value: Any) -> None:
        self._set_vectors("positions", lib.agglo_sim_set_positions, value)

    @property
    def velocities(self) -> np.ndarray:
        """Velocities, a read-only (n, dim) view; settable as positions."""
        return self._vectors(lib.agglo_sim_velocities(self._handle))

    @velocities.setter
    def velocities(self, value: Any) -> None:
        self._set_vectors("velocities", lib.agglo_sim_set_velocities, value)

    @property
    def radii(self) -> np.ndarray:
        """Radii, a read-only (n,) view; setting them (before the first step) also sets the
        masses by particles.mass_rule."""
        return self._view(lib.agglo_sim_radii(self._handle), (self._n,), _F8)

    @radii.setter
    def radii(self, value: Any) -> None:
        self._set_scalars("radii", lib.agglo_sim_set_radii, value)

    @property
    def masses(self) -> np.ndarray:
        """Masses, a read-only (n,) view; settable before the first step."""
        return self._view(lib.agglo_sim_masses(self._handle), (self._n,), _F8)

    @masses.setter
    def masses(self, value: Any) -> None:
        self._set_scalars("masses", lib.agglo_sim_set_masses, value)

    @property
    def ids(self) -> np.ndarray:
        """Each particle's id (int64), in storage order."""
        return self._view(lib.agglo_sim_ids(self._handle), (self._n,), _I8)

    @property
    def clusters(self) -> np.ndarray:
        """Cluster labels (int32, the smallest id of each cluster), labelled now: a view that
        is current until the next step (read sim.clusters again after stepping)."""
        ptr = self._labelled(lib.agglo_sim_clusters)
        return self._view(ptr, (self._n,), _I4)

    @property
    def cluster_count(self) -> int:
        """Number of clusters now."""
        return int(self._labelled(lib.agglo_sim_cluster_count))

    def _labelled(self, fn: Callable[[Any], Any]) -> Any:
        # labelling writes into the handle: not while another thread steps it
        if self._run_thread == threading.get_ident():  # inside a callback of this thread
            return fn(self._handle)
        with self._exclusive("clusters"):
            return fn(self._handle)

    @property
    def contact_gap(self) -> float:
        """The gap below which two particles of this model count as touching."""
        return float(lib.agglo_sim_contact_gap(self._handle))

    def unwrapped_positions(self) -> np.ndarray:
        """Positions (n, dim), a copy in storage order, with every aggregate made whole across
        periodic faces (each member at the minimum image of a member it touches); equal to
        positions without periodic axes."""
        u = np.zeros((self._n, 3))
        if self._n:  # labels the clusters: not while another thread steps the simulation
            buf = ffi.from_buffer("double[]", u)
            check(self._labelled(lambda h: lib.agglo_sim_unwrapped_positions(h, buf)))
        return u[:, :self._dim].copy()

    def images(self) -> np.ndarray:
        """Image counts (n, dim) int64 of unwrapped_positions(): unwrapped = positions + images
        * box.length (0 along walled axes)."""
        u = self.unwrapped_positions()
        length = self.box.length
        img = np.zeros(u.shape, dtype=np.int64)
        for k, per in enumerate(self.box.periodic):
            if per:
                img[:, k] = np.rint((u[:, k] - self.positions[:, k]) / length[k])
        return img

    def get_snapshot(self) -> Snapshot:
        """The state now as a Snapshot: copies, in id order (see Snapshot)."""
        order = np.argsort(self.ids, kind="stable")
        return Snapshot(time=self.time, step=self.step_count, dim=self._dim, box=self.box,
                        ids=self.ids[order].copy(), positions=self.positions[order].copy(),
                        velocities=self.velocities[order].copy(),
                        radii=self.radii[order].copy(), masses=self.masses[order].copy(),
                        clusters=np.asarray(self.clusters)[order].copy(),
                        images=self.images()[order])

    def set_snapshot(self, snapshot: Snapshot) -> None:
        """Write a Snapshot's positions, velocities, radii and masses (matched by id; clusters
        and images follow from the positions and are not read) into the simulation: before the first step, and between steps where the model can go on from a
        new state (contact; dpd without capillary bridges with memory); UsageError naming the
        model and why otherwise. The snapshot must have this simulation's particle ids,
        dimension and box, and its time must be the simulation's (InputError otherwise: the
        box, the ids and the time are fixed by the scenario). Everything is checked
        together (positions against the new radii) and nothing changes when a check fails."""
        snap = snapshot
        if snap.dim != self._dim:
            raise InputError(f"set_snapshot: a {snap.dim}D snapshot, the simulation is "
                             f"{self._dim}D")
        ids = np.asarray(snap.ids)
        if ids.shape != (self._n,) or not np.array_equal(np.sort(ids), np.sort(self.ids)):
            raise InputError(f"set_snapshot: the snapshot's {ids.size} particle ids are not the "
                             f"simulation's {self._n} (particles.n, particles.from)")
        box = self.box
        if (not np.allclose(snap.box.lo, box.lo, rtol=0, atol=1e-12 * box.length.max())
                or not np.allclose(snap.box.hi, box.hi, rtol=0,
                                   atol=1e-12 * box.length.max())
                or tuple(snap.box.periodic) != tuple(box.periodic)):
            raise InputError(f"set_snapshot: the snapshot's box {snap.box} is not the "
                             f"simulation's {box} (box.size, box.boundary)")
        if snap.time != self.time:
            raise InputError(f"set_snapshot: the snapshot is at t = {snap.time!r}, the "
                             f"simulation at t = {self.time!r} (the time is not settable)")
        where = np.empty(self._n, dtype=np.int64)  # snapshot row -> storage index
        where[np.argsort(ids)] = np.argsort(self.ids)
        order = np.argsort(where)                    # storage index -> snapshot row
        x = self._rows3("positions", snap.positions)[order]
        v = self._rows3("velocities", snap.velocities)[order]
        r = self._column("radii", snap.radii)[order]
        m = self._column("masses", snap.masses)[order]
        with self._exclusive("set_snapshot"):
            check(lib.agglo_sim_set_state(self._handle, self._n, *(
                ffi.from_buffer("double[]", np.ascontiguousarray(a)) for a in (x, v, r, m))))

    def to_ase(self) -> Any:
        """The state as an ase.Atoms (see Snapshot.to_ase)."""
        return self.get_snapshot().to_ase()

    def render(self, path: Optional[PathLike] = None, **picture: Any) -> Optional[bytes]:
        """Draw the state as `agglo render` does (agglo.picture.render): PNG bytes, or written to
        path; picture keys ("view", "color", ...) override the scenario's [picture] keys."""
        from . import picture as _picture
        return _picture.render(self, path, config=self._config, **picture)

    def _repr_png_(self) -> Optional[bytes]:
        """Jupyter shows a Simulation as its picture."""
        return self.render()

    @property
    def report(self) -> Dict[str, Any]:
        """What the last step reported (solver iterations, min_gap, ...) as a dict."""
        r = ffi.new("agglo_sim_report *")
        check(lib.agglo_sim_get_report(self._handle, r))
        out = {}
        for name, _ in ffi.typeof("agglo_sim_report").fields:
            v = getattr(r, name)
            out[name] = v if isinstance(v, float) else int(v)
        return out

    # -- writing the start ------------------------------------------------------------------

    def _rows3(self, name: str, value: Any) -> np.ndarray:
        """(n, dim) or (n, 3) real values as an n x 3 float64 array (InputError otherwise)."""
        a = _real_array(name, value)
        n, d = self._n, self._dim
        if a.ndim != 2 or a.shape[0] != n or a.shape[1] not in (d, 3):
            raise InputError(f"{name}: shape {a.shape}; expected ({n}, {d})"
                             + (f" or ({n}, 3)" if d == 2 else ""))
        out = np.zeros((n, 3))
        out[:, :a.shape[1]] = a
        return out

    def _column(self, name: str, value: Any) -> np.ndarray:
        a = _real_array(name, value)
        if a.shape != (self._n,):
            raise InputError(f"{name}: shape {a.shape}; expected ({self._n},)")
        return np.asarray(a, dtype=np.float64)

    def _set_vectors(self, name: str, fn: Callable[..., int], value: Any) -> None:
        a = _real_array(name, value)
        n, d = self._n, self._dim
        if a.ndim != 2 or a.shape[0] != n or a.shape[1] not in (d, 3):
            want = f"({n}, {d})" + (f" or ({n}, 3)" if d == 2 else "")
            raise InputError(f"{name}: shape {a.shape}; expected {want}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        with self._exclusive(f"{name} ="):
            check(fn(self._handle, ffi.from_buffer("double[]", a), n, a.shape[1]))

    def _set_scalars(self, name: str, fn: Callable[..., int], value: Any) -> None:
        a = _real_array(name, value)
        if a.shape != (self._n,):
            raise InputError(f"{name}: shape {a.shape}; expected ({self._n},)")
        a = np.ascontiguousarray(a, dtype=np.float64)
        with self._exclusive(f"{name} ="):
            check(fn(self._handle, ffi.from_buffer("double[]", a), self._n))

    # -- outputs --------------------------------------------------------------------------

    def attach_outputs(self, directory: PathLike, which: Union[str, int, Iterable[str]] = "all",
                       overwrite: bool = False) -> PathLike:
        """Write outputs into directory (created) on the scenario's schedule from the next step:
        which is "all" or names among trajectory, stats, snapshots, state (or an int of
        AGGLO_OUTPUT_* flags). Also writes directory/scenario.ini. A directory holding another
        run's outputs is refused (InputError) unless overwrite=True, which deletes them first."""
        if isinstance(which, int):
            flags = int(which)
        else:
            names = ((tuple(OUTPUTS) if which == "all" else (which,)) if isinstance(which, str)
                     else tuple(which))
            flags = 0
            for w in names:
                if w not in OUTPUTS:
                    raise InputError(f"attach_outputs: unknown output {w!r} (allowed: "
                                     f"{', '.join(OUTPUTS)} or 'all')")
                flags |= OUTPUTS[w]
        if overwrite:
            flags |= lib.AGGLO_OUTPUT_OVERWRITE
        with self._exclusive("attach_outputs"):
            check(lib.agglo_sim_attach_outputs(self._handle, encode(directory), flags))
        return directory

    def save_state(self, directory: PathLike) -> PathLike:
        """Write the restart point (state.xyz, contacts.txt, scenario.ini) into directory now."""
        if self._run_thread == threading.get_ident():
            check(lib.agglo_sim_save_state(self._handle, encode(directory)))
        else:
            with self._exclusive("save_state"):
                check(lib.agglo_sim_save_state(self._handle, encode(directory)))
        return directory

    def close_outputs(self) -> None:
        """The run ends here: write the outputs of the current step if not yet written, the
        restart point (with the state writer), and close the writers."""
        with self._exclusive("close_outputs"):
            check(lib.agglo_sim_close_outputs(self._handle))

    def close(self) -> None:
        """Close the outputs and drop the callback. The memory goes with the last reference to
        the simulation or to one of its arrays."""
        self.close_outputs()
        self.set_callback(None)

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<agglo.Simulation model={self._model} dim={self._dim} n={self._n} "
                f"t={self.time:g} step={self.step_count}{' finished' if self.finished else ''}>")
