"""Quote numbers (Q-YYYY-NNNN, sequential per year under a row lock) and revision letters."""

from __future__ import annotations

from django.db import transaction

from ..models import (
    QuoteCounter,
)


def next_quote_number(*, year: int) -> str:
    """Q-YYYY-NNNN, sequential per year; concurrent callers wait on the counter row."""
    with transaction.atomic():
        QuoteCounter.objects.bulk_create([QuoteCounter(year=year)], ignore_conflicts=True)
        counter = QuoteCounter.objects.select_for_update().get(year=year)
        counter.last_number += 1
        counter.save(update_fields=["last_number"])
        return f"Q-{year}-{counter.last_number:04d}"


def revision_letter(seq: int) -> str:
    """1 → A, 26 → Z, 27 → AA.

    >>> [revision_letter(n) for n in (1, 2, 26, 27, 28)]
    ['A', 'B', 'Z', 'AA', 'AB']
    """
    letters = ""
    while seq > 0:
        seq, rest = divmod(seq - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters
