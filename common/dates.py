"""Dates written as text in ISO form (YYYY-MM-DD), as JSON documents and stored snapshots
hold them."""

from __future__ import annotations

from datetime import date


def iso_date(value: object) -> date | None:
    """``value`` as a date when it is text in ISO form, else None.

    >>> iso_date("2026-12-03")
    datetime.date(2026, 12, 3)
    >>> iso_date("3 Dec 2026") is None, iso_date(None) is None
    (True, True)
    """
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None
