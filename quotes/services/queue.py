"""Background work of the quote path, enqueued after the commit that made its row.

A broker outage only delays the work: the row stays queued and the periodic requeue
(`outbox_requeue_stuck`) enqueues it again.

Tasks are found by name in Celery's registry (`quotes.tasks.<name>`, registered when the
quotes app is ready, quotes/apps.py), so the services never import the tasks that call them.
"""

from __future__ import annotations

import logging
import threading

from celery import current_app
from celery.app.task import Task
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


def task(task_name: str) -> Task:
    """The task `quotes.tasks.<task_name>`, by name."""
    return current_app.tasks[f"quotes.tasks.{task_name}"]


def run_in_background(task_name: str, object_id: int) -> None:
    """Run a task in a thread of this process (eager mode, `make run`), then let go of the
    thread's database connection."""
    from django.db import close_old_connections, connection

    try:
        task(task_name).apply(args=[object_id])
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
    """Enqueue after commit; a broker outage only delays the work (requeue_stuck_outbox).

    Renders go to the render queue, emails to the email queue (CELERY_TASK_ROUTES), so an
    email goes out as soon as its own PDF exists, whatever else is being rendered.

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
        found = task(task_name)  # outside the try: an unknown name is a bug, not an outage
        try:
            found.apply_async(args=[object_id], priority=priority)
        except Exception:  # the broker is down: the row stays queued and is re-enqueued
            logger.warning(
                "could not enqueue %s(%s); the periodic requeue will", task_name, object_id
            )

    transaction.on_commit(publish)
