#!/usr/bin/env bash
# check-layers.sh: every #include in src/ and app/ is one its folder may make (the table in
# docs/architecture.md, "Folders and what each may include"). Prints the offending lines; exit 1.
# config/ and picture/ include no models/ header: a model's keys and settings reach the config
# through the registry (core/models.c), its species reach the pictures through the system.
set -u
cd "$(dirname "$0")/.."
allowed() { # folder -> the folders it may include (besides itself and agglo/)
  case $1 in
    core) echo "config models solvers io analysis picture" ;;
    config) echo "core picture/picture.h" ;;
    models) echo "core config solvers analysis" ;;
    solvers) echo "core" ;;
    io) echo "core config analysis picture" ;;
    analysis) echo "core io" ;;
    picture) echo "core config" ;;
    aggregates) echo "core io" ;;
    mpi) echo "core config models solvers io analysis picture" ;;
  esac
}
bad=0
for f in src/*/*.[ch]; do
  folder=$(basename "$(dirname "$f")")
  while IFS= read -r inc; do
    [ "${inc%%/*}" = "$folder" ] || [ "${inc%%/*}" = agglo ] && continue
    ok=0
    for rule in $(allowed "$folder"); do
      case $inc in $rule | $rule/*) ok=1 ;; esac
    done
    [ $ok = 1 ] || { echo "$f: #include \"$inc\" (src/$folder/ may include: $(allowed "$folder"))"; bad=1; }
  done < <(grep -hoE '^#include "[^"]+"' "$f" | sed 's/#include "//; s/"$//')
done
# app/ is a client: the public API and its own headers only
for f in app/*.[ch]; do
  while IFS= read -r inc; do
    [ "${inc%%/*}" = agglo ] || [ -f "app/$inc" ] || { echo "$f: #include \"$inc\" (app/ may include agglo/ and app/ only)"; bad=1; }
  done < <(grep -hoE '^#include "[^"]+"' "$f" | sed 's/#include "//; s/"$//')
done
[ $bad = 0 ] && echo "layers: every include allowed"
exit $bad
