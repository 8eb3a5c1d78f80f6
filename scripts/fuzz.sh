#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/, see fuzz/README.md) briefly on its committed seed corpus:
# a regression check for CI, not a fuzzing campaign. Fails on any crash, panic, hang or leak.
#
#   FUZZ_SECONDS       seconds per target (default 30)
#   FUZZ_TARGET_DIR    build cache (default ~/.cache/toolwright-fuzz-target; nightly cannot share
#                      the stable target dir)
#   FUZZ_TARGETS       space-separated subset of targets (default: all)
#
# Needs the nightly toolchain (cargo-fuzz uses -Zsanitizer flags); installs cargo-fuzz from
# crates.io when it is missing. New inputs go to a scratch directory, never into fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$HOME/.cache/toolwright-fuzz-target}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is not installed; cargo-fuzz needs it." >&2
  echo "fuzz: install it with 'rustup toolchain install nightly --profile minimal'." >&2
  exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo +nightly install cargo-fuzz --locked
fi

cd fuzz
# Release build with debug assertions and overflow checks (cargo-fuzz's default), no sanitizer:
# toolwright denies unsafe code, and without ASan each target runs about twice as fast.
cargo +nightly fuzz build -s none
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in $targets; do
  echo "== fuzz $t (${seconds}s)"
  mkdir -p "$scratch/$t" "$scratch/artifacts/$t"
  if ! cargo +nightly fuzz run -s none "$t" "$scratch/$t" "corpus/$t" -- \
      -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$t/" 2>"$scratch/$t.log"; then
    tail -n 60 "$scratch/$t.log" >&2
    for a in "$scratch/artifacts/$t"/*; do
      [ -e "$a" ] || continue
      mkdir -p artifacts/"$t"
      cp "$a" artifacts/"$t"/
      echo "fuzz: $t crashed; input kept in fuzz/artifacts/$t/$(basename "$a")" >&2
    done
    failed+=("$t")
    continue
  fi
  grep -E 'DONE +cov|^stat::number_of_executed_units|^stat::average_exec_per_sec' "$scratch/$t.log" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all targets ran clean"
