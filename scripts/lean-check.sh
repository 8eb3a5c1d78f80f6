#!/usr/bin/env bash
# The lean install (`cargo install --path crates/toolwright-cli --no-default-features`): no
# llama.cpp in its dependency tree, and the binary serves, calls and lints; the agent commands
# say how to get a model. Run by scripts/test.sh after the tests (it relinks the CLI binary).
set -euo pipefail
cd "$(dirname "$0")/.."
if cargo tree -q -p toolwright-cli --no-default-features -e normal | grep -q llama; then
  echo "lean-check: llama-cpp is in the dependency tree of --no-default-features" >&2
  exit 1
fi
cargo build -q -p toolwright-cli --no-default-features
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$target/debug/toolwright" "$work/toolwright"
tw="$work/toolwright"
fail() { echo "lean-check: $*" >&2; exit 1; }

out="$("$tw" call calculate --args '{"expression": "6*7"}')" || fail "call failed: $out"
grep -q '"status":"success"' <<<"${out//[[:space:]]/}" || fail "call: $out"

"$tw" lint --format json >/dev/null || [ $? -eq 1 ] || fail "lint crashed"

reply="$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lean","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | timeout 30 "$tw" serve --stdio)"
grep -q '"convert_currency"' <<<"$reply" || fail "serve --stdio did not list the tools: $reply"

set +e
msg="$(env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u TOOLWRIGHT_BASE_URL "$tw" run "hello" 2>&1)"
code=$?
set -e
[ "$code" -eq 2 ] || fail "run without a provider exited $code: $msg"
grep -q "feature" <<<"$msg" || fail "run without a provider did not name the feature: $msg"
echo "lean-check: no llama-cpp; call, lint, serve --stdio work; run explains the missing model"
