"""Exceptions raised by agglo: one per agglo_status, each carrying the library's message, each
also an instance of the built-in exception a Python user expects (docs/python.md, "Errors")."""
import enum
import errno
import os
from typing import Dict, Optional, Type


class Error(Exception):
    """Base of every agglo error. ``status`` is the C agglo_status, ``message`` its text."""

    status: Optional[int] = None

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self) -> str:
        return self.message


class InputError(Error, ValueError):
    """AGGLO_ERROR_INPUT: a bad file, key, value or argument."""

    status = -1


class UnknownKeyError(InputError, KeyError):
    """An unknown scenario key or section, read or written: an InputError that is also a
    KeyError."""


class MissingFileError(InputError, FileNotFoundError):
    """An input file (scenario, trajectory, restart point) that does not exist: an InputError
    that is also a FileNotFoundError (errno ENOENT, filename set)."""

    def __init__(self, message: str, status: Optional[int] = None,
                 filename: Optional[str] = None) -> None:
        super().__init__(message, status)
        self.errno = errno.ENOENT
        self.strerror = os.strerror(errno.ENOENT)
        self.filename = filename


class UsageError(Error):
    """AGGLO_ERROR_USAGE: a call out of order (stepping a finished or failed simulation, ...)."""

    status = -2


class RunError(Error, RuntimeError):
    """AGGLO_ERROR_RUN: the dynamics failed; the last good state is kept in the simulation."""

    status = -3


class OutputError(Error, OSError):
    """AGGLO_ERROR_IO: an output could not be written."""

    status = -4


class AggloMemoryError(Error, MemoryError):
    """AGGLO_ERROR_MEMORY: the library ran out of memory."""

    status = -5


class AggloWarning(UserWarning):
    """A warning of a run (solver at its iteration cap, overlap above tolerance)."""


class RunStatus(str, enum.Enum):
    """How Simulation.run or step ended (a str enum: RunStatus.DONE == "done")."""

    DONE = "done"          # the steps asked for were made (or t_end was reached)
    STOPPED = "stopped"    # a callback returned True; run/step continue from here
    FINISHED = "finished"  # the model has nothing left to do (one ballistic cluster)

    def __str__(self) -> str:
        return self.value


_BY_STATUS: Dict[int, Type[Error]] = {-1: InputError, -2: UsageError, -3: RunError,
                                      -4: OutputError, -5: AggloMemoryError}
_ENOENT_TEXT = ": " + os.strerror(errno.ENOENT)


def error_for(status: int, message: str) -> Error:
    """The exception for a failed agglo_status (a generic Error for an unknown status). Input
    errors are refined by the library's message: an unknown key or section (every reader and
    writer of settings says "unknown key"/"unknown section") is an UnknownKeyError, a file that
    cannot be opened because it does not exist a MissingFileError naming it."""
    cls = _BY_STATUS.get(status, Error)
    if cls is InputError:
        if "unknown key" in message or "unknown section" in message:
            return UnknownKeyError(message, status)
        if message.endswith(_ENOENT_TEXT) and ": cannot open" in message:
            return MissingFileError(message, status, message.split(": cannot open")[0])
    return cls(message, status)
