#!/usr/bin/env bash
# Replicas behind a real load balancer, on loopback: Redis, three `toolwright serve --http
# --stateless` replicas sharing it, and HAProxy (Debian package) in front, driven by 64
# concurrent MCP clients (crates/toolwright-mcp/examples/replicas_check.rs). Checks, in order:
#
#   idem      one idempotency key through every replica at once: the side effect happens once
#   approval  asked through replica 1, granted through replica 2, run through replica 3, once
#   rate      a catalog rate limit of RATE/s holds across the three within 10%
#   kill      a replica SIGKILLed mid-load: clients that retry get answers from the others,
#             no key's effect happens twice, every key answered `success` has its effect
#   outage    Redis stopped for 5 s: calls answer DEPENDENCY_UNAVAILABLE (nothing runs for them),
#             /readyz turns 503, no replica dies, and service resumes by itself
#
# then prints req/s and p50/p99 for 1 and 3 replicas with the memory, SQLite and Redis stores,
# and the Redis round trips per call. Side effects are counted in the demo's views database
# (track_article_view) with sqlite3. Run by scripts/test.sh; needs redis-server, haproxy,
# sqlite3 and curl (scripts/setup.sh installs them).
#
# Env: CLIENTS (64), CALLS (20 per client), RATE (20), OUT (a temp dir: logs and JSON lines)
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS="${CLIENTS:-64}"
CALLS="${CALLS:-20}"
RATE="${RATE:-20}"
WORK="${OUT:-$(mktemp -d /tmp/toolwright-replicas.XXXXXX)}"
mkdir -p "$WORK"
TARGET="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
fail() { echo "replicas: FAIL: $*" >&2; exit 1; }
for tool in redis-server redis-cli haproxy sqlite3 curl; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/setup.sh installs it)"
done

echo "== replicas: building the release binaries (lean CLI, driver)"
# Lean (no llama.cpp), with the stores and the demo's SQLite tools the replicas share.
cargo build -q --release -p toolwright-cli --no-default-features --features redis,sqlite
cargo build -q --release -p toolwright-mcp --features http-client --example replicas_check
cp "$TARGET/release/toolwright" "$WORK/toolwright"
cp "$TARGET/release/examples/replicas_check" "$WORK/replicas_check"
TW="$WORK/toolwright"
DRIVE="$WORK/replicas_check"

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

# ---- Redis
REDIS_PORT="$(free_port)"
start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
    >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  fail "redis-server did not start"
}
start_redis
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"

# ---- Policies: the demo catalog with a rate limit on calculate.
"$TW" catalog export >"$WORK/catalog.yaml"
awk -v rate="$RATE" '{print} /^- name: calculate$/ {print "  rate_limit: {calls: " rate ", period_ms: 1000, burst: 2}"}' \
  "$WORK/catalog.yaml" >"$WORK/policies.yaml"
grep -q "rate_limit" "$WORK/policies.yaml" || fail "could not add the rate limit to the catalog"
mkdir -p "$WORK/root"

# ---- Replicas
declare -a REPLICA_PID REPLICA_URL
start_replica() { # index store views-db
  local i="$1" store="$2" views="$3" log="$WORK/replica$1.log"
  TOOLWRIGHT_VIEWS_DB="$views" TOOLWRIGHT_HOME="$WORK/home$i" \
    "$TW" serve --http 127.0.0.1:0 --stateless --json-response --store "$store" \
    --token client-secret --admin-token admin-secret --catalog "$WORK/policies.yaml" \
    --root "$WORK/root" --drain-secs 2 >/dev/null 2>"$log" &
  REPLICA_PID[$i]=$!
  PIDS+=("$!")
  local url=""
  for _ in $(seq 300); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -1 || true)"
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || fail "replica $i did not start: $(cat "$log")"
  REPLICA_URL[$i]="${url%/mcp}"
}
stop_replicas() {
  for i in "${!REPLICA_PID[@]}"; do kill "${REPLICA_PID[$i]}" 2>/dev/null || true; done
  for i in "${!REPLICA_PID[@]}"; do wait "${REPLICA_PID[$i]}" 2>/dev/null || true; done
  REPLICA_PID=(); REPLICA_URL=()
}

