#!/usr/bin/env bash
# MCP server benchmark, one run: `toolwright serve --http` against a FastMCP server (PyPI `fastmcp`,
# installed into a throwaway venv) exposing the same `convert_currency` tool (same rates table,
# bounds and enums), under the same bounded loopback load (crates/toolwright-mcp/examples/mcp_load.rs:
# raw JSON-RPC over HTTP keep-alive, one MCP session per client, 1 and 16 concurrent clients).
# Prints tools/call requests/s, p50/p99 latency and the ratio, then server RSS, then tools/list
# latency with 1,000 registered tools (toolwright: --functions with 1,000 definitions; FastMCP:
# 1,000 extra tools).
#
# Env: REQ_C1 (default 1000) / REQ_C16 (default 4000)  requests per run at 1 / 16 clients
#      REQ_LIST (default 100)   tools/list requests; MAX_SECONDS (default 60) cap per run
#      BENCH_VENV (default /tmp/toolwright-bench-venv), FASTMCP_VERSION (default 4.1.6)
#      OUT (default: a temp dir) where the JSON lines and logs go
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
REQ_C1="${REQ_C1:-1000}"
REQ_C16="${REQ_C16:-4000}"
REQ_LIST="${REQ_LIST:-100}"
MAX_SECONDS="${MAX_SECONDS:-60}"
VENV="${BENCH_VENV:-/tmp/toolwright-bench-venv}"
FASTMCP_VERSION="${FASTMCP_VERSION:-4.1.6}"
OUT="${OUT:-$(mktemp -d /tmp/toolwright-mcp-bench.XXXXXX)}"
mkdir -p "$OUT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

echo "== building (release): toolwright, mcp_load" >&2
cargo build -q --release -p toolwright-cli
cargo build -q --release -p toolwright-mcp --features http-client --example mcp_load
TW="$TARGET/release/toolwright"
LOAD="$TARGET/release/examples/mcp_load"

if ! "$VENV/bin/python" -c "import fastmcp, sys; sys.exit(fastmcp.__version__ != '$FASTMCP_VERSION')" 2>/dev/null; then
  echo "== installing fastmcp==$FASTMCP_VERSION into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "fastmcp==$FASTMCP_VERSION" >&2
fi
PY="$VENV/bin/python"

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/{print $2}' "/proc/$1/status"; }

# start_toolwright LOGNAME ARGS... : sets URL and PID
start_toolwright() {
  local log="$OUT/$1.log"; shift
  "$TW" serve --http 127.0.0.1:0 "$@" 2> "$log" &
  PID=$!; PIDS+=("$PID"); URL=""
  for _ in $(seq 1 300); do
    URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n1 || true)"
    [[ -n "$URL" ]] && return 0
    sleep 0.1
  done
  echo "toolwright did not start" >&2; cat "$log" >&2; exit 1
}

# start_fastmcp LOGNAME EXTRA_TOOLS : sets URL and PID
start_fastmcp() {
  local log="$OUT/$1.log" port
  port="$(free_port)"
  "$PY" "$ROOT/bench/fastmcp_server.py" "$port" "$ROOT/crates/toolwright-demo/data/rates.json" "$2" > "$log" 2>&1 &
  PID=$!; PIDS+=("$PID"); URL="http://127.0.0.1:$port/mcp"
  for _ in $(seq 1 600); do
    if "$LOAD" --url "$URL" --mode list --requests 1 --warmup 0 --label probe > /dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "fastmcp did not start" >&2; cat "$log" >&2; exit 1
}

