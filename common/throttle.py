"""Counters for rate limits and the sign-in lock: in the shared cache, or in this process
while the shared cache is away.

The cache is Redis in production and in the test suite, so every web process counts
together. While Redis cannot be reached (config/cache.py answers as an empty cache) the
counters move to a store of this process (`counters`): each web process then counts on its
own, so with N processes a client may get up to N times its share until Redis is back.
Weaker, but never open: a limit still refuses, a lock still holds in the process that set it.

Sign-in (every door: the site's sign-in, /admin/login/, password reset, API token
creation; accounts/doors.py): a wrong password is counted for the account (the username
typed) and for the client's network (an IPv4 /24 or IPv6 /64, common/client_ip.py). At
LOGIN_FAILURES_PER_ACCOUNT failures of one account, or LOGIN_FAILURES_PER_NETWORK from one
network, further sign-ins are refused with 429 and Retry-After for LOGIN_LOCK_SECONDS,
twice as long with each failure after that (at most LOGIN_LOCK_MAX_SECONDS). A refused
sign-in does not check the password, so it costs no hashing, and it does not count: the
delay grows only with wrong passwords tried after a lock ran out. A successful sign-in, or
the owner's unlock link, clears its account's failures. Failures are forgotten a day after
the first one.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.utils.translation import ngettext

from common.client_ip import client_network

DAY = 24 * 3600
# 2 ** 20 × the first lock is far past any sensible ceiling: the doubling stops there.
MAX_DOUBLINGS = 20

# This process's own counters while the shared cache is away. Bounded: past the limit the
# oldest third goes (Django's local-memory cache), which forgets some counters under a
# flood of distinct keys rather than growing without end.
LOCAL_COUNTERS = LocMemCache("throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 50_000}})


def _shared_state() -> tuple[bool, int]:
    """(whether the shared cache is taken to be up, how many of its calls failed so far):
    config.cache.ResilientRedisCache keeps both; other caches never fail."""
    return bool(getattr(cache, "available", True)), int(getattr(cache, "failures", 0))


def counters[T](operation: Callable[[Any], T]) -> T:
    """Run `operation` on the shared cache; again on this process's store when the shared
    cache is away or a call of it failed meanwhile (its answers were an empty cache's)."""
    up, failures = _shared_state()
    if up:
        result = operation(cache)
        if _shared_state() == (True, failures):
            return result
    return operation(LOCAL_COUNTERS)


def _count_in(store: BaseCache, cache_key: str, timeout: int) -> int:
    """Add one to a counter that lives `timeout` seconds from its first count."""
    if store.add(cache_key, 1, timeout=timeout):
        return 1
    try:
        return int(store.incr(cache_key))
    except ValueError:  # expired between add and incr
        store.add(cache_key, 1, timeout=timeout)
        return 1


def count(key: str, window: int, now: float | None = None) -> tuple[int, int]:
    """Count one request against `key` in a fixed window of `window` seconds: (the count
    in this window so far, this one included; seconds until the window ends)."""
    now = time.time() if now is None else now
    slot = int(now // window)
    cache_key = f"rate:{key}:{slot}"
    counted = counters(lambda store: _count_in(store, cache_key, window + 1))
    return counted, max(1, int((slot + 1) * window - now + 0.999))


def peek(key: str, window: int, now: float | None = None) -> int:
    """The count of `key` in the current window, without counting."""
    now = time.time() if now is None else now
    cache_key = f"rate:{key}:{int(now // window)}"
    return int(counters(lambda store: store.get(cache_key, 0)))


def hit(key: str, limit: int, window: int, now: float | None = None) -> int | None:
    """Count one request against `key`; None while within `limit` per `window` seconds,
    else the seconds until the window ends."""
    counted, wait = count(key, window, now)
    return None if counted <= limit else wait


def spend_once(key: str, seconds: int) -> bool:
    """True the first time `key` is spent within `seconds`, False after (a one-time use)."""
    return bool(counters(lambda store: store.add(f"once:{key}", 1, timeout=seconds)))


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
    account: bool  # the account is locked (else the client's network)


def _subjects(username: str, ip: str | None) -> list[tuple[str, int, bool]]:
    """(cache-key part, failures before a lock, is the account) of one sign-in; without a
    username (a door that names no account) the network only."""
    subjects = []
    if username.strip():
        subjects.append((f"u:{digest(username)}", settings.LOGIN_FAILURES_PER_ACCOUNT, True))
    if ip:
        subjects.append((f"n:{client_network(ip)}", settings.LOGIN_FAILURES_PER_NETWORK, False))
    return subjects


def login_lock(*, username: str, ip: str | None) -> Lock | None:
    """The lock that refuses this sign-in now, if any (the longer one)."""
    now = time.time()
    keys = [f"login-lock:{subject}" for subject, _threshold, _account in _subjects(username, ip)]
    found = counters(lambda store: store.get_many(keys))
    locks = [
        Lock(math.ceil(until - now), account)
        for (subject, _threshold, account) in _subjects(username, ip)
        if (until := found.get(f"login-lock:{subject}")) and until > now
    ]
    return max(locks, key=lambda lock: lock.seconds, default=None)


def _fail(store: BaseCache, subject: str, threshold: int, now: float) -> bool:
    """Count a failure of one subject; True when this failure locked it for the first
    time since its failures were last cleared."""
    key = f"login-failures:{subject}"
    store.add(key, 0, timeout=DAY)
    try:
        failures = int(store.incr(key))
    except ValueError:  # expired between add and incr
        store.add(key, 1, timeout=DAY)
        failures = 1
    if failures < threshold:
        return False
    doublings = min(failures - threshold, MAX_DOUBLINGS)
    seconds = min(settings.LOGIN_LOCK_SECONDS * 2**doublings, settings.LOGIN_LOCK_MAX_SECONDS)
    store.set(f"login-lock:{subject}", now + seconds, timeout=math.ceil(seconds) + 1)
    return failures == threshold


def login_failed(*, username: str, ip: str | None) -> bool:
    """Count a wrong password; lock the account or network at its threshold. True when
    this failure locked the account (the first lock since its failures were cleared: the
    moment to tell the account's owner)."""
    now = time.time()
    account_locked = False
    for subject, threshold, account in _subjects(username, ip):

        def fail(store: BaseCache, subject: str = subject, threshold: int = threshold) -> bool:
            return _fail(store, subject, threshold, now)

        locked = counters(fail)
        account_locked = account_locked or (locked and account)
    return account_locked


def login_succeeded(*, username: str) -> None:
    """The account's failures and lock are cleared (a sign-in, or the owner's unlock)."""
    subject = f"u:{digest(username)}"
    keys = [f"login-failures:{subject}", f"login-lock:{subject}"]
    counters(lambda store: store.delete_many(keys))


def password_reset_wait(*, email: str, ip: str | None) -> int | None:
    """Count one password-reset request; the seconds to wait when the address (per hour:
    PASSWORD_RESETS_PER_HOUR) or the client's network (PASSWORD_RESETS_PER_HOUR_PER_NETWORK)
    has had its share, else None. A request refused for its network does not spend the
    address's."""
    if ip:
        wait = hit(
            f"reset:n:{client_network(ip)}", settings.PASSWORD_RESETS_PER_HOUR_PER_NETWORK, 3600
        )
        if wait is not None:
            return wait
    return hit(f"reset:e:{digest(email)}", settings.PASSWORD_RESETS_PER_HOUR, 3600)
