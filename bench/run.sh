#!/usr/bin/env bash
# `npm run bench`: every benchmark under bench/ against the local stack, each printing a ratio
# against a baseline measured in the same run (never absolute timings in tests).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
bash scripts/ensure-deps.sh
bash scripts/stack.sh up
shopt -s nullglob
benches=(bench/*.ts)
if ((${#benches[@]} == 0)); then
  echo "[bench] no benchmarks yet"
  exit 0
fi
for bench in "${benches[@]}"; do
  [[ "$bench" == *.test.ts || "$bench" == bench/lib/* ]] && continue
  echo "[bench] $bench"
  npx --no-install tsx "$bench"
done
