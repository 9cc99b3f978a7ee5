"""The catalog's generation: a number that every catalog write changes, shared by all
processes through the default cache (Redis when configured).

What the in-memory catalog (tco.scenario.resolve.CatalogSnapshot.current) and the cached
calculator pages (tco/web/page_cache.py) key on, so that a price change is visible at once.
Kept with the catalog, below both, so that neither the scenario layer nor the quotes app
reaches into the calculator's web layer for it. The receivers are connected in
TcoConfig.ready (catalog rows) and QuotesConfig.ready (the company profile every page shows),
both through `bump_on_every_write`.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from django.db import models, transaction
from django.db.models.signals import post_delete, post_save

GENERATION_KEY = "catalog-generation"


def _fresh_generation() -> int:
    # Not 1: a key that was evicted and set again must not repeat a value already used.
    return time.time_ns()


def catalog_generation() -> int:
    """The catalog's generation: changes on every catalog write, shared by all processes
    through the default cache (Redis when configured)."""
    generation = cache.get_or_set(GENERATION_KEY, _fresh_generation, timeout=None)
    assert generation is not None  # the default is stored or, without a cache, returned
    return int(generation)


def _bump() -> None:
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # not set yet (or evicted): any new value differs from cached keys
        cache.set(GENERATION_KEY, _fresh_generation(), timeout=None)


def bump_catalog_generation(*args: Any, **kwargs: Any) -> None:
    """Invalidate every cached page and in-memory catalog that used the catalog (a signal
    receiver).

    Bumped at once and again when the transaction commits: a request that read the old
    rows between the write and the commit must not keep them under the new generation.
    """
    _bump()
    transaction.on_commit(_bump, using=kwargs.get("using"))


def bump_after_bulk_write(**_kwargs: Any) -> None:
    """One bump for a whole import or seed load (catalog.signals.catalog_written, sent once
    it has committed), instead of two Redis writes for each of its rows."""
    _bump()


def bump_on_every_write(model: type[models.Model], *, uid: str) -> None:
    """Bump the generation whenever a row of `model` is saved or deleted (`uid` names the
    connection, so a second call connects nothing more)."""
    for signal in (post_save, post_delete):
        signal.connect(
            bump_catalog_generation,
            sender=model,
            weak=False,
            dispatch_uid=f"{uid}-{signal is post_save}",
        )
