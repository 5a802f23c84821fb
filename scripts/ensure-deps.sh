#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package-lock.json, on the
# project's Node (.nvmrc; scripts/lib.sh use_project_node fetches it when the machine has another).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO"
use_project_node
marker=node_modules/.package-lock.json
if [[ ! -f "$marker" || package-lock.json -nt "$marker" || package.json -nt "$marker" ]]; then
  echo "[deps] installing npm dependencies (npm ci, Node $(node -v)) ..."
  # `npm ci` installs exactly the lock file and never rewrites it, so a clone's tracked files stay
  # as checked out. The lock lists every platform's optional binaries (@rollup/rollup-*, esbuild,
  # @node-rs/argon2-*) as the registry serves them; npm ci installs only this machine's.
  # --include=dev: a NODE_ENV=production in the shell would otherwise leave out tsx, vite and vitest
  npm ci --include=dev --no-audit --no-fund --loglevel=error
  touch "$marker"
  echo "[deps] ... ok"
fi
