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
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._ffi import check, encode, ffi, lib
from .errors import InputError
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


class Ensemble:
    """An ensemble of the scenario config (a Config, a dict over the defaults or a scenario
    path, then overrides) under directory: seeds "1-20", "7", "1,4,10-12" or a list of ints;
    vary {key: values} (each key a dimension of the grid, the first outermost); outputs "all",
    "none" or names among trajectory, stats, snapshots, state."""

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
        if not isinstance(seeds, str):
            seeds = ",".join(str(int(s)) for s in seeds)
        check(lib.agglo_ensemble_set_seeds(self._e, seeds.encode()))
        for key, values in (vary or {}).items():
            texts = [format_value(v) for v in values]
            sep = ";" if any("," in t for t in texts) else ","
            check(lib.agglo_ensemble_vary(self._e, key.encode(), sep.join(texts).encode()))
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

    def prepare(self, mode: str = "new") -> "Ensemble":
        """Fix the grid and hold the directory: mode "new" (it must hold no ensemble or run),
        "resume" (this ensemble: its finished members are kept) or "overwrite"."""
        if mode not in _MODES:
            raise InputError(f"Ensemble.prepare: mode {mode!r} (allowed: {', '.join(_MODES)})")
        check(lib.agglo_ensemble_prepare(self._e, _MODES[mode]))
        self._prepared = True
        return self

    def __len__(self) -> int:
        return int(lib.agglo_ensemble_count(self._e))

    def member_names(self) -> List[str]:
        """Each member's directory under the ensemble's ("key=value/.../seed=S")."""
        return [ffi.string(lib.agglo_ensemble_member_name(self._e, i)).decode()
                for i in range(len(self))]

    def run(self, resume: bool = False, overwrite: bool = False,
            progress: Optional[Callable[[int, str, bool], None]] = None) -> int:
        """Prepare (resume: keep the finished members of an earlier run; overwrite: replace
        what the directory holds), run every member not done, one after the other, and write
        the summary (ensemble.csv, members.csv). progress(i, name, ok) is called after each
        member. Returns the count of members that failed (their `failed` marker says why)."""
        if not self._prepared:
            self.prepare("resume" if resume else "overwrite" if overwrite else "new")
        for i in range(len(self)):
            if lib.agglo_ensemble_member_done(self._e, i):
                continue
            st = lib.agglo_ensemble_run_member(self._e, i, ffi.NULL, ffi.NULL)
            if st == lib.AGGLO_ERROR_IO:  # no marker could be written: nothing to summarise
                check(st)
            if progress is not None:
                name = ffi.string(lib.agglo_ensemble_member_name(self._e, i)).decode()
                progress(i, name, st == lib.AGGLO_OK)
        return self.write_summary()

    def write_summary(self) -> int:
        """Write ensemble.csv and members.csv from the members' directories; returns the count
        of members that failed or have not run."""
        failed = ffi.new("size_t *")
        check(lib.agglo_ensemble_write_summary(self._e, failed))
        return int(failed[0])

    def summary(self) -> Dict[str, np.ndarray]:
        """ensemble.csv (per grid point and output time: mean, sd, se, min, max over seeds of
        every stats.csv column) as {column: numpy array}."""
        return read_table(os.path.join(self.directory, "ensemble.csv"))

    def members(self) -> Dict[str, np.ndarray]:
        """members.csv (one row per member: values, seed, status, final indicators, error)."""
        return read_table(os.path.join(self.directory, "members.csv"))

    def close(self) -> None:
        """Release the directory (also when the Ensemble is garbage collected)."""
        if self._e is not None:
            e, self._e = self._e, None
            ffi.release(e)

    def __enter__(self) -> "Ensemble":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
