"""Celery tasks: thin. They receive ids, call a service, retry with backoff, record failure.

acks_late and reject_on_worker_lost are set globally (config/settings/base.py): a task
whose worker dies is delivered again, so every task here is safe to run twice.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import celeryd_after_setup, worker_process_init
from django.conf import settings

from common.memory import RENDERING_THRESHOLDS, settle_after_startup

from . import services

logger = logging.getLogger(__name__)

RENDER_MAX_RETRIES = 3


def backoff(retries: int) -> float:
    """Seconds before retry number ``retries + 1``: base × 2^retries, at most 10 minutes."""
    return float(min(settings.QUOTES_RETRY_BASE_SECONDS * 2**retries, 600))


@shared_task(bind=True, max_retries=RENDER_MAX_RETRIES)
def render_proposal(self: Any, render_id: int) -> str:
    try:
        render = services.render_execute(render_id=render_id)
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            logger.exception("render %s failed for good", render_id)
            services.render_mark_failed(render_id=render_id, error=f"{type(exc).__name__}: {exc}")
            return "failed"
        services.render_mark_retrying(render_id=render_id, error=f"{type(exc).__name__}: {exc}")
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
    return "missing" if render is None else render.status


@shared_task(bind=True)
def send_email(self: Any, outbox_id: int) -> str:
    try:
        return services.outbox_deliver(outbox_id=outbox_id)
    except services.TransientDeliveryError as exc:
        if self.request.retries >= settings.QUOTES_EMAIL_MAX_RETRIES:
            services.outbox_mark_failed(outbox_id=outbox_id, error=str(exc))
            return "failed"
        raise self.retry(
            exc=exc,
            countdown=backoff(self.request.retries),
            max_retries=settings.QUOTES_EMAIL_MAX_RETRIES,
        ) from exc


@shared_task
def expire_quotes() -> int:
    return services.quotes_expire()


@shared_task
def remind_quotes() -> int:
    return services.quotes_remind()


@shared_task
def watch_rates() -> int:
    return services.quotes_watch_rates()


@shared_task
def requeue_stuck_outbox() -> int:
    return services.outbox_requeue_stuck()


@shared_task
def recover_jobs() -> int:
    """Every few seconds: renders whose worker died, tasks the broker refused."""
    return services.jobs_recover()


# --- warm start of a rendering worker -------------------------------------------------

# Whether this worker consumes the render queue (set before the pool forks, so its
# processes inherit it); a worker that only sends email needs no PDF libraries.
_renders = False


@celeryd_after_setup.connect
def load_pdf_libraries(sender: str, instance: Any, **_kwargs: Any) -> None:
    """Import WeasyPrint once in the parent, before the pool forks: each process
    inherits them instead of paying ~1.5 s (without bytecode) on its first render."""
    global _renders
    _renders = settings.RENDER_QUEUE in instance.app.amqp.queues.consume_from
    if _renders:
        from . import pdf  # noqa: F401


@worker_process_init.connect
def warm_pdf_renderer(**_kwargs: Any) -> None:
    """Prepare a rendering pool process before it takes work: collect garbage less often,
    and render a small document, so that the first proposal after a
    (re)start is as fast as any other.

    Runs before the process reports itself up; CELERY_WORKER_PROC_ALIVE_TIMEOUT leaves it
    the time. QUOTES_WARM_START=false skips the warm-up (the first proposal then loads
    fonts and templates itself).
    """
    if not _renders:
        return
    settle_after_startup(RENDERING_THRESHOLDS)  # what the parent imported is never garbage
    if not settings.QUOTES_WARM_START:
        return
    from .pdf import warm_up

    logger.info("PDF renderer warm in %.2f s", warm_up())
