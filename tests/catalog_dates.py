"""Dating catalog rows relative to today, for tests of ages and staleness that must pass
on any day (tests/clock.py)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from catalog.models import FxRate


def date_current_fx_rates(days_ago: int) -> None:
    """Make each currency pair's current rate ``days_ago`` old (its older rates are history
    and stay as they are; the seed's current rate is dated, so it goes stale with time)."""
    day = timezone.localdate() - timedelta(days=days_ago)
    pairs = FxRate.objects.values_list("base", "quote").distinct()
    for base, quote in pairs:
        current = FxRate.objects.filter(base=base, quote=quote).order_by("-as_of").first()
        if current is not None and current.as_of < day:
            current.as_of = day
            current.save(update_fields=["as_of"])
