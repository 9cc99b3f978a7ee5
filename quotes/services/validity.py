"""How long a revision is valid: QUOTE_VALIDITY_DAYS, or fewer days when a line is of a
volatile catalog category (QUOTES_VALIDITY_DAYS_BY_CATEGORY, e.g. memory 14 days).

A line's categories are its kind (``server``, ``networking``, ``storage``,
``installation``, ``support``, ``facility``, …) and, for a server, the roles of the parts
of its configuration (``memory``, ``cpu``, ``nvme``, ``nic``, ``psu``, ``boot``): a server
with memory in it is as volatile as memory. The revision is valid for the fewest days over
its lines (docs/quotes.md, "Validity by category").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from catalog.models import PartRole, ServerPart

from ..models import LineKind, QuoteLine, QuoteRevision


@dataclass(frozen=True)
class Validity:
    days: int
    category: str  # the category that set it; empty: the default QUOTE_VALIDITY_DAYS
    line: int | None  # the position of a line of that category

    def until(self, today: date) -> date:
        return today + timedelta(days=self.days)


def line_categories(line: QuoteLine, roles: dict[str, set[str]]) -> set[str]:
    """A line's categories: its kind, and a server's part roles (`roles` by server key)."""
    prefix, _sep, key = line.catalog_key.partition(":")
    return {line.kind, *(roles.get(key, set()) if prefix == "server" else set())}


def _part_roles(lines: list[QuoteLine]) -> dict[str, set[str]]:
    """The part roles of the lines' server models, in one query."""
    keys = [
        line.catalog_key.partition(":")[2]
        for line in lines
        if line.catalog_key.startswith("server:")
    ]
    roles: dict[str, set[str]] = {}
    if keys:
        for server_key, role in ServerPart.objects.filter(server__key__in=keys).values_list(
            "server__key", "role"
        ):
            roles.setdefault(server_key, set()).add(role)
    return roles


def validity(lines: Iterable[QuoteLine]) -> Validity:
    """The fewest days over the lines' categories (QUOTE_VALIDITY_DAYS at most).

    A line of no listed category leaves the default; ties keep the first line.
    """
    lines = list(lines)
    shortest = Validity(settings.QUOTE_VALIDITY_DAYS, "", None)
    by_category = settings.QUOTES_VALIDITY_DAYS_BY_CATEGORY
    if not by_category:
        return shortest
    roles = _part_roles(lines)
    for line in sorted(lines, key=lambda line: line.position):
        for category in sorted(line_categories(line, roles) & by_category.keys()):
            if by_category[category] < shortest.days:
                shortest = Validity(by_category[category], category, line.position)
    return shortest


def valid_until(lines: Iterable[QuoteLine], today: date | None = None) -> date:
    """The last valid day of a revision made today with these lines."""
    return validity(lines).until(today or timezone.localdate())


def _option_set(revision: QuoteRevision) -> QuerySet[QuoteRevision]:
    """A revision and its options (they share option A's validity)."""
    main_id = revision.option_of_id or revision.pk
    return QuoteRevision.objects.filter(Q(pk=main_id) | Q(option_of_id=main_id))


def shorten_for(revision: QuoteRevision, lines: Iterable[QuoteLine]) -> date:
    """A draft that gets `lines` is valid no longer than their categories allow from today;
    a validity already shorter stays. Returns the revision's (and its options') validity."""
    limit = valid_until(lines)
    if limit < revision.valid_until:
        _option_set(revision).update(valid_until=limit)
        revision.valid_until = limit
    return revision.valid_until


def restart(revision: QuoteRevision) -> date:
    """A new revision's validity from today over every option's lines."""
    lines = QuoteLine.objects.filter(revision__in=_option_set(revision))
    until = valid_until(lines)
    _option_set(revision).update(valid_until=until)
    revision.valid_until = until
    return until


def longest_allowed(revision: QuoteRevision) -> Validity:
    """The most days a sales engineer may give the revision by hand (its options' lines)."""
    return validity(QuoteLine.objects.filter(revision__in=_option_set(revision)))


def category_label(code: str) -> str:
    """A category as the sales engineer reads it: a part role or a line kind."""
    for choices in (PartRole, LineKind):
        try:
            return str(choices(code).label)
        except ValueError:
            continue
    return code
