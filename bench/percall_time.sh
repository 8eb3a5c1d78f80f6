#!/usr/bin/env bash
# Wall time per call of the `percall` example (crates/toolwright-bench/examples/percall.rs), timed
# whole: N calls a run, pinned to one core with taskset, the paths interleaved round by round,
# the minimum of ROUNDS runs kept (load only ever adds time). The noisy-machine companion of the
# criterion `overhead` bench: it prints the runtime's ratio to the bare serde path measured in
# the same rounds, and compares builds side by side.
#
#   bench/percall_time.sh                      # this checkout: bare and runtime, small and medium
#   bench/percall_time.sh OLD_BIN NEW_BIN      # two builds of the example (bare from the first)
#
# Env: N (calls per run, default 1000000; medium runs N/4), ROUNDS (default 9), SIZES (default
# "small medium"), CPU (the core to pin to, default the last one). Needs taskset (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-1000000}"
ROUNDS="${ROUNDS:-9}"
SIZES="${SIZES:-small medium}"
CPU="${CPU:-$(( $(nproc) - 1 ))}"
command -v taskset > /dev/null || { echo "taskset is needed (apt: util-linux)" >&2; exit 1; }
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  echo "== building (release): percall" >&2
  cargo build -q --release -p toolwright-bench --example percall
  TARGET="$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  BINS=("$TARGET/release/examples/percall")
fi
for b in "${BINS[@]}"; do [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 1; }; done
# ns per call of one run of `percall PATH SIZE CALLS` with binary BIN.
run() {
  local bin=$1 path=$2 size=$3 calls=$4 s e
  s=$(date +%s%N)
  taskset -c "$CPU" "$bin" "$path" "$size" "$calls" > /dev/null
  e=$(date +%s%N)
  echo $(( (e - s) / calls ))
}
echo "| size | bare ns | $(for i in "${!BINS[@]}"; do printf 'runtime #%d ns (× bare) | ' $((i + 1)); done)"
echo "|---|---|$(for _ in "${BINS[@]}"; do printf -- '---|'; done)"
for size in $SIZES; do
  calls=$N
  [ "$size" = small ] || calls=$(( N / 4 ))
  declare -A best=()
  for _ in $(seq "$ROUNDS"); do
    t=$(run "${BINS[0]}" bare "$size" "$calls")
    (( ${best[bare]:-999999999} > t )) && best[bare]=$t
    for i in "${!BINS[@]}"; do
      t=$(run "${BINS[$i]}" runtime "$size" "$calls")
      (( ${best[$i]:-999999999} > t )) && best[$i]=$t
    done
  done
  row="| $size | ${best[bare]} | "
  for i in "${!BINS[@]}"; do
    row+="${best[$i]} ($(python3 -c "print(f'{${best[$i]}/${best[bare]}:.2f}')")×) | "
  done
  echo "$row"
  unset best
done
