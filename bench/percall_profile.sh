#!/usr/bin/env bash
# What one call costs beyond its instructions: lock-prefixed (atomic) instructions, memcpy
# calls and bytes, heap allocations per call, on each per-call path of the `percall` example
# (crates/toolwright-bench/examples/percall.rs), counted by valgrind (callgrind) so that the
# machine's load does not move them. Each path runs twice, N1 and N2 calls, and the difference
# is divided by N2 - N1, so start-up cancels (bench/percall_profile.py does the counting).
#
#   bench/percall_profile.sh                 # bare and runtime, small workload
#   PATHS="bare minimal runtime" SIZE=medium bench/percall_profile.sh
#
# Env: N1 (default 200), N2 (default 1200), PATHS (default "bare runtime"), SIZE (small |
# medium | large, default small), OUT (default: a temp dir, where the callgrind files stay).
# Needs valgrind and objdump (apt: valgrind binutils).
set -euo pipefail
cd "$(dirname "$0")/.."
N1="${N1:-200}"
N2="${N2:-1200}"
PATHS="${PATHS:-bare runtime}"
SIZE="${SIZE:-small}"
OUT="${OUT:-$(mktemp -d /tmp/toolwright-percall-profile.XXXXXX)}"
mkdir -p "$OUT"
for tool in valgrind objdump python3; do
  command -v "$tool" > /dev/null || { echo "$tool is needed" >&2; exit 1; }
done
(( N2 > N1 )) || { echo "N2 must be larger than N1" >&2; exit 1; }
echo "== building (release): percall" >&2
cargo build -q --release -p toolwright-bench --example percall
TARGET="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
BIN="$TARGET/release/examples/percall"
for path in $PATHS; do
  for n in "$N1" "$N2"; do
    valgrind --tool=callgrind --dump-instr=yes --dump-line=no \
      --callgrind-out-file="$OUT/cg.$path.$SIZE.$n" "$BIN" "$path" "$SIZE" "$n" > /dev/null 2>&1
  done
  echo "## $path ($SIZE)"
  python3 bench/percall_profile.py "$BIN" "$OUT/cg.$path.$SIZE.$N1" "$OUT/cg.$path.$SIZE.$N2" "$N1" "$N2"
done
echo "callgrind files: $OUT"
