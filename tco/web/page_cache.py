"""Serve anonymous calculator pages from a bounded cache.

A result page depends only on its inputs, the language, whether htmx asked for the
fragment, and the catalog. The catalog part is a generation number that every catalog
write bumps (catalog/generation.py, connected in TcoConfig.ready), so a price
change is visible at once.

Bounded in two ways:

- Keys are the *canonical* validated inputs (tco/inputs/canonical.py), not the URL: spellings of
  the same inputs (`7` and `7.000`, another field order, repeated or unknown parameters)
  share one entry, and a URL whose inputs are not valid is served but never stored. A URL
  that is already canonical (or names only a preset) is found without validating anything.
- Entries live in their own cache (`CACHES["pages"]`: its own Redis database, or its own
  Redis server via REDIS_PAGE_CACHE_URL) whose Redis gets `maxmemory` and an LRU eviction
  policy from the app (`configure_memory_limit`; PAGE_CACHE_MAXMEMORY, …_POLICY), and each
  entry is stored gzip-compressed (~18 KB instead of ~84 KB).

Compressed once: the stored gzip body is also what a client that accepts gzip receives,
on the miss that stored it and on every hit (the GZip middleware leaves a response that
already has a Content-Encoding alone), so a page is neither compressed twice nor
decompressed to be compressed again. The compressor is ISA-L's (`isal.igzip`, level 1):
standard gzip that any client reads, ~0.1 ms for an 86 KB result page where zlib's level
1 took ~0.7 ms (itself a fifth of level 6's time), and a slightly smaller body (20.3
against 20.7 KB). Cached pages hold no secret (no CSRF token, cookie or nonce), so
replaying one compressed body does not weaken the GZip middleware's BREACH padding where
it matters.

Pages are cached only when rendering them set no cookie and used no CSRF token or CSP
nonce, so no visitor ever receives another visitor's token, session or nonce; signed-in
users always get a fresh page.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import timezone, translation
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.http import parse_etags
from isal import igzip

from catalog.generation import catalog_generation

logger = logging.getLogger(__name__)

type View[R: HttpRequest] = Callable[[R], HttpResponse]
# request → the canonical query of its inputs, or None when they are not valid.
Canonicaliser = Callable[[HttpRequest], str | None]


def page_cache() -> Any:
    return caches["pages"]


def _key(request: HttpRequest, query: str) -> str:
    parts = [
        str(catalog_generation()),
        translation.get_language() or "",
        "htmx" if getattr(request, "htmx", False) else "page",
        request.path,
        query,
    ]
    return "calc-page:" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _is_alias(query: str) -> bool:
    """No parameters, or only a preset: a bounded set of URLs that name canonical inputs."""
    from tco.inputs.presets import PRESETS

    return query == "" or query in {f"preset={preset.slug}" for preset in PRESETS}


_configured_for: str | None = None


def shares_the_broker(url: str) -> bool:
    """Is the Redis server at `url` (any database) the broker's (REDIS_URL)?"""
    return bool(settings.REDIS_URL) and urlsplit(url).netloc == urlsplit(settings.REDIS_URL).netloc


def configure_memory_limit() -> None:
    """Give the page cache's own Redis its memory limit and eviction policy (once per
    process): PAGE_CACHE_MAXMEMORY ("" leaves the server alone) and
    PAGE_CACHE_MAXMEMORY_POLICY (default allkeys-lru).

    Only on a Redis server of the page cache's own (REDIS_PAGE_CACHE_URL): the broker's
    Redis also holds Celery's queues and the rate-limit counters, and its memory policy
    is left to its operator (an LRU policy there could evict the counters, and a limit
    could refuse the queues' writes). A Redis that refuses CONFIG (some managed
    services) is logged and left as configured.
    """
    global _configured_for
    url = settings.REDIS_PAGE_CACHE_URL
    limit = settings.PAGE_CACHE_MAXMEMORY
    if not url or not limit or _configured_for == url or shares_the_broker(url):
        return
    _configured_for = url
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        client.config_set("maxmemory", limit)
        client.config_set("maxmemory-policy", settings.PAGE_CACHE_MAXMEMORY_POLICY)
    except redis.RedisError as exc:
        logger.warning("page cache: could not set maxmemory on its Redis: %s", exc)


GZIP_LEVEL = 1  # ISA-L's levels are 0–3; 1 is smaller than zlib's 1 and ~7× faster
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as django.middleware.gzip


