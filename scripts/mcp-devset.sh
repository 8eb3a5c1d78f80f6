#!/usr/bin/env bash
# Reproduces crates/toolwright-eval/data/mcp/servers/*.json and tools.json: installs the
# pinned MCP server packages (npm / PyPI) into a temporary directory, starts each one over
# stdio with dummy credentials, asks for its tools (scripts/mcp-list-tools.py) and writes
# the raw `tools/list` result. Not run by CI; it documents where the dev set came from.
#
#   scripts/mcp-devset.sh            # rewrite the files in the repository
#   OUT=/some/dir scripts/mcp-devset.sh
#
# Needs node + npm and python3 (with venv). Reads nothing outside the repository and its
# own temp dir; no server is given a real token and none of them contacts its service
# to list its tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/mcp-install.sh
source "$ROOT/scripts/mcp-install.sh"
mcp_setup mcp-devset mcp
mkdir -p "$TMP/fsroot" "$TMP/gitrepo"

# ---- pinned packages -------------------------------------------------------------------
NPM_PKGS=(
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-memory@2026.8.31
  @modelcontextprotocol/server-everything@2026.8.31
  @modelcontextprotocol/server-sequential-thinking@2026.8.31
  @modelcontextprotocol/server-github@2025.4.8
  @modelcontextprotocol/server-gitlab@2025.4.25
  @modelcontextprotocol/server-slack@2025.4.25
  @modelcontextprotocol/server-puppeteer@2025.5.12
  @modelcontextprotocol/server-brave-search@0.6.2
  @modelcontextprotocol/server-postgres@0.6.2
  @modelcontextprotocol/server-google-maps@0.6.2
  @notionhq/notion-mcp-server@2.5.2
  @playwright/mcp@0.0.83
)
# PyPI: one venv each, since their `mcp` requirements conflict.
declare -A PYPI_PKGS=(
  [git]="mcp-server-git==2026.10.19"
  [time]="mcp-server-time==2026.10.19"
  [fetch]="mcp-server-fetch==2026.10.24"
  # 2025.4.25 breaks with mcp>=2 and with pydantic>=2.12: pin what it was built against.
  [sqlite]="mcp-server-sqlite==2025.4.25 mcp[cli]==1.9.4 pydantic==2.11.7"
  [atlassian]="mcp-atlassian==0.23.1"
)

mcp_install mcp-devset

# ---- list each server ------------------------------------------------------------------
M="$TMP/npm/node_modules/@modelcontextprotocol"
git -C "$TMP/gitrepo" init -q

list filesystem node "$M/server-filesystem/dist/index.js" "$TMP/fsroot"
MEMORY_FILE_PATH="$TMP/memory.jsonl" list memory node "$M/server-memory/dist/index.js"
list everything node "$M/server-everything/dist/index.js" stdio
list sequential-thinking node "$M/server-sequential-thinking/dist/index.js"
GITHUB_PERSONAL_ACCESS_TOKEN=ghp_dummy list github node "$M/server-github/dist/index.js"
GITLAB_PERSONAL_ACCESS_TOKEN=glpat-dummy GITLAB_API_URL=https://gitlab.invalid/api/v4 \
  list gitlab node "$M/server-gitlab/dist/index.js"
SLACK_BOT_TOKEN=xoxb-dummy SLACK_TEAM_ID=T00000000 list slack node "$M/server-slack/dist/index.js"
list puppeteer node "$M/server-puppeteer/dist/index.js"
BRAVE_API_KEY=dummy list brave-search node "$M/server-brave-search/dist/index.js"
list postgres node "$M/server-postgres/dist/index.js" postgresql://localhost:1/dummy
GOOGLE_MAPS_API_KEY=dummy list google-maps node "$M/server-google-maps/dist/index.js"
NOTION_TOKEN=ntn_dummy list notion node "$TMP/npm/node_modules/@notionhq/notion-mcp-server/bin/cli.mjs"
list playwright node "$TMP/npm/node_modules/@playwright/mcp/cli.js" --headless
list git "$TMP/venv-git/bin/mcp-server-git" --repository "$TMP/gitrepo"
list time "$TMP/venv-time/bin/mcp-server-time" --local-timezone UTC
list fetch "$TMP/venv-fetch/bin/mcp-server-fetch"
list sqlite "$TMP/venv-sqlite/bin/mcp-server-sqlite" --db-path "$TMP/devset.db"
# (PYTHONHASHSEED: it builds some schema defaults from a set; fix their order.)
JIRA_URL=https://example.atlassian.net JIRA_USERNAME=dummy@example.com JIRA_API_TOKEN=dummy \
CONFLUENCE_URL=https://example.atlassian.net/wiki CONFLUENCE_USERNAME=dummy@example.com \
CONFLUENCE_API_TOKEN=dummy TOOLSETS=default PYTHONHASHSEED=0 \
  list atlassian "$TMP/venv-atlassian/bin/mcp-atlassian"

# ---- combine ---------------------------------------------------------------------------
# One tools/list result; a name that two servers share becomes `<server>__<name>` on both.
"$PY" "$ROOT/scripts/mcp-combine-tools.py" "$OUT" mcp-devset
