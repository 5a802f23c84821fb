# shellcheck shell=bash
# Development defaults for the local stack. Sourced by start.sh; a .env file overrides them.
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
mkdir -p "$REPO/.data"
# AUTH_SECRET is generated once per checkout and kept in .data so sessions and tokens survive restarts.
if [[ ! -s "$REPO/.data/auth-secret" ]]; then
  head -c 48 /dev/urandom | base64 | tr -d '\n/+=' >"$REPO/.data/auth-secret"
fi
# So is the key that seals Temporal's payloads and stored secrets (docs/security.md, "What is kept secret, and where"):
# a run started before a restart must still be readable after it.
if [[ ! -s "$REPO/.data/encryption-key" ]]; then
  echo "dev-$(date +%Y%m%d):$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$REPO/.data/encryption-key"
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
: "${ENCRYPTION_KEYS:=$(cat "$REPO/.data/encryption-key")}"
: "${EMAIL_PROVIDER_API_KEY:=local:local}"
: "${SES_EVENTS_PORT:=8006}"
# SES through the event publisher in front of the emulator (scripts/ses-events.ts, started by
# scripts/stack.sh): its configuration set's events reach the webhook as Amazon SNS posts them,
# signed with a development key the api trusts only outside production
: "${SES_ENDPOINT:=http://127.0.0.1:${SES_EVENTS_PORT}}"
if [[ "$SES_ENDPOINT" == "http://127.0.0.1:${SES_EVENTS_PORT}" ]]; then
  : "${SES_CONFIGURATION_SET:=waymark-local}"
  : "${SES_EVENT_PUBLISHING:=true}"
  : "${EMAIL_PROVIDER_WEBHOOK_SECRET:=local-sns-webhook}"
  : "${EMAIL_PROVIDER_SNS_DEV_CERT_URL:=http://127.0.0.1:${SES_EVENTS_PORT}/}"
fi
: "${TEMPORAL_ADDRESS:=127.0.0.1:${TEMPORAL_PORT:-7233}}"
set +a
