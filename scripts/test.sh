#!/usr/bin/env bash
# README command 2: the whole test suite on a fresh machine (installs and starts what it needs).
#   typecheck + lint + unit, then workflow tests (Java time-skipping server) and integration
#   tests over HTTP against PostgreSQL, Redis, the Temporal dev server and the SES emulator.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# Node of .nvmrc first on PATH for everything below (fetched from the npm registry once if missing)
use_project_node
bash scripts/ensure-deps.sh
# high or critical advisories in production dependencies fail the run unless audit-allowlist.json
# accepts them; an audit endpoint that cannot be asked fails the run only with
# WAYMARK_REQUIRE_AUDIT=true (docs/security.md: some registry mirrors refuse the audit request)
echo "[test] dependency advisories ..."
npx --no-install tsx scripts/audit/audit-gate.ts ${WAYMARK_REQUIRE_AUDIT:+--require-audit}
bash scripts/stack.sh up
echo "[test] typecheck + lint ..."
npm run --silent typecheck
npm run --silent lint
# the studio's typed client must match the api's OpenAPI document (a route changed → regenerate)
npx --no-install tsx scripts/studio-client.ts --check
# the studio once, before the test files that serve it (browser tests, the production build test)
# run side by side: each would otherwise build a stale studio into the same folder at once
npx --no-install tsx scripts/studio-build.ts
echo "[test] unit, workflow and integration tests ..."
npx --no-install vitest run "$@"
