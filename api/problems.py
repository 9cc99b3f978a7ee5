"""Errors as RFC 9457 problem details (``application/problem+json``)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.http import HttpResponse, JsonResponse

PROBLEM_CONTENT_TYPE = "application/problem+json"


def problem(
    status: int,
    detail: str,
    *,
    field: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> HttpResponse:
    """A problem-details response; ``field`` names the input at fault (dotted path)."""
    body: dict[str, Any] = {
        "type": "about:blank",
        # With type about:blank the title is the HTTP status phrase (RFC 9457, 4.2.1).
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if field is not None:
        body["field"] = field
    if errors:
        body["errors"] = errors
    response = JsonResponse(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def field_path(location: Any) -> str:
    """A pydantic/ninja error location as a dotted path: ("body", "payload", "a", 0) → a[0]."""
    parts = [p for p in location if p not in ("body", "query", "path", "payload", "header")]
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path
