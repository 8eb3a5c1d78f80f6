#!/usr/bin/env bash
# Prints the `--features=...` argument that turns on every feature CI builds: all features of every
# workspace crate (or of the crate given as $1) except llama.cpp's GPU backends `cuda`, `vulkan`
# and `metal`, which need their SDKs (CUDA toolkit, Vulkan SDK, macOS) and so cannot build on
# the CI machine. Use it where `--all-features` would name a crate that has them
# (toolwright-cli, toolwright-local); scripts/lean-check.sh checks that they resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg="${1:-}"
cargo metadata --no-deps --format-version 1 | jq -r --arg pkg "$pkg" '
  [ .packages[]
    | select($pkg == "" or .name == $pkg)
    | .name as $p
    | .features | keys[]
    | select(. != "default" and (IN("cuda", "vulkan", "metal") | not))
    | if $pkg == "" then "\($p)/\(.)" else . end ]
  | "--features=" + join(",")'
