"""Background work of the quote path, enqueued after the commit that made its row.

A broker outage only delays the work: the row records that its task is not queued, this
process publishes it as soon as the broker is back, and the periodic sweep
(`jobs_recover`) does it should the process end first.

Tasks are found by name in Celery's registry (`quotes.tasks.<name>`, registered when the
quotes app is ready, quotes/apps.py), so the services never import the tasks that call them.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from typing import Any

from celery import current_app
from celery.app.task import Task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import OutboxEmail, ProposalRender, RenderStatus

logger = logging.getLogger(__name__)


def task(task_name: str) -> Task[Any, Any]:
    """The task `quotes.tasks.<task_name>`, by name."""
    return current_app.tasks[f"quotes.tasks.{task_name}"]


def run_in_background(task_name: str, object_id: int) -> None:
    """Run a task in a thread of this process (eager mode, `make run`), then let go of the
    thread's database connection."""
    from django.db import close_old_connections, connection

    try:
        task(task_name).apply(args=(object_id,))
    except Exception:  # the row stays as it is; the status badge shows it
        logger.exception("background %s(%s) failed", task_name, object_id)
    finally:
        close_old_connections()
        connection.close()


# Task priorities (Redis: 0 is taken first). What a person waits for — a buyer's proposal,
# an acceptance, a lead's PDF — is never behind a batch: the periodic requeue's sweep and
# the notices to the sales team.
PRIORITY_NOW = 0
PRIORITY_BATCH = 9


def enqueue(task_name: str, object_id: int, *, priority: int = PRIORITY_NOW) -> None:
    """Enqueue after commit; a broker outage only delays the work.

    Renders go to the render queue, emails to the email queue (CELERY_TASK_ROUTES), so an
    email goes out as soon as its own PDF exists, whatever else is being rendered.

    If the broker is away, the row records that its task is not queued (`not_queued_since`)
    and this process tries again every QUOTES_ENQUEUE_RETRY_SECONDS until the broker is
    back; should the process end first, the periodic `recover_jobs` sweep queues it.

    With eager Celery (no broker, `make run`) a task would run inside the request, so
    "Send to buyer" would wait for the PDF; with QUOTES_EAGER_TASKS_IN_BACKGROUND it runs
    in a thread after the commit instead, and the page polls its progress as usual.
    """

    def publish() -> None:
        if settings.CELERY_TASK_ALWAYS_EAGER and settings.QUOTES_EAGER_TASKS_IN_BACKGROUND:
            threading.Thread(
                target=run_in_background,
                args=(task_name, object_id),
                name=f"quotes-{task_name}-{object_id}",
                daemon=True,
            ).start()
            return
        if not publish_now(task_name, object_id, priority=priority):
            mark_not_queued(task_name, object_id, since=timezone.now())
            RETRIER.add(task_name, object_id, priority)

    transaction.on_commit(publish)


def email_once(
    *,
    key: str,
    kind: str,
    to: str,
    subject: str,
    body: str,
    priority: int = PRIORITY_NOW,
    **links: Any,
) -> bool:
    """One email through the outbox per idempotency key, sent after the commit; True when
    it is new, False when that key was queued before (a second run, or one racing this one).

    `links` are the rows it belongs to (revision=, acceptance=, lead=, render=); the
    subject is cut to its column's 300 characters. An email with a PDF (render=) that is
    not rendered yet waits for it: the render is queued, and queues the email once the PDF
    exists (delivery.render_execute).
    """
    email, created = OutboxEmail.objects.get_or_create(
        idempotency_key=key,
        defaults={"kind": kind, "to_email": to, "subject": subject[:300], "body": body, **links},
    )
    if not created:
        return False
    render = email.render
    if render is not None and render.status != RenderStatus.DONE:
        enqueue("render_proposal", render.pk, priority=priority)
    else:
        enqueue("send_email", email.pk, priority=priority)
    return True


def publish_now(task_name: str, object_id: int, *, priority: int = PRIORITY_NOW) -> bool:
    """Hand the task to the broker; False when the broker is away."""
    found = task(task_name)  # outside the try: an unknown name is a bug, not an outage
    try:
        found.apply_async(args=(object_id,), priority=priority)
    except Exception:  # the broker is down (kombu's errors vary by transport)
        logger.warning("could not enqueue %s(%s); trying again shortly", task_name, object_id)
        return False
    return True


def job_model(task_name: str) -> type[ProposalRender] | type[OutboxEmail]:
    """The row a task works on: a render or an outbox email."""
    return ProposalRender if task_name == "render_proposal" else OutboxEmail


def mark_not_queued(task_name: str, object_id: int, *, since: datetime | None) -> None:
    """Record (a time) or clear (None) that the row's task is not in the broker."""
    job_model(task_name).objects.filter(pk=object_id).update(not_queued_since=since)


class Retrier:
    """Publishes, from a thread of this process, the tasks the broker refused, as soon as
    it is back: one attempt every QUOTES_ENQUEUE_RETRY_SECONDS, oldest first.

    Bounded (QUOTES_ENQUEUE_RETRY_MAX tasks): beyond that the sweep queues the rest.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: dict[tuple[str, int], int] = {}
        self.thread: threading.Thread | None = None

    def add(self, task_name: str, object_id: int, priority: int) -> None:
        with self.lock:
            if len(self.waiting) < settings.QUOTES_ENQUEUE_RETRY_MAX:
                self.waiting[(task_name, object_id)] = priority
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self.run, name="quotes-enqueue-retry", daemon=True
                )
                self.thread.start()

    def run(self) -> None:
        from django.db import connection

        try:
            while self.retry_once():
                time.sleep(settings.QUOTES_ENQUEUE_RETRY_SECONDS)
        finally:
            connection.close()  # this thread's own database connection

    def retry_once(self) -> bool:
        """One round; True while tasks still wait."""
        with self.lock:
            waiting = list(self.waiting.items())
        for (task_name, object_id), priority in waiting:
            if not publish_now(task_name, object_id, priority=priority):
                return True  # still away: the rest would fail too
            mark_not_queued(task_name, object_id, since=None)
            with self.lock:
                self.waiting.pop((task_name, object_id), None)
        with self.lock:
            if self.waiting:
                return True
            self.thread = None
            return False


RETRIER = Retrier()
