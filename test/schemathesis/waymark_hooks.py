"""Schemathesis hooks for the contract run (apps/api/src/openapi-contract.int.test.ts).

JSON Schema states every rule of the API except the few that depend on something outside the
request: the server clock and the content of a text field. The OpenAPI descriptions state them
in prose; these hooks keep *positive* (schema-valid) cases inside them, so "valid by the document"
also means "accepted by the server". Negative cases are never touched. See docs/api-contract.md.
"""

import os
from datetime import datetime, timedelta, timezone

import schemathesis

DAY = timedelta(days=1)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _parse(value):
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (TypeError, ValueError, AttributeError):
        return None
    return parsed if parsed.tzinfo is not None else None


def _is_positive(case):
    # stateful steps carry no generation metadata; they are built from schema-valid data
    meta = getattr(case, "meta", None)
    return meta is None or meta.generation.mode.is_positive


def _clock_and_content_rules(case):
    path, method = case.operation.path, case.method.upper()
    body = case.body if isinstance(case.body, dict) else None
    now = datetime.now(timezone.utc)

    # POST /v1/events: `timestamp` between 1970-01-01 and 24 h after the server time
    if (method, path) == ("POST", "/v1/events") and body is not None and "timestamp" in body:
        parsed = _parse(body["timestamp"])
        if parsed is not None and not (EPOCH <= parsed <= now + DAY - timedelta(minutes=5)):
            body["timestamp"] = now.isoformat().replace("+00:00", "Z")

    # POST /v1/admin/api-keys: `expiresAt` in the future
    if (method, path) == ("POST", "/v1/admin/api-keys") and body is not None and "expiresAt" in body:
        parsed = _parse(body["expiresAt"])
        if parsed is not None and parsed <= now + timedelta(minutes=5):
            body["expiresAt"] = (now + DAY).isoformat().replace("+00:00", "Z")

    # POST /v1/admin/contacts/import: `data` is a CSV or JSON document with externalId rows
    if (method, path) == ("POST", "/v1/admin/contacts/import") and body is not None:
        if body.get("format") == "csv":
            body["data"] = "externalId,email\nst-import-1,st-import-1@example.com\n"
        elif body.get("format") == "json":
            body["data"] = '[{"externalId": "st-import-2", "email": "st-import-2@example.com"}]'

    # the public pages: `token` is a signed token the server issued (the test signs one)
    token = os.environ.get("WAYMARK_CONTRACT_PAGE_TOKEN")
    if token and path in ("/v1/email/unsubscribe", "/v1/email/preferences"):
        case.query = {**(case.query or {}), "token": token}


def _stored_state_and_cross_field_rules(case):
    """Rules that depend on stored state or compare two fields, stated in the descriptions."""
    path, method = case.operation.path, case.method.upper()
    body = case.body if isinstance(case.body, dict) else None

    # PATCH /v1/admin/alerts/rules/{id}: a threshold alone must suit the stored type (a ratio
    # suits every type)
    if (method, path) == ("PATCH", "/v1/admin/alerts/rules/{id}") and body is not None:
        if "type" not in body and isinstance(body.get("threshold"), (int, float)) and body["threshold"] > 1:
            body["threshold"] = 1

    # GET /v1/admin/metrics: the window [from, to) must not be empty
    if (method, path) == ("GET", "/v1/admin/metrics") and case.query:
        start = _parse(case.query.get("from"))
        end = _parse(case.query.get("to")) or datetime.now(timezone.utc)
        if start is not None and start >= end:
            case.query = {**case.query, "from": (end - DAY).isoformat().replace("+00:00", "Z")}


@schemathesis.hook
def map_case(context, case):
    if _is_positive(case):
        _clock_and_content_rules(case)
        _stored_state_and_cross_field_rules(case)
    return case
