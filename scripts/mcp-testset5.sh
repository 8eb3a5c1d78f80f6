#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp-test5/servers/*.json and tools.json, the FIFTH
# HELD-OUT test set's tool catalog (never used to choose or tune anything; the dev set is
# data/mcp, made by scripts/mcp-devset.sh; the other sets are data/mcp-test, data/mcp-test2,
# data/mcp-test3 and data/mcp-test4, made by scripts/mcp-testset.sh, mcp-testset2.sh,
# mcp-testset3.sh and mcp-testset4.sh). Installs the pinned MCP server packages (npm / PyPI)
# into a temporary directory, starts each one over stdio with dummy credentials, asks for its
# tools (scripts/mcp-list-tools.py) and writes the raw `tools/list` result. Not run by CI.
#
#   scripts/mcp-testset5.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-testset5.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-testset5 mcp-test5
OUT="$(cd "$OUT" && pwd)"
# No telemetry from servers that have it; no update check from FastMCP.
export DO_NOT_TRACK=1 FASTMCP_CHECK_FOR_UPDATES=off

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  argocd-mcp@0.9.0
  @line/line-bot-mcp-server@0.5.0
  @pinecone-database/mcp@0.3.0
  reddit-mcp-buddy@1.1.14
)
# PyPI: one venv each; `mcp`, `pydantic` (which writes the input schemas) and FastMCP pinned
# to the versions they resolved to when the set was made (anki, intercom and outline import
# `mcp.server.fastmcp`, which mcp 2.x removed: they need mcp < 2).
declare -A PYPI_PKGS=(
  [anki]="mcp-ankiconnect==0.7.0 mcp==1.30.0 pydantic==2.14.4"
  [aws-location]="awslabs.aws-location-mcp-server==2.1.1 mcp==2.3.0 pydantic==2.14.4"
  [duckdb]="mcp-server-motherduck==1.1.0 fastmcp==4.2.3 fastmcp-slim==4.2.3 mcp==2.3.0 pydantic==2.14.4 duckdb==1.5.6"
  [intercom]="mcp-intercom==0.0.3 mcp==1.30.0 pydantic==2.14.4"
  [markitdown]="markitdown-mcp==0.0.1a8 markitdown==0.1.9 mcp==2.3.0 pydantic==2.14.4"
  [outline]="mcp-outline==1.10.1 mcp==1.30.0 pydantic==2.14.4"
)

mcp_install mcp-testset5

# ---- list each server ------------------------------------------------------------------
N="$TMP/npm/node_modules"
# Several servers read a `.env` from their working directory (dotenv): start them all in
# the temp dir, where there is none.
mkdir -p "$TMP/run"
cd "$TMP/run"

list anki "$TMP/venv-anki/bin/mcp-ankiconnect"
# `stdio` selects the transport; nothing listens on port 9 (it connects only on a call).
ARGOCD_BASE_URL=http://127.0.0.1:9 ARGOCD_API_TOKEN=dummy \
  list argocd node "$N/argocd-mcp/dist/index.js" stdio
AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy AWS_REGION=us-east-1 \
  list aws-location "$TMP/venv-aws-location/bin/awslabs.aws-location-mcp-server"
# An in-memory DuckDB database, which the server only opens with --read-write.
list duckdb "$TMP/venv-duckdb/bin/mcp-server-motherduck" --db-path :memory: --read-write
INTERCOM_ACCESS_TOKEN=dummy list intercom "$TMP/venv-intercom/bin/mcp-intercom"
# No DESTINATION_USER_ID: given one, it becomes the `userId` default in three schemas.
CHANNEL_ACCESS_TOKEN=dummy list line node "$N/@line/line-bot-mcp-server/dist/index.js"
list markitdown "$TMP/venv-markitdown/bin/markitdown-mcp"
# Delete and AI tools off: 35 of its 38 tools (see the set's README).
OUTLINE_API_KEY=dummy OUTLINE_API_URL=http://127.0.0.1:9/api \
  OUTLINE_DISABLE_DELETE=true OUTLINE_DISABLE_AI_TOOLS=true \
  list outline "$TMP/venv-outline/bin/mcp-outline"
# The docs tool connects to Pinecone's docs server only when called.
PINECONE_API_KEY=dummy list pinecone node "$N/@pinecone-database/mcp/dist/index.js"
# No Reddit credentials: it would authenticate only on a call.
list reddit node "$N/reddit-mcp-buddy/dist/cli.js"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-testset5
