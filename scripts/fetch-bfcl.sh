#!/usr/bin/env bash
# Downloads the Berkeley Function Calling Leaderboard data (PyPI package `bfcl-eval`, Apache-2.0)
# and extracts its data files into a cache directory; prints that directory, ready for
# `toolwright eval --bfcl DIR`. The data is never committed to this repository.
#
#   scripts/fetch-bfcl.sh                  # latest bfcl-eval
#   BFCL_VERSION=2026.3.23 scripts/fetch-bfcl.sh
#   BFCL_CACHE=/some/dir scripts/fetch-bfcl.sh
set -euo pipefail

CACHE="${BFCL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolwright/bfcl}"
SPEC="bfcl-eval${BFCL_VERSION:+==$BFCL_VERSION}"
PY="${PYTHON:-python3}"
mkdir -p "$CACHE/wheels"

"$PY" -m pip download --no-deps --only-binary=:all: -q --disable-pip-version-check \
  -d "$CACHE/wheels" "$SPEC" >&2
WHEEL="$(ls -t "$CACHE"/wheels/bfcl_eval-*.whl | head -n 1)"
[ -n "$WHEEL" ] || { echo "fetch-bfcl: no wheel downloaded" >&2; exit 1; }
NAME="$(basename "$WHEEL" .whl)"
DEST="$CACHE/$NAME"

if [ ! -f "$DEST/.complete" ]; then
  rm -rf "$DEST.tmp"
  mkdir -p "$DEST.tmp"
  # Only the data files: question files and possible answers.
  "$PY" - "$WHEEL" "$DEST.tmp" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith("bfcl_eval/data/") and n.endswith(".json")]
    for n in names:
        z.extract(n, dest)
    lic = [n for n in z.namelist() if n.endswith(("LICENSE", "LICENSE.txt", "LICENSE.md"))]
    for n in lic:
        z.extract(n, dest)
print(f"fetch-bfcl: extracted {len(names)} data files", file=sys.stderr)
PY
  rm -rf "$DEST"
  mv "$DEST.tmp" "$DEST"
  touch "$DEST/.complete"
fi
echo "$DEST/bfcl_eval/data"
