"""The calculator page cache is bounded: canonical keys only, its own Redis, an LRU limit.

Before: every distinct URL got an entry (~33 KB) in the broker's Redis with no maxmemory;
13.8 k URLs held 397 MB.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory, override_settings

from tco.inputs.presets import preset_data
from tco.web import page_cache
from tests.real_services import RUNNING, Service, start_redis

pytestmark = pytest.mark.django_db


def _page_keys() -> int:
    client = redis.Redis.from_url(settings.CACHES["pages"]["LOCATION"])
    try:
        return len(client.keys("*calc-page:*"))
    finally:
        client.close()


def test_spellings_of_the_same_inputs_share_one_entry(client: Client, seed_catalog: object) -> None:
    values = preset_data("finetune-8b")
    assert values is not None
    first = client.get("/calculator/?" + urlencode(values, doseq=True))
    assert first.status_code == 200 and first["X-Page-Cache"] == "miss"
    variants = [
        {**values, "params_billion": f"{values['params_billion']}.000"},
        dict(reversed(list(values.items()))),
        {**values, "utm_source": "newsletter", "x": "1"},
    ]
    for variant in variants:
        response = client.get("/calculator/?" + urlencode(variant, doseq=True))
        assert response["X-Page-Cache"] == "hit", variant
        assert response.content == first.content
    assert _page_keys() == 1


def test_invalid_inputs_are_served_but_never_stored(client: Client, seed_catalog: object) -> None:
    for n in range(5):
        response = client.get(f"/calculator/?kind=pretrain&params_billion=-{n}")
        assert response.status_code == 200 and "X-Page-Cache" not in response
    assert _page_keys() == 0


@pytest.fixture
def own_redis() -> Iterator[Service]:
    service = start_redis()
    yield service
    RUNNING.services.remove(service)
    service.stop()


def test_memory_stays_under_the_limit_the_app_sets(own_redis: Service) -> None:
    """3,000 distinct canonical pages into a Redis the app limits to 2 MB: old ones go."""
    url = own_redis.url.replace("/0", "/2")
    pages = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    body = ("<tr><td>row</td><td>1234.5</td></tr>" * 400).encode()  # ~14 KB of table HTML

    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse(body + request.META["QUERY_STRING"].encode() * 50)

    cached_view = page_cache.cache_anonymous_page(lambda r: r.META["QUERY_STRING"])(view)
    factory = RequestFactory()
    with override_settings(
        CACHES={"default": _default(), "pages": pages},
        REDIS_PAGE_CACHE_URL=url,
        PAGE_CACHE_MAXMEMORY="2mb",
        PAGE_CACHE_MAXMEMORY_POLICY="allkeys-lru",
    ):
        page_cache._configured_for = None
        caches["pages"].close()
        for n in range(3000):
            request = factory.get(f"/calculator/?n={n}")
            request.user = AnonymousUser()
            assert cached_view(request).status_code == 200
        server = redis.Redis.from_url(url)
        memory = server.info("memory")
        stats = server.info("stats")
        assert server.config_get("maxmemory")["maxmemory"] == str(2 * 1024 * 1024)
        assert server.config_get("maxmemory-policy")["maxmemory-policy"] == "allkeys-lru"
        assert int(stats["evicted_keys"]) > 0
        assert int(memory["used_memory"]) <= 2 * 1024 * 1024 * 1.05
        # The newest pages are the ones kept.
        request = factory.get("/calculator/?n=2999")
        request.user = AnonymousUser()
        assert cached_view(request)["X-Page-Cache"] == "hit"
    page_cache._configured_for = None


def _default() -> dict[str, Any]:
    from django.conf import settings

    return dict(settings.CACHES["default"])


def test_the_chart_option_is_part_of_the_key(client: Client, seed_catalog: object) -> None:
    """`charts=all` is not a form field but changes the page: it gets its own entry."""
    values = preset_data("finetune-8b")
    assert values is not None
    query = urlencode(values, doseq=True)
    plain = client.get("/calculator/?" + query)
    every = client.get("/calculator/?" + query + "&charts=all")
    assert plain["X-Page-Cache"] == "miss" and every["X-Page-Cache"] == "miss"
    assert every.content != plain.content
    assert client.get("/calculator/?" + query + "&charts=all")["X-Page-Cache"] == "hit"


def test_the_app_never_sets_memory_policy_on_the_brokers_redis() -> None:
    """The page cache on the broker's Redis server (another database of it, as in the
    suite): that server also holds Celery's queues and the rate-limit counters, so its
    maxmemory and eviction policy stay as its operator set them (finding 16)."""
    from django.conf import settings

    assert page_cache.shares_the_broker(settings.REDIS_PAGE_CACHE_URL)
    server = redis.Redis.from_url(settings.REDIS_URL)
    server.config_set("maxmemory", "0")
    server.config_set("maxmemory-policy", "noeviction")
    page_cache._configured_for = None
    try:
        request = RequestFactory().get("/calculator/?n=1")
        request.user = AnonymousUser()
        view = page_cache.cache_anonymous_page(lambda r: "n=1")(lambda r: HttpResponse(b"page"))
        assert view(request)["X-Page-Cache"] == "miss"  # stored: the limit would be set now
        assert server.config_get("maxmemory")["maxmemory"] == "0"
        assert server.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    finally:
        page_cache._configured_for = None