def _accepts_gzip(request: HttpRequest) -> bool:
    return bool(_ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


def _serve(request: HttpRequest, response: HttpResponse, packed: bytes) -> HttpResponse:
    """``response`` with the stored gzip body when the client takes gzip."""
    patch_vary_headers(response, ("Accept-Encoding",))
    if _accepts_gzip(request):
        response.content = packed
        response["Content-Encoding"] = "gzip"
        response["Content-Length"] = str(len(packed))
    return response


def _store(key: str, response: HttpResponse, seconds: int) -> bytes:
    configure_memory_limit()
    packed = igzip.compress(response.content, compresslevel=GZIP_LEVEL, mtime=0)
    page_cache().set(key, (packed, response["Content-Type"]), timeout=seconds)
    return packed


def _cached(request: HttpRequest, key: str) -> HttpResponse | None:
    entry = page_cache().get(key)
    if entry is None:
        return None
    packed, content_type = entry
    if _accepts_gzip(request):
        response = _serve(request, HttpResponse(content_type=content_type), packed)
    else:
        response = _serve(
            request, HttpResponse(igzip.decompress(packed), content_type=content_type), packed
        )
    response["X-Page-Cache"] = "hit"
    return response


# Browsers keep a result page but ask again each time (a catalog change must show at once);
# the ETag names the cache entry (inputs, language, fragment or page, catalog generation),
# so an unchanged page costs a 304 without rendering. The page differs by language
# (Accept-Language or the language cookie) and by htmx fragment vs whole page.
PAGE_CACHE_CONTROL = "private, no-cache"
PAGE_VARY = ("Accept-Language", "Cookie", "HX-Request")


def _etag(key: str) -> str:
    # With the day: a page marks prices older than a number of days as stale.
    day = timezone.localdate().strftime("%Y%m%d")
    return f'"{key.removeprefix("calc-page:")[:32]}-{day}"'


def _matches(request: HttpRequest, etag: str) -> bool:
    header = request.META.get("HTTP_IF_NONE_MATCH", "")
    if not header:
        return False
    # Weak comparison: the GZip middleware marks the ETag of a compressed body weak.
    return any(tag == "*" or tag.removeprefix("W/") == etag for tag in parse_etags(header))


def _revalidatable(response: HttpResponse, etag: str | None) -> HttpResponse:
    response["Cache-Control"] = PAGE_CACHE_CONTROL
    if etag is not None:
        # Weak for a compressed body, as the GZip middleware marks it: byte-for-byte it is
        # another representation of the same page.
        response["ETag"] = f"W/{etag}" if response.has_header("Content-Encoding") else etag
    patch_vary_headers(response, PAGE_VARY)
    return response


def _not_modified(etag: str) -> HttpResponse:
    return _revalidatable(HttpResponseNotModified(), etag)


def _answer_from_cache(request: HttpRequest, key: str) -> HttpResponse | None:
    """304 when the browser holds the entry, the stored page when the cache does, else None
    (the page must be rendered)."""
    etag = _etag(key)
    if _matches(request, etag):
        return _not_modified(etag)
    cached = _cached(request, key)
    if cached is not None:
        return _revalidatable(cached, etag)
    return None


def cache_anonymous_page[R: HttpRequest](
    canonical: Canonicaliser,
) -> Callable[[View[R]], View[R]]:
    """Cache a GET view's anonymous responses under the canonical form of their inputs.

    Anonymous responses carry `Cache-Control: private, no-cache`, an ETag when the page
    is cacheable, and `Vary: Accept-Language, Cookie, HX-Request`; a request whose
    If-None-Match names the current entry gets 304. Signed-in users' pages are never
    stored by browsers (`no-store`).
    """

    def decorate(view: View[R]) -> View[R]:
        @wraps(view)
        def wrapper(request: R) -> HttpResponse:
            seconds = settings.CALCULATOR_PAGE_CACHE_SECONDS
            if request.user.is_authenticated:
                response = view(request)
                add_never_cache_headers(response)
                return response
            if seconds <= 0:
                return _revalidatable(view(request), None)
            raw = request.META.get("QUERY_STRING", "")
            # Fast path: a canonical URL (or a preset alias) is found without validating.
            raw_key = _key(request, raw)
            answer = _answer_from_cache(request, raw_key)
            if answer is not None:
                return answer
            query = canonical(request)
            if query is None:  # inputs not valid: served, never stored
                return _revalidatable(view(request), None)
            key = _key(request, query)
            if key != raw_key:
                answer = _answer_from_cache(request, key)
                if answer is not None:
                    return answer
            response = view(request)
            cacheable = (
                response.status_code == 200
                and not response.cookies
                and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
                # A page that used its CSP nonce must not be replayed with another's.
                and not getattr(request, "_csp_nonce", None)
            )
            if cacheable:
                packed = _store(key, response, seconds)
                if key != raw_key and _is_alias(raw):
                    _store(raw_key, response, seconds)
                response = _serve(request, response, packed)
                response["X-Page-Cache"] = "miss"
            return _revalidatable(response, _etag(key) if cacheable else None)

        return wrapper

    return decorate