stop() { kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

ARGS='{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}'
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"

for server in toolwright fastmcp; do
  if [[ $server == toolwright ]]; then start_toolwright tw-serve; else start_fastmcp fastmcp-serve 0; fi
  idle_rss=$(rss_kb "$PID")
  for c in 1 16; do
    req=$REQ_C1; [[ $c == 16 ]] && req=$REQ_C16
    echo "== $server: tools/call convert_currency, $c client(s), $req requests" >&2
    "$LOAD" --url "$URL" --tool convert_currency --args "$ARGS" --concurrency "$c" --requests "$req" \
      --warmup 20 --max-seconds "$MAX_SECONDS" --label "$server" | tee -a "$RESULTS" >&2
  done
  echo "{\"label\":\"$server\",\"mode\":\"rss\",\"idle_rss_kb\":$idle_rss,\"after_load_rss_kb\":$(rss_kb "$PID"),\"peak_rss_kb\":$(hwm_kb "$PID")}" | tee -a "$RESULTS" >&2
  stop "$PID"
done

# tools/list with 1,000 registered tools.
DEFS="$OUT/defs-1000.json"
"$PY" - "$DEFS" <<'EOF'
import json, sys
tools = [{"name": f"synthetic_tool_{i:04d}",
          "description": f"Synthetic tool number {i} for the tools/list benchmark. Use it to look up item group {i}.",
          "parameters": {"type": "object",
                         "properties": {"query": {"type": "string", "description": "What to look up"},
                                        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
                         "required": ["query"], "additionalProperties": False}}
         for i in range(1000)]
json.dump(tools, open(sys.argv[1], "w"))
EOF
for server in toolwright fastmcp; do
  if [[ $server == toolwright ]]; then start_toolwright tw-list --toolset none --functions "$DEFS"; else start_fastmcp fastmcp-list 1000; fi
  echo "== $server: tools/list with 1,000 tools, $REQ_LIST requests" >&2
  "$LOAD" --url "$URL" --mode list --concurrency 1 --requests "$REQ_LIST" --warmup 5 \
    --max-seconds "$MAX_SECONDS" --label "$server-1000-tools" | tee -a "$RESULTS" >&2
  echo "{\"label\":\"$server-1000-tools\",\"mode\":\"rss\",\"after_load_rss_kb\":$(rss_kb "$PID"),\"peak_rss_kb\":$(hwm_kb "$PID")}" | tee -a "$RESULTS" >&2
  stop "$PID"
done

"$PY" - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def get(label, mode, conc=None):
    for r in rows:
        if r["label"] == label and r["mode"] == mode and (conc is None or r.get("concurrency") == conc):
            return r
    return {}
print()
print("tools/call convert_currency over Streamable HTTP (loopback; one MCP session per client)")
print(f"{'clients':>7}  {'server':<11} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
for c in (1, 16):
    for s in ("toolwright", "fastmcp"):
        r = get(s, "call", c)
        print(f"{c:>7}  {s:<11} {r.get('rps', float('nan')):>9.1f} {r.get('p50_ms', float('nan')):>8.2f} {r.get('p99_ms', float('nan')):>8.2f} {r.get('errors', '-'):>6}")
    t, f = get("toolwright", "call", c), get("fastmcp", "call", c)
    if t.get("rps") and f.get("rps"):
        print(f"{'':>7}  ratio toolwright/fastmcp: {t['rps'] / f['rps']:.1f}x req/s, p50 {f['p50_ms'] / t['p50_ms']:.1f}x lower, p99 {f['p99_ms'] / t['p99_ms']:.1f}x lower")
print()
print("server RSS (MiB)")
for s in ("toolwright", "fastmcp"):
    r = get(s, "rss")
    print(f"  {s:<11} idle {r.get('idle_rss_kb', 0) / 1024:7.1f}   after load {r.get('after_load_rss_kb', 0) / 1024:7.1f}   peak {r.get('peak_rss_kb', 0) / 1024:7.1f}")
print()
print("tools/list with 1,000 registered tools (1 client)")
for s in ("toolwright", "fastmcp"):
    r, m = get(f"{s}-1000-tools", "list"), get(f"{s}-1000-tools", "rss")
    print(f"  {s:<11} p50 {r.get('p50_ms', float('nan')):8.2f} ms   p99 {r.get('p99_ms', float('nan')):8.2f} ms   {r.get('rps', float('nan')):7.1f} req/s   RSS {m.get('after_load_rss_kb', 0) / 1024:6.1f} MiB   errors {r.get('errors', '-')}")
bad = [r for r in rows if r.get("errors")]
if bad:
    print("\nerrors seen:", json.dumps(bad)[:500])
    sys.exit(1)
EOF
echo "raw results: $RESULTS" >&2
