#!/usr/bin/env bash
# MCP server benchmark, one run: three servers exposing the same `convert_currency` tool (same
# rates table, bounds and enums) under the same bounded loopback load
# (crates/toolwright-mcp/examples/mcp_load.rs: raw JSON-RPC over HTTP keep-alive, one MCP session
# per client, 1 and 16 concurrent clients):
#   rmcp        the floor: a bare rmcp server (crates/toolwright-mcp/examples/rmcp_floor.rs), the
#               tool written with rmcp's own #[tool] macros, serde-only arguments, no validation,
#               no policies, no envelope, served by rmcp's StreamableHttpService
#   toolwright  `toolwright serve --http` (validation against the advertised schema, policies,
#               the envelope), built on the same rmcp service
#   fastmcp     a FastMCP server (PyPI `fastmcp`, installed into a throwaway venv)
#
# Two pairings, like with like (the floor follows toolwright's settings):
#   default    sessions, SSE answers: toolwright `serve --http`, rmcp_floor, FastMCP's defaults
#   stateless  no sessions, plain JSON answers: toolwright `--stateless --json-response`,
#              rmcp_floor `--stateless --json-response`, FastMCP `stateless_http=True,
#              json_response=True`
# The two Rust servers run ROUNDS times each, interleaved (rmcp, toolwright, then toolwright,
# rmcp, ...; a fresh server each time), FastMCP once; the table gives the median over the
# rounds, the spread of req/s, and the ratios toolwright/rmcp per round (adjacent runs: a
# ratio is less noisy than either figure on a shared machine). Prints tools/call requests/s,
# p50/p99 latency, server CPU per call (the server's thread run times from
# /proc/PID/task/*/schedstat over the timed requests, else user+system ticks from /proc/PID/stat)
# and the ratios; server RSS; then tools/list with 1,000 registered tools (toolwright:
# --functions with 1,000 definitions; FastMCP: 1,000 extra tools), whole list per request (a
# paginating server is followed through nextCursor), with HTTP RSS; and `serve --stdio` peak RSS
# with the same 1,000 tools after initialize + tools/list.
#
# Env: REQ_C1 (default 5000) / REQ_C16 (default 20000)  requests per run at 1 / 16 clients
#      (rmcp, toolwright); FASTMCP_REQ_C1 (default 2000) / FASTMCP_REQ_C16 (default 4000)
#      ROUNDS (default 3)       runs of each Rust server per pairing
#      REQ_LIST (default 100)   tools/list requests; MAX_SECONDS (default 60) cap per run
#      BENCH_VENV (default /tmp/toolwright-bench-venv), FASTMCP_VERSION (default 4.1.6)
#      PAIRINGS (default "default stateless"), SERVERS (default "rmcp toolwright fastmcp")
#      OUT (default: a temp dir) where the JSON lines and logs go
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
REQ_C1="${REQ_C1:-5000}"
REQ_C16="${REQ_C16:-20000}"
FASTMCP_REQ_C1="${FASTMCP_REQ_C1:-2000}"
FASTMCP_REQ_C16="${FASTMCP_REQ_C16:-4000}"
ROUNDS="${ROUNDS:-3}"
SERVERS="${SERVERS:-rmcp toolwright fastmcp}"
REQ_LIST="${REQ_LIST:-100}"
MAX_SECONDS="${MAX_SECONDS:-60}"
PAIRINGS="${PAIRINGS:-default stateless}"
VENV="${BENCH_VENV:-/tmp/toolwright-bench-venv}"
FASTMCP_VERSION="${FASTMCP_VERSION:-4.1.6}"
OUT="${OUT:-$(mktemp -d /tmp/toolwright-mcp-bench.XXXXXX)}"
mkdir -p "$OUT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
CLK_TCK="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# bench/compare.sh builds everything once and passes the binaries in TW_BIN / MCP_LOAD_BIN /
# RMCP_FLOOR_BIN.
if [[ -n "${TW_BIN:-}" && -n "${MCP_LOAD_BIN:-}" && -n "${RMCP_FLOOR_BIN:-}" ]]; then
  TW="$TW_BIN"
  LOAD="$MCP_LOAD_BIN"
  FLOOR="$RMCP_FLOOR_BIN"
else
  echo "== building (release): toolwright, mcp_load, rmcp_floor" >&2
  cargo build -q --release -p toolwright-cli
  cargo build -q --release -p toolwright-mcp --features http-client,http-server \
    --example mcp_load --example rmcp_floor
  TW="$TARGET/release/toolwright"
  LOAD="$TARGET/release/examples/mcp_load"
  FLOOR="$TARGET/release/examples/rmcp_floor"
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

