"""The owner of a locked account is told, once, with a link that lifts the lock.

When wrong passwords lock an account (common/throttle.py), its owner gets an email through
the outbox (quotes: recorded in the same transaction as the link, so it is never lost,
and sent by the workers; a redelivered task finds it sent). At most one open link per
account at a time: while a link sent earlier is unused and valid, a new lock sends none,
so an attacker who keeps an account locked cannot flood its owner. The link works once,
for ACCOUNT_UNLOCK_LINK_HOURS, and only clears the account's failures and lock: a network
that is locked stays locked.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from common import throttle
from common.site import site_url
from common.tokens import token_digest
from quotes.models import EmailKind, OutboxEmail
from quotes.services.queue import email_once

from .models import AccountUnlock


def _valid_since() -> Any:
    return timezone.now() - timedelta(hours=settings.ACCOUNT_UNLOCK_LINK_HOURS)


def _owner(username: str) -> Any:
    """The active account a typed username names (as the throttle counts it: any case),
    if exactly one, with an email address; None otherwise."""
    user_model = get_user_model()
    found = list(
        user_model.objects.select_for_update()
        .filter(**{f"{user_model.USERNAME_FIELD}__iexact": username.strip(), "is_active": True})
        .exclude(email="")[:2]
    )
    return found[0] if len(found) == 1 else None


@transaction.atomic
def unlock_offer(*, username: str) -> OutboxEmail | None:
    """Email the owner of a just-locked account a one-time unlock link (None: no such
    account, no address, or a link sent earlier is still open)."""
    user = _owner(username)  # its row stays locked: two offers at once make one link
    if user is None:
        return None
    if user.unlocks.filter(used_at__isnull=True, created_at__gte=_valid_since()).exists():
        return None
    token = secrets.token_urlsafe(32)
    unlock = AccountUnlock.objects.create(user=user, token_sha256=token_digest(token))
    url = site_url(reverse("account_unlock", kwargs={"token": token}))
    with translation.override(settings.LANGUAGE_CODE):
        subject = _("Sign-ins to your account were paused")
        body = render_to_string(
            "accounts/email/unlock.txt",
            {"url": url, "hours": settings.ACCOUNT_UNLOCK_LINK_HOURS},
        )
    key = f"account-unlock:{unlock.pk}"
    email_once(key=key, kind=EmailKind.UNLOCK, to=user.email, subject=subject, body=body)
    return OutboxEmail.objects.get(idempotency_key=key)


def unlock_is_open(*, token: str) -> bool:
    """Whether the link is unused and still valid (the page asks before it is used)."""
    return AccountUnlock.objects.filter(
        token_sha256=token_digest(token), used_at__isnull=True, created_at__gte=_valid_since()
    ).exists()


@transaction.atomic
def unlock_redeem(*, token: str) -> bool:
    """Use the link: the account's failures and lock are cleared. False when the link is
    unknown, used or expired."""
    unlock = (
        AccountUnlock.objects.select_for_update()
        .select_related("user")
        .filter(
            token_sha256=token_digest(token),
            used_at__isnull=True,
            created_at__gte=_valid_since(),
        )
        .first()
    )
    if unlock is None:
        return False
    unlock.used_at = timezone.now()
    unlock.save(update_fields=["used_at"])
    throttle.login_succeeded(username=unlock.user.get_username())
    return True
