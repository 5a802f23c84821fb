#!/usr/bin/env bash
# `npm run bench`: every benchmark under bench/ against the local stack, each writing its rows
# (a ratio against a baseline measured in the same run, never absolute timings in tests) to
# bench/results/<bench-name>.json; then all of them into bench/results/latest.json.
#   npm run bench                 every bench/*.ts
#   npm run bench -- ingest email-latency   only those
#   npm run bench -- sleeping-enrollments --enrollments 100000   options (from the first --x on) go to each bench named
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# Node of .nvmrc first on PATH for everything below (fetched from the npm registry once if missing)
use_project_node
bash scripts/ensure-deps.sh
bash scripts/stack.sh up
shopt -s nullglob
benches=()
options=()
while (($# > 0)); do
  if [[ "$1" == --* ]]; then
    options=("$@")
    break
  fi
  benches+=("bench/${1%.ts}.ts")
  shift
done
if ((${#benches[@]} == 0)); then
  benches=(bench/*.ts)
fi
failed=()
for bench in "${benches[@]}"; do
  [[ "$bench" == *.test.ts ]] && continue
  echo "[bench] $bench"
  # one failing benchmark must not hide the others' results
  npx --no-install tsx "$bench" ${options[@]+"${options[@]}"} || failed+=("$bench")
done
npx --no-install tsx bench/lib/collect-results.ts
if ((${#failed[@]} > 0)); then
  echo "[bench] failed: ${failed[*]}" >&2
  exit 1
fi
