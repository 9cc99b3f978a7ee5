"""A Celery worker killed in the middle of a render: the task is redelivered (acks_late,
Redis visibility timeout) and the buyer still gets exactly one email.

In its own module so that no other test's worker consumes from the queue meanwhile.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from quotes import services
from quotes.models import OutboxEmail, OutboxStatus, ProposalRender, Quote, RenderStatus

from .conftest import SmtpServer, Worker, purge_broker, send, start_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUYER = "jan@buyer.example"


def test_a_worker_killed_while_rendering_still_delivers_exactly_once(
    draft_quote: Quote, sales_user: User, smtp_server: SmtpServer
) -> None:
    smtp = smtp_server
    purge_broker()
    first = start_worker(smtp)
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
        assert ProposalRender.objects.get(pk=render_id).status == RenderStatus.RENDERING
        assert smtp.recorder.messages == []
        # A new worker: the killed task was never acknowledged, so Redis redelivers it once
        # its visibility timeout (10 s in the tests) has passed.
        second = start_worker(smtp)
        wait_until(lambda: smtp.recorder.to(BUYER), timeout=90, what="the redelivered email")
        time.sleep(3)  # room for a duplicate to show up, if one were coming
        assert len(smtp.recorder.to(BUYER)) == 1
        render = ProposalRender.objects.get(pk=render_id)
        assert render.status == RenderStatus.DONE and render.attempts >= 2
        assert OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT
        # Nothing is left for the periodic requeue to do.
        assert services.outbox_requeue_stuck(older_than=timedelta(0)) == 0
    finally:
        first.stop()
        if second is not None:
            second.stop()
