# Sourced, not run, by scripts/mcp-devset.sh and scripts/mcp-testset*.sh: the steps every MCP
# set script shares. The caller sets TMP (its temp dir, with $TMP/npm made), PY (python3),
# LIST (scripts/mcp-list-tools.py), OUT (where servers/ goes), NPM_PKGS (an array of pinned npm
# packages) and PYPI_PKGS (an associative array: venv name → pinned pip requirements).

# mcp_install TAG: one `npm install --ignore-scripts` of NPM_PKGS into $TMP/npm (no package
# script runs: puppeteer and playwright would download a browser, and listing needs none),
# then one venv per PYPI_PKGS entry, $TMP/venv-<name>, in name order. TAG prefixes the log lines.
mcp_install() {
  local tag="$1" key
  echo "$tag: installing npm packages into $TMP/npm" >&2
  ( cd "$TMP/npm" && npm init -y >/dev/null &&
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --ignore-scripts --no-audit --no-fund --silent \
      "${NPM_PKGS[@]}" >&2 )
  for key in $(printf '%s\n' "${!PYPI_PKGS[@]}" | sort); do
    echo "$tag: installing ${PYPI_PKGS[$key]} into $TMP/venv-$key" >&2
    "$PY" -m venv "$TMP/venv-$key"
    # shellcheck disable=SC2086
    "$TMP/venv-$key/bin/pip" install -q --disable-pip-version-check ${PYPI_PKGS[$key]} >&2
  done
}

# list NAME CMD ARGS...: starts CMD over stdio, asks for its tools, writes $OUT/servers/NAME.json.
list() {
  local name="$1"
  shift
  "$PY" "$LIST" "$OUT/servers/$name.json" -- "$@"
}
