from __future__ import annotations

import pytest
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
