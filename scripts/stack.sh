#!/usr/bin/env bash
# Local dev/test stack for Waymark: PostgreSQL, Redis, Temporal dev server,
# SES emulator, Temporal Java test server jars and Chromium.
#
#   bash scripts/stack.sh up       install what is missing, start what is down
#   bash scripts/stack.sh down     stop what this script started
#   bash scripts/stack.sh status   print each service up/down (exit 3 if any is down)
#   bash scripts/stack.sh temporal-up | temporal-down
#                                  only the Temporal dev server, as `up` starts it: with DATA_DIR,
#                                  TEMPORAL_PORT and TEMPORAL_UI_PORT set, a throwaway one of a
#                                  caller's own (bench/run.sh gives each benchmark an empty one)
#
# State, logs and pid files live in $REPO/.data/. Slow-to-build tools are cached
# in ${WAYMARK_CACHE:-~/.cache/waymark}. WAYMARK_TEMPORAL=postgres runs scripts/temporal-postgres.sh
# (Temporal on PostgreSQL) instead of the SQLite dev server. Ports: TEMPORAL_PORT TEMPORAL_UI_PORT
# SES_PORT REDIS_PORT PG_PORT. External services: DATABASE_URL, CACHE_URL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# the SES emulator is a node program: run it on the project's Node as well
use_project_node

TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
# The dev server's Go runtime on one core on a machine of two or fewer: about a sixth less server
# CPU per journey email, and what brings the whole under 50 ms on two cores (docs/scaling.md, "CPU
# per event"). Set TEMPORAL_GOMAXPROCS to a number to choose, or empty to let it use every core.
if [[ -z "${TEMPORAL_GOMAXPROCS+set}" ]] && (($(nproc) <= 2)); then TEMPORAL_GOMAXPROCS=1; fi
SES_PORT="${SES_PORT:-8005}"
# the SES event publisher in front of the emulator (scripts/ses-events.ts); scripts/dev-env.sh points SES_ENDPOINT here
SES_EVENTS_PORT="${SES_EVENTS_PORT:-8006}"
REDIS_PORT="${REDIS_PORT:-6379}"
PG_PORT="${PG_PORT:-5432}"
export TEST_SERVER_VERSION="${TEST_SERVER_VERSION:-1.38.0}" # read by temporal-test-server.sh
TEST_SERVER_LIB="$WAYMARK_CACHE/temporal-test-server/lib"

TEMPORAL_CLI_PKG="github.com/temporalio/cli/cmd/temporal@v1.5.1"
TEMPORAL_BIN="$WAYMARK_CACHE/bin/temporal"
TEMPORAL_ADDR="127.0.0.1:$TEMPORAL_PORT"
SEARCH_ATTRIBUTES=(WaymarkJourneyId=Keyword WaymarkUserId=Keyword WaymarkJourneyVersion=Keyword)
PG_URL="postgres://waymark:waymark@127.0.0.1:$PG_PORT/waymark"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
SES_URL="http://127.0.0.1:$SES_PORT"
SES_EVENTS_URL="http://127.0.0.1:$SES_EVENTS_PORT"
UI_URL="http://127.0.0.1:$TEMPORAL_UI_PORT"

mkdir -p "$DATA_DIR" "$LOG_DIR"

# ------------------------------------------------------------- postgres ----

pg_ready() { pg_isready -q -h 127.0.0.1 -p "$PG_PORT"; }
# psql (SQL on stdin) as the postgres OS user over the local socket (peer auth).
pg_admin() {
  (cd / && if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- psql -X -q -At -v ON_ERROR_STOP=1 -p "$PG_PORT"
  else sudo -n -u postgres psql -X -q -At -v ON_ERROR_STOP=1 -p "$PG_PORT"; fi)
}

