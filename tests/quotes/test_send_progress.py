"""Sending never blocks the page, also with eager Celery (`make run`: no broker): the
render and the email run in a thread after the response, and the badge shows progress."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from quotes import services
from quotes.models import OutboxEmail, OutboxStatus, Quote

from .conftest import SmtpServer, pdf_attachment, start_smtp, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    controller, server = start_smtp()
    yield server
    controller.stop()


@pytest.fixture
def gated_render(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The real render, held until the test opens the gate (to see the request return
    while the PDF is still to be made)."""
    gate = threading.Event()
    real = services.render_execute

    def held(*, render_id: int) -> Any:
        assert gate.wait(120), "the test never opened the gate"
        return real(render_id=render_id)

    monkeypatch.setattr(services, "render_execute", held)
    return gate


def _state(client: Client, revision: Any) -> str:
    html = client.get(reverse("quotes:status", args=[revision.public_id])).content.decode()
    for state in ("queued", "rendering", "sending", "sent", "failed"):
        if f'data-state="{state}"' in html:
            return state
    return html


def test_eager_send_returns_at_once_and_the_badge_follows_to_sent(
    client: Client,
    draft_quote: Quote,
    sales_user: User,
    smtp: SmtpServer,
    gated_render: threading.Event,
) -> None:
    mailer = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": smtp.host, "port": smtp.port, "timeout": 10},
        }
    }
    with override_settings(
        CELERY_TASK_ALWAYS_EAGER=True, QUOTES_EAGER_TASKS_IN_BACKGROUND=True, MAILERS=mailer
    ):
        client.force_login(sales_user)
        revision = draft_quote.revisions.get()
        response = client.post(
            reverse("quotes:send", args=[revision.public_id]),
            {"idempotency_key": str(uuid.uuid4())},
        )
        # The response came back while the render is still held: the page did not wait.
        assert response.status_code == 302
        assert _state(client, revision) == "queued"
        page = client.get(response["Location"]).content.decode()
        assert 'id="delivery-state"' in page and 'hx-trigger="every 1s"' in page
        gated_render.set()
        wait_until(lambda: _state(client, revision) == "sent", timeout=120, what="sent")
    email = OutboxEmail.objects.get(revision=revision)
    assert email.status == OutboxStatus.SENT
    messages = smtp.recorder.to("jan@buyer.example")
    assert len(messages) == 1
    assert pdf_attachment(messages[0]).startswith(b"%PDF")
