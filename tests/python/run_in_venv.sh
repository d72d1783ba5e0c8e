#!/bin/sh
# The package as a user installs it: `pip install` of the source tree into a fresh virtual
# environment (Debian's numpy and cffi through --system-site-packages; no registry:
# --no-build-isolation --no-index), then its version metadata and the Python suite run with the
# environment's interpreter from another directory (docs/python.md, "Installation").
# usage: run_in_venv.sh SOURCE_DIR WORK_DIR [CMAKE_BUILD_DIR]
#   with CMAKE_BUILD_DIR the package ships that build's libagglo (AGGLO_BUILD_DIR), without it
#   pip has CMake build one (.ci/run).
set -eu
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
if [ $# -ge 3 ]; then AGGLO_BUILD_DIR=$3; export AGGLO_BUILD_DIR; fi
unset PYTHONPATH
"$work/venv/bin/pip" install -q --no-build-isolation --no-index "$src"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import importlib.metadata, os, sys
import agglo
assert agglo.__file__.startswith(sys.prefix), agglo.__file__  # the installed copy
assert importlib.metadata.version("agglo") == agglo.__version__, agglo.__version__
assert os.path.isfile(agglo.examples.path("maury_brownian_500"))
print("agglo", agglo.__version__, "from", os.path.dirname(agglo.__file__), "library",
      agglo.library_path)
PY
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python" \
  --basetemp="$work/pytest_tmp"
