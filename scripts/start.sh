#!/usr/bin/env bash
# README command 1: everything needed to run Waymark on this machine, then the api and worker.
# Safe to run again; Ctrl-C stops the api and worker (the stack keeps running: npm run stack:down).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# Node of .nvmrc first on PATH for everything below (fetched from the npm registry once if missing)
use_project_node
bash scripts/ensure-deps.sh
bash scripts/stack.sh up
# shellcheck source=scripts/dev-env.sh
source scripts/dev-env.sh

npx --no-install tsx apps/cli/src/main.ts migrate
# the studio (apps/studio): rebuilt only when its sources changed since the last build
npx --no-install tsx scripts/studio-build.ts
npx --no-install tsx apps/cli/src/main.ts dev-key

mkdir -p .data/logs
# Each background pipeline (npx → tsx → node, piped into sed) gets a process group of its own, and
# cleanup signals the whole group: $! would name only sed, and a TERM to npx is not passed on, so
# a `kill` of this script used to leave the api and worker running.
set -m
cleanup() {
  trap - INT TERM EXIT
  echo "[start] stopping api and worker ..."
  for group in $(jobs -p); do kill -TERM -- "-$group" 2>/dev/null || true; done
  wait || true
}
trap cleanup INT TERM EXIT

npx --no-install tsx --no-memory-reducer apps/worker/src/main.ts 2>&1 | sed -u 's/^/[worker] /' &
npx --no-install tsx apps/api/src/server.ts 2>&1 | sed -u 's/^/[api]    /' &

for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:${PORT}/v1/health" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
cat <<INFO

[start] Waymark is running
  API              http://localhost:${PORT}
  Studio           http://localhost:${PORT}/studio   (first admin: npm run waymark -- admin create --email you@example.com)
  API reference    http://localhost:${PORT}/docs
  Health           http://localhost:${PORT}/v1/health
  Temporal Web UI  http://localhost:${TEMPORAL_UI_PORT:-8233}
  SES emulator     http://localhost:${SES_PORT:-8005}   (every email sent)
  Logs below; Ctrl-C stops the api and worker.

INFO
wait
