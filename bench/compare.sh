#!/usr/bin/env bash
# Runs toolwright's benchmarks and the Python peers on the same workloads, on this machine, and
# prints one table (Markdown). Installs what it needs: the peers go into a throwaway venv from
# PyPI (removed at the end unless KEEP_VENV=1); /usr/bin/time comes from apt when missing.
#
#   bench/compare.sh            # everything (about 10-15 minutes on a fresh 2-core machine)
#   QUICK=1 bench/compare.sh    # shorter criterion runs
#   ROUNDS=3 bench/compare.sh   # per-call rounds (default 2), see below
#
# Outputs (besides the table on stdout) go to $BENCH_OUT (default target/bench-compare):
# peers.json (with peers-N.json per round), extras.json, table.json, and criterion's own reports
# under target/criterion-roundN (per-call, one per round) and target/criterion-routing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
OUT="${BENCH_OUT:-$TARGET_DIR/bench-compare}"
mkdir -p "$OUT"
log() { printf '[compare] %s\n' "$*" >&2; }
START=$(date +%s)

# --- tools -------------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing /usr/bin/time (apt)"
    (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || log "could not install time"
  fi
fi

# --- Python peers venv (in the background while Rust builds) -------------------------------------
VENV="${BENCH_VENV:-$OUT/venv}"
PIP_PKGS=(pydantic==2.14.4 langchain-core==1.8.3 pydantic-ai-slim==2.68.0 jsonschema==4.26.0
          rank-bm25==0.2.2 numpy)
(
  if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PIP_PKGS[@]}"
) >"$OUT/pip.log" 2>&1 &
PIP_PID=$!
# FastMCP for bench/mcp_compare.sh, in its own venv (the script reuses it when the version matches).
MCP_VENV=/tmp/toolwright-bench-venv
FASTMCP_VERSION="${FASTMCP_VERSION:-4.1.6}"
(
  if ! "$MCP_VENV/bin/python" -c "import fastmcp, sys; sys.exit(fastmcp.__version__ != '$FASTMCP_VERSION')" 2>/dev/null; then
    rm -rf "$MCP_VENV" && python3 -m venv "$MCP_VENV" \
      && "$MCP_VENV/bin/pip" install -q --disable-pip-version-check "fastmcp==$FASTMCP_VERSION"
  fi
) >"$OUT/pip-fastmcp.log" 2>&1 &
FASTMCP_PID=$!

# --- Rust builds ---------------------------------------------------------------------------------
# One cargo invocation builds every binary the run needs (the CLI, bench-data, model-bench with
# llama.cpp, the criterion benches, MCP's load generator and bare rmcp floor server) with one unified feature set, so no
# later step rebuilds a crate with other features. The benches are then run as plain executables.
# (Bench targets are named: `--benches` would also build every lib and bin as a bench harness.)
phase() { log "$1 ($(( $(date +%s) - START )) s so far)"; }
phase "building (release): toolwright CLI, toolwright-bench (benches, bench-data, model-bench), mcp_load, rmcp_floor"
BUILD_JSON="$OUT/build.jsonl"
cargo build --release --message-format=json-render-diagnostics \
  -p toolwright-cli -p toolwright-bench -p toolwright-mcp \
  --features toolwright-bench/model,toolwright-mcp/http-client,toolwright-mcp/http-server \
  --bins --bench overhead --bench routing --example mcp_load --example rmcp_floor >"$BUILD_JSON"
exe() { # target name → its executable from this build
  python3 - "$BUILD_JSON" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == sys.argv[2]:
        print(m["executable"])
        break
PY
}
TW="$(exe toolwright)"
OVERHEAD_BIN="$(exe overhead)"
ROUTING_BIN="$(exe routing)"
MODEL_BENCH_BIN="$(exe model-bench)"
export TW_BIN="$TW" MCP_LOAD_BIN="$(exe mcp_load)" RMCP_FLOOR_BIN="$(exe rmcp_floor)"
"$(exe bench-data)" "$OUT/data"
phase "builds done"

