"""Loads libagglo with cffi in ABI mode; the declarations are read from the public headers.

The library is, in order: $AGGLO_LIBRARY; the path recorded at build or install time
(_paths.py, written by python/CMakeLists.txt); build/libagglo.so of the source tree; the system's
libagglo.so.0. The headers: $AGGLO_INCLUDE_DIR, then _paths.py, then include/ of the source tree.
"""
import ctypes.util
import importlib
import os
import re
from types import ModuleType
from typing import Any, Callable, Iterable, Optional, Tuple, Union

import cffi

from .errors import error_for

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE_TREE = os.path.normpath(os.path.join(_HERE, "..", ".."))
HEADERS = ("agglo.h", "scattering.h", "analysis.h", "ensemble.h", "picture.h", "aggregates.h")

_paths: Optional[ModuleType]
try:  # written at build or install time (python/CMakeLists.txt, setup.py)
    _paths = importlib.import_module(__package__ + "._paths")
except ImportError:  # running from the source tree without a build
    _paths = None


def _first_existing(paths: Iterable[Optional[str]]) -> Optional[str]:
    for p in paths:
        if p and os.path.exists(p):
            return p
    return None


def library_path() -> Optional[str]:
    """The shared library to load (see the module's docstring)."""
    env = os.environ.get("AGGLO_LIBRARY")
    if env:
        return env
    found = _first_existing([
        getattr(_paths, "LIBRARY", None),
        os.path.join(_SOURCE_TREE, "build", "libagglo.so"),
    ])
    return found or ctypes.util.find_library("agglo")


def include_dir() -> str:
    """The directory holding agglo/agglo.h and agglo/analysis.h."""
    for d in (os.environ.get("AGGLO_INCLUDE_DIR"), getattr(_paths, "INCLUDE_DIR", None),
              os.path.join(_SOURCE_TREE, "include")):
        if d and os.path.exists(os.path.join(d, "agglo", "agglo.h")):
            return d
    raise ImportError("agglo: the public headers (agglo/agglo.h) were not found; set "
                      "AGGLO_INCLUDE_DIR to the directory holding agglo/")


def cdef_from_header(text: str) -> str:
    """The declarations of a header: every preprocessor line (with its continuation lines) and
    every `#ifdef __cplusplus ... #endif` block dropped."""
    out, depth, skipping, continued = [], 0, False, False
    for line in text.splitlines():
        s = line.strip()
        if continued:  # continuation of a preprocessor line
            continued = s.endswith("\\")
            continue
        if s.startswith("#"):
            continued = s.endswith("\\")
            m = re.match(r"#\s*(\w*)", s)
            word = m.group(1) if m else ""
            if skipping:
                if word in ("if", "ifdef", "ifndef"):
                    depth += 1
                elif word == "endif":
                    depth -= 1
                    skipping = depth > 0
            elif word == "ifdef" and s.split()[-1] == "__cplusplus":
                skipping, depth = True, 1
            continue
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n"


def _build() -> Tuple[Any, Any, str, str]:
    path = library_path()
    if not path:
        raise ImportError("agglo: libagglo.so not found; build the CMake target agglo_shared, "
                          "install agglo, or set AGGLO_LIBRARY to the library's path")
    inc = include_dir()
    ffi = cffi.FFI()
    for h in HEADERS:
        with open(os.path.join(inc, "agglo", h), encoding="utf-8") as f:
            ffi.cdef(cdef_from_header(f.read()))
    try:
        lib = ffi.dlopen(path)
    except OSError as e:
        raise ImportError(f"agglo: cannot load {path}: {e} (set AGGLO_LIBRARY to the library's "
                          "path)") from e
    return ffi, lib, path, inc


ffi, lib, LIBRARY, INCLUDE_DIR = _build()


def last_error() -> str:
    """The library's message of the last failed call in this thread."""
    return str(ffi.string(lib.agglo_last_error()).decode("utf-8", "replace"))


def check(status: int, what: Optional[str] = None) -> int:
    """Raise the exception of a failed agglo_status; return the status otherwise (OK, STOPPED)."""
    if status < 0:
        msg = last_error() or (what or "agglo") + f": failed with status {status}"
        raise error_for(status, msg)
    return status


def encode(text: Union[str, bytes, "os.PathLike[str]"]) -> bytes:
    """str or os.PathLike -> bytes for a const char * argument."""
    return text if isinstance(text, bytes) else os.fsencode(text)


def take_text(call: Callable[[Any], int]) -> str:
    """Run call(char **) (an agglo function returning text) and return the text as str; the
    library's copy is freed with agglo_free."""
    out = ffi.new("char **")
    check(call(out))
    try:
        return str(ffi.string(out[0]).decode("utf-8", "replace"))
    finally:
        lib.agglo_free(out[0])
