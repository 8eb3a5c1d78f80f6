#!/usr/bin/env bash
# MCP server benchmark, one run: `toolwright serve --http` against a FastMCP server (PyPI `fastmcp`,
# installed into a throwaway venv) exposing the same `convert_currency` tool (same rates table,
# bounds and enums), under the same bounded loopback load (crates/toolwright-mcp/examples/mcp_load.rs:
# raw JSON-RPC over HTTP keep-alive, one MCP session per client, 1 and 16 concurrent clients).
#
# Two pairings, like with like:
#   default    toolwright `serve --http` (sessions, SSE answers)  vs FastMCP's defaults (sessions, SSE)
#   stateless  toolwright `--stateless --json-response`           vs FastMCP `stateless_http=True,
#                                                                    json_response=True`
# Prints tools/call requests/s, p50/p99 latency, server CPU per call (user+system time of the
# server process from /proc/PID/stat over the timed requests) and the ratios; server RSS; then
# tools/list with 1,000 registered tools (toolwright: --functions with 1,000 definitions; FastMCP:
# 1,000 extra tools), whole list per request (a paginating server is followed through nextCursor),
# with HTTP RSS; and `serve --stdio` peak RSS with the same 1,000 tools after initialize + tools/list.
#
# Env: REQ_C1 (default 2000) / REQ_C16 (default 4000)  requests per run at 1 / 16 clients
#      REQ_LIST (default 100)   tools/list requests; MAX_SECONDS (default 60) cap per run
#      BENCH_VENV (default /tmp/toolwright-bench-venv), FASTMCP_VERSION (default 4.1.6)
#      PAIRINGS (default "default stateless")
#      OUT (default: a temp dir) where the JSON lines and logs go
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
REQ_C1="${REQ_C1:-2000}"
REQ_C16="${REQ_C16:-4000}"
REQ_LIST="${REQ_LIST:-100}"
MAX_SECONDS="${MAX_SECONDS:-60}"
PAIRINGS="${PAIRINGS:-default stateless}"
VENV="${BENCH_VENV:-/tmp/toolwright-bench-venv}"
FASTMCP_VERSION="${FASTMCP_VERSION:-4.1.6}"
OUT="${OUT:-$(mktemp -d /tmp/toolwright-mcp-bench.XXXXXX)}"
mkdir -p "$OUT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
CLK_TCK="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# bench/compare.sh builds everything once and passes the binaries in TW_BIN / MCP_LOAD_BIN.
if [[ -n "${TW_BIN:-}" && -n "${MCP_LOAD_BIN:-}" ]]; then
  TW="$TW_BIN"
  LOAD="$MCP_LOAD_BIN"
else
  echo "== building (release): toolwright, mcp_load" >&2
  cargo build -q --release -p toolwright-cli
  cargo build -q --release -p toolwright-mcp --features http-client --example mcp_load
  TW="$TARGET/release/toolwright"
  LOAD="$TARGET/release/examples/mcp_load"
fi

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

# start_fastmcp LOGNAME EXTRA_TOOLS MODE : sets URL and PID
start_fastmcp() {
  local log="$OUT/$1.log" port
  port="$(free_port)"
  "$PY" "$ROOT/bench/fastmcp_server.py" "$port" "$ROOT/crates/toolwright-demo/data/rates.json" "$2" "$3" > "$log" 2>&1 &
  PID=$!; PIDS+=("$PID"); URL="http://127.0.0.1:$port/mcp"
  for _ in $(seq 1 600); do
    if "$LOAD" --url "$URL" --mode list --requests 1 --warmup 0 --label probe > /dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "fastmcp did not start" >&2; cat "$log" >&2; exit 1
}

# start SERVER PAIRING LOGNAME EXTRA_TOOLS [DEFS] : sets URL and PID
start() {
  local server=$1 pairing=$2 log=$3 extra=$4 defs=${5:-}
  if [[ $server == toolwright ]]; then
    local args=()
    [[ $pairing == stateless ]] && args+=(--stateless --json-response)
    [[ -n "$defs" ]] && args+=(--toolset none --functions "$defs")
    start_toolwright "$log" "${args[@]}"
  else
    start_fastmcp "$log" "$extra" "$pairing"
  fi
}

