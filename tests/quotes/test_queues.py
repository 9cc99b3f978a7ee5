"""Rendering and email on separate queues, taken by priority, still exactly once.

Real parts: the render worker (-Q render) and the email worker (-Q email,celery) the
Procfile runs, on the suite's Redis and test database, sending to SMTP on loopback. The
order is read from the rows' own timestamps (when each PDF was stored, when each email was
sent), never from how long something took.

In its own module: its workers are the only consumers of the queues meanwhile.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User

from quotes import services
from quotes.models import Customer, OutboxEmail, OutboxStatus, ProposalRender

from .conftest import SmtpServer, Worker, purge_broker, send, start_worker, wait_quiescent

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    """Workers a test starts; all stopped at its end."""
    purge_broker()
    started: list[Worker] = []
    yield started
    for worker in started:
        worker.stop()


def _quotes(customer: Customer, owner: Any, count: int) -> list[Any]:
    """`count` draft revisions for buyers buyer-0@ … (one customer each)."""
    drafts = []
    for n in range(count):
        buyer = services.customer_create(
            team=customer.team,
            company=f"Buyer {n} BV",
            contact_name=f"Buyer {n}",
            email=f"buyer-{n}@buyer.example",
            country="NL",
            vat_number="",
            language="en",
        )
        quote = services.quote_create_from_calculator(
            customer=buyer, owner=owner, query="preset=serve-70b"
        )
        drafts.append(quote.revisions.get())
    return drafts


def _each_delivered_once(smtp: SmtpServer, outboxes: list[OutboxEmail]) -> None:
    for outbox in outboxes:
        messages = smtp.recorder.to(outbox.to_email)
        assert [m["Message-ID"] for m in messages] == [outbox.message_id]
        assert OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT


def test_an_email_goes_out_as_soon_as_its_own_pdf_exists(
    workers: list[Worker],
    smtp_server: SmtpServer,
    seed_catalog: Any,
    customer: Customer,
    sales_user: User,
) -> None:
    smtp_server.recorder.reset()
    drafts = _quotes(customer, sales_user, 3)
    workers.append(start_worker(smtp_server))  # one rendering process: renders take turns
    outboxes = [send(revision, sales_user) for revision in drafts]
    wait_quiescent(smtp_server.recorder)
    _each_delivered_once(smtp_server, outboxes)
    first_sent = OutboxEmail.objects.get(pk=outboxes[0].pk).sent_at
    last_render_id = outboxes[-1].render_id
    assert last_render_id is not None
    last_rendered = ProposalRender.objects.get(pk=last_render_id).rendered_at
    # The first buyer's email did not wait for the other PDFs (it used to queue behind them).
    assert first_sent is not None and last_rendered is not None
    assert first_sent < last_rendered


def test_a_buyer_send_is_not_behind_a_batch(
    workers: list[Worker],
    smtp_server: SmtpServer,
    seed_catalog: Any,
    customer: Customer,
    sales_user: User,
) -> None:
    smtp_server.recorder.reset()
    *batch_drafts, urgent_draft = _quotes(customer, sales_user, 4)
    workers.append(start_worker(smtp_server, roles=("email",)))  # nothing renders yet
    batch = [send(revision, sales_user) for revision in batch_drafts]
    # Their render tasks are lost (a Redis restart): the periodic sweep queues them again,
    # as a batch.
    redis.Redis.from_url(os.environ["REDIS_URL"]).delete("render")
    assert services.outbox_requeue_stuck(older_than=timedelta(0)) == len(batch)
    urgent = send(urgent_draft, sales_user)  # a sales engineer sends now
    workers.append(start_worker(smtp_server, roles=("render",)))
    wait_quiescent(smtp_server.recorder)
    _each_delivered_once(smtp_server, [*batch, urgent])
    rendered: dict[int | None, datetime] = {
        render.pk: render.rendered_at
        for render in ProposalRender.objects.filter(pk__in=[o.render_id for o in [*batch, urgent]])
        if render.rendered_at is not None
    }
    assert rendered[urgent.render_id] < min(rendered[o.render_id] for o in batch)
