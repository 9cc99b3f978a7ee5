"""Dates stored as text (scenario documents, quote snapshots) read back as dates."""

from __future__ import annotations

from datetime import date


def iso_date(value: object) -> date | None:
    """`value` as a date when it is YYYY-MM-DD text, else None.

    >>> iso_date("2026-12-03"), iso_date("3 December"), iso_date(20261203)
    (datetime.date(2026, 12, 3), None, None)
    """
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None