up_postgres() {
  local t0 ver name installed=0
  t0=$(date +%s)
  if [[ -n "${DATABASE_URL:-}" ]] && command -v pg_isready >/dev/null && pg_isready -q -d "$DATABASE_URL"; then
    PG_URL="$DATABASE_URL"
    step_ok postgres "external DATABASE_URL, not managed here" "$t0"
    return
  fi
  [[ -z "${DATABASE_URL:-}" ]] || warn "DATABASE_URL is set but not reachable; using a local cluster on port $PG_PORT"
  if ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
    apt_install postgresql
    installed=1
  fi
  if ! pg_ready; then
    read -r ver name < <(pg_lsclusters -h | awk -v p="$PG_PORT" '$3 == p { print $1, $2; exit }') || true
    if [[ -z "${ver:-}" ]]; then # no cluster on this port: create one
      ver=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1)
      name=main
      [[ -d "/etc/postgresql/$ver/main" ]] && name=waymark
      log "postgres: creating cluster $ver/$name on port $PG_PORT ..."
      as_root pg_createcluster "$ver" "$name" --port "$PG_PORT" >>"$LOG_DIR/postgres-setup.log" 2>&1 ||
        { log_tail "$LOG_DIR/postgres-setup.log"; die "pg_createcluster failed; see $LOG_DIR/postgres-setup.log"; }
    fi
    local pglog="/var/log/postgresql/postgresql-$ver-$name.log"
    as_root pg_ctlcluster "$ver" "$name" start >>"$LOG_DIR/postgres-setup.log" 2>&1 ||
      { log_tail "$pglog"; die "postgres cluster $ver/$name failed to start; see its log: $pglog"; }
    installed=1
    echo "$ver $name" >"$DATA_DIR/postgres.started"
    wait_until postgres 60 "$pglog" "" -- pg_ready
  fi
  if ((installed)) && [[ ! -f "$DATA_DIR/postgres.started" ]]; then
    # apt's postinst may have started the cluster itself: it is still ours to stop
    pg_lsclusters -h | awk -v p="$PG_PORT" '$3 == p { print $1, $2; exit }' >"$DATA_DIR/postgres.started"
  fi
  # log_lock_waits: a statement waiting on a lock longer than deadlock_timeout (1 s) is logged with
  # the pids holding it, so a test that stalls on a lock says on what (/var/log/postgresql/)
  if ! pg_admin >>"$LOG_DIR/postgres-setup.log" 2>&1 <<'SQL'; then
SELECT 'CREATE ROLE waymark' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'waymark') \gexec
ALTER ROLE waymark WITH LOGIN SUPERUSER CREATEDB PASSWORD 'waymark';
SELECT 'CREATE DATABASE waymark OWNER waymark' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'waymark') \gexec
SELECT 'CREATE DATABASE waymark_test OWNER waymark' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'waymark_test') \gexec
ALTER SYSTEM SET log_lock_waits = on;
SELECT pg_reload_conf();
SQL
    # Not a local Debian cluster we can administer: accept it if our credentials work.
    psql -X -q -At "$PG_URL" -c 'select 1' >/dev/null 2>&1 ||
      { log_tail "$LOG_DIR/postgres-setup.log"; die "could not create role/databases on port $PG_PORT; see $LOG_DIR/postgres-setup.log"; }
  fi
  step_ok postgres "127.0.0.1:$PG_PORT, role waymark, dbs waymark + waymark_test" "$t0"
}

# ---------------------------------------------------------------- redis ----

redis_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]; }

up_redis() {
  local t0
  t0=$(date +%s)
  if [[ -n "${CACHE_URL:-}" ]] && command -v redis-cli >/dev/null &&
    [[ "$(redis-cli -u "$CACHE_URL" ping 2>/dev/null)" == PONG ]]; then
    REDIS_URL="$CACHE_URL"
    step_ok redis "external CACHE_URL, not managed here" "$t0"
    return
  fi
  command -v redis-server >/dev/null || apt_install redis-server
  if ! redis_ping; then
    mkdir -p "$DATA_DIR/redis"
    redis-server --daemonize yes --port "$REDIS_PORT" --bind 127.0.0.1 -::1 --dir "$DATA_DIR/redis" \
      --pidfile "$DATA_DIR/redis.pid" --logfile "$LOG_DIR/redis.log" ||
      { log_tail "$LOG_DIR/redis.log"; die "redis-server failed to start; see its log: $LOG_DIR/redis.log"; }
    wait_until redis 30 "$LOG_DIR/redis.log" "" -- redis_ping
  fi
  step_ok redis "127.0.0.1:$REDIS_PORT" "$t0"
}

# ------------------------------------------------------- temporal server ----

find_go() { command -v go || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; }; }

# Start building the Temporal CLI in the background (it takes minutes), so apt
# and maven work overlaps with it. temporal_bin_wait collects the result.
TEMPORAL_BUILD_PID=""
temporal_bin_start() {
  [[ -x "$TEMPORAL_BIN" || -x "$WAYMARK_CACHE/go/bin/temporal" ]] && return 0
  if pgrep -f "go install $TEMPORAL_CLI_PKG" >/dev/null; then
    log "temporal cli ... another 'go install' of it is running; will wait for it"
    return 0
  fi
  local go
  go=$(find_go) || die "Go (>= 1.21) is needed to build the Temporal CLI ($TEMPORAL_CLI_PKG); install Go first"
  log "temporal cli ... building $TEMPORAL_CLI_PKG in the background (first build takes several minutes; log: ${LOG_DIR#"$REPO"/}/temporal-build.log)"
  (GOBIN="$WAYMARK_CACHE/go/bin" GOPATH="$WAYMARK_CACHE/go" GOMODCACHE="$WAYMARK_CACHE/go/pkg/mod" \
    GOCACHE="$WAYMARK_CACHE/go-build" GOTOOLCHAIN=auto \
    "$go" install "$TEMPORAL_CLI_PKG") >>"$LOG_DIR/temporal-build.log" 2>&1 &
  TEMPORAL_BUILD_PID=$!
}

