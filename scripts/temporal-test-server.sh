#!/usr/bin/env bash
# Temporal's Java time-skipping test server (Maven io.temporal:temporal-test-server), run from
# jars cached in $WAYMARK_CACHE/temporal-test-server/lib (`bash scripts/stack.sh up` fetches them).
#
# Meant as the `existing-path` executable of @temporalio/testing:
#   TestWorkflowEnvironment.createTimeSkipping({
#     server: { executable: { type: 'existing-path', path: '<repo>/scripts/temporal-test-server.sh' } } })
# The SDK (Rust core, ephemeral_server TestServerConfig) runs it as `<exe> <port> [extraArgs...]`
# (extraArgs default to none) and gives up if 127.0.0.1:<port> does not answer gRPC within 5s.
# The Java main (io.temporal.testserver.TestServer) accepts exactly `<port> [--enable-time-skipping]`
# and silently exits on anything else, so this wrapper keeps the port and that flag and drops the rest.
#
# Usage: temporal-test-server.sh <port> [--enable-time-skipping]   (also --port N / --port=N)
#        temporal-test-server.sh --install   fetch the jars with Maven (once) and build the JVM
#                                            class-data archive (startup ~2.2s -> ~0.8s)
#        temporal-test-server.sh --check     exit 0 if the jars are in place
# Env:   JAVA (default: java on PATH), TEMPORAL_TEST_SERVER_JAVA_OPTS (extra JVM options, after ours)
set -euo pipefail

WAYMARK_CACHE="${WAYMARK_CACHE:-$HOME/.cache/waymark}"
VERSION="${TEST_SERVER_VERSION:-1.38.0}"
HOME_DIR="$WAYMARK_CACHE/temporal-test-server"
LIB="$HOME_DIR/lib"
MAIN=io.temporal.testserver.TestServer
me="temporal-test-server.sh"

jars_present() { [[ -f "$LIB/temporal-test-server-$VERSION.jar" && -f "$LIB/slf4j-nop-1.7.36.jar" ]]; }

fetch_jars() {
  jars_present && return 0
  command -v mvn >/dev/null || { echo "$me: maven (mvn) is needed to fetch the jars" >&2; return 1; }
  local tmp
  tmp=$(mktemp -d)
  # slf4j-nop: without a binding slf4j prints a 3-line warning on every start
  cat >"$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.waymark</groupId><artifactId>temporal-test-server-fetch</artifactId><version>0</version>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
  rm -rf "$LIB.partial"
  (cd "$tmp" && mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$WAYMARK_CACHE/m2" dependency:copy-dependencies \
    -DoutputDirectory="$LIB.partial" -DincludeScope=runtime) || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp" "$LIB"
  mv "$LIB.partial" "$LIB"
  echo "$me: fetched $(find "$LIB" -name '*.jar' | wc -l) jars into $LIB"
}

case "${1:-}" in
  --check) jars_present; exit ;;
  --install) fetch_jars ;;
esac

JAVA="${JAVA:-$(command -v java || true)}"
[[ -n "$JAVA" ]] || { echo "$me: java not found; run: bash scripts/stack.sh up" >&2; exit 1; }
jars_present || { echo "$me: no jars in $LIB; run: bash scripts/stack.sh up" >&2; exit 1; }

# One archive per (JVM build, jar set): a stale archive would only be ignored, but costs the speedup.
java_real=$(readlink -f "$JAVA")
cds_key=$(printf '%s %s %s' "$java_real" "$(stat -c %Y "$java_real")" "$(stat -c %Y "$LIB")" | cksum | cut -d' ' -f1)
CDS_ARCHIVE="$HOME_DIR/cds-$cds_key.jsa"

build_cds_archive() {
  [[ -s "$CDS_ARCHIVE" ]] && return 0
  local port pid tmp="$CDS_ARCHIVE.tmp.$$" i
  for ((i = 0; i < 50; i++)); do # a free port, by trial
    port=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  "$JAVA" -XX:ArchiveClassesAtExit="$tmp" -Xlog:cds=off -Xlog:cds+dynamic=off \
    -cp "$LIB/*" "$MAIN" "$port" --enable-time-skipping &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "$me: test server exited while building the archive" >&2; return 1; }
    sleep 0.1
  done
  sleep 2           # let startup-time class loading settle
  kill -TERM "$pid" # the JVM writes the archive in its shutdown path
  wait "$pid" 2>/dev/null || true
  [[ -s "$tmp" ]] || { rm -f "$tmp"; echo "$me: JVM wrote no class-data archive" >&2; return 1; }
  mv -f "$tmp" "$CDS_ARCHIVE"
  find "$HOME_DIR" -maxdepth 1 -name 'cds-*.jsa' ! -path "$CDS_ARCHIVE" -delete # stale JVM/jar sets
  echo "$me: wrote class-data archive $CDS_ARCHIVE"
}
[[ "${1:-}" == --install ]] && { build_cds_archive; exit; }

port=""
time_skipping=()
while (($#)); do
  case "$1" in
    --enable-time-skipping) time_skipping=(--enable-time-skipping) ;;
    --port) port="${2:-}"; shift ;;
    --port=*) port="${1#--port=}" ;;
    *)
      if [[ -z "$port" && "$1" =~ ^[0-9]+$ ]]; then
        port="$1"
      else
        echo "$me: ignoring argument the Java test server does not support: '$1'" >&2
      fi
      ;;
  esac
  shift
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "usage: $me <port> [--enable-time-skipping]" >&2; exit 2; }

# C1-only JIT: about half the startup CPU, which matters when several test files start
# servers at once on a small machine; peak speed hardly matters for a test run.
jvm_opts=(-XX:TieredStopAtLevel=1)
[[ -s "$CDS_ARCHIVE" ]] && jvm_opts+=(-XX:SharedArchiveFile="$CDS_ARCHIVE" -Xlog:cds=off -Xlog:cds+dynamic=off)
# shellcheck disable=SC2206 # word-splitting of user-supplied JVM options is intended
jvm_opts+=(${TEMPORAL_TEST_SERVER_JAVA_OPTS:-})

exec "$JAVA" "${jvm_opts[@]}" -cp "$LIB/*" "$MAIN" "$port" "${time_skipping[@]}"
