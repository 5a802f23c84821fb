# shellcheck shell=bash
# Shared helpers for scripts/*.sh. Source it; it does not run anything by itself.
#
#   REPO            repository root (derived from this file's location)
#   DATA_DIR        $REPO/.data: all local state, logs and pid files (gitignored)
#   LOG_DIR         $DATA_DIR/logs
#   WAYMARK_CACHE   per-user cache for slow-to-build tools (default ~/.cache/waymark)
#   NODE_MAJOR      the Node.js major version the project runs on (.nvmrc); use_project_node puts it on PATH

REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
DATA_DIR="${DATA_DIR:-$REPO/.data}"
LOG_DIR="$DATA_DIR/logs"
WAYMARK_CACHE="${WAYMARK_CACHE:-$HOME/.cache/waymark}"
NODE_MAJOR="$(tr -dc '0-9' <"$REPO/.nvmrc")"
export REPO DATA_DIR LOG_DIR WAYMARK_CACHE NODE_MAJOR

# ---------------------------------------------------------------- output -----

log() { printf '[stack] %s\n' "$*"; }
warn() { printf '[stack] WARNING: %s\n' "$*" >&2; }
die() {
  printf '[stack] ERROR: %s\n' "$*" >&2
  exit 1
}

# step_ok NAME DETAIL START_EPOCH   ->  "[stack] NAME ... ok (DETAIL, 3s)"
step_ok() {
  local secs=$(($(date +%s) - $3))
  log "$(printf '%-20s' "$1") ... ok ($2, ${secs}s)"
}

# Last lines of a log file, indented, for error messages.
log_tail() {
  [[ -f "$1" ]] || return 0
  echo "----- last lines of $1 -----" >&2
  tail -n "${2:-25}" "$1" | sed 's/^/    /' >&2
  echo "-----" >&2
}

# ------------------------------------------------------------------- node ---

# use_project_node: makes `node` (and so npm, npx and everything they start) Node $NODE_MAJOR for
# the rest of the calling script and its children. The machine's node when it is that major;
# otherwise the npm registry's `node` package, whose install fetches the matching
# node-<os>-<arch> binary package from the same registry (nothing is downloaded from elsewhere),
# installed once into $WAYMARK_CACHE/node/$NODE_MAJOR. Delete that folder to take a newer release.
use_project_node() {
  local major dir="$WAYMARK_CACHE/node/$NODE_MAJOR"
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)
  [[ $major == "$NODE_MAJOR" ]] && return 0
  if [[ ! -x $dir/bin/node ]]; then
    command -v npm >/dev/null || die "Node $NODE_MAJOR is needed and npm is missing to fetch it: install Node $NODE_MAJOR (see .nvmrc)"
    mkdir -p "$LOG_DIR"
    log "node ${major:-none} found, the project runs on Node $NODE_MAJOR: installing node@$NODE_MAJOR from the npm registry into ${dir/#"$HOME"/\~} ..."
    # a folder of this process's own, moved into place at the end: two scripts starting at once
    # (npm start and npm test on a fresh machine) never see each other's half-installed copy
    local partial="$dir.partial.$$"
    rm -rf "$partial"
    mkdir -p "$partial/bin"
    # the package's preinstall runs under the old node and hard-links the binary to node_modules/node/bin
    if ! (cd "$partial" && npm install --prefix . --no-save --no-package-lock --no-audit --no-fund \
      --loglevel=error "node@$NODE_MAJOR") >>"$LOG_DIR/node-install.log" 2>&1; then
      log_tail "$LOG_DIR/node-install.log"
      rm -rf "$partial"
      die "installing node@$NODE_MAJOR from the npm registry failed; see $LOG_DIR/node-install.log"
    fi
    ln -s ../node_modules/node/bin/node "$partial/bin/node"
    "$partial/bin/node" -e "process.exit(process.versions.node.startsWith('$NODE_MAJOR.') ? 0 : 1)" ||
      die "the installed node@$NODE_MAJOR does not run; see $LOG_DIR/node-install.log"
    # another script may have finished first: keep its copy
    [[ -x $dir/bin/node ]] || { rm -rf "$dir" && mv "$partial" "$dir"; }
    rm -rf "$partial"
  fi
  export PATH="$dir/bin:$PATH"
}

# ------------------------------------------------------------- networking ----

