"""Background jobs that keep going when a worker or the broker goes away.

A render holds a lease: the process rendering it writes a heartbeat every
QUOTES_RENDER_HEARTBEAT_SECONDS. A worker killed mid-render (SIGKILL of the whole worker, so
Celery's reject_on_worker_lost cannot act and Redis would redeliver only after its
visibility timeout) stops the heartbeat; once it is QUOTES_RENDER_LEASE_SECONDS old, the
sweep (`jobs_recover`, Celery beat every QUOTES_RECOVER_EVERY_SECONDS) queues the render
again. The same sweep queues every row whose task the broker refused (`not_queued_since`)
and that the refusing process did not queue itself (services/queue.py). See docs/quotes.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import OutboxEmail, OutboxStatus, ProposalRender, RenderStatus
from .queue import PRIORITY_NOW, mark_not_queued, publish_now

logger = logging.getLogger(__name__)

# A render whose worker died this many times is failed, not queued again: a proposal that
# kills its worker (out of memory, past the hard time limit) must not do so forever.
MAX_LOST_ATTEMPTS = 4


def lease_expired_before() -> datetime:
    """Heartbeats older than this belong to a render nobody is working on."""
    return timezone.now() - timedelta(seconds=settings.QUOTES_RENDER_LEASE_SECONDS)


def beat(render_id: int) -> bool:
    """One heartbeat; never waits for a lock (the row is skipped if someone holds it)."""
    with transaction.atomic():
        held = (
            ProposalRender.objects.select_for_update(skip_locked=True)
            .filter(pk=render_id, status=RenderStatus.RENDERING)
            .values_list("pk", flat=True)
        )
        if not list(held):
            return False
        ProposalRender.objects.filter(pk=render_id).update(heartbeat_at=timezone.now())
    return True


@contextmanager
def render_heartbeat(render_id: int) -> Iterator[None]:
    """Keep the render's lease alive from a thread while the body renders."""
    from django.db import connection

    done = threading.Event()

    def run() -> None:
        try:
            while not done.wait(settings.QUOTES_RENDER_HEARTBEAT_SECONDS):
                beat(render_id)
        except Exception:  # a missed heartbeat costs at most a duplicate render
            logger.exception("heartbeat of render %s stopped", render_id)
        finally:
            connection.close()  # the thread's own connection

    thread = threading.Thread(target=run, name=f"render-heartbeat-{render_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=1)


def render_mark_failed(*, render_id: int, error: str) -> None:
    """The render will not be made: it and the emails waiting for it are failed."""
    with transaction.atomic():
        ProposalRender.objects.filter(pk=render_id).exclude(status=RenderStatus.DONE).update(
            status=RenderStatus.FAILED, last_error=error[:2000]
        )
        OutboxEmail.objects.filter(render_id=render_id, status=OutboxStatus.QUEUED).update(
            status=OutboxStatus.FAILED, last_error=_("The PDF could not be rendered.")
        )


def jobs_recover() -> int:
    """Queue again what a lost worker or an unreachable broker left behind; returns how
    many tasks were handed to the broker."""
    return (
        _renders_with_expired_lease()
        + _not_queued(ProposalRender, "render_proposal")
        + (_not_queued(OutboxEmail, "send_email"))
    )


def _renders_with_expired_lease() -> int:
    count = 0
    expired = ProposalRender.objects.filter(status=RenderStatus.RENDERING).filter(
        Q(heartbeat_at__lt=lease_expired_before()) | Q(heartbeat_at__isnull=True)
    )
    for render_id, attempts in expired.values_list("pk", "attempts"):
        if attempts >= MAX_LOST_ATTEMPTS:
            logger.error("render %s lost its worker %s times; failed", render_id, attempts)
            render_mark_failed(
                render_id=render_id, error=f"the worker stopped while rendering, {attempts} times"
            )
            continue
        # Conditional: of two sweeps, one takes it.
        taken = (
            ProposalRender.objects.filter(pk=render_id, status=RenderStatus.RENDERING)
            .filter(Q(heartbeat_at__lt=lease_expired_before()) | Q(heartbeat_at__isnull=True))
            .update(
                status=RenderStatus.PENDING,
                heartbeat_at=None,
                last_error=_("The worker stopped while rendering; trying again."),
                updated_at=timezone.now(),
            )
        )
        if taken:
            logger.warning("render %s lost its worker; queued again", render_id)
            count += _queue(render_id, "render_proposal")
    return count


def _not_queued(model: type[ProposalRender] | type[OutboxEmail], task_name: str) -> int:
    # Left to the process that recorded it for a few rounds of its own retries.
    before = timezone.now() - timedelta(seconds=3 * settings.QUOTES_ENQUEUE_RETRY_SECONDS)
    rows = model.objects.filter(not_queued_since__lt=before).values_list("pk", flat=True)
    return sum(_queue(object_id, task_name) for object_id in rows)


def _queue(object_id: int, task_name: str) -> int:
    if publish_now(task_name, object_id, priority=PRIORITY_NOW):
        mark_not_queued(task_name, object_id, since=None)
        return 1
    mark_not_queued(task_name, object_id, since=timezone.now())
    return 0
