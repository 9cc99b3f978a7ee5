"""Periodic catalog work, scheduled by CELERY_BEAT_SCHEDULE (config/settings/base.py)."""

from celery import shared_task

from . import services


@shared_task(name="catalog.tasks.notify_stale_prices")
def notify_stale_prices() -> int:
    """Mail staff the stale prices (once a day at most); returns the number of mails sent."""
    return services.notify_stale_prices().sent