# start_rust LOGNAME COMMAND... : starts a Rust server that prints its URL on stderr; sets URL, PID
start_rust() {
  local log="$OUT/$1.log"; shift
  "$@" 2> "$log" &
  PID=$!; PIDS+=("$PID"); URL=""
  for _ in $(seq 1 300); do
    URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n1 || true)"
    [[ -n "$URL" ]] && return 0
    sleep 0.1
  done
  echo "$2 did not start" >&2; cat "$log" >&2; exit 1
}

# start_toolwright LOGNAME ARGS... : sets URL and PID
start_toolwright() {
  local log=$1; shift
  start_rust "$log" "$TW" serve --http 127.0.0.1:0 "$@"
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
  local args=()
  [[ $pairing == stateless && $server != fastmcp ]] && args+=(--stateless --json-response)
  if [[ $server == toolwright ]]; then
    [[ -n "$defs" ]] && args+=(--toolset none --functions "$defs")
    start_toolwright "$log" "${args[@]}"
  elif [[ $server == rmcp ]]; then
    start_rust "$log" "$FLOOR" --http 127.0.0.1:0 "${args[@]}"
  else
    start_fastmcp "$log" "$extra" "$pairing"
  fi
}

stop() { kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

ARGS='{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}'
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"

# run_calls SERVER PAIRING ROUND: one server, tools/call at 1 and 16 clients, then its RSS.
run_calls() {
  local server=$1 pairing=$2 round=$3 c req idle_rss
  start "$server" "$pairing" "$server-$pairing-serve-$round" 0
  idle_rss=$(rss_kb "$PID")
  for c in 1 16; do
    if [[ $server == fastmcp ]]; then
      req=$FASTMCP_REQ_C1; [[ $c == 16 ]] && req=$FASTMCP_REQ_C16
    else
      req=$REQ_C1; [[ $c == 16 ]] && req=$REQ_C16
    fi
    echo "== $server ($pairing, round $round): tools/call convert_currency, $c client(s), $req requests" >&2
    "$LOAD" --url "$URL" --tool convert_currency --args "$ARGS" --concurrency "$c" --requests "$req" \
      --warmup 20 --max-seconds "$MAX_SECONDS" --label "$server-$pairing" \
      --server-pid "$PID" --clk-tck "$CLK_TCK" \
      | sed "s/}\$/, \"round\": $round}/" | tee -a "$RESULTS" >&2
  done
  echo "{\"label\":\"$server-$pairing\",\"mode\":\"rss\",\"round\":$round,\"idle_rss_kb\":$idle_rss,\"after_load_rss_kb\":$(rss_kb "$PID"),\"peak_rss_kb\":$(hwm_kb "$PID")}" | tee -a "$RESULTS" >&2
  stop "$PID"
}

echo "== load average before the tools/call runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "{\"mode\":\"loadavg\",\"label\":\"before\",\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" >> "$RESULTS"
for pairing in $PAIRINGS; do
  for round in $(seq 1 "$ROUNDS"); do
    # Alternate the order of the Rust servers so a drift in the machine's load hits both.
    order="rmcp toolwright"; (( round % 2 == 0 )) && order="toolwright rmcp"
    for server in $order; do
      [[ " $SERVERS " == *" $server "* ]] && run_calls "$server" "$pairing" "$round"
    done
  done
  [[ " $SERVERS " == *" fastmcp "* ]] && run_calls fastmcp "$pairing" 1
done
echo "{\"mode\":\"loadavg\",\"label\":\"after\",\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" >> "$RESULTS"
echo "== load average after the tools/call runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [[ "${SKIP_LIST:-0}" != 1 ]]; then
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
    [[ " $SERVERS " == *" $server "* ]] || continue
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
fi

"$PY" - "$RESULTS" "$PAIRINGS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pairings = sys.argv[2].split()
nan = float("nan")
SERVERS = ("rmcp", "toolwright", "fastmcp")
def get(label, mode, conc=None):
    for r in rows:
        if r["label"] == label and r["mode"] == mode and (conc is None or r.get("concurrency") == conc):
            return r
    return {}
def runs(label, conc):
    return [r for r in rows if r["label"] == label and r["mode"] == "call" and r.get("concurrency") == conc]
def med(rs, key):
    vals = [r[key] for r in rs if r.get(key) is not None]
    return statistics.median(vals) if vals else nan
def num(v):
    return nan if v is None else v
def by_round(rs):
    return {r.get("round", 1): r for r in rs}
load = {r["label"]: r["loadavg"] for r in rows if r.get("mode") == "loadavg"}
print()
print("tools/call convert_currency over Streamable HTTP (loopback; one MCP session per client)")
print("  default:   sessions + SSE answers   (toolwright `serve --http`, rmcp floor, FastMCP defaults)")
print("  stateless: no sessions, JSON answers (toolwright and rmcp floor `--stateless --json-response`,")
print("             FastMCP stateless_http + json_response)")
print("  rmcp = bare rmcp #[tool] server (serde only: no validation, no policies, no envelope)")
print(f"  load average before / after: {load.get('before', '?')} / {load.get('after', '?')}")
print("  figures: median over the runs; req/s range = min-max over the runs")
print(f"{'pairing':<10} {'clients':>7}  {'server':<11} {'runs':>4} {'req/s':>9} {'(range)':>17} {'p50 ms':>8} {'p99 ms':>8} {'CPU us/call':>11} {'errors':>6}")
for p in pairings:
    for c in (1, 16):
        for s in SERVERS:
            rs = runs(f"{s}-{p}", c)
            if not rs:
                continue
            lo, hi = min(r["rps"] for r in rs), max(r["rps"] for r in rs)
            rng = f"({lo:.0f}-{hi:.0f})" if len(rs) > 1 else ""
            errs = sum(r.get("errors", 0) for r in rs)
            print(f"{p:<10} {c:>7}  {s:<11} {len(rs):>4} {med(rs, 'rps'):>9.1f} {rng:>17} {med(rs, 'p50_ms'):>8.3f} {med(rs, 'p99_ms'):>8.2f} {med(rs, 'server_cpu_us_per_req'):>11.1f} {errs:>6}")
        t, r, f = runs(f"toolwright-{p}", c), runs(f"rmcp-{p}", c), runs(f"fastmcp-{p}", c)
        if t and r:
            # Per round: toolwright and rmcp ran back to back, so their ratio is the robust figure.
            tr, rr = by_round(t), by_round(r)
            pairs = [(tr[k], rr[k]) for k in sorted(tr) if k in rr]
            rps = [a["rps"] / b["rps"] for a, b in pairs if b.get("rps")]
            cpu = [a["server_cpu_us_per_req"] / b["server_cpu_us_per_req"] for a, b in pairs
                   if a.get("server_cpu_us_per_req") and b.get("server_cpu_us_per_req")]
            def show(v):
                return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "n/a"
            ok_rps = "yes" if rps and statistics.median(rps) >= 0.9 else "no"
            ok_cpu = "yes" if cpu and statistics.median(cpu) <= 1.2 else "no"
            print(f"{'':<10} {'':>7}  toolwright/rmcp per round: req/s {show(rps)}, CPU/call {show(cpu)}"
                  f"  [goal req/s >= 0.90: {ok_rps}; CPU <= 1.20: {ok_cpu}]")
        if t and f:
            tm, fm = med(t, "rps"), med(f, "rps")
            cpu = ""
            tc, fc = med(t, "server_cpu_us_per_req"), med(f, "server_cpu_us_per_req")
            if tc == tc and fc == fc and tc:
                cpu = f", CPU/call {fc / tc:.1f}x less"
            print(f"{'':<10} {'':>7}  toolwright/fastmcp: {tm / fm:.1f}x req/s, p50 {med(f, 'p50_ms') / med(t, 'p50_ms'):.1f}x lower, p99 {med(f, 'p99_ms') / med(t, 'p99_ms'):.1f}x lower{cpu}")
# Cross pairing: toolwright's default against FastMCP's fastest.
if "default" in pairings and "stateless" in pairings:
    for c in (1, 16):
        t, f = runs("toolwright-default", c), runs("fastmcp-stateless", c)
        if t and f:
            print(f"cross      {c:>7}  toolwright default / FastMCP stateless+json: {med(t, 'rps') / med(f, 'rps'):.1f}x req/s")
print()
print("server RSS (MiB), tools/call runs (first run of each)")
for p in pairings:
    for s in SERVERS:
        r = get(f"{s}-{p}", "rss")
        if not r:
            continue
        print(f"  {p:<10} {s:<11} idle {r.get('idle_rss_kb', 0) / 1024:7.1f}   after load {r.get('after_load_rss_kb', 0) / 1024:7.1f}   peak {r.get('peak_rss_kb', 0) / 1024:7.1f}")
if any(r["label"].endswith("1000-tools") for r in rows):
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
