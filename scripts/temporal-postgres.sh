#!/usr/bin/env bash
# The Postgres-backed Temporal profile: a real Temporal server (persistence and visibility in
# PostgreSQL) plus its Web UI, instead of the SQLite dev server. `WAYMARK_TEMPORAL=postgres npm start`
# runs it; docs/scaling.md explains when to use it.
#
#   bash scripts/temporal-postgres.sh up       build what is missing (cached), set up schemas, start
#   bash scripts/temporal-postgres.sh down     stop the server and UI this script started
#   bash scripts/temporal-postgres.sh status
#
# Ports: TEMPORAL_PORT (frontend gRPC, default 7233; the other services take TEMPORAL_PORT+1..+6,
# membership TEMPORAL_PORT-300.., metrics/pprof TEMPORAL_PORT+700/+703), TEMPORAL_UI_PORT (8233).
# Database: PG_PORT (5432), PG_USER/PG_PASSWORD (waymark/waymark, needs CREATEDB and the right to
# create the btree_gin extension), TEMPORAL_DB (temporal; visibility is ${TEMPORAL_DB}_visibility).
# State: $DATA_DIR/temporal-postgres-$TEMPORAL_PORT (rendered config, pid files); logs in $LOG_DIR.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVER_VERSION=v1.30.4 # later versions need a newer Go than 1.26
UI_VERSION=v2.55.0     # the newest ui-server this Go builds
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
PG_PORT="${PG_PORT:-5432}"
PG_USER="${PG_USER:-waymark}"
PG_PASSWORD="${PG_PASSWORD:-waymark}"
TEMPORAL_DB="${TEMPORAL_DB:-temporal}"
VISIBILITY_DB="${TEMPORAL_DB}_visibility"
SEARCH_ATTRIBUTES=(WaymarkJourneyId=Keyword WaymarkUserId=Keyword WaymarkJourneyVersion=Keyword)

GO_ENV=(GOPATH="$WAYMARK_CACHE/go" GOMODCACHE="$WAYMARK_CACHE/go/pkg/mod" GOCACHE="$WAYMARK_CACHE/go-build" GOTOOLCHAIN=local GOFLAGS=-buildvcs=false)
SERVER_BIN="$WAYMARK_CACHE/temporal-server/bin/server"
SQL_BIN="$WAYMARK_CACHE/temporal-sql/bin/sql"
UI_BIN="$WAYMARK_CACHE/temporal-ui/bin/server"
MODULE="$WAYMARK_CACHE/go/pkg/mod/go.temporal.io/server@$SERVER_VERSION"
CLI_BIN="$WAYMARK_CACHE/bin/temporal"
STATE="$DATA_DIR/temporal-postgres-$TEMPORAL_PORT"
ADDR="127.0.0.1:$TEMPORAL_PORT"

# go_build NAME GOBIN PACKAGE: the server and the UI server both install as `server`, so each
# build gets a GOBIN of its own. Several minutes of CPU on first use; cached afterwards.
go_build() {
  local name=$1 gobin=$2 pkg=$3 t0
  [[ -x "$gobin/$(basename "${pkg%@*}")" ]] && return 0
  command -v go >/dev/null || die "Go is needed to build $name (go install $pkg); install Go 1.26"
  t0=$(date +%s)
  log "$name ... building (go install $pkg, several minutes the first time; log: $LOG_DIR/temporal-postgres-build.log)"
  mkdir -p "$gobin" "$LOG_DIR"
  env "${GO_ENV[@]}" GOBIN="$gobin" nice -n 10 go install "$pkg" >>"$LOG_DIR/temporal-postgres-build.log" 2>&1 ||
    { log_tail "$LOG_DIR/temporal-postgres-build.log"; die "building $name failed"; }
  step_ok "$name" "built" "$t0"
}

