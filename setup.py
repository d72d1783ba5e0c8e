"""Builds the Python package agglo (pyproject.toml; docs/python.md, "Installation").

The version is the C library's: `project(agglo VERSION ...)` in CMakeLists.txt, read here, so
`importlib.metadata.version("agglo")` equals `agglo.__version__` (agglo_version()).

The package loads libagglo.so with cffi (ABI mode). Which library the built package uses:
  - AGGLO_PREFIX=/usr/local: the one installed there (`cmake --install`, scripts/setup.sh); the
    package records <prefix>/lib/libagglo.so.0 and <prefix>/include and ships no library;
  - AGGLO_BUILD_DIR=build: the one of an existing CMake build tree, copied into the package;
  - neither: CMake builds libagglo (target agglo_shared) in setuptools' build directory and the
    package ships it (with the public headers, which cffi reads at import).
The example scenarios (examples/*.ini) go into agglo/examples (agglo.examples.path(name)).
"""
import glob
import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(agglo\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no `project(agglo VERSION x.y.z)`")
    return m.group(1)


INSTALLED_PATHS = '''# Written by setup.py: the libagglo installed under {prefix!r}.
LIBRARY = {library!r}
INCLUDE_DIR = {include!r}
'''
BUNDLED_PATHS = '''# Written by setup.py: the libagglo shipped in the package (_lib/, _include/).
import os

_here = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(_here, "_lib", "libagglo.so.0")
INCLUDE_DIR = os.path.join(_here, "_include")
'''


class BuildPy(build_py):
    """build_py, then the examples, the library (or where to find it) and _paths.py."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "agglo")
        for ini in glob.glob(os.path.join(ROOT, "examples", "*.ini")):
            shutil.copy(ini, os.path.join(pkg, "examples"))
        prefix = os.environ.get("AGGLO_PREFIX")
        if prefix:
            prefix = os.path.abspath(prefix)
            library = os.path.join(prefix, "lib", "libagglo.so.0")
            include = os.path.join(prefix, "include")
            if not os.path.exists(os.path.join(include, "agglo", "agglo.h")):
                raise RuntimeError(f"AGGLO_PREFIX={prefix}: no include/agglo/agglo.h there "
                                   "(install agglo with `cmake --install` first)")
            text = INSTALLED_PATHS.format(prefix=prefix, library=library, include=include)
        else:
            build_dir = os.environ.get("AGGLO_BUILD_DIR")
            if build_dir:
                build_dir = os.path.abspath(build_dir)
            else:
                build_temp = self.get_finalized_command("build").build_temp
                build_dir = os.path.join(os.path.abspath(build_temp), "cmake")
                self.spawn(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"])
                self.spawn(["cmake", "--build", build_dir, "--target", "agglo_shared",
                            "-j", str(os.cpu_count() or 1)])
            library = os.path.join(build_dir, "libagglo.so.0")
            if not os.path.exists(library):
                raise RuntimeError(f"{library}: not found (build the CMake target agglo_shared)")
            os.makedirs(os.path.join(pkg, "_lib"), exist_ok=True)
            shutil.copy(library, os.path.join(pkg, "_lib", "libagglo.so.0"))  # the file, not the link
            shutil.copytree(os.path.join(ROOT, "include", "agglo"),
                            os.path.join(pkg, "_include", "agglo"), dirs_exist_ok=True)
            text = BUNDLED_PATHS
        with open(os.path.join(pkg, "_paths.py"), "w", encoding="utf-8") as f:
            f.write(text)


class BinaryDistribution(Distribution):
    """The wheel holds libagglo (or the path of the machine's): tag it for this platform."""

    def has_ext_modules(self):
        return True


# setuptools' own build directory inside build/ (which CMake also uses, see README.md)
os.makedirs(os.path.join("build", "pip"), exist_ok=True)  # egg_info wants it to exist
setup(version=cmake_version(), cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build", "pip")},
               "egg_info": {"egg_base": os.path.join("build", "pip")}})
