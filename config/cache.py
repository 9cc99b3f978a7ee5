"""The Redis cache, degraded instead of failing while Redis cannot be reached.

Everything the cache holds can be worked out again or done without: rendered calculator
pages, the catalog's generation number, the deal analysis of a draft, rate-limit counters.
With Django's RedisCache every one of those calls raised ConnectionError when Redis was
away, so every calculator page, every /api/v1/ URL and the draft quote pages answered 500.
`ResilientRedisCache` answers as an empty cache instead: reads miss, writes are dropped,
`add` reports the key as added and `incr` as missing, with a logged warning. Rate limits
and the sign-in lock must not open with it: common/throttle.py sees the failure (the
backend's `failures` count moves, `available` turns False) and counts in a store of its
own process meanwhile (weaker across processes, never open).

After a failure the backend does not try Redis again for CACHE_RETRY_SECONDS (default 5),
so a Redis that hangs costs one request per period its socket timeout (OPTIONS
`socket_timeout`, `socket_connect_timeout`; 0.5 s in the settings), not every request.
/healthz reports the cache's state (config/health.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)
T = TypeVar("T")


class ResilientRedisCache(RedisCache):
    """RedisCache that behaves as an empty cache while its Redis is unreachable."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._down_until = 0.0
        self.failures = 0  # calls that found Redis away, since this process started

    @property
    def available(self) -> bool:
        """False while a recent failure holds the backend off Redis."""
        return time.monotonic() >= self._down_until

    def _try(self, operation: str, call: Callable[[], T], fallback: T) -> T:
        if not self.available:
            return fallback
        try:
            return call()
        except redis.RedisError as exc:
            self.failures += 1
            retry = float(getattr(settings, "CACHE_RETRY_SECONDS", 5))
            self._down_until = time.monotonic() + retry
            logger.warning(
                "cache unavailable (%s on %s: %s): serving without it for %.0f s",
                type(exc).__name__,
                operation,
                exc,
                retry,
            )
            return fallback

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._try("add", lambda: RedisCache.add(self, key, value, timeout, version), True)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._try("get", lambda: RedisCache.get(self, key, default, version), default)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._try("set", lambda: RedisCache.set(self, key, value, timeout, version), None)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._try("touch", lambda: RedisCache.touch(self, key, timeout, version), False)

    def delete(self, key: Any, version: Any = None) -> Any:
        return self._try("delete", lambda: RedisCache.delete(self, key, version), False)

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._try("get_many", lambda: RedisCache.get_many(self, keys, version), {})

    def has_key(self, key: Any, version: Any = None) -> Any:
        return self._try("has_key", lambda: RedisCache.has_key(self, key, version), False)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        missing = object()
        value = self._try("incr", lambda: RedisCache.incr(self, key, delta, version), missing)
        if value is missing:
            raise ValueError(f"Key '{key}' not found (the cache is unavailable)")
        return value

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._try(
            "set_many", lambda: RedisCache.set_many(self, data, timeout, version), list(data)
        )

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._try("delete_many", lambda: RedisCache.delete_many(self, keys, version), None)

    def clear(self) -> None:
        self._try("clear", lambda: RedisCache.clear(self), None)