ensure_binaries() {
  go_build "temporal server" "$(dirname "$SERVER_BIN")" "go.temporal.io/server/cmd/server@$SERVER_VERSION"
  go_build "temporal sql tool" "$(dirname "$SQL_BIN")" "go.temporal.io/server/cmd/tools/sql@$SERVER_VERSION"
  go_build "temporal ui server" "$(dirname "$UI_BIN")" "github.com/temporalio/ui-server/v2/cmd/server@$UI_VERSION"
  [[ -d "$MODULE/schema/postgresql/v12" ]] || env "${GO_ENV[@]}" go mod download "go.temporal.io/server@$SERVER_VERSION"
  [[ -x "$CLI_BIN" ]] || die "the Temporal CLI ($CLI_BIN) is missing: run 'bash scripts/stack.sh up' once (it builds it)"
}

sql_tool() { # DATABASE ARGS...
  local db=$1
  shift
  SQL_PLUGIN=postgres12 SQL_HOST=127.0.0.1 SQL_PORT="$PG_PORT" SQL_USER="$PG_USER" SQL_PASSWORD="$PG_PASSWORD" \
    "$SQL_BIN" --db "$db" "$@" >>"$LOG_DIR/temporal-postgres-schema.log" 2>&1
}

# Idempotent: create-database and setup-schema fail harmlessly when done before; update-schema
# applies only the versions not applied yet.
setup_schemas() {
  local t0 db dir
  t0=$(date +%s)
  mkdir -p "$LOG_DIR"
  for db in "$TEMPORAL_DB" "$VISIBILITY_DB"; do
    sql_tool "$db" create-database || true
  done
  PGPASSWORD="$PG_PASSWORD" psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d "$VISIBILITY_DB" \
    -c 'create extension if not exists btree_gin' >>"$LOG_DIR/temporal-postgres-schema.log" 2>&1 ||
    die "could not create the btree_gin extension in $VISIBILITY_DB (needs a superuser or a trusted extension)"
  for db in "$TEMPORAL_DB" "$VISIBILITY_DB"; do
    dir=temporal
    [[ "$db" == "$VISIBILITY_DB" ]] && dir=visibility
    sql_tool "$db" setup-schema -v 0.0 || true
    sql_tool "$db" update-schema -d "$MODULE/schema/postgresql/v12/$dir/versioned" ||
      { log_tail "$LOG_DIR/temporal-postgres-schema.log"; die "schema update of $db failed"; }
  done
  step_ok "temporal schemas" "$TEMPORAL_DB + $VISIBILITY_DB on 127.0.0.1:$PG_PORT" "$t0"
}

# The module's development-postgres12.yaml with this profile's ports and credentials.
render_config() {
  local p=$TEMPORAL_PORT
  mkdir -p "$STATE"
  sed -e "s/grpcPort: 7233/grpcPort: $p/; s/httpPort: 7243/httpPort: $((p + 10))/" \
    -e "s/grpcPort: 7234/grpcPort: $((p + 1))/; s/grpcPort: 7235/grpcPort: $((p + 2))/; s/grpcPort: 7239/grpcPort: $((p + 6))/" \
    -e "s/membershipPort: 6933/membershipPort: $((p - 300))/; s/membershipPort: 6934/membershipPort: $((p - 299))/" \
    -e "s/membershipPort: 6935/membershipPort: $((p - 298))/; s/membershipPort: 6939/membershipPort: $((p - 294))/" \
    -e "s/port: 7936/port: $((p + 703))/; s/127.0.0.1:8000/127.0.0.1:$((p + 700))/" \
    -e "s/rpcAddress: \"localhost:7233\"/rpcAddress: \"127.0.0.1:$p\"/" \
    -e "s/connectAddr: \"127.0.0.1:5432\"/connectAddr: \"127.0.0.1:$PG_PORT\"/" \
    -e "s/user: \"temporal\"/user: \"$PG_USER\"/; s/password: \"temporal\"/password: \"$PG_PASSWORD\"/" \
    -e "s/databaseName: \"temporal_visibility\"/databaseName: \"$VISIBILITY_DB\"/; s/databaseName: \"temporal\"/databaseName: \"$TEMPORAL_DB\"/" \
    -e "s/level: info/level: warn/" \
    "$MODULE/config/development-postgres12.yaml" >"$STATE/config.yaml"
  mkdir -p "$STATE/ui/config"
  cat >"$STATE/ui/config/development.yaml" <<EOF
temporalGrpcAddress: $ADDR
host: 127.0.0.1
port: $TEMPORAL_UI_PORT
enableUi: true
defaultNamespace: default
cors:
  unsafeAllowAllOrigins: true
EOF
}

