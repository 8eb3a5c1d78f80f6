#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp-test3/servers/*.json and tools.json, the THIRD
# HELD-OUT test set's tool catalog (never used to choose or tune anything; the dev set is
# data/mcp, made by scripts/mcp-devset.sh; the earlier held-out sets are data/mcp-test and
# data/mcp-test2, made by scripts/mcp-testset.sh and mcp-testset2.sh). Installs the pinned MCP
# server packages (npm / PyPI) into a temporary directory, starts each one over stdio with
# dummy credentials, asks for its tools (scripts/mcp-list-tools.py) and writes the raw
# `tools/list` result. Not run by CI.
#
#   scripts/mcp-testset3.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-testset3.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-testset3 mcp-test3
# No telemetry from servers that have it.
export DO_NOT_TRACK=1

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  @cocal/google-calendar-mcp@2.6.3
  @antv/mcp-server-chart@0.9.10
  @circleci/mcp-server-circleci@0.20.0
  @negokaz/excel-mcp-server@0.12.0
  linear-mcp-server@0.1.0
  @mapbox/mcp-server@0.14.0
  mcp-searxng@2.4.0
  terraform-mcp-server@0.13.0
)
# PyPI: one venv each; `mcp` and `pydantic` (which writes the input schemas) pinned to the
# versions they resolved to when the set was made.
declare -A PYPI_PKGS=(
  [email]="mcp-email-server==1.13.3 mcp==1.30.0 pydantic==2.14.4"
  [mysql]="mysql-mcp-server==0.4.4 mcp==1.30.0 pydantic==2.14.4"
)

mcp_install mcp-testset3

# ---- list each server ------------------------------------------------------------------
N="$TMP/npm/node_modules"

# Exits at start-up without an OAuth client file; a dummy one (no token) is enough to list.
printf '%s\n' '{"installed":{"client_id":"dummy.apps.googleusercontent.com","client_secret":"dummy","redirect_uris":["http://localhost"]}}' \
  > "$TMP/gcp-oauth.keys.json"
GOOGLE_OAUTH_CREDENTIALS="$TMP/gcp-oauth.keys.json" \
  list calendar node "$N/@cocal/google-calendar-mcp/build/index.js"
list chart node "$N/@antv/mcp-server-chart/build/index.js"
CIRCLECI_TOKEN=dummy list circleci node "$N/@circleci/mcp-server-circleci/dist/index.js"
list email "$TMP/venv-email/bin/mcp-email-server" stdio
# The package ships its Go binaries; dist/launcher.js starts the one for this platform.
list excel node "$N/@negokaz/excel-mcp-server/dist/launcher.js"
LINEAR_API_KEY=lin_api_dummy list linear node "$N/linear-mcp-server/build/index.js"
MAPBOX_ACCESS_TOKEN=pk.dummy list mapbox node "$N/@mapbox/mcp-server/dist/esm/index.js"
MYSQL_HOST=127.0.0.1 MYSQL_USER=dummy MYSQL_PASSWORD=dummy MYSQL_DATABASE=dummy \
  list mysql "$TMP/venv-mysql/bin/mysql_mcp_server"
# Port 9 (discard) on the loopback: nothing is asked to list the tools.
SEARXNG_URL=http://127.0.0.1:9 list searxng node "$N/mcp-searxng/dist/cli.js"
list terraform node "$N/terraform-mcp-server/dist/index.js"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-testset3
