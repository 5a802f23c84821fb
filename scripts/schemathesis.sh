#!/usr/bin/env bash
# Runs schemathesis (PyPI, pinned 4.x) from a virtualenv cached under ~/.cache/waymark, installing
# it on first use. All arguments go to `schemathesis`, e.g.
#   bash scripts/schemathesis.sh run http://127.0.0.1:3002/openapi.json --checks all -H "Authorization: Bearer $KEY"
# docs/api-contract.md explains the run that `npm test` makes.
set -euo pipefail
VERSION="4.32.5"
VENV="${WAYMARK_CACHE:-$HOME/.cache/waymark}/schemathesis-$VERSION"
# the marker is written last, so an interrupted install is redone rather than half-used
if [ ! -f "$VENV/.installed" ]; then
  echo "[schemathesis] installing schemathesis $VERSION into $VENV ..." >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2
  touch "$VENV/.installed"
fi
exec "$VENV/bin/schemathesis" "$@"
