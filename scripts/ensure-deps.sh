#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package-lock.json.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
marker=node_modules/.package-lock.json
if [[ ! -f "$marker" || package-lock.json -nt "$marker" || package.json -nt "$marker" ]]; then
  echo "[deps] installing npm dependencies ..."
  # `npm install`, not `npm ci`: the registry mirror here lacks other platforms' optional binaries
  # (e.g. @swc/core-darwin-*), which npm leaves out of the lock and `npm ci` then rejects.
  npm install --no-audit --no-fund --loglevel=error
  touch "$marker"
  echo "[deps] ... ok"
fi
