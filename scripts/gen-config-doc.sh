#!/usr/bin/env bash
# Regenerate the key table of docs/config.md from the binary (the single source of truth).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/agglo}
{
  sed '/<!-- keys:begin -->/q' docs/config.md
  "$bin" list keys
  sed -n '/<!-- keys:end -->/,$p' docs/config.md
} > docs/config.md.new
mv docs/config.md.new docs/config.md