# ---- HAProxy: round robin per request, health checks on /readyz, connection failures
# redispatched to another replica.
LB_PORT="$(free_port)"
start_lb() {
  {
    echo "global"
    echo "  maxconn 4096"
    echo "defaults"
    echo "  mode http"
    echo "  timeout connect 2s"
    echo "  timeout client 60s"
    echo "  timeout server 60s"
    echo "  retries 3"
    echo "  option redispatch 1"
    echo "frontend mcp"
    echo "  bind 127.0.0.1:$LB_PORT"
    echo "  default_backend replicas"
    echo "backend replicas"
    echo "  balance roundrobin"
    echo "  option httpchk GET /readyz"
    echo "  default-server inter 500ms fall 2 rise 1"
    for i in "${!REPLICA_URL[@]}"; do
      echo "  server r$i ${REPLICA_URL[$i]#http://} check"
    done
  } >"$WORK/haproxy.cfg"
  haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
  LB_PID=$!
  PIDS+=("$LB_PID")
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$LB_PORT/healthz" 2>/dev/null && return
    sleep 0.1
  done
  fail "haproxy did not start: $(cat "$WORK/haproxy.log")"
}
stop_lb() { kill "$LB_PID" 2>/dev/null || true; wait "$LB_PID" 2>/dev/null || true; }
LB="http://127.0.0.1:$LB_PORT"

drive() { # scenario args… ; prints and keeps the JSON line
  local line
  line="$("$DRIVE" "$@" --lb "$LB" --token client-secret --admin-token admin-secret)" \
    || { echo "$line"; fail "scenario $1 failed"; }
  echo "$line" | tee -a "$WORK/results.jsonl"
}

rows() { # views-db sql
  sqlite3 "$1" "$2"
}

# Counts, for the keys in FILE, those with exactly one row / none / more than one.
check_keys() { # views-db keys-file tag
  local db="$1" keys="$2"
  rows "$db" "CREATE TABLE IF NOT EXISTS k(key TEXT);"
  rows "$db" "DELETE FROM k;"
  sqlite3 "$db" ".import $keys k"
  local missing dup
  missing="$(rows "$db" "SELECT count(*) FROM k WHERE key <> '' AND key NOT IN (SELECT idempotency_key FROM views);")"
  dup="$(rows "$db" "SELECT count(*) FROM (SELECT idempotency_key FROM views WHERE idempotency_key LIKE '$3-%' GROUP BY 1 HAVING count(*) > 1);")"
  echo "$missing $dup"
}

VIEWS="$WORK/views.db"
for i in 1 2 3; do start_replica "$i" "$REDIS_URL" "$VIEWS"; done
start_lb
echo "== replicas: ${REPLICA_URL[*]} behind $LB, Redis on $REDIS_PORT"

echo "== idem: $CLIENTS clients, one key, through the balancer"
drive idem --clients "$CLIENTS" --tag idem >/dev/null
n="$(rows "$VIEWS" "SELECT count(*) FROM views WHERE idempotency_key = 'idem-same';")"
[ "$n" = 1 ] || fail "idem: the side effect happened $n times"
tail -1 "$WORK/results.jsonl"

echo "== approval: asked via replica 1, granted via replica 2, run via replica 3"
touch "$WORK/root/approval-approve-me.txt"
drive approval --tag approval --replica "${REPLICA_URL[1]}" --replica "${REPLICA_URL[2]}" \
  --replica "${REPLICA_URL[3]}" >/dev/null
[ ! -e "$WORK/root/approval-approve-me.txt" ] || fail "approval: the file is still there"
tail -1 "$WORK/results.jsonl"

echo "== rate: $RATE/s across three replicas, $CLIENTS clients"
drive rate --clients "$CLIENTS" --seconds 5 --rate "$RATE" >/dev/null
tail -1 "$WORK/results.jsonl"

echo "== kill: replica 2 SIGKILLed mid-load; clients retry with the same keys"
# Five times the calls of the other runs; the driver SIGKILLs replica 2 once a third of them
# have been answered, so the kill lands inside the load however fast the machine is.
total=$((CLIENTS * CALLS * 5))
drive load --clients "$CLIENTS" --calls $((CALLS * 5)) --tag kill --keys-out "$WORK/kill.keys" \
  --kill-pid "${REPLICA_PID[2]}" --kill-after $((total / 3)) >/dev/null
read -r missing dup < <(check_keys "$VIEWS" "$WORK/kill.keys" kill)
[ "$missing" = 0 ] || fail "kill: $missing keys were answered success without their effect"
[ "$dup" = 0 ] || fail "kill: $dup keys had their effect twice"
tail -1 "$WORK/results.jsonl"
start_replica 2 "$REDIS_URL" "$VIEWS"
stop_lb; start_lb

