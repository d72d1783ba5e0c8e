"""Ensembles: one scenario over seeds x a grid of varied keys, each member in its own directory,
and the statistics over seeds (include/agglo/ensemble.h, docs/ensembles.md), from Python.

    ens = agglo.ensemble.Ensemble(agglo.examples.path("maury_brownian_500"), "ens/",
                                  seeds="1-4", vary={"particles.fraction": [0.1, 0.2]},
                                  overrides={"run.t_end": 0.5})
    ens.run()                      # every member in turn (resume=True keeps finished ones)
    table = ens.summary()          # ensemble.csv as {column: numpy array}
    members = ens.members()        # members.csv likewise

Members run one after the other in this process; `agglo ensemble --jobs J` or mpirun run the same
ensemble in parallel, with byte-identical member files."""
import csv
import numbers
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._ffi import check, encode, ffi, lib
from .errors import InputError, UsageError
from .simulation import OUTPUTS, Config, format_value

__all__ = ["Ensemble", "read_table"]

_MODES = {"new": lib.AGGLO_ENSEMBLE_NEW, "resume": lib.AGGLO_ENSEMBLE_RESUME,
          "overwrite": lib.AGGLO_ENSEMBLE_OVERWRITE}


def read_table(path: Union[str, "os.PathLike[str]"]) -> Dict[str, np.ndarray]:
    """A CSV file of agglo (ensemble.csv, members.csv, stats.csv) as {column: array}: float64
    where every value of the column is a number (empty -> nan), else str."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise InputError(f"{os.fspath(path)}: empty (expected a header line)")
    head, body = rows[0], rows[1:]
    table: Dict[str, np.ndarray] = {}
    for k, name in enumerate(head):
        col = [r[k] if k < len(r) else "" for r in body]
        try:
            table[name] = np.array([float(v) if v != "" else np.nan for v in col])
        except ValueError:
            table[name] = np.array(col, dtype=str)
    return table


def _seeds_text(seeds: Any) -> str:
    """seeds as agglo_ensemble_set_seeds takes them: a string as the CLI's --seeds, or an
    iterable of integers (a list, a range). A bare int is refused: "5" is seed 5 on the command
    line, and 5 could as well mean five seeds."""
    if isinstance(seeds, str):
        return seeds
    if isinstance(seeds, (numbers.Integral, float)):
        raise TypeError(f"Ensemble: seeds={seeds!r}: give a list of seeds ([{seeds}]), a range "
                        f"(range(1, {seeds} + 1)) or a string such as '1-{seeds}'")
    try:
        items = list(seeds)
    except TypeError:
        raise TypeError(f"Ensemble: seeds={seeds!r}: give a string such as '1-20' or a list of "
                        f"integers") from None
    for v in items:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"Ensemble: seeds: {v!r} is not an integer (allowed: integers from 0)")
    if not items:
        raise InputError("Ensemble: seeds is empty (give at least one seed)")
    return ",".join(str(int(v)) for v in items)


def _vary_text(key: str, values: Any) -> str:
    """The values of a varied key as agglo_ensemble_vary takes them: a string is split on commas
    (or on ';' when it holds one) as the CLI's --vary; a list or tuple gives one value each."""
    if isinstance(values, str):
        return values
    if not isinstance(values, (list, tuple, range, np.ndarray)):
        raise TypeError(f"Ensemble: vary[{key!r}] = {values!r}: give a list of values or a string "
                        f"of values separated by commas")
    texts = [format_value(v) for v in values]
    if not texts:
        raise InputError(f"Ensemble: vary[{key!r}] has no values (give at least one)")
    return (";" if any("," in t for t in texts) else ",").join(texts)


