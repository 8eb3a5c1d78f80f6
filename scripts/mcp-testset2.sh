#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp-test2/servers/*.json and tools.json, the SECOND
# HELD-OUT test set's tool catalog (never used to choose or tune anything; the dev set is
# data/mcp, made by scripts/mcp-devset.sh; the first held-out set is data/mcp-test, made by
# scripts/mcp-testset.sh). Installs the pinned MCP server packages (npm / PyPI) into a
# temporary directory, starts each one over stdio with dummy credentials, asks for its tools
# (scripts/mcp-list-tools.py) and writes the raw `tools/list` result. Not run by CI.
#
#   scripts/mcp-testset2.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-testset2.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-testset2 mcp-test2
# No telemetry from servers that have it.
export DO_NOT_TRACK=1

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  @hubspot/mcp-server@0.4.0
  @stripe/mcp@0.2.5
  @kazuph/mcp-taskmanager@1.1.1
  @modelcontextprotocol/server-aws-kb-retrieval@0.6.2
)
# PyPI: one venv each, since their `mcp` requirements differ; `mcp` (and `fastmcp`) pinned
# to the versions that work with each: mcp 2.x removed `mcp.server.fastmcp`, which
# mcp-server-sentry and yfinance-mcp import, so those two get mcp 1.30.0; the others get
# what they resolved to when the set was made.
declare -A PYPI_PKGS=(
  [duckduckgo]="duckduckgo-mcp-server==0.7.0 mcp==2.3.0"
  [sentry]="mcp-server-sentry==2025.1.14 mcp==1.30.0"
  [todoist]="todoist-mcp==0.4.0 fastmcp==4.2.3 fastmcp-slim==4.2.3 mcp==2.3.0"
  [wikipedia]="wikipedia-mcp==2.0.1 fastmcp==4.2.3 fastmcp-slim==4.2.3 mcp==2.3.0"
  [yfinance]="yfinance-mcp==0.1.2 mcp==1.30.0"
)

mcp_install mcp-testset2

# ---- list each server ------------------------------------------------------------------
N="$TMP/npm/node_modules"

PRIVATE_APP_ACCESS_TOKEN=dummy list hubspot node "$N/@hubspot/mcp-server/dist/index.js"
# 0.2.5 is the last version with local tools (0.3.x forwards everything to Stripe's remote
# server, so its tools/list needs the network); --tools=all enables every tool.
list stripe node "$N/@stripe/mcp/dist/index.js" --tools=all --api-key=sk_test_dummy
# Keeps its tasks in $HOME/Documents/tasks.json (HOME is the empty temp home).
list taskmanager node "$N/@kazuph/mcp-taskmanager/dist/index.js"
AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy AWS_REGION=us-east-1 \
  list aws-kb node "$N/@modelcontextprotocol/server-aws-kb-retrieval/dist/index.js"
list duckduckgo "$TMP/venv-duckduckgo/bin/duckduckgo-mcp-server"
list sentry "$TMP/venv-sentry/bin/mcp-server-sentry" --auth-token dummy
TODOIST_API_TOKEN=dummy list todoist "$TMP/venv-todoist/bin/todoist-mcp"
list wikipedia "$TMP/venv-wikipedia/bin/wikipedia-mcp"
list yfinance "$TMP/venv-yfinance/bin/yfinance-mcp"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-testset2
