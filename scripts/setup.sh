#!/usr/bin/env bash
# Installs what building and testing toolwright needs on a fresh Debian machine (idempotent, quick when done):
# cmake/clang/libclang for llama.cpp, redis-server for the idempotency tests, sqlite3 for inspection,
# chromium + chromium-driver for the `toolwright ui` browser test, haproxy for scripts/replicas.sh.
set -euo pipefail
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v clang >/dev/null 2>&1 || need+=(clang)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
# Headless Chromium and its WebDriver for the `toolwright ui` browser test (crates/toolwright-cli/tests/ui_browser.rs).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
# Test certificates for Redis over TLS (crates/toolwright-runtime/tests/stores.rs).
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# The load balancer in front of the replicas (scripts/replicas.sh).
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
# Reads `cargo metadata` in scripts/features.sh.
command -v jq >/dev/null 2>&1 || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# A running redis-server from the package would hold port 6379; tests start their own on random ports.

# The dependency checks of scripts/test.sh, from crates.io, pinned and built with their own
# Cargo.lock (`--locked`), only when missing: they stay in ~/.cargo/bin between runs.
install_tool() {
  local bin="$1" crate="$2" version="$3"
  if ! "$bin" --version 2>/dev/null | grep -qF "$version"; then
    echo "setup: cargo install --locked $crate@$version" >&2
    cargo install --locked --quiet "$crate@$version"
  fi
}
install_tool cargo-machete cargo-machete "0.9.2"
install_tool cargo-deny cargo-deny "0.20.2"
