"""A background job's state as the quote page shows it, with the time that state began;
and a task the broker refused, queued by this process as soon as the broker is back.

Service-level, no worker: the steps a worker would take are the services it calls.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import uuid

import pytest
import redis
from django.contrib.auth.models import User
from django.core.cache import caches
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from quotes import services
from quotes.models import OutboxEmail, ProposalRender, Quote, QuoteRevision
from tests.real_services import restart_redis, stop_redis, suite_redis

from .conftest import purge_broker, send, wait_until

pytestmark = [pytest.mark.django_db(transaction=True)]


def _badge(client: Client, revision: QuoteRevision) -> tuple[str, str, str]:
    """(state, the ISO time in the badge, the note) of the quote page's delivery badge."""
    html = client.get(reverse("quotes:status", args=[revision.public_id])).content.decode()
    state = re.search(r'data-state="([a-z]+)"', html)
    since = re.search(r'<time class="since" id="delivery-since" datetime="([^"]+)"', html)
    note = re.search(r'<small class="note">([^<]*)</small>', html)
    assert state is not None and since is not None, html
    return state.group(1), since.group(1), note.group(1) if note else ""


def _iso(moment: object) -> str:
    assert moment is not None
    return timezone.localtime(moment).isoformat()  # type: ignore[arg-type]


def test_the_badge_follows_the_job_through_each_state_with_its_start(
    client: Client, draft_quote: Quote, sales_user: User
) -> None:
    purge_broker()
    client.force_login(sales_user)
    revision = draft_quote.revisions.get()
    email = send(revision, sales_user)
    assert email.render_id is not None  # a proposal's email carries its PDF
    render = ProposalRender.objects.get(pk=email.render_id)
    assert _badge(client, revision) == ("queued", _iso(email.created_at), "")

    assert services.render_claim(render.pk)  # a worker takes it
    render.refresh_from_db()
    assert _badge(client, revision) == ("rendering", _iso(render.started_at), "")
    assert not services.render_claim(render.pk)  # a duplicate task leaves a live lease alone

    with override_settings(QUOTES_RENDER_LEASE_SECONDS=0):  # its heartbeat stopped
        assert services.jobs_recover() == 1
    render.refresh_from_db()
    assert _badge(client, revision) == (
        "retrying",
        _iso(render.updated_at),
        "The worker stopped while rendering; trying again.",
    )

    assert services.render_claim(render.pk)
    services.render_mark_failed(render_id=render.pk, error="WeasyPrint: out of memory")
    email.refresh_from_db()
    assert _badge(client, revision) == (
        "failed",
        _iso(email.updated_at),
        "The PDF could not be rendered.",
    )

    # "Send again": rendered this time, and sent.
    again = services.revision_resend(
        revision=revision, actor=sales_user, idempotency_key=str(uuid.uuid4())
    )
    services.render_execute(render_id=render.pk)
    assert services.outbox_deliver(outbox_id=again.pk) == "sent"
    again.refresh_from_db()
    assert _badge(client, revision) == ("sent", _iso(again.sent_at), "")
    purge_broker()


def _render_tasks_queued(broker: redis.Redis) -> int:
    return sum(
        b"render_proposal" in item
        for key in broker.scan_iter(match="render*")
        for item in broker.lrange(key, 0, -1)
    )


def test_a_task_refused_while_the_broker_is_away_is_queued_within_10_s_of_its_return(
    draft_quote: Quote, sales_user: User
) -> None:
    purge_broker()
    service = suite_redis()
    stop_redis(service)
    try:
        email = send(draft_quote.revisions.get(), sales_user)  # commits; the publish fails
        assert email.render_id is not None
        render = ProposalRender.objects.get(pk=email.render_id)
        assert render.not_queued_since is not None
        time.sleep(2)  # the broker stays away a little: the retries find it still gone
    finally:
        restart_redis(service)
        for alias in ("default", "pages"):  # this process's cache pools reconnect
            with contextlib.suppress(redis.ConnectionError):
                caches[alias].clear()
    back = time.monotonic()
    broker = redis.Redis.from_url(os.environ["REDIS_URL"])
    wait_until(lambda: _render_tasks_queued(broker), timeout=10, what="the render task")
    assert time.monotonic() - back < 10
    wait_until(
        lambda: ProposalRender.objects.get(pk=render.pk).not_queued_since is None,
        timeout=5,
        what="the row to record that its task is queued",
    )
    assert _render_tasks_queued(broker) == 1  # queued once
    assert OutboxEmail.objects.get(pk=email.pk).not_queued_since is None
    purge_broker()


def test_a_render_that_keeps_killing_its_worker_fails_after_four_attempts(
    draft_quote: Quote, sales_user: User
) -> None:
    """A proposal whose render kills its worker (out of memory) is not queued forever."""
    purge_broker()
    email = send(draft_quote.revisions.get(), sales_user)
    assert email.render_id is not None
    with override_settings(QUOTES_RENDER_LEASE_SECONDS=0):  # every heartbeat is stale
        for _attempt in range(3):
            assert services.render_claim(email.render_id)  # a worker takes it and dies
            assert services.jobs_recover() == 1  # queued again
        assert services.render_claim(email.render_id)  # the fourth attempt dies too
        assert services.jobs_recover() == 0  # failed, not queued
    render = ProposalRender.objects.get(pk=email.render_id)
    assert (render.status, render.attempts) == ("failed", 4)
    assert OutboxEmail.objects.get(pk=email.pk).status == "failed"
    purge_broker()
