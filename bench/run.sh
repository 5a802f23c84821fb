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
# Each benchmark gets a Temporal dev server of its own, started empty as the stack's is
# (`scripts/stack.sh temporal-up`) and removed after it, so that its figures depend neither on the
# history the stack's server has piled up (a day-old database idled at 14-24 ms of CPU a second for
# half an hour after a restart: bench/HISTORY.md, sixteenth round) nor on the benchmark before it
# (an ingest run's thousands of starts leave a server slower for a while), and the stack's database
# does not grow by every run. TEMPORAL_ADDRESS set, or the Postgres profile: the server the caller
# chose, for every benchmark.
own_temporal=1
if [[ -n "${TEMPORAL_ADDRESS:-}" || "${WAYMARK_TEMPORAL:-dev}" == postgres ]]; then own_temporal=0; fi
bench_temporal_dir=""
stop_bench_temporal() {
  [[ -n "$bench_temporal_dir" ]] || return 0
  DATA_DIR="$bench_temporal_dir" bash scripts/stack.sh temporal-down >/dev/null
  rm -rf "$bench_temporal_dir"
  bench_temporal_dir=""
}
trap stop_bench_temporal EXIT
# two free local ports (gRPC and Web UI), below the kernel's ephemeral range so that no outgoing
# connection takes one before the server listens (test/free-port.ts)
free_ports() {
  npx --no-install tsx -e "import('./test/free-port.ts').then(async (m) => console.log((await m.freePorts(2)).join(' ')))"
}
failed=()
for bench in "${benches[@]}"; do
  [[ "$bench" == *.test.ts ]] && continue
  echo "[bench] $bench"
  temporal_env=()
  if ((own_temporal)); then
    bench_temporal_dir=$(mktemp -d "${TMPDIR:-/tmp}/waymark-bench-temporal.XXXXXX")
    read -r port ui_port < <(free_ports)
    DATA_DIR="$bench_temporal_dir" TEMPORAL_PORT="$port" TEMPORAL_UI_PORT="$ui_port" bash scripts/stack.sh temporal-up
    temporal_env=("TEMPORAL_ADDRESS=127.0.0.1:$port")
  fi
  # one failing benchmark must not hide the others' results
  env ${temporal_env[@]+"${temporal_env[@]}"} npx --no-install tsx "$bench" ${options[@]+"${options[@]}"} || failed+=("$bench")
  stop_bench_temporal
done
npx --no-install tsx bench/lib/collect-results.ts
if ((${#failed[@]} > 0)); then
  echo "[bench] failed: ${failed[*]}" >&2
  exit 1
fi