# port_open HOST PORT: true if something accepts TCP connections there.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# wait_until NAME TIMEOUT_SECS LOGFILE PIDFILE -- CMD...
# Polls CMD until it succeeds. Fails with a clear error (naming the service and
# its log) on timeout or when the process in PIDFILE (if given) died meanwhile.
wait_until() {
  local name=$1 timeout=$2 logfile=$3 pidfile=$4
  shift 5
  local deadline=$(($(date +%s) + timeout))
  until "$@" >/dev/null 2>&1; do
    if [[ -n "$pidfile" ]] && ! pid_alive "$pidfile"; then
      log_tail "$logfile"
      die "$name exited during startup; see its log: $logfile"
    fi
    if (($(date +%s) >= deadline)); then
      log_tail "$logfile"
      die "$name did not become ready within ${timeout}s; see its log: $logfile"
    fi
    sleep 0.5
  done
}

# wait_for_port NAME HOST PORT TIMEOUT LOGFILE [PIDFILE]
wait_for_port() {
  wait_until "$1" "$4" "$5" "${6:-}" -- port_open "$2" "$3"
}

# --------------------------------------------------------------- processes ---

pid_of() { [[ -f "$1" ]] && tr -dc '0-9' <"$1"; }

# pid_alive PIDFILE: the pid recorded there is a live process.
pid_alive() {
  local pid
  pid=$(pid_of "$1") || return 1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null
}

# start_bg NAME PIDFILE LOGFILE CMD...: run CMD detached (own session, nohup),
# stdout+stderr appended to LOGFILE, pid written to PIDFILE.
start_bg() {
  local pidfile=$2 logfile=$3
  shift 3
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")"
  printf '\n==== %s: %s\n' "$(date -Is)" "$*" >>"$logfile"
  setsid nohup "$@" >>"$logfile" 2>&1 </dev/null &
  echo $! >"$pidfile"
}

# stop_pidfile NAME PIDFILE: TERM, wait up to 15s, then KILL. Removes PIDFILE.
stop_pidfile() {
  local name=$1 pidfile=$2 pid i
  if ! pid_alive "$pidfile"; then
    rm -f "$pidfile"
    log "$(printf '%-20s' "$name") ... not running (no live pid in ${pidfile#"$REPO"/})"
    return 0
  fi
  pid=$(pid_of "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    warn "$name (pid $pid) ignored SIGTERM for 15s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "$(printf '%-20s' "$name") ... stopped (pid $pid)"
}

# ---------------------------------------------------------------------- apt --

# Root or passwordless sudo for system package installs.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi
}

apt_busy() {
  pgrep -x apt-get >/dev/null || pgrep -x apt >/dev/null || pgrep -x dpkg >/dev/null ||
    pgrep -x unattended-upgr >/dev/null
}

# apt_get ARGS...: apt-get that waits (up to 20 min) for a dpkg/apt lock held by
# another process instead of failing, and retries a few times on lock errors.
apt_get() {
  local attempt
  for attempt in 1 2 3 4 5; do
    if apt_busy; then
      log "waiting for another apt/dpkg process to finish (lock held) ..."
      while apt_busy; do sleep 3; done
    fi
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get -q \
      -o DPkg::Lock::Timeout=1200 -o Acquire::Retries=3 "$@"; then
      return 0
    fi
    warn "apt-get $* failed (attempt $attempt); retrying in 5s"
    sleep 5
  done
  return 1
}

APT_UPDATED=0
# apt_install PKG...: installs the packages not yet installed. Runs
# `apt-get update` once per run if a package is unknown to apt's lists.
apt_install() {
  local pkg missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  for pkg in "${missing[@]}"; do
    if [[ $APT_UPDATED == 0 ]] && ! apt-cache show "$pkg" >/dev/null 2>&1; then
      log "apt-get update (package lists do not know $pkg yet) ..."
      apt_get update >>"$LOG_DIR/apt.log" 2>&1 || die "apt-get update failed; see $LOG_DIR/apt.log"
      APT_UPDATED=1
    fi
  done
  log "apt-get install ${missing[*]} (log: ${LOG_DIR#"$REPO"/}/apt.log) ..."
  if ! apt_get install -y --no-install-recommends "${missing[@]}" >>"$LOG_DIR/apt.log" 2>&1; then
    if [[ $APT_UPDATED == 0 ]]; then # stale lists can 404: refresh once, retry
      apt_get update >>"$LOG_DIR/apt.log" 2>&1 || true
      APT_UPDATED=1
      apt_get install -y --no-install-recommends "${missing[@]}" >>"$LOG_DIR/apt.log" 2>&1 && return 0
    fi
    log_tail "$LOG_DIR/apt.log"
    die "apt-get install ${missing[*]} failed; see $LOG_DIR/apt.log"
  fi
}
