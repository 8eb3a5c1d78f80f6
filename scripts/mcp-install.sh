# Sourced, not run, by scripts/mcp-devset.sh and scripts/mcp-testset*.sh: the steps every MCP
# set script shares. The caller sets ROOT (the repository), calls mcp_setup, then sets NPM_PKGS
# (an array of pinned npm packages) and PYPI_PKGS (an associative array: venv name → pinned pip
# requirements) before mcp_install.

# mcp_setup TAG SET: OUT (default crates/toolwright-eval/data/SET, or $OUT), LIST, PY ($PYTHON or
# python3) and TMP (a temp dir named after TAG, removed on exit, with npm/ and home/ in it);
# HOME and the npm and pip caches point into TMP, so nothing outside it and the repository is
# read or written.
mcp_setup() {
  local tag="$1" set="$2"
  OUT="${OUT:-$ROOT/crates/toolwright-eval/data/$set}"
  LIST="$ROOT/scripts/mcp-list-tools.py"
  PY="${PYTHON:-python3}"
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/$tag.XXXXXX")"
  trap 'rm -rf "$TMP"' EXIT
  mkdir -p "$OUT/servers" "$TMP/npm" "$TMP/home"
  export HOME="$TMP/home" npm_config_cache="$TMP/npm-cache" PIP_CACHE_DIR="$TMP/pip-cache"
}

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
