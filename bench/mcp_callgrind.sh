#!/usr/bin/env bash
# Instructions per MCP `tools/call`, counted by valgrind (callgrind): a measure that does not
# depend on the machine's load, for comparing toolwright's serving with the rmcp floor
# (crates/toolwright-mcp/examples/rmcp_floor.rs) and one build with another.
#
# Each server runs under `valgrind --tool=callgrind` twice, answering N1 and then N2 sequential
# `tools/call convert_currency` requests from one client (after the same start-up, session and
# 20 warm-up calls), and exits; the instructions per call are
#   (instructions of the N2 run - instructions of the N1 run) / (N2 - N1)
# so start-up and shutdown cancel. Only the server runs under valgrind (the client runs natively
# and is not counted). Transports:
#   http       Streamable HTTP with sessions and SSE answers (toolwright `serve --http`, the floor
#              `--http`), driven by crates/toolwright-mcp/examples/mcp_load.rs
#   stateless  `--stateless --json-response` on both
#   stdio      `serve --stdio` / the floor's `--stdio`, newline-delimited JSON-RPC over pipes
#              (driven by a small Python client below)
#
# Env: N1 (default 1000), N2 (default 3000); SERVERS (default "rmcp toolwright");
#      MODES (default "http stateless stdio"); OUT (default: a temp dir; the callgrind files of
#      both runs stay there for callgrind_annotate); TW_BIN / RMCP_FLOOR_BIN / MCP_LOAD_BIN
#      (prebuilt binaries; e.g. TW_BIN=/tmp/old/toolwright to measure another build); LABEL
#      (the name printed for the toolwright binary, default "toolwright").
# Prints one JSON line per server and transport, then a table.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
N1="${N1:-1000}"
N2="${N2:-3000}"
SERVERS="${SERVERS:-rmcp toolwright}"
MODES="${MODES:-http stateless stdio}"
LABEL="${LABEL:-toolwright}"
OUT="${OUT:-$(mktemp -d /tmp/toolwright-mcp-callgrind.XXXXXX)}"
mkdir -p "$OUT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
command -v valgrind > /dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
(( N2 > N1 )) || { echo "N2 must be larger than N1" >&2; exit 1; }

if [[ -z "${TW_BIN:-}" || -z "${RMCP_FLOOR_BIN:-}" || -z "${MCP_LOAD_BIN:-}" ]]; then
  echo "== building (release): toolwright, mcp_load, rmcp_floor" >&2
  cargo build -q --release -p toolwright-cli
  cargo build -q --release -p toolwright-mcp --features http-client,http-server \
    --example mcp_load --example rmcp_floor
fi
TW="${TW_BIN:-$TARGET/release/toolwright}"
FLOOR="${RMCP_FLOOR_BIN:-$TARGET/release/examples/rmcp_floor}"
LOAD="${MCP_LOAD_BIN:-$TARGET/release/examples/mcp_load}"
export TOOLWRIGHT_STATS_FILE="$OUT/stats.json"

PID=""
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null || true; }
trap cleanup EXIT

# server_cmd SERVER MODE : the server's command line
server_cmd() {
  local bin args=()
  if [[ $1 == toolwright ]]; then bin=("$TW" serve); else bin=("$FLOOR"); fi
  case $2 in
    http) args=(--http 127.0.0.1:0) ;;
    stateless) args=(--http 127.0.0.1:0 --stateless --json-response) ;;
    stdio) args=(--stdio) ;;
  esac
  echo "${bin[@]}" "${args[@]}"
}

# The total instructions of a callgrind output file.
total_ir() { awk '/^(summary|totals):/{print $2; exit}' "$1"; }

VG=(valgrind --tool=callgrind --dump-instr=no --collect-jumps=no)

# run_http SERVER MODE N : serves N calls over HTTP under callgrind; prints the total.
run_http() {
  local server=$1 mode=$2 n=$3 file="$OUT/$1-$2-$3.callgrind" log="$OUT/$1-$2-$3.log" url=""
  # shellcheck disable=SC2046
  "${VG[@]}" --callgrind-out-file="$file" $(server_cmd "$server" "$mode") 2> "$log" &
  PID=$!
  for _ in $(seq 1 1200); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n1 || true)"
    [[ -n "$url" ]] && break
    sleep 0.1
  done
  [[ -n "$url" ]] || { echo "$server did not start" >&2; cat "$log" >&2; exit 1; }
  local res
  res="$("$LOAD" --url "$url" --concurrency 1 --requests "$n" --warmup 20 --max-seconds 3600 \
    --label "$server-$mode")"
  kill -INT "$PID"; wait "$PID" || true; PID=""
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); n=int(sys.argv[2])
if r["requests"] != n or r["errors"]: sys.exit(f"incomplete run: {r}")' "$res" "$n"
  total_ir "$file"
}

# run_stdio SERVER N : serves N calls over stdio under callgrind; prints the total.
run_stdio() {
  local server=$1 n=$2 file="$OUT/$1-stdio-$2.callgrind"
  # shellcheck disable=SC2046
  python3 - "$n" "${VG[@]}" --callgrind-out-file="$file" $(server_cmd "$server" stdio) \
    2> "$OUT/$1-stdio-$2.log" <<'EOF'
import json, subprocess, sys
n, cmd = int(sys.argv[1]), sys.argv[2:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode())
def answer(i):
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the server closed stdout")
        m = json.loads(line)
        if m.get("id") == i:
            return m
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "mcp_callgrind", "version": "1"}}})
answer(0)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
args = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
for i in range(1, n + 21):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
          "params": {"name": "convert_currency", "arguments": args}})
    m = answer(i)
    if "result" not in m or m["result"].get("isError"):
        sys.exit(f"call {i} failed: {m}")
p.stdin.close()
sys.exit(p.wait(timeout=600))
EOF
  total_ir "$file"
}

measure() {
  local server=$1 mode=$2 a b
  if [[ $mode == stdio ]]; then
    a=$(run_stdio "$server" "$N1"); b=$(run_stdio "$server" "$N2")
  else
    a=$(run_http "$server" "$mode" "$N1"); b=$(run_http "$server" "$mode" "$N2")
  fi
  local name=$server
  [[ $server == toolwright ]] && name=$LABEL
  echo "{\"server\":\"$name\",\"mode\":\"$mode\",\"n1\":$N1,\"ir1\":$a,\"n2\":$N2,\"ir2\":$b,\"ir_per_call\":$(( (b - a) / (N2 - N1) ))}" \
    | tee -a "$OUT/results.jsonl"

}

: > "$OUT/results.jsonl"
for mode in $MODES; do
  for server in $SERVERS; do
    echo "== $server, $mode: $N1 and $N2 calls under callgrind" >&2
    measure "$server" "$mode"
  done
done
python3 - "$OUT/results.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
floor = {r["mode"]: r["ir_per_call"] for r in rows if r["server"] == "rmcp"}
print("\n| transport | server | instructions per call | × rmcp floor |")
print("|---|---|---|---|")
for r in rows:
    f = floor.get(r["mode"])
    ratio = f"{r['ir_per_call'] / f:.2f}" if f else "—"
    print(f"| {r['mode']} | {r['server']} | {r['ir_per_call']:,} | {ratio} |")
EOF
echo "callgrind files: $OUT" >&2