echo "== outage: Redis stopped for 5 s under load"
(
  sleep 3
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || kill "$REDIS_PID"
  sleep 1
  curl -s "${REPLICA_URL[1]}/readyz" >"$WORK/readyz-during-outage.json" || true
  curl -s -H 'Authorization: Bearer client-secret' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"track_article_view","arguments":{"article_id":1,"session_id":"x","idempotency_key":"outage-direct"}}}' \
    "${REPLICA_URL[1]}/mcp" >"$WORK/call-during-outage.json" || true
  sleep 4
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
    >>"$WORK/redis.log" 2>&1 &
  echo $! >"$WORK/redis2.pid"
) &
OUTAGE=$!
drive outage --clients "$CLIENTS" --seconds 14 --tag outage --keys-out "$WORK/outage.keys" >/dev/null
wait "$OUTAGE"
PIDS+=("$(cat "$WORK/redis2.pid")")
grep -q '"ready":false' "$WORK/readyz-during-outage.json" \
  || fail "outage: /readyz did not say not ready: $(cat "$WORK/readyz-during-outage.json")"
grep -q 'DEPENDENCY_UNAVAILABLE' "$WORK/call-during-outage.json" \
  || fail "outage: a direct call did not answer DEPENDENCY_UNAVAILABLE: $(cat "$WORK/call-during-outage.json")"
read -r missing dup < <(check_keys "$VIEWS" "$WORK/outage.keys" outage)
[ "$missing" = 0 ] && [ "$dup" = 0 ] || fail "outage: missing=$missing duplicated=$dup"
read -r ran _ < <(check_keys "$VIEWS" "$WORK/outage.keys.unavailable" outage)
total_unavailable="$(grep -c . "$WORK/outage.keys.unavailable" || true)"
[ "$ran" = "$total_unavailable" ] \
  || fail "outage: $((total_unavailable - ran)) calls answered DEPENDENCY_UNAVAILABLE but ran"
for i in 1 2 3; do
  kill -0 "${REPLICA_PID[$i]}" 2>/dev/null || fail "outage: replica $i died"
done
tail -1 "$WORK/results.jsonl"
stop_lb; stop_replicas

echo "== throughput: $CLIENTS clients x $CALLS track_article_view calls, through HAProxy"
perf() { # label replicas store
  local label="$1" n="$2" store="$3" views="$WORK/views-$1.db"
  for i in $(seq "$n"); do start_replica "$i" "$store" "$views"; done
  start_lb
  drive load --clients "$CLIENTS" --calls "$CALLS" --tag "perf-$label" >/dev/null
  local line; line="$(tail -1 "$WORK/results.jsonl")"
  field() { grep -o "\"$1\":[0-9.]*" <<<"$line" | head -1 | cut -d: -f2; }
  printf '%-20s req/s %8.1f   p50 %7.1f ms   p99 %7.1f ms   codes %s\n' "$label" \
    "$(field req_per_s)" "$(field p50_ms)" "$(field p99_ms)" "$(grep -o '"codes":{[^}]*}' <<<"$line")"
  stop_lb; stop_replicas
}
perf "1 replica, memory" 1 memory
perf "1 replica, sqlite" 1 "sqlite:$WORK/store-1.db"
perf "1 replica, redis" 1 "$REDIS_URL"
perf "3 replicas, sqlite" 3 "sqlite:$WORK/store-3.db"
perf "3 replicas, redis" 3 "$REDIS_URL"

echo "== store round trips per call (Redis, one replica, counted by the replica's /metrics)"
start_replica 1 "$REDIS_URL" "$WORK/views-rt.db"
LB="${REPLICA_URL[1]}" drive load --clients 1 --calls 200 --tag rt >/dev/null
trips="$(curl -fsS -H 'Authorization: Bearer admin-secret' "${REPLICA_URL[1]}/metrics" \
  | awk '/^toolwright_store_duration_seconds_count/ && !/op="(ping|approvals)"/ {n += $NF} END {print n + 0}')"
echo "store round trips per keyed call: $(awk -v t="$trips" 'BEGIN {printf "%.2f", t / 200}') ($trips for 200 calls)"
[ "$trips" -le 400 ] || fail "more than 2 store round trips per call on the success path"
stop_replicas
echo "== replicas: all checks passed (logs and JSON lines in $WORK)"
