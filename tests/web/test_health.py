from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from pytest_django.fixtures import Settings

from tests.real_services import free_port

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_broker(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok", "cache": "ok"}


def test_healthz_reports_a_broker_that_is_down(client: Client, settings: Settings) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and body["broker"].startswith("error: ")
    assert body["database"] == "ok"


def test_healthz_without_broker_says_tasks_run_in_process(
    client: Client, settings: Settings
) -> None:
    settings.REDIS_URL = ""
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["broker"].startswith("not configured")


def test_healthz_only_answers_get(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_every_page_has_a_favicon_and_favicon_ico_is_no_404(client: Client) -> None:
    """Issue 43: /favicon.ico answered 404 in every new browser session."""
    page = client.get("/").content.decode()
    assert 'rel="icon" href="/static/img/favicon.svg"' in page
    answer = client.get("/favicon.ico")
    assert (answer.status_code, answer["Location"]) == (301, "/static/img/favicon.svg")
    icon = finders.find("img/favicon.svg")
    assert isinstance(icon, str) and "<svg" in Path(icon).read_text()