stop() { kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

ARGS='{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}'
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"

for pairing in $PAIRINGS; do
  for server in toolwright fastmcp; do
    start "$server" "$pairing" "$server-$pairing-serve" 0
    idle_rss=$(rss_kb "$PID")
    for c in 1 16; do
      req=$REQ_C1; [[ $c == 16 ]] && req=$REQ_C16
      echo "== $server ($pairing): tools/call convert_currency, $c client(s), $req requests" >&2
      "$LOAD" --url "$URL" --tool convert_currency --args "$ARGS" --concurrency "$c" --requests "$req" \
        --warmup 20 --max-seconds "$MAX_SECONDS" --label "$server-$pairing" \
        --server-pid "$PID" --clk-tck "$CLK_TCK" | tee -a "$RESULTS" >&2
    done
    echo "{\"label\":\"$server-$pairing\",\"mode\":\"rss\",\"idle_rss_kb\":$idle_rss,\"after_load_rss_kb\":$(rss_kb "$PID"),\"peak_rss_kb\":$(hwm_kb "$PID")}" | tee -a "$RESULTS" >&2
    stop "$PID"
  done
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
for pairing in $PAIRINGS; do
  for server in toolwright fastmcp; do
    start "$server" "$pairing" "$server-$pairing-list" 1000 "$DEFS"
    echo "== $server ($pairing): tools/list with 1,000 tools, $REQ_LIST requests" >&2
    "$LOAD" --url "$URL" --mode list --concurrency 1 --requests "$REQ_LIST" --warmup 5 \
      --max-seconds "$MAX_SECONDS" --label "$server-$pairing-1000-tools" --expect-tools "$([[ $server == toolwright ]] && echo 1000 || echo 1001)" \
      --server-pid "$PID" --clk-tck "$CLK_TCK" | tee -a "$RESULTS" >&2
    echo "{\"label\":\"$server-$pairing-1000-tools\",\"mode\":\"rss\",\"after_load_rss_kb\":$(rss_kb "$PID"),\"peak_rss_kb\":$(hwm_kb "$PID")}" | tee -a "$RESULTS" >&2
    stop "$PID"
  done
done
# The same 1,000 tools served in pages of 100 (the client follows nextCursor).
start_toolwright tw-list-paged --toolset none --functions "$DEFS" --page-size 100
echo "== toolwright (default, --page-size 100): tools/list with 1,000 tools, $REQ_LIST requests" >&2
"$LOAD" --url "$URL" --mode list --concurrency 1 --requests "$REQ_LIST" --warmup 5 \
  --max-seconds "$MAX_SECONDS" --label "toolwright-paged-1000-tools" --expect-tools 1000 \
  --server-pid "$PID" --clk-tck "$CLK_TCK" | tee -a "$RESULTS" >&2
stop "$PID"

# serve --stdio with the same 1,000 tools: peak RSS after initialize + tools/list.
"$PY" - "$TW" "$DEFS" <<'EOF' | tee -a "$RESULTS" >&2
import json, subprocess, sys, time
tw, defs = sys.argv[1], sys.argv[2]
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
p = subprocess.Popen([tw, "serve", "--stdio", "--toolset", "none", "--functions", defs], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    p.stdin.write(json.dumps(init) + "\n"); p.stdin.flush(); p.stdout.readline()
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"); p.stdin.flush()
    n = len(json.loads(p.stdout.readline())["result"]["tools"])
    time.sleep(0.2)
    st = dict(l.split(":", 1) for l in open(f"/proc/{p.pid}/status"))
    print(json.dumps({"label": "toolwright-stdio-1000-tools", "mode": "rss", "tools": n,
                      "after_load_rss_kb": int(st["VmRSS"].split()[0]), "peak_rss_kb": int(st["VmHWM"].split()[0])}))
finally:
    p.kill()
EOF

"$PY" - "$RESULTS" "$PAIRINGS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pairings = sys.argv[2].split()
nan = float("nan")
def get(label, mode, conc=None):
    for r in rows:
        if r["label"] == label and r["mode"] == mode and (conc is None or r.get("concurrency") == conc):
            return r
    return {}
def num(v):
    return nan if v is None else v
print()
print("tools/call convert_currency over Streamable HTTP (loopback; one MCP session per client)")
print("  default:   toolwright `serve --http`                    vs FastMCP defaults (sessions, SSE)")
print("  stateless: toolwright `--stateless --json-response`     vs FastMCP stateless_http + json_response")
print(f"{'pairing':<10} {'clients':>7}  {'server':<11} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'CPU us/call':>11} {'errors':>6}")
for p in pairings:
    for c in (1, 16):
        for s in ("toolwright", "fastmcp"):
            r = get(f"{s}-{p}", "call", c)
            print(f"{p:<10} {c:>7}  {s:<11} {num(r.get('rps')):>9.1f} {num(r.get('p50_ms')):>8.3f} {num(r.get('p99_ms')):>8.2f} {num(r.get('server_cpu_us_per_req')):>11.1f} {r.get('errors', '-'):>6}")
        t, f = get(f"toolwright-{p}", "call", c), get(f"fastmcp-{p}", "call", c)
        if t.get("rps") and f.get("rps"):
            cpu = ""
            if t.get("server_cpu_us_per_req") and f.get("server_cpu_us_per_req"):
                cpu = f", CPU/call {f['server_cpu_us_per_req'] / t['server_cpu_us_per_req']:.1f}x less"
            print(f"{'':<10} {'':>7}  ratio toolwright/fastmcp: {t['rps'] / f['rps']:.1f}x req/s, p50 {f['p50_ms'] / t['p50_ms']:.1f}x lower, p99 {f['p99_ms'] / t['p99_ms']:.1f}x lower{cpu}")
# Cross pairing: toolwright's default against FastMCP's fastest, and the reverse.
if "default" in pairings and "stateless" in pairings:
    for c in (1, 16):
        t, f = get("toolwright-default", "call", c), get("fastmcp-stateless", "call", c)
        if t.get("rps") and f.get("rps"):
            print(f"cross      {c:>7}  toolwright default / FastMCP stateless+json: {t['rps'] / f['rps']:.1f}x req/s")
print()
print("server RSS (MiB), tools/call runs")
for p in pairings:
    for s in ("toolwright", "fastmcp"):
        r = get(f"{s}-{p}", "rss")
        print(f"  {p:<10} {s:<11} idle {r.get('idle_rss_kb', 0) / 1024:7.1f}   after load {r.get('after_load_rss_kb', 0) / 1024:7.1f}   peak {r.get('peak_rss_kb', 0) / 1024:7.1f}")
print()
print("tools/list with 1,000 registered tools (1 client; one request = the whole list)")
for p in pairings:
    for s in ("toolwright", "fastmcp"):
        r, m = get(f"{s}-{p}-1000-tools", "list"), get(f"{s}-{p}-1000-tools", "rss")
        print(f"  {p:<10} {s:<11} p50 {num(r.get('p50_ms')):8.2f} ms   p99 {num(r.get('p99_ms')):8.2f} ms   {num(r.get('rps')):7.1f} req/s   CPU {num(r.get('server_cpu_us_per_req')) / 1000:6.2f} ms/list   RSS {m.get('after_load_rss_kb', 0) / 1024:6.1f} MiB (peak {m.get('peak_rss_kb', 0) / 1024:6.1f})   errors {r.get('errors', '-')}")
r = get("toolwright-paged-1000-tools", "list")
print(f"  {'paged 100':<10} {'toolwright':<11} p50 {num(r.get('p50_ms')):8.2f} ms   p99 {num(r.get('p99_ms')):8.2f} ms   {num(r.get('rps')):7.1f} req/s   CPU {num(r.get('server_cpu_us_per_req')) / 1000:6.2f} ms/list   (10 pages per list)   errors {r.get('errors', '-')}")
m = get("toolwright-stdio-1000-tools", "rss")
print(f"  serve --stdio, 1,000 tools, after initialize + tools/list: RSS {m.get('after_load_rss_kb', 0) / 1024:.1f} MiB, peak {m.get('peak_rss_kb', 0) / 1024:.1f} MiB")
bad = [r for r in rows if r.get("errors")]
if bad:
    print("\nerrors seen:", json.dumps(bad)[:500])
    sys.exit(1)
EOF
echo "raw results: $RESULTS" >&2
