"""Exceptions raised by agglo: one per agglo_status, each carrying the library's message."""


class Error(Exception):
    """Base of every agglo error. ``status`` is the C agglo_status, ``message`` its text."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self):
        return self.message


class InputError(Error, ValueError):
    """AGGLO_ERROR_INPUT: a bad file, key, value or argument."""

    status = -1


class UnknownKeyError(InputError, KeyError):
    """An unknown scenario key (``Config[key]``): an InputError that is also a KeyError."""


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


_BY_STATUS = {-1: InputError, -2: UsageError, -3: RunError, -4: OutputError, -5: AggloMemoryError}


def error_for(status, message):
    """The exception for a failed agglo_status (a generic Error for an unknown status)."""
    cls = _BY_STATUS.get(status, Error)
    return cls(message, status)
