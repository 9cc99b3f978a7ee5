"""`/healthz`: is the database reachable, and the broker and the caches' Redis when configured?"""

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


def _database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; report it, don't raise
        return f"error: {exc.__class__.__name__}"
    return "ok"


def _redis_status(url: str) -> str:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        client.ping()
    except redis.RedisError as exc:
        return f"error: {exc.__class__.__name__}"
    return "ok"


def _broker_status() -> str:
    if not settings.REDIS_URL:
        return "not configured (tasks run in-process)"
    return _redis_status(settings.REDIS_URL)


def _cache_status() -> str:
    """The Redis servers of the caches; while one is away the site serves without it
    (config/cache.py), slower, which is what "degraded" says."""
    urls = {
        cache["LOCATION"]
        for cache in settings.CACHES.values()
        if cache["BACKEND"].endswith("RedisCache") and isinstance(cache.get("LOCATION"), str)
    }
    if not urls:
        return "in-process"
    failed = [status for status in map(_redis_status, sorted(urls)) if status != "ok"]
    return failed[0] if failed else "ok"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    database = _database_status()
    broker = _broker_status()
    cache = _cache_status()
    healthy = database == "ok" and not broker.startswith("error") and not cache.startswith("error")
    return JsonResponse(
        {
            "status": "ok" if healthy else "degraded",
            "database": database,
            "broker": broker,
            "cache": cache,
        },
        status=200 if healthy else 503,
    )


@require_safe
def ping(request: HttpRequest) -> HttpResponse:
    """The cheapest possible Django response: the baseline for latency benchmarks."""
    return HttpResponse("ok", content_type="text/plain")
