"""The site serves while Redis is away, and recovers when it returns (issue 32, finding 2).

The suite's Redis (broker, caches, rate-limit counters) is stopped for this test and
started again on the same port afterwards, whatever happens (it keeps no data, and every
test starts with an empty cache anyway). Meanwhile every public URL, the API (with and
without a token), the calculator (cached pages, the workbook), the lead form and the
sales pages (the draft's deal analysis is cached) must answer below 500; /healthz says
"degraded". Once Redis is back, pages are cached again.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings

from quotes.forms import lead_form_stamp
from quotes.models import Quote
from tests.quotes.conftest import customer, draft_quote, make_sales_user, sales_user, send
from tests.real_services import restart_redis, stop_redis, suite_redis

__all__ = ["customer", "draft_quote", "make_sales_user", "sales_user"]  # fixtures

pytestmark = pytest.mark.django_db

ESTIMATE = {
    "workload": {
        "kind": "pretrain",
        "params_billion": 7,
        "tokens_billion": 1000,
        "deadline_days": 30,
    },
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od"],
}


@pytest.fixture
def world(seed_catalog: object, draft_quote: Quote, sales_user: User) -> dict[str, Any]:
    from api.services import token_create
    from quotes import services

    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    draft = services.quote_revise(revision=revision, actor=sales_user)
    _token, raw = token_create(user=sales_user, name="t", scope="read")
    return {
        "quote": draft_quote,
        "draft": draft,
        "buyer_token": services.buyer_link_token(revision=revision),
        "api_token": raw,
    }


@pytest.fixture
def redis_away(settings: Settings) -> Iterator[None]:
    settings.CACHE_RETRY_SECONDS = 0  # every call tries Redis: each refusal must be quick
    service = suite_redis()
    stop_redis(service)
    try:
        yield
    finally:
        restart_redis(service)


def _requests(world: dict[str, Any]) -> list[tuple[str, str, Any, dict[str, str]]]:
    """(method, url, data, headers) of what visitors, buyers and sales engineers send."""
    quote = world["quote"]  # its latest revision is a draft
    auth = {"HTTP_AUTHORIZATION": f"Bearer {world['api_token']}"}
    lead = {
        "name": "Kim",
        "company": "Co",
        "email": "kim@example.com",
        "consent": "on",
        "query": "preset=finetune-8b",
        "idempotency_key": str(uuid.uuid4()),
        "started": lead_form_stamp(),
    }
    token = world["buyer_token"]
    return [
        ("get", "/", None, {}),
        ("get", "/ping", None, {}),
        ("get", "/calculator/", None, {}),
        ("get", "/calculator/?preset=pretrain-7b", None, {}),
        ("get", "/calculator/?preset=pretrain-7b", None, {}),  # would be a cache hit
        ("get", "/calculator/?preset=finetune-8b&discount_rate_pct=9", None, {}),
        ("get", "/calculator/workbook.xlsx?preset=finetune-8b", None, {}),
        ("get", "/catalog/", None, {}),
        ("get", "/catalog/prices/cloud/aws-p5-48xlarge-od/", None, {}),
        ("get", "/accounts/login/", None, {}),
        ("post", "/accounts/login/", {"username": "anna", "password": "wrong"}, {}),
        ("get", "/quotes/analysis-pdf/form/?preset=finetune-8b", None, {}),
        ("post", "/quotes/analysis-pdf/", lead, {}),
        ("get", f"/quotes/p/{token}/", None, {}),
        ("get", "/api/v1/openapi.json", None, {}),
        ("get", "/api/v1/docs", None, {}),
        ("get", "/api/v1/catalog/gpus", None, {}),
        ("post", "/api/v1/estimate", json.dumps(ESTIMATE), {}),
        ("post", "/api/v1/estimate/workbook", json.dumps(ESTIMATE), {}),
        ("get", "/api/v1/sales/me", None, auth),
        ("get", "/api/v1/sales/quotes", None, auth),
        ("sales", "/quotes/", None, {}),
        ("sales", f"/quotes/{quote.public_id}/", None, {}),  # the draft: deal analysis
        ("sales", "/quotes/new/?calc=preset%3Dfinetune-8b", None, {}),
    ]


def _send(clients: dict[str, Client], method: str, url: str, data: Any, headers: Any) -> Any:
    if method == "sales":
        return clients["sales"].get(url)
    client = clients["anon"]
    if method == "get":
        return client.get(url, **headers)
    if isinstance(data, str):
        return client.post(url, data, content_type="application/json", **headers)
    return client.post(url, data, **headers)


def test_every_public_url_answers_below_500_while_redis_is_away_and_recovers(
    world: dict[str, Any], sales_user: User, redis_away: None
) -> None:
    clients = {"anon": Client(raise_request_exception=False)}
    clients["sales"] = Client(raise_request_exception=False)
    clients["sales"].force_login(sales_user)
    answers = []
    for method, url, data, headers in _requests(world):
        started = time.perf_counter()
        response = _send(clients, method, url, data, headers)
        answers.append((response.status_code, round(time.perf_counter() - started, 2), url))
    failures = [answer for answer in answers if answer[0] >= 500]
    assert not failures, failures
    slow = [answer for answer in answers if answer[1] > 5]
    assert not slow, slow
    # The calculator page (served uncached) and the API's estimate really answered.
    assert [answers[i][0] for i in (4, 17, 18)] == [200, 200, 200], answers
    health = clients["anon"].get("/healthz")
    assert health.status_code == 503
    body = health.json()
    assert body["status"] == "degraded" and body["cache"].startswith("error")
    assert body["database"] == "ok"

    restart_redis(suite_redis())
    assert clients["anon"].get("/healthz").status_code == 200
    first = clients["anon"].get("/calculator/?preset=pretrain-7b")
    again = clients["anon"].get("/calculator/?preset=pretrain-7b")
    assert (first["X-Page-Cache"], again["X-Page-Cache"]) == ("miss", "hit")


def test_a_hung_redis_costs_one_timeout_per_retry_period(settings: Settings) -> None:
    """A Redis that accepts connections and never answers (a stopped process, a network
    partition): a cache call waits at most the socket timeout, and the calls after it
    within CACHE_RETRY_SECONDS do not wait at all."""
    import socket
    import threading

    from config.cache import ResilientRedisCache

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])  # and never answer
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    port = listener.getsockname()[1]
    settings.CACHE_RETRY_SECONDS = 60
    cache = ResilientRedisCache(
        f"redis://127.0.0.1:{port}/0",
        {"OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}},
    )
    try:
        started = time.perf_counter()
        assert cache.get("k", "fallback") == "fallback"
        first = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(100):
            assert cache.add("k", 1) is True  # "added": counters built on it fail open
            cache.set("k", 1)
            with pytest.raises(ValueError):
                cache.incr("k")
        rest = time.perf_counter() - started
    finally:
        listener.close()
        for connection in held:
            connection.close()
    assert 0.4 < first < 2
    assert rest < 0.1
    assert not cache.available
