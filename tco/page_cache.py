"""Serve anonymous calculator pages from the cache.

A result page depends only on its URL (the inputs), the language, whether htmx asked for
the fragment, and the catalog. The catalog part is a generation number that every catalog
write bumps (see `bump_catalog_generation`, connected in TcoConfig.ready), so a price
change is visible at once; the timeout only bounds memory.

Pages are cached only when rendering them set no cookie and used no CSRF token or CSP
nonce, so no visitor ever receives another visitor's token, session or nonce; signed-in
users always get a fresh page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils import translation

GENERATION_KEY = "catalog-generation"
View = Callable[[HttpRequest], HttpResponse]


def catalog_generation() -> int:
    return int(cache.get_or_set(GENERATION_KEY, 1, timeout=None))


def bump_catalog_generation(*args: Any, **kwargs: Any) -> None:
    """Invalidate every cached page that used the catalog (a signal receiver)."""
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # not set yet (or evicted): any new value differs from cached keys
        cache.set(GENERATION_KEY, 2, timeout=None)


def _key(request: HttpRequest) -> str:
    parts = [
        str(catalog_generation()),
        translation.get_language() or "",
        "htmx" if getattr(request, "htmx", False) else "page",
        request.get_full_path(),
    ]
    return "calc-page:" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def cache_anonymous_page(view: View) -> View:
    @wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        seconds = settings.CALCULATOR_PAGE_CACHE_SECONDS
        if seconds <= 0 or request.user.is_authenticated:
            return view(request)
        key = _key(request)
        cached = cache.get(key)
        if cached is not None:
            content, content_type = cached
            response = HttpResponse(content, content_type=content_type)
            response["X-Page-Cache"] = "hit"
            return response
        response = view(request)
        cacheable = (
            response.status_code == 200
            and not response.cookies
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            # A page that used its CSP nonce must not be replayed with another response's.
            and not getattr(request, "_csp_nonce", None)
        )
        if cacheable:
            cache.set(key, (response.content, response["Content-Type"]), timeout=seconds)
            response["X-Page-Cache"] = "miss"
        return response

    return wrapper