temporal_bin_wait() {
  local t0
  t0=$(date +%s)
  [[ -x "$TEMPORAL_BIN" ]] && return 0
  if [[ -n "$TEMPORAL_BUILD_PID" ]]; then
    wait "$TEMPORAL_BUILD_PID" ||
      { log_tail "$LOG_DIR/temporal-build.log"; die "building the Temporal CLI failed; see $LOG_DIR/temporal-build.log"; }
  else
    while pgrep -f "go install $TEMPORAL_CLI_PKG" >/dev/null; do sleep 3; done
  fi
  [[ -x "$WAYMARK_CACHE/go/bin/temporal" ]] || die "Temporal CLI build produced no binary at $WAYMARK_CACHE/go/bin/temporal"
  mkdir -p "$WAYMARK_CACHE/bin"
  cp "$WAYMARK_CACHE/go/bin/temporal" "$TEMPORAL_BIN.tmp.$$" && mv -f "$TEMPORAL_BIN.tmp.$$" "$TEMPORAL_BIN"
  step_ok "temporal cli" "$TEMPORAL_BIN" "$t0"
}

temporal_healthy() {
  "$TEMPORAL_BIN" operator cluster health --address "$TEMPORAL_ADDR" 2>/dev/null | grep -q SERVING
}
ui_ready() { curl -fsS -o /dev/null --max-time 3 "$UI_URL/" 2>/dev/null; }

