"""A whole Celery worker killed in the middle of a render (main process and pool, as a
crash or an OOM kill of the container does): the render is taken up again within seconds
and the buyer gets exactly one email.

Production's settings: Redis's visibility timeout of an hour (so Celery alone would
redeliver the task only after an hour) and beat's sweeps at their defaults; the render's
lease (quotes/services/jobs.py) is what brings it back.

In its own module so that no other test's worker consumes from the queue meanwhile.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from quotes import services
from quotes.models import OutboxEmail, OutboxStatus, ProposalRender, Quote, RenderStatus

from .conftest import Beat, SmtpServer, Worker, purge_broker, send, start_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUYER = "jan@buyer.example"
PRODUCTION: dict[str, Any] = {"CELERY_VISIBILITY_TIMEOUT": "3600"}


def test_a_worker_killed_while_rendering_delivers_exactly_once_within_30_seconds(
    draft_quote: Quote, sales_user: User, smtp_server: SmtpServer
) -> None:
    smtp = smtp_server
    purge_broker()
    first = start_worker(smtp, **PRODUCTION)
    beat = Beat(smtp, **PRODUCTION)
    second: Worker | None = None
    try:
        outbox = send(draft_quote.revisions.get(), sales_user)
        render_id = outbox.render_id
        assert render_id is not None  # a quote's email carries its PDF
        wait_until(
            lambda: ProposalRender.objects.get(pk=render_id).status == RenderStatus.RENDERING,
            timeout=30,
            interval=0.02,
            what="the render to start",
        )
        first.kill()
        killed = time.monotonic()
        assert ProposalRender.objects.get(pk=render_id).status == RenderStatus.RENDERING
        assert smtp.recorder.messages == []
        # A supervisor starts the worker again; the task was never acknowledged and Redis
        # would redeliver it only after an hour.
        second = start_worker(smtp, **PRODUCTION)
        wait_until(lambda: smtp.recorder.to(BUYER), timeout=30, what="the email")
        elapsed = time.monotonic() - killed
        # The lease (8 s) and a sweep period (2 s) after the kill, then the render itself.
        assert elapsed < 30, elapsed
        assert settings.QUOTES_RENDER_LEASE_SECONDS + settings.QUOTES_RENDER_HEARTBEAT_SECONDS < 30
        time.sleep(3)  # room for a duplicate to show up, if one were coming
        assert len(smtp.recorder.to(BUYER)) == 1
        render = ProposalRender.objects.get(pk=render_id)
        assert render.status == RenderStatus.DONE and render.attempts == 2
        assert OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT
        # Nothing is left for the periodic requeue to do.
        assert services.outbox_requeue_stuck(older_than=timedelta(0)) == 0
    finally:
        beat.stop()
        first.stop()
        if second is not None:
            second.stop()
