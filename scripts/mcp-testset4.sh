#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp-test4/servers/*.json and tools.json, the FOURTH
# HELD-OUT test set's tool catalog (never used to choose or tune anything; the dev set is
# data/mcp, made by scripts/mcp-devset.sh; the other sets are data/mcp-test, data/mcp-test2
# and data/mcp-test3, made by scripts/mcp-testset.sh, mcp-testset2.sh and mcp-testset3.sh). Installs the pinned MCP server packages (npm / PyPI) into a temporary
# directory, starts each one over stdio with dummy credentials, asks for its tools
# (scripts/mcp-list-tools.py) and writes the raw `tools/list` result. Not run by CI.
#
#   scripts/mcp-testset4.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-testset4.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-testset4 mcp-test4
OUT="$(cd "$OUT" && pwd)"
# No telemetry from servers that have it; no update check from FastMCP.
export DO_NOT_TRACK=1 FASTMCP_CHECK_FOR_UPDATES=off

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  @winor30/mcp-server-datadog@1.8.0
  mcp-discord@1.3.4
  figma-developer-mcp@0.13.2
  @sylphx/pdf-reader-mcp@2.4.0
  shopify-mcp@1.0.8
  @dangahagan/weather-mcp@1.23.0
  youtube-data-mcp-server@1.0.16
)
# PyPI: one venv each; `mcp`, `pydantic` (which writes the input schemas) and FastMCP pinned
# to the versions they resolved to when the set was made (trello-mcp needs mcp < 2).
declare -A PYPI_PKGS=(
  [jenkins]="mcp-jenkins==3.6.0 fastmcp==4.2.3 fastmcp-slim==4.2.3 mcp==2.3.0 pydantic==2.14.4"
  [pandoc]="mcp-pandoc==0.11.1 mcp==2.3.0 pydantic==2.14.4"
  [trello]="trello-mcp==1.6.0 mcp==1.30.0 pydantic==2.14.4"
)

mcp_install mcp-testset4

# ---- list each server ------------------------------------------------------------------
N="$TMP/npm/node_modules"
# Several servers read a `.env` from their working directory (dotenv): start them all in
# the temp dir, where there is none.
mkdir -p "$TMP/run"
cd "$TMP/run"

DATADOG_API_KEY=dummy DATADOG_APP_KEY=dummy \
  list datadog node "$N/@winor30/mcp-server-datadog/build/index.js"
# No DISCORD_TOKEN: given one, it logs in at start-up; without one it lists all the same.
list discord node "$N/mcp-discord/build/index.js"
# The image directory appears in a tool description (it defaults to the working directory):
# a fixed path, which nothing creates or reads, keeps the file the same from run to run.
FIGMA_API_KEY=dummy list figma node "$N/figma-developer-mcp/dist/bin.js" \
  --stdio --no-telemetry --image-dir /srv/figma-images
# --read-only: the write tools (trigger/stop builds, edit configs, Groovy) are left out
# (29 of 36 tools). An empty --env-file stops it looking for a .env in parent directories.
: > "$TMP/jenkins.env"
list jenkins "$TMP/venv-jenkins/bin/mcp-jenkins" --env-file "$TMP/jenkins.env" \
  --jenkins-url http://127.0.0.1:9 --jenkins-username dummy --jenkins-password dummy --read-only
list pandoc "$TMP/venv-pandoc/bin/mcp-pandoc"
list pdf node "$N/@sylphx/pdf-reader-mcp/dist/index.js"
list shopify node "$N/shopify-mcp/dist/index.js" --accessToken shpat_dummy --domain dummy.myshopify.com
TRELLO_API_KEY=dummy TRELLO_TOKEN=dummy list trello "$TMP/venv-trello/bin/trello-mcp"
list weather node "$N/@dangahagan/weather-mcp/dist/index.js"
YOUTUBE_API_KEY=dummy list youtube node "$N/youtube-data-mcp-server/dist/index.js"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-testset4
