"""A request past its time budget answers 503 with Retry-After instead of its worker being
killed by gunicorn's timeout (issue 32, "a time budget per request")."""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from pytest_django.fixtures import Settings

from config.middleware import RequestTimeBudgetMiddleware


def busy_for(seconds: float) -> Any:
    def view(request: HttpRequest) -> HttpResponse:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # Python work: the budget can stop it
            sum(range(1000))
        return HttpResponse("done")

    return view


def test_a_request_over_its_budget_is_stopped_with_a_503(settings: Settings) -> None:
    settings.REQUEST_TIME_BUDGET_SECONDS = 0.2
    middleware = RequestTimeBudgetMiddleware(busy_for(3))
    started = time.monotonic()
    response = middleware(RequestFactory().get("/calculator/"))
    assert time.monotonic() - started < 1
    assert response.status_code == 503 and response["Retry-After"] == "30"
    api = RequestTimeBudgetMiddleware(busy_for(3))(RequestFactory().post("/api/v1/estimate"))
    assert api.status_code == 503 and api["Content-Type"] == "application/problem+json"


def test_a_request_within_its_budget_is_untouched_and_leaves_no_timer(
    settings: Settings,
) -> None:
    import signal

    settings.REQUEST_TIME_BUDGET_SECONDS = 2
    response = RequestTimeBudgetMiddleware(busy_for(0.05))(RequestFactory().get("/"))
    assert response.status_code == 200 and response.content == b"done"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None)
