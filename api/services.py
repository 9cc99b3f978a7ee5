"""Personal API tokens: create (shown once), revoke, authenticate."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from common.tokens import token_digest

from .models import ApiToken, Scope

TOKEN_PREFIX = "gtco_"
# last_used_at is written at most this often per token (one UPDATE, not one per request).
TOUCH_EVERY = timedelta(minutes=5)


def token_create(*, user: Any, name: str, scope: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; the raw token is returned once and not kept."""
    if scope not in Scope.values:
        raise ValueError(f"unknown scope {scope!r}")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name.strip()[:100] or "API token",
        prefix=raw[: len(TOKEN_PREFIX) + 6],
        token_sha256=token_digest(raw),
        scope=scope,
    )
    return token, raw


def token_revoke(*, user: Any, public_id: Any) -> bool:
    """Revoke one of the user's own tokens; False when there is no such live token."""
    updated = ApiToken.objects.filter(
        user=user, public_id=public_id, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    return updated == 1


def token_list(*, user: Any) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=user, revoked_at__isnull=True))


def token_authenticate(raw: str) -> ApiToken | None:
    """The live token with this value and an active user, or None."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(token_sha256=token_digest(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def bearer_token(request: HttpRequest) -> ApiToken | None:
    """The live token the request sends as ``Authorization: Bearer <token>``, or None (no
    such header, or a token that is made up, revoked or its user's inactive)."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _sep, raw = header.partition(" ")
    if scheme.lower() == "bearer" and raw.strip():
        return token_authenticate(raw.strip())
    return None
