# shellcheck shell=bash
# Development defaults for the local stack. Sourced by start.sh; a .env file overrides them.
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
mkdir -p "$REPO/.data"
# AUTH_SECRET is generated once per checkout and kept in .data so sessions and tokens survive restarts.
if [[ ! -s "$REPO/.data/auth-secret" ]]; then
  head -c 48 /dev/urandom | base64 | tr -d '\n/+=' >"$REPO/.data/auth-secret"
fi
set -a
if [[ -f "$REPO/.env" ]]; then
  # shellcheck disable=SC1091
  source "$REPO/.env"
fi
: "${NODE_ENV:=development}"
: "${PORT:=3002}"
: "${LOG_FORMAT:=pretty}"
: "${LOG_LEVEL:=http}"
: "${DATABASE_URL:=postgres://waymark:waymark@127.0.0.1:5432/waymark}"
: "${CACHE_URL:=redis://127.0.0.1:6379/0}"
: "${AUTH_SECRET:=$(cat "$REPO/.data/auth-secret")}"
: "${EMAIL_PROVIDER_API_KEY:=local:local}"
: "${SES_ENDPOINT:=http://127.0.0.1:${SES_PORT:-8005}}"
: "${TEMPORAL_ADDRESS:=127.0.0.1:${TEMPORAL_PORT:-7233}}"
set +a
