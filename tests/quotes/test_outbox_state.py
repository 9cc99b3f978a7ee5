"""Outbox state after a failed send: the retry owns the row, and a spent budget is not the end.

A real SMTP client against a loopback port nobody listens on (connection refused).
"""

from __future__ import annotations

import socket
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone
from pytest_django.fixtures import Settings

from quotes import services
from quotes.models import OutboxEmail, OutboxStatus, ProposalRender, Quote, RenderStatus

from .conftest import send

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


def _refusing_mailer() -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": _closed_port(), "timeout": 2},
        }
    }


@pytest.fixture
def queued_email(draft_quote: Quote, sales_user: User) -> OutboxEmail:
    email: OutboxEmail = send(draft_quote.revisions.get(), sales_user)
    assert email.render_id is not None
    # The PDF is ready (its rendering is tested elsewhere; here only the outbox matters).
    ProposalRender.objects.filter(pk=email.render_id).update(
        status=RenderStatus.DONE, pdf=b"%PDF-1.4 test", pages=1
    )
    # Queued an hour ago (the broker was down, say).
    OutboxEmail.objects.filter(pk=email.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    return email


@pytest.mark.dates
def test_a_failed_send_refreshes_updated_at_so_requeue_leaves_its_retry_alone(
    queued_email: OutboxEmail,
) -> None:
    with (
        override_settings(MAILERS=_refusing_mailer()),
        pytest.raises(services.TransientDeliveryError),
    ):
        services.outbox_deliver(outbox_id=queued_email.pk)
    row = OutboxEmail.objects.get(pk=queued_email.pk)
    assert row.status == OutboxStatus.QUEUED and "Connection refused" in row.last_error
    assert timezone.now() - row.updated_at < timedelta(seconds=30)
    # The send task's own retry is pending: the periodic requeue must not add another.
    assert services.outbox_requeue_stuck(older_than=timedelta(minutes=2)) == 0


@pytest.mark.dates
def test_an_email_whose_retries_ran_out_is_retried_later_and_staff_see_it(
    queued_email: OutboxEmail, client: Client, sales_user: User, settings: Settings
) -> None:
    services.outbox_mark_failed(outbox_id=queued_email.pk, error="ConnectionRefusedError")
    row = OutboxEmail.objects.get(pk=queued_email.pk)
    assert row.status == OutboxStatus.FAILED
    client.force_login(sales_user)
    assert row.revision is not None
    badge = client.get(f"/quotes/revisions/{row.revision.public_id}/status/").content.decode()
    assert 'data-state="failed"' in badge and "ConnectionRefusedError" in badge
    assert "retried automatically" in badge
    settings.QUOTES_FAILED_RETRY_AFTER_SECONDS = 3600
    assert services.outbox_requeue_stuck() == 0  # not yet
    OutboxEmail.objects.filter(pk=row.pk).update(updated_at=timezone.now() - timedelta(hours=2))
    assert services.outbox_requeue_stuck() == 1
    assert OutboxEmail.objects.get(pk=row.pk).status == OutboxStatus.QUEUED
    # Too old to be worth sending: left failed (Send again still works).
    services.outbox_mark_failed(outbox_id=row.pk, error="again")
    OutboxEmail.objects.filter(pk=row.pk).update(
        updated_at=timezone.now() - timedelta(hours=2),
        created_at=timezone.now() - timedelta(days=4),
    )
    assert services.outbox_requeue_stuck() == 0
