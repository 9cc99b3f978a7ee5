"""Counters in the shared cache: fixed-window rate limits and the sign-in lock.

The cache is Redis in production and in the test suite, so every web process counts
together; while Redis is away the counters fail open (config/cache.py).

Sign-in: a wrong password is counted for the account (the username typed) and for the
client address (common/client_ip.py). At LOGIN_FAILURES_PER_ACCOUNT failures of one
account, or LOGIN_FAILURES_PER_CLIENT from one address, further sign-ins are refused with
429 and Retry-After for LOGIN_LOCK_SECONDS, twice as long with each failure after that
(at most LOGIN_LOCK_MAX_SECONDS). A refused sign-in does not check the password, so it
costs no hashing, and it does not count: the delay grows only with wrong passwords tried
after a lock ran out. A successful sign-in clears its account's failures. Failures are
forgotten a day after the first one.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import ngettext

DAY = 24 * 3600
# 2 ** 20 × the first lock is far past any sensible ceiling: the doubling stops there.
MAX_DOUBLINGS = 20


def hit(key: str, limit: int, window: int, now: float | None = None) -> int | None:
    """Count one request against `key`; None while within `limit` per `window` seconds,
    else the seconds until the window ends.

    A fixed window: the first request of a window creates the counter with the window's
    length as its timeout, later ones increment it.
    """
    now = time.time() if now is None else now
    slot = int(now // window)
    cache_key = f"rate:{key}:{slot}"
    if cache.add(cache_key, 1, timeout=window + 1):
        count = 1
    else:
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.add(cache_key, 1, timeout=window + 1)
            count = 1
    if count <= limit:
        return None
    return max(1, int((slot + 1) * window - now + 0.999))


def wait_text(seconds: int) -> str:
    """How long to wait, in the reader's language: "45 seconds", "12 minutes"."""
    if seconds >= 120:
        minutes = (seconds + 59) // 60
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}


def digest(text: str) -> str:
    """A short, fixed-length cache-key part for text a visitor typed."""
    return hashlib.sha256(text.strip().lower().encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Lock:
    seconds: int  # until sign-ins are taken again
    account: bool  # the account is locked (else the client address)


def _subjects(username: str, ip: str | None) -> list[tuple[str, int, bool]]:
    """(cache-key part, failures before a lock, is the account) of one sign-in."""
    subjects = [(f"u:{digest(username)}", settings.LOGIN_FAILURES_PER_ACCOUNT, True)]
    if ip:
        subjects.append((f"a:{ip}", settings.LOGIN_FAILURES_PER_CLIENT, False))
    return subjects


def login_lock(*, username: str, ip: str | None) -> Lock | None:
    """The lock that refuses this sign-in now, if any (the longer one)."""
    now = time.time()
    locks = [
        Lock(math.ceil(until - now), account)
        for subject, _threshold, account in _subjects(username, ip)
        if (until := cache.get(f"login-lock:{subject}")) and until > now
    ]
    return max(locks, key=lambda lock: lock.seconds, default=None)


def login_failed(*, username: str, ip: str | None) -> None:
    """Count a wrong password; lock the account or address at its threshold."""
    now = time.time()
    for subject, threshold, _account in _subjects(username, ip):
        key = f"login-failures:{subject}"
        cache.add(key, 0, timeout=DAY)
        try:
            failures = cache.incr(key)
        except ValueError:  # expired (or the cache is away)
            failures = 1
        if failures >= threshold:
            doublings = min(failures - threshold, MAX_DOUBLINGS)
            seconds = min(
                settings.LOGIN_LOCK_SECONDS * 2**doublings, settings.LOGIN_LOCK_MAX_SECONDS
            )
            cache.set(f"login-lock:{subject}", now + seconds, timeout=math.ceil(seconds) + 1)


def login_succeeded(*, username: str) -> None:
    subject = f"u:{digest(username)}"
    cache.delete_many([f"login-failures:{subject}", f"login-lock:{subject}"])


def password_reset_wait(*, email: str, ip: str | None) -> int | None:
    """Count one password-reset request; the seconds to wait when the address (per hour:
    PASSWORD_RESETS_PER_HOUR) or the client (PASSWORD_RESETS_PER_HOUR_PER_CLIENT) has had
    its share, else None. A request refused for its client does not spend the address's."""
    if ip:
        wait = hit(f"reset:a:{ip}", settings.PASSWORD_RESETS_PER_HOUR_PER_CLIENT, 3600)
        if wait is not None:
            return wait
    return hit(f"reset:e:{digest(email)}", settings.PASSWORD_RESETS_PER_HOUR, 3600)