ensure_search_attributes() {
  local list sa created=()
  list=$("$TEMPORAL_BIN" operator search-attribute list --address "$TEMPORAL_ADDR" --namespace default 2>&1) ||
    die "listing Temporal search attributes failed: $list"
  for sa in "${SEARCH_ATTRIBUTES[@]}"; do
    grep -qw "${sa%%=*}" <<<"$list" && continue
    "$TEMPORAL_BIN" operator search-attribute create --address "$TEMPORAL_ADDR" --namespace default \
      --name "${sa%%=*}" --type "${sa#*=}" >>"$LOG_DIR/temporal.log" 2>&1 ||
      die "creating search attribute ${sa%%=*} failed; see $LOG_DIR/temporal.log"
    created+=("${sa%%=*}")
  done
  ((${#created[@]} == 0)) || log "temporal: created search attributes ${created[*]}"
}

up_temporal() {
  local t0 args=()
  t0=$(date +%s)
  if ! temporal_healthy; then
    port_open 127.0.0.1 "$TEMPORAL_PORT" && die "port $TEMPORAL_PORT is taken by something that is not a healthy Temporal server"
    mkdir -p "$DATA_DIR/temporal"
    # WAL with synchronous=normal: a third less server CPU per journey email than SQLite's default
    # rollback journal (docs/scaling.md, "CPU per event"); a commit is still durable when the
    # process is killed (only a power loss can take the last commits), which the chaos run relies on
    args=(server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT"
      --db-filename "$DATA_DIR/temporal/temporal.db" --namespace default --log-level warn
      --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal)
    for sa in "${SEARCH_ATTRIBUTES[@]}"; do args+=(--search-attribute "$sa"); done
    # GOMAXPROCS from TEMPORAL_GOMAXPROCS (above: 1 on two cores or fewer); empty: every core
    # shellcheck disable=SC2086 # empty when unset, one NAME=VALUE word when set
    start_bg temporal "$DATA_DIR/temporal.pid" "$LOG_DIR/temporal.log" env ${TEMPORAL_GOMAXPROCS:+GOMAXPROCS=$TEMPORAL_GOMAXPROCS} "$TEMPORAL_BIN" "${args[@]}"
    wait_until "temporal server" 90 "$LOG_DIR/temporal.log" "$DATA_DIR/temporal.pid" -- temporal_healthy
  fi
  ensure_search_attributes
  wait_until "temporal web ui" 30 "$LOG_DIR/temporal.log" "" -- ui_ready
  step_ok temporal "grpc $TEMPORAL_ADDR, ui $UI_URL" "$t0"
}

# ---------------------------------------------------------- ses emulator ----

# ?since= far ahead: the emulator's own route, answered without its messages (a long-running
# emulator holds every message in memory, and the whole store took seconds to send, so a busy
# stack's own emulator was taken for a stranger on the port)
ses_ready() { curl -fsS -o /dev/null --max-time 3 "$SES_URL/store?since=4102444800" 2>/dev/null; }

ses_bin() {
  local bin="$REPO/node_modules/.bin/aws-ses-v2-local" ver
  [[ -x "$bin" ]] && { echo "$bin"; return; }
  # node_modules not installed yet: use a private copy of the version package.json asks for
  ver=$(node -p "require('$REPO/package.json').devDependencies['aws-ses-v2-local'] || 'latest'")
  bin="$WAYMARK_CACHE/npm/node_modules/.bin/aws-ses-v2-local"
  if [[ ! -x "$bin" ]]; then
    log "ses emulator ... node_modules missing; installing aws-ses-v2-local@$ver into $WAYMARK_CACHE/npm" >&2
    npm install --no-save --no-audit --no-fund --prefix "$WAYMARK_CACHE/npm" "aws-ses-v2-local@$ver" \
      >>"$LOG_DIR/ses-install.log" 2>&1 || die "npm install aws-ses-v2-local failed; see $LOG_DIR/ses-install.log"
  fi
  echo "$bin"
}

up_ses() {
  local t0 bin
  t0=$(date +%s)
  if ! ses_ready; then
    port_open 127.0.0.1 "$SES_PORT" && die "port $SES_PORT is taken by something that is not the SES emulator"
    bin=$(ses_bin)
    # message ids that never repeat, as SES's (scripts/ses-emulator-ids.mjs)
    start_bg "ses emulator" "$DATA_DIR/ses.pid" "$LOG_DIR/ses.log" \
      node --import "$REPO/scripts/ses-emulator-ids.mjs" "$bin" --host 127.0.0.1 --port "$SES_PORT"
    wait_until "ses emulator" 30 "$LOG_DIR/ses.log" "$DATA_DIR/ses.pid" -- ses_ready
  fi
  step_ok "ses emulator" "$SES_URL" "$t0"
}

# ---------------------------------------------------- ses event publisher ----

# SES event publishing on the local stack (docs/email.md, "Provider webhooks"): a small process in
# front of the emulator turns each message it accepts through the configuration set into SES's
# events (Send, Delivery, Bounce, Complaint; the mailbox simulator's addresses too), posted to the
# api's webhook as SNS posts them. The emulator's own route answered through it: it is up and passing on.
ses_events_ready() { curl -fsS -o /dev/null --max-time 3 "$SES_EVENTS_URL/store?since=4102444800" 2>/dev/null; }

up_ses_events() {
  local t0 tsx="$REPO/node_modules/.bin/tsx" destination
  t0=$(date +%s)
  if [[ ! -x "$tsx" ]]; then
    warn "ses events: node_modules missing (npm ci); the api's SES notifications will not be published locally"
    return 0
  fi
  if ! ses_events_ready; then
    port_open 127.0.0.1 "$SES_EVENTS_PORT" && die "port $SES_EVENTS_PORT is taken by something that is not the SES event publisher"
    # the api's webhook and configuration set as the api will read them (.env over the dev defaults)
    # shellcheck source=scripts/dev-env.sh
    destination=$(source "$REPO/scripts/dev-env.sh" >/dev/null &&
      printf '%s=http://sns:%s@127.0.0.1:%s/v1/webhooks/email-provider' "${SES_CONFIGURATION_SET:-waymark-local}" "${EMAIL_PROVIDER_WEBHOOK_SECRET:-}" "$PORT")
    start_bg "ses events" "$DATA_DIR/ses-events.pid" "$LOG_DIR/ses-events.log" \
      env SES_EVENTS_PORT="$SES_EVENTS_PORT" SES_EMULATOR_URL="$SES_URL" SES_EVENTS_DESTINATION="$destination" "$tsx" "$REPO/scripts/ses-events.ts"
    wait_until "ses events" 60 "$LOG_DIR/ses-events.log" "$DATA_DIR/ses-events.pid" -- ses_events_ready
  fi
  step_ok "ses events" "$SES_EVENTS_URL -> $SES_URL, events to the api's /v1/webhooks/email-provider" "$t0"
}

# --------------------------------------------- temporal java test server ----

TEST_SERVER="$REPO/scripts/temporal-test-server.sh"
test_server_fetched() { "$TEST_SERVER" --check; }

up_test_server_jars() {
  local t0
  t0=$(date +%s)
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  if ! test_server_fetched; then
    command -v mvn >/dev/null || apt_install maven
    log "temporal test server ... fetching io.temporal:temporal-test-server:$TEST_SERVER_VERSION + deps from Maven Central (once)"
  fi
  "$TEST_SERVER" --install >>"$LOG_DIR/test-server-fetch.log" 2>&1 ||
    { log_tail "$LOG_DIR/test-server-fetch.log"; die "installing the Java test server failed; see $LOG_DIR/test-server-fetch.log"; }
  step_ok "test server jars" "$(find "$TEST_SERVER_LIB" -name '*.jar' | wc -l) jars in $TEST_SERVER_LIB" "$t0"
}

up_chromium() {
  local t0
  t0=$(date +%s)
  command -v chromium >/dev/null || apt_install chromium fonts-liberation
  step_ok chromium "$(command -v chromium)" "$t0"
}

# ------------------------------------------------------------- commands ----

cmd_up() {
  local t0
  t0=$(date +%s)
  temporal_bin_start
  up_postgres
  up_redis
  up_chromium
  up_test_server_jars
  temporal_bin_wait
  if [[ "${WAYMARK_TEMPORAL:-dev}" == postgres ]]; then
    # a real Temporal server on this PostgreSQL instead of the SQLite dev server (docs/scaling.md)
    bash "$REPO/scripts/temporal-postgres.sh" up
  else
    up_temporal
  fi
  up_ses
  up_ses_events
  log "stack is up in $(($(date +%s) - t0))s"
  cat <<EOF
  Temporal gRPC      $TEMPORAL_ADDR  (namespace default)
  Temporal Web UI    $UI_URL
  SES emulator       $SES_URL   (web page lists sent emails; JSON at /store)
  SES events         $SES_EVENTS_URL   (SES_ENDPOINT: passes on to the emulator, publishes SES's events to the api)
  Postgres           $PG_URL   (test db: waymark_test)
  Redis              $REDIS_URL
  Java test server   scripts/temporal-test-server.sh <port> [--enable-time-skipping]
  Logs               ${LOG_DIR#"$REPO"/}/
EOF
}

cmd_down() {
  stop_pidfile "ses events" "$DATA_DIR/ses-events.pid"
  stop_pidfile "ses emulator" "$DATA_DIR/ses.pid"
  stop_pidfile temporal "$DATA_DIR/temporal.pid"
  [[ "${WAYMARK_TEMPORAL:-dev}" == postgres ]] && bash "$REPO/scripts/temporal-postgres.sh" down
  stop_pidfile redis "$DATA_DIR/redis.pid"
  if [[ -f "$DATA_DIR/postgres.started" ]]; then
    local ver name
    read -r ver name <"$DATA_DIR/postgres.started"
    as_root pg_ctlcluster "$ver" "$name" stop >>"$LOG_DIR/postgres-setup.log" 2>&1 || true
    rm -f "$DATA_DIR/postgres.started"
    log "$(printf '%-20s' postgres) ... stopped (cluster $ver/$name)"
  else
    log "$(printf '%-20s' postgres) ... left alone (not started by this script, or already stopped)"
  fi
}

pg_up() { if [[ -n "${DATABASE_URL:-}" ]]; then pg_isready -q -d "$DATABASE_URL" || pg_ready; else pg_ready; fi; }
redis_up() { [[ -n "${CACHE_URL:-}" && "$(redis-cli -u "$CACHE_URL" ping 2>/dev/null)" == PONG ]] || redis_ping; }

cmd_status() {
  local down=0
  show() { # NAME DETAIL CHECK...
    local name=$1 detail=$2
    shift 2
    if "$@" >/dev/null 2>&1; then log "$(printf '%-20s' "$name") up    $detail"
    else log "$(printf '%-20s' "$name") DOWN  $detail"; down=1; fi
  }
  show postgres "${DATABASE_URL:-127.0.0.1:$PG_PORT}" pg_up
  show redis "${CACHE_URL:-127.0.0.1:$REDIS_PORT}" redis_up
  show temporal "$TEMPORAL_ADDR" temporal_healthy
  show "temporal web ui" "$UI_URL" ui_ready
  show "ses emulator" "$SES_URL" ses_ready
  show "ses events" "$SES_EVENTS_URL" ses_events_ready
  show "test server jars" "$TEST_SERVER_LIB" test_server_fetched
  show chromium "/usr/bin/chromium" command -v chromium
  return $((down * 3))
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  temporal-up) up_temporal ;;
  temporal-down) stop_pidfile temporal "$DATA_DIR/temporal.pid" ;;
  *)
    echo "usage: $0 up|down|status|temporal-up|temporal-down" >&2
    exit 2
    ;;
esac
