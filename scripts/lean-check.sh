#!/usr/bin/env bash
# The feature combinations the README offers ("Features"): each one is checked (`cargo check`), the
# dependency trees show that a feature turned off is really gone, the GPU features reach
# llama-cpp-2, and the lean install (`cargo install --path crates/toolwright-cli
# --no-default-features`) is built and run: it serves, calls and lints, and every command whose
# feature is off says which feature brings it. Run by scripts/test.sh after the tests (it
# relinks the CLI binary).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
fail() { echo "lean-check: $*" >&2; exit 1; }

# --- dependency trees: what a feature turned off leaves out -------------------------------------
tree() { cargo tree -q -e normal,build --prefix none "$@"; }
lean_tree="$(tree -p toolwright-cli --no-default-features)"
for crate in llama-cpp-2 libsqlite3-sys redis; do
  if grep -q "^$crate " <<<"$lean_tree"; then
    fail "$crate is in the dependency tree of toolwright-cli --no-default-features"
  fi
done
grep -q "^reqwest " <<<"$(tree -p toolwright-agent --no-default-features)" &&
  fail "toolwright-agent without openai/anthropic still pulls reqwest"
grep -q "^libsqlite3-sys " <<<"$(tree -p toolwright-runtime --no-default-features)" &&
  fail "toolwright-runtime without sqlite still compiles SQLite"
# The GPU backends need their SDKs, so they are resolved here, not built.
for gpu in cuda vulkan metal; do
  feats="$(cargo tree -q -p toolwright-cli --no-default-features --features "$gpu" -e normal \
    -f '{p} [{f}]' --prefix none | grep '^llama-cpp-2 ' | sort -u)"
  grep -Eq "[[,]$gpu[],]" <<<"$feats" || fail "--features $gpu does not reach llama-cpp-2: $feats"
done

# --- every combination the README names compiles ------------------------------------------------
check() {
  echo "lean-check: cargo check $*"
  local out
  out="$(cargo check -q "$@" 2>&1)" || fail "cargo check $* failed: $out"
  # Our crates' warnings (dead code behind a feature, say) fail too; dependencies' are capped.
  if grep -q '^warning' <<<"$out"; then
    fail "cargo check $* warns: $out"
  fi
}
# The CLI: the default install, with otel, the lean install alone and with each feature.
check -p toolwright-cli
check -p toolwright-cli --features otel
check -p toolwright-cli --no-default-features --features openai,anthropic
for f in local sqlite redis openai anthropic otel; do
  check -p toolwright-cli --no-default-features --features "$f"
done
# The library facade: nothing, each feature alone, the default.
check -p toolwright --no-default-features
for f in runtime sqlite redis catalog agent openai anthropic mcp; do
  check -p toolwright --no-default-features --features "$f"
done
check -p toolwright
# Crates whose own features cut the build, without them (tests included).
check -p toolwright-runtime --no-default-features --tests
check -p toolwright-agent --no-default-features --tests
check -p toolwright-demo --no-default-features --tests
# The runtime without its stores names the feature to build with.
cargo test -q -p toolwright-runtime --no-default-features --lib store_urls_parse >/dev/null ||
  fail "toolwright-runtime --no-default-features: store_urls_parse failed"

# --- the lean binary -----------------------------------------------------------------------------
cargo build -q -p toolwright-cli --no-default-features
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$target/debug/toolwright" "$work/toolwright"
tw="$work/toolwright"

out="$("$tw" call calculate --args '{"expression": "6*7"}')" || fail "call failed: $out"
grep -q '"status":"success"' <<<"${out//[[:space:]]/}" || fail "call: $out"

"$tw" lint --format json >/dev/null || [ $? -eq 1 ] || fail "lint crashed"

reply="$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lean","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | timeout 30 "$tw" serve --stdio)"
grep -q '"convert_currency"' <<<"$reply" || fail "serve --stdio did not list the tools: $reply"
if grep -q '"query_users"' <<<"$reply"; then
  fail "the lean build lists query_users, a SQLite tool"
fi

# Each thing this build lacks fails with a usage error that names its feature, never a panic.
expect_feature() {
  local feature="$1"; shift
  set +e
  msg="$(env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u TOOLWRIGHT_BASE_URL -u TOOLWRIGHT_PROVIDER \
    "$tw" "$@" 2>&1)"
  code=$?
  set -e
  [ "$code" -ne 0 ] && [ "$code" -ne 101 ] || fail "\`toolwright $*\` exited $code: $msg"
  grep -q "feature" <<<"$msg" && grep -q "$feature" <<<"$msg" ||
    fail "\`toolwright $*\` did not name the feature \`$feature\`: $msg"
}
expect_feature local run "hello"
expect_feature openai run "hello" --provider openai --base-url http://127.0.0.1:9/v1
expect_feature anthropic run "hello" --provider anthropic
expect_feature "features sqlite" --store "sqlite:$work/idem.db" call calculate --args '{"expression": "1+1"}'
expect_feature "features redis" --store redis://127.0.0.1:9/0 call calculate --args '{"expression": "1+1"}'
echo "lean-check: every README feature combination compiles; the lean build has no llama-cpp, SQLite or Redis; call, lint, serve --stdio work; missing features are named"