# --- per-call: criterion and the Python peers, interleaved ----------------------------------------
# The machine's load changes by the minute, so the per-call rows are measured in ROUNDS rounds,
# each running the criterion `overhead` bench and `peers.py` back to back, in alternating order
# (Rust first in odd rounds, Python first in even ones): load hits both sides alike. Each round
# keeps its own criterion directory and peers file; the table takes the median over the rounds
# on each side.
CRIT_ARGS=()
if [ "${QUICK:-0}" = 1 ]; then CRIT_ARGS=(--warm-up-time 0.2 --measurement-time 0.5); fi
ROUNDS="${ROUNDS:-2}"
phase "waiting for the peers' venv"
PEERS_OK=0
if wait "$PIP_PID"; then
  PEERS_OK=1
else
  log "pip install failed (see $OUT/pip.log); peer columns stay empty"
fi
rust_round() {
  phase "round $1/$ROUNDS: criterion per-call overhead and validation"
  CRITERION_HOME="$TARGET_DIR/criterion-round$1" "$OVERHEAD_BIN" --bench "${CRIT_ARGS[@]}" \
    >"$OUT/criterion-overhead-$1.txt" 2>&1 \
    || log "overhead bench failed (see $OUT/criterion-overhead-$1.txt)"
}
peers_round() {
  if [ "$PEERS_OK" = 1 ]; then
    phase "round $1/$ROUNDS: peers"
    "$VENV/bin/python" bench/peers.py "$OUT/data" "$OUT/peers-$1.json" || log "peers.py failed"
  fi
}
CRIT_DIRS=""
PEER_FILES=()
rm -f "$OUT/peers.json"
for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$TARGET_DIR/criterion-round$round" "$OUT/peers-$round.json"
  if [ $((round % 2)) = 1 ]; then rust_round "$round"; peers_round "$round"
  else peers_round "$round"; rust_round "$round"; fi
  CRIT_DIRS="$CRIT_DIRS$TARGET_DIR/criterion-round$round:"
  PEER_FILES+=("$OUT/peers-$round.json")
done
# One peers.json: every figure the median of its rounds.
python3 - "$OUT/peers.json" "${PEER_FILES[@]}" <<'PY'
import json, statistics, sys
runs = []
for p in sys.argv[2:]:
    try:
        runs.append(json.load(open(p)))
    except (OSError, ValueError):
        pass
