#!/usr/bin/env bash
# MCP conformance of toolwright (official suite @modelcontextprotocol/conformance, via the kit in
# scripts/mcp-conformance-kit, carried by the repository):
#   1. server over stdio, profile `tools`          (must be 11 passed, 0 failed)
#   2. server over Streamable HTTP, `tools-full`   (every scenario, incl. dns-rebinding-protection)
#   3. client scenarios (initialize, tools_call)   (toolwright --mcp as the client)
# Exits non-zero when any run has a failure.
#
# Env: TOOLWRIGHT_BIN       use this binary instead of building one
#      CARGO_BUILD_FLAGS    extra flags for `cargo build -p toolwright-cli` (e.g. --release)
#      MCP_CONFORMANCE_DIR  the conformance kit (default scripts/mcp-conformance-kit)
#      MCP_CONFORMANCE_HOME node 22 + pinned npm packages cache (the kit's default: /tmp/mcp-conformance-home)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
KIT="${MCP_CONFORMANCE_DIR:-$ROOT/scripts/mcp-conformance-kit}"
RUNNER="$KIT/run-conformance.sh"
[[ -x "$RUNNER" ]] || { echo "mcp-conformance: runner not found at $RUNNER" >&2; exit 2; }

if [[ -z "${TOOLWRIGHT_BIN:-}" ]]; then
  FLAGS="${CARGO_BUILD_FLAGS:-}"
  # shellcheck disable=SC2086
  cargo build -q -p toolwright-cli $FLAGS
  profile=debug
  [[ " $FLAGS " == *" --release "* ]] && profile=release
  TOOLWRIGHT_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/$profile/toolwright"
fi
[[ -x "$TOOLWRIGHT_BIN" ]] || { echo "mcp-conformance: no binary at $TOOLWRIGHT_BIN" >&2; exit 2; }
BIN="$(cd "$(dirname "$TOOLWRIGHT_BIN")" && pwd)/$(basename "$TOOLWRIGHT_BIN")"

WORK="$(mktemp -d /tmp/toolwright-mcp-conformance.XXXXXX)"
SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill -INT "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
status=0

echo "== MCP conformance 1/3: server over stdio (profile tools)"
"$RUNNER" --stdio "'$BIN' serve --stdio --toolset conformance" --profile tools | tee "$WORK/stdio.txt" || status=1
grep -qx '11 passed, 0 failed' "$WORK/stdio.txt" || { echo "expected 11 passed, 0 failed over stdio" >&2; status=1; }

echo "== MCP conformance 2/3: server over Streamable HTTP (profile tools-full)"
"$BIN" serve --http 127.0.0.1:0 --toolset conformance 2> "$WORK/serve.log" &
SERVER_PID=$!
url=""
for _ in $(seq 1 100); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$WORK/serve.log" | head -n1 || true)"
  [[ -n "$url" ]] && break
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "toolwright serve --http did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1
fi
"$RUNNER" --url "$url" --profile tools-full | tee "$WORK/http.txt" || status=1
kill -INT "$SERVER_PID"
if ! wait "$SERVER_PID"; then echo "serve --http did not exit cleanly on SIGINT" >&2; status=1; fi
SERVER_PID=""

echo "== MCP conformance 3/3: toolwright as an MCP client (initialize, tools_call)"
cat > "$WORK/client.sh" <<EOF
#!/bin/sh
# The runner calls: client.sh <server-url>, with MCP_CONFORMANCE_SCENARIO set.
case "\${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call) exec '$BIN' call add_numbers --args '{"a": 2, "b": 3}' --mcp "\$1" ;;
  *) exec '$BIN' tools list --mcp "\$1" ;;
esac
EOF
chmod +x "$WORK/client.sh"
"$RUNNER" --client "$WORK/client.sh" | tee "$WORK/client.txt" || status=1

[[ $status -eq 0 ]] && echo "MCP conformance: all runs passed" || echo "MCP conformance: FAILURES (see above)" >&2
exit $status
