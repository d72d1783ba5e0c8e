"""Plots of a run's stats.csv and of an ensemble's statistics with matplotlib (Debian's
python3-matplotlib), as `agglo plot` draws them with gnuplot.

    ax = agglo.plots.stats("out/", y=("n_clusters", "max_cluster_size"))
    ax = agglo.plots.ensemble(ens, y="n_clusters")          # mean +- standard error over seeds
    ax.figure.savefig("clusters.png")
"""
import os
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from .ensemble import Ensemble, read_table
from .errors import InputError, UnknownKeyError

__all__ = ["stats", "ensemble"]

Table = Dict[str, np.ndarray]


def _table(source: Any, name: str) -> Table:
    """A table from a dict, an Ensemble, a directory holding name, or a CSV path."""
    if isinstance(source, dict):
        return source
    if isinstance(source, Ensemble):
        source = source.directory
    path = os.fspath(source)
    if os.path.isdir(path):
        path = os.path.join(path, name)
    return read_table(path)


def _column(table: Table, name: str) -> np.ndarray:
    if name not in table:
        raise UnknownKeyError(f"{name}: no such column (allowed: {', '.join(table)})")
    return table[name]


def _axes(ax: Optional[Any]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # only here: the rest of the package does not need it
    return plt.figure().add_subplot()


def stats(source: Any, y: Union[str, Sequence[str]] = "n_clusters", x: str = "time",
          ax: Optional[Any] = None) -> Any:
    """Columns y of a run's stats.csv (source: the run's directory, the file, or a table of
    read_table) against x, on ax (a new figure's axes by default); returns the axes."""
    table = _table(source, "stats.csv")
    ax = _axes(ax)
    for name in ([y] if isinstance(y, str) else list(y)):
        ax.plot(_column(table, x), _column(table, name), label=name)
    ax.set_xlabel(x)
    ax.legend()
    return ax


def ensemble(source: Any, y: str = "n_clusters", x: str = "output_time",
             ax: Optional[Any] = None) -> Any:
    """The mean of stats column y over seeds with its standard error, against x, one line per
    grid point (source: an Ensemble, its directory, ensemble.csv or its table)."""
    table = _table(source, "ensemble.csv")
    if not any(k.endswith("_mean") for k in table):  # as `agglo plot` says it
        raise InputError("plots.ensemble: no member finished (every one failed or did not run), "
                         "so ensemble.csv holds no statistics to plot; members.csv says why")
    ax = _axes(ax)
    mean, se = _column(table, y + "_mean"), _column(table, y + "_se")
    xs = _column(table, x)
    first = list(table).index("output_time")
    varied = list(table)[:first]  # the varied keys' columns come first
    points = sorted({tuple(str(table[k][i]) for k in varied) for i in range(len(xs))})
    for p in points:
        rows = np.array([all(str(table[k][i]) == v for k, v in zip(varied, p))
                         for i in range(len(xs))], dtype=bool)
        label = ", ".join(f"{k}={v}" for k, v in zip(varied, p)) or y
        ax.errorbar(xs[rows], mean[rows], yerr=se[rows], label=label, capsize=2)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend()
    return ax
