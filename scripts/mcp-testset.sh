#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp-test/servers/*.json and tools.json, the HELD-OUT
# test set's tool catalog (never used to choose or tune anything; the dev set is data/mcp,
# made by scripts/mcp-devset.sh). Installs the pinned MCP server packages (npm / PyPI) into
# a temporary directory, starts each one over stdio with dummy credentials, asks for its
# tools (scripts/mcp-list-tools.py) and writes the raw `tools/list` result. Not run by CI.
#
#   scripts/mcp-testset.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-testset.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-testset mcp-test
mkdir -p "$TMP/arxiv"
# No telemetry from servers that have it.
export DO_NOT_TRACK=1 MDB_MCP_TELEMETRY=disabled

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  mcp-server-kubernetes@4.1.7
  mongodb-mcp-server@3.0.4
  firecrawl-mcp@3.26.0
  airtable-mcp-server@1.14.0
  tavily-mcp@0.2.22
  @upstash/context7-mcp@4.1.1
  @modelcontextprotocol/server-everart@0.6.2
)
# PyPI: one venv each, since their `mcp` requirements may conflict; `mcp` pinned to the
# version they resolved to when the set was made (its FastMCP writes their schemas).
declare -A PYPI_PKGS=(
  [arxiv]="arxiv-mcp-server==0.8.2 mcp==1.30.0"
  [obsidian]="mcp-obsidian==0.2.3 mcp==1.30.0"
  [calculator]="mcp-server-calculator==0.2.1 mcp==1.30.0"
)

mcp_install mcp-testset

# ---- list each server ------------------------------------------------------------------
N="$TMP/npm/node_modules"

# No kubeconfig (HOME is the empty temp home): it lists its tools without a cluster.
list kubernetes node "$N/mcp-server-kubernetes/dist/index.js"
# No connection string: it lists `connect` and the tools that take a connectionId.
list mongodb node "$N/mongodb-mcp-server/dist/esm/index.js"
FIRECRAWL_API_KEY=fc-dummy list firecrawl node "$N/firecrawl-mcp/dist/index.js"
AIRTABLE_API_KEY=patdummy.dummy list airtable node "$N/airtable-mcp-server/dist/main.js"
TAVILY_API_KEY=tvly-dummy list tavily node "$N/tavily-mcp/build/index.js"
list context7 node "$N/@upstash/context7-mcp/dist/index.js"
EVERART_API_KEY=dummy list everart node "$N/@modelcontextprotocol/server-everart/dist/index.js"
list arxiv "$TMP/venv-arxiv/bin/arxiv-mcp-server" --storage-path "$TMP/arxiv"
OBSIDIAN_API_KEY=dummy OBSIDIAN_HOST=127.0.0.1 list obsidian "$TMP/venv-obsidian/bin/mcp-obsidian"
list calculator "$TMP/venv-calculator/bin/mcp-server-calculator"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-testset
