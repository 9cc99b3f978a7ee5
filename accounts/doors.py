"""One throttle for every sign-in door (common/throttle.py).

The doors: the site's sign-in (/accounts/login/), Django admin's (/admin/login/), password
reset, and the creation of API tokens (a signed-in user minting a credential). Each asks
`refusal` before it does anything costly; a refused request answers 429 with Retry-After
and checks no password.

Failures are counted where every password check passes: django.contrib.auth's
authenticate() sends `user_login_failed` and `user_logged_in` for any door that checks a
password, so a door added later counts without code of its own. When a failure locks an
account, its owner is emailed a one-time unlock link (accounts/services.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.http import HttpRequest
from django.utils.translation import gettext as _

from common import throttle
from common.client_ip import client_ip

from . import services


@dataclass(frozen=True)
class Refusal:
    message: str  # for the visitor, in the active language
    seconds: int  # Retry-After


def refusal(request: HttpRequest, *, username: str) -> Refusal | None:
    """Why this door refuses now: the account (when the door names one) or the client's
    network is locked. None: go ahead."""
    lock = throttle.login_lock(username=username, ip=client_ip(request))
    if lock is None:
        return None
    if lock.account:
        message = _("Too many failed sign-ins for this account; try again in %(wait)s.")
    else:
        message = _("Too many failed sign-ins from your network; try again in %(wait)s.")
    return Refusal(message % {"wait": throttle.wait_text(lock.seconds)}, lock.seconds)


def reset_refusal(request: HttpRequest, *, email: str) -> Refusal | None:
    """Count one password-reset request; a Refusal once the address or the network has
    had its hourly share (common/throttle.py: password_reset_wait)."""
    wait = throttle.password_reset_wait(email=email, ip=client_ip(request))
    if wait is None:
        return None
    message = _("Too many password-reset requests; try again in %(wait)s.")
    return Refusal(message % {"wait": throttle.wait_text(wait)}, wait)


def _typed_username(credentials: dict[str, Any]) -> str:
    field = get_user_model().USERNAME_FIELD
    return str(credentials.get(field) or credentials.get("username") or "")


def on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    username = _typed_username(credentials)
    ip = client_ip(request) if request is not None else None
    if throttle.login_failed(username=username, ip=ip):
        services.unlock_offer(username=username)


def on_logged_in(sender: Any, user: Any, **_: Any) -> None:
    throttle.login_succeeded(username=user.get_username())


def connect() -> None:
    user_login_failed.connect(on_login_failed, dispatch_uid="accounts.doors.failed")
    user_logged_in.connect(on_logged_in, dispatch_uid="accounts.doors.logged_in")
