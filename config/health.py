"""`/healthz`: is the database reachable, and the broker when one is configured?"""

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


def _broker_status() -> str:
    if not settings.REDIS_URL:
        return "not configured (tasks run in-process)"
    import redis

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2
        )
        client.ping()
    except redis.RedisError as exc:
        return f"error: {exc.__class__.__name__}"
    return "ok"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    database = _database_status()
    broker = _broker_status()
    healthy = database == "ok" and not broker.startswith("error")
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )


@require_safe
def ping(request: HttpRequest) -> HttpResponse:
    """The cheapest possible Django response: the baseline for latency benchmarks."""
    return HttpResponse("ok", content_type="text/plain")