healthy() { "$CLI_BIN" operator cluster health --address "$ADDR" 2>/dev/null | grep -q SERVING; }
ui_ready() { curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$TEMPORAL_UI_PORT/" 2>/dev/null; }

ensure_namespace() {
  local attempt list sa
  # the frontend answers health before the namespace registry is ready: retry the first calls
  for attempt in $(seq 1 60); do
    "$CLI_BIN" operator namespace describe --address "$ADDR" --namespace default >/dev/null 2>&1 && break
    "$CLI_BIN" operator namespace create --address "$ADDR" --namespace default --retention 72h >>"$LOG_DIR/temporal-postgres.log" 2>&1 && break
    sleep 1
  done
  "$CLI_BIN" operator namespace describe --address "$ADDR" --namespace default >/dev/null 2>&1 || die "could not create the default namespace"
  for attempt in $(seq 1 60); do
    list=$("$CLI_BIN" operator search-attribute list --address "$ADDR" --namespace default 2>&1) || { sleep 1; continue; }
    local missing=0
    for sa in "${SEARCH_ATTRIBUTES[@]}"; do
      grep -qw "${sa%%=*}" <<<"$list" && continue
      missing=1
      "$CLI_BIN" operator search-attribute create --address "$ADDR" --namespace default --name "${sa%%=*}" --type "${sa#*=}" \
        >>"$LOG_DIR/temporal-postgres.log" 2>&1 || true
    done
    ((missing == 0)) && return 0
    sleep 1
  done
  die "could not register the search attributes ${SEARCH_ATTRIBUTES[*]}"
}

cmd_up() {
  local t0
  t0=$(date +%s)
  ensure_binaries
  setup_schemas
  render_config
  if ! healthy; then
    port_open 127.0.0.1 "$TEMPORAL_PORT" && die "port $TEMPORAL_PORT is taken by something that is not this Temporal server (the dev server? stop it or set TEMPORAL_PORT)"
    # started from the module folder: the config's dynamic-config path is relative to it
    # TEMPORAL_GOMAXPROCS: GOMAXPROCS when set (unlike the dev server, no default of 1 on two cores)
    # shellcheck disable=SC2086 # empty when unset, one NAME=VALUE word when set
    (cd "$MODULE" && start_bg "temporal (postgres)" "$STATE/server.pid" "$LOG_DIR/temporal-postgres.log" \
      env ${TEMPORAL_GOMAXPROCS:+GOMAXPROCS=$TEMPORAL_GOMAXPROCS} "$SERVER_BIN" --config-file "$STATE/config.yaml" --allow-no-auth start)
    wait_until "temporal server (postgres)" 180 "$LOG_DIR/temporal-postgres.log" "$STATE/server.pid" -- healthy
  fi
  ensure_namespace
  if ! ui_ready; then
    start_bg "temporal ui" "$STATE/ui.pid" "$LOG_DIR/temporal-postgres-ui.log" "$UI_BIN" --root "$STATE/ui" --env development start
    wait_until "temporal web ui" 60 "$LOG_DIR/temporal-postgres-ui.log" "$STATE/ui.pid" -- ui_ready
  fi
  step_ok "temporal (postgres)" "grpc $ADDR, ui http://127.0.0.1:$TEMPORAL_UI_PORT, data in $TEMPORAL_DB" "$t0"
}

cmd_down() {
  stop_pidfile "temporal ui" "$STATE/ui.pid"
  stop_pidfile "temporal (postgres)" "$STATE/server.pid"
}

cmd_status() {
  if healthy; then log "temporal (postgres)  up    $ADDR"; else log "temporal (postgres)  DOWN  $ADDR"; return 3; fi
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