class Ensemble:
    """An ensemble of the scenario config (a Config, a dict over the defaults or a scenario
    path, then overrides) under directory: seeds "1-20", "7", "1,4,10-12" or a list (or range)
    of ints (a bare int is refused); vary {key: values}, values a list or a string split on
    commas as --vary (each key a dimension of the grid, the first outermost); outputs "all",
    "none" or names among trajectory, stats, snapshots, state.

    run() holds the directory while it runs and releases it at its end (as close() does); use
    the Ensemble as a context manager, or call close(), to release it after prepare()."""

    def __init__(self, config: Any, directory: Union[str, "os.PathLike[str]"],
                 seeds: Union[str, Sequence[int]] = "1-10",
                 vary: Optional[Mapping[str, Sequence[Any]]] = None,
                 overrides: Optional[Mapping[str, Any]] = None,
                 outputs: Union[str, Sequence[str]] = "all") -> None:
        cfg = Config._of(config)
        cfg.update(overrides or {})
        self.directory = os.fspath(directory)
        out = ffi.new("agglo_ensemble **")
        check(lib.agglo_ensemble_new(cfg._c, encode(self.directory), out))
        self._e = ffi.gc(out[0], lib.agglo_ensemble_destroy)
        check(lib.agglo_ensemble_set_seeds(self._e, _seeds_text(seeds).encode()))
        for key, values in (vary or {}).items():
            check(lib.agglo_ensemble_vary(self._e, key.encode(), _vary_text(key, values).encode()))
        if isinstance(outputs, str):
            outputs = {"all": tuple(OUTPUTS), "none": ()}.get(outputs, (outputs,))
        flags = 0
        for w in outputs:
            if w not in OUTPUTS:
                raise InputError(f"Ensemble: unknown output {w!r} (allowed: "
                                 f"{', '.join(OUTPUTS)}, 'all' or 'none')")
            flags |= OUTPUTS[w]
        check(lib.agglo_ensemble_set_outputs(self._e, flags))
        self._prepared = False
        self._names: Optional[List[str]] = None  # kept by close() after prepare

    def _handle(self, what: str) -> Any:
        if self._e is None:
            raise UsageError(f"Ensemble.{what}: the ensemble is closed (run() releases its "
                             f"directory at its end): make a new Ensemble, with run(resume=True) "
                             f"to keep its finished members")
        return self._e

    def prepare(self, mode: str = "new") -> "Ensemble":
        """Fix the grid and hold the directory: mode "new" (it must hold no ensemble or run),
        "resume" (this ensemble: its finished members are kept) or "overwrite"."""
        if mode not in _MODES:
            raise InputError(f"Ensemble.prepare: mode {mode!r} (allowed: {', '.join(_MODES)})")
        check(lib.agglo_ensemble_prepare(self._handle("prepare"), _MODES[mode]))
        self._prepared = True
        return self

    def __len__(self) -> int:
        if self._e is None:
            return len(self._names or [])
        return int(lib.agglo_ensemble_count(self._e))

    def member_names(self) -> List[str]:
        """Each member's directory under the ensemble's ("key=value/.../seed=S")."""
        if self._e is None:
            return list(self._names or [])
        return [ffi.string(lib.agglo_ensemble_member_name(self._e, i)).decode()
                for i in range(len(self))]

    def run(self, resume: bool = False, overwrite: bool = False,
            progress: Optional[Callable[[int, str, bool], None]] = None) -> int:
        """Prepare (resume: keep the finished members of an earlier run; overwrite: replace
        what the directory holds), run every member not done, one after the other, and write
        the summary (ensemble.csv, members.csv). progress(i, name, ok) is called after each
        member. Returns the count of members that failed (their `failed` marker says why).
        The directory is released at the end (close()), also when a member raises: a second
        Ensemble or `agglo ensemble --resume` may take it at once."""
        e = self._handle("run")
        try:
            if not self._prepared:
                self.prepare("resume" if resume else "overwrite" if overwrite else "new")
            for i in range(len(self)):
                if lib.agglo_ensemble_member_done(e, i):
                    continue
                st = lib.agglo_ensemble_run_member(e, i, ffi.NULL, ffi.NULL)
                if st == lib.AGGLO_ERROR_IO:  # no marker could be written: nothing to summarise
                    check(st)
                if progress is not None:
                    name = ffi.string(lib.agglo_ensemble_member_name(e, i)).decode()
                    progress(i, name, st == lib.AGGLO_OK)
            return self.write_summary()
        finally:
            self.close()

    def write_summary(self) -> int:
        """Write ensemble.csv and members.csv from the members' directories; returns the count
        of members that failed or have not run."""
        failed = ffi.new("size_t *")
        check(lib.agglo_ensemble_write_summary(self._handle("write_summary"), failed))
        return int(failed[0])

    def summary(self) -> Dict[str, np.ndarray]:
        """ensemble.csv (per grid point and output time: mean, sd, se, min, max over seeds of
        every stats.csv column) as {column: numpy array}."""
        return read_table(os.path.join(self.directory, "ensemble.csv"))

    def members(self) -> Dict[str, np.ndarray]:
        """members.csv (one row per member: values, seed, status, final indicators, error)."""
        return read_table(os.path.join(self.directory, "members.csv"))

    def close(self) -> None:
        """Release the directory (run() does at its end; also when the Ensemble is garbage
        collected or leaves a with block). Its member names stay readable; summary() and
        members() read the files."""
        if self._e is not None:
            if self._prepared:
                self._names = self.member_names()
            e, self._e = self._e, None
            ffi.release(e)

    def __enter__(self) -> "Ensemble":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