def merge(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    if all(isinstance(v, dict) for v in vals):
        keys = dict.fromkeys(k for v in vals for k in v)
        return {k: merge([v.get(k) for v in vals]) for k in keys}
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return statistics.median(vals)
    return vals[0]
if runs:
    json.dump(merge(runs), open(sys.argv[1], "w"), indent=2)
PY
phase "criterion: routing"
rm -rf "$TARGET_DIR/criterion-routing"
CRITERION_HOME="$TARGET_DIR/criterion-routing" "$ROUTING_BIN" --bench "${CRIT_ARGS[@]}" >"$OUT/criterion-routing.txt" 2>&1 \
  || log "routing bench failed (see $OUT/criterion-routing.txt)"

# --- start-up and memory -------------------------------------------------------------------------
# Wall time: median of 21 runs; peak RSS: /usr/bin/time's maximum resident set size.
measure() { # name, command... → prints {"wall_s": median, "rss_kb": max}
  python3 - "$@" <<'PY'
import json, statistics, subprocess, sys, time, os
cmd = sys.argv[2:]
walls = []
for _ in range(21):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - t)
rss = None
if os.path.exists("/usr/bin/time"):
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    try:
        rss = int(r.stderr.strip().splitlines()[-1])
    except Exception:
        rss = None
print(json.dumps({"wall_s": statistics.median(walls), "rss_kb": rss}))
PY
}
phase "start-up and memory"
TOOLS_LIST=$(measure tools_list "$TW" tools list)
# `serve` start-up: spawn → the answer to `initialize` over stdio (median of 21), demo toolset.
SERVE_START=$(python3 - "$TW" <<'PY'
import json, statistics, subprocess, sys, time
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
walls = []
for _ in range(21):
    t = time.perf_counter()
    p = subprocess.Popen([sys.argv[1], "serve", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    p.stdin.write(json.dumps(init) + "\n"); p.stdin.flush()
    line = p.stdout.readline()
    walls.append(time.perf_counter() - t)
    p.kill(); p.wait()
    if '"result"' not in line:
        print(json.dumps({})); sys.exit(0)
print(json.dumps({"wall_s": statistics.median(walls)}))
PY
) || SERVE_START='{}'
PY_LC='{}'
PY_PAI='{}'
if [ -x "$VENV/bin/python" ]; then
  PY_LC=$(measure python_langchain "$VENV/bin/python" -c '
from langchain_core.tools import tool
@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
add.invoke({"a": 1, "b": 2})' || echo '{}')
  PY_PAI=$(measure python_pydantic_ai "$VENV/bin/python" -c '
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel
agent = Agent(TestModel())
@agent.tool_plain
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
agent.run_sync("add 1 and 2")' || echo '{}')
fi

# --- MCP (owned by the MCP work) ---------------------------------------------------------------------
MCP_OUT=""
if [ -x bench/mcp_compare.sh ] || [ -f bench/mcp_compare.sh ]; then
  phase "MCP: bench/mcp_compare.sh"
  wait "$FASTMCP_PID" || log "fastmcp install failed (see $OUT/pip-fastmcp.log); mcp_compare.sh retries it"
  MCP_OUT=$(env -u BENCH_VENV OUT="$OUT/mcp" timeout 1200 bash bench/mcp_compare.sh 2>"$OUT/mcp.log" || true)
fi
# `serve --stdio` with 1,000 tools: the peak RSS mcp_compare.sh measured (after initialize +
# tools/list).
SERVE_RSS=$(python3 - "$OUT/mcp/results.jsonl" <<'PY' || echo null
import json, sys
rss = None
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("label") == "toolwright-stdio-1000-tools":
            rss = r.get("peak_rss_kb")
except (OSError, ValueError):
    pass
print(json.dumps(rss))
PY
)
SERVE_NOTE="stdio, after initialize + tools/list (peak RSS, VmHWM; from mcp_compare.sh)"

# --- embedded model ------------------------------------------------------------------------------
# Prompt and generation tokens/s through toolwright's LocalProvider next to llama.cpp's own
# counters (same model, prompt, context, threads): crates/toolwright-bench/src/bin/model-bench.rs.
MODEL_JSON='{"note": "model-bench did not run (see model.log)"}'
phase "embedded model: fetch (if needed), run model-bench"
if "$TW" model fetch >"$OUT/model.log" 2>&1 && [ -n "$MODEL_BENCH_BIN" ]; then
  MODEL_JSON=$(timeout 900 "$MODEL_BENCH_BIN" --json 2>>"$OUT/model.log" || echo "$MODEL_JSON")
fi

python3 - "$OUT/extras.json" "$TOOLS_LIST" "$PY_LC" "$PY_PAI" "$SERVE_RSS" "$SERVE_NOTE" "$MCP_OUT" "$MODEL_JSON" "$SERVE_START" <<'PY'
import json, sys
out, tl, lc, pai, serve, serve_note, mcp, model, serve_start = sys.argv[1:]
tl, lc, pai = json.loads(tl), json.loads(lc or "{}"), json.loads(pai or "{}")
serve_start = json.loads(serve_start or "{}")
try:
    model = json.loads(model)
except Exception:
    model = {"note": model.strip()[:300]}
json.dump({
    "startup": {"tools_list": tl, "serve_stdio": serve_start, "python_langchain": lc,
                "python_pydantic_ai": pai},
    "memory": {"tools_list_rss_kb": tl.get("rss_kb"), "python_langchain_rss_kb": lc.get("rss_kb"),
               "serve_1000_rss_kb": json.loads(serve), "serve_note": serve_note},
    "mcp_output": mcp.strip(),
    "model": model,
}, open(out, "w"), indent=2)
PY

python3 bench/table.py "$CRIT_DIRS$TARGET_DIR/criterion-routing" "$OUT/peers.json" "$OUT/extras.json" "$OUT/table.json"
echo
echo "machine: $(nproc) cores, $(uname -sr); total time $(( $(date +%s) - START )) s"

if [ "${KEEP_VENV:-0}" != 1 ] && [ -z "${BENCH_VENV:-}" ]; then rm -rf "$VENV"; fi
