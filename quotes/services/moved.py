"""What moved: what a re-price would change on a draft (lines, totals, margin), and what a
new revision changed against the one the buyer held (prices, lead times, total).

Both are read for the sales view only (margins never reach the buyer).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..models import LineKind, QuoteLine, QuoteRevision, Status
from ..selectors import LinePriceChange
from .approvals import revision_margin
from .pricing import revision_totals


@dataclass(frozen=True)
class RepriceEffect:
    """The draft's net total and margin now and after a re-price (margin None: no cost known)."""

    net_before: Decimal
    net_after: Decimal
    margin_before: Decimal | None
    margin_after: Decimal | None

    @property
    def net_difference(self) -> Decimal:
        return self.net_after - self.net_before


def reprice_effect(
    revision: QuoteRevision, lines: Sequence[QuoteLine], changes: Sequence[LinePriceChange]
) -> RepriceEffect | None:
    """The totals and margin the draft would have with the changes' prices and costs
    (selectors.revision_price_changes: the prices services.revision_reprice gives)."""
    if not changes:
        return None
    by_pk = {change.line.pk: change for change in changes}
    repriced = []
    for line in lines:
        change = by_pk.get(line.pk)
        if change is None:
            repriced.append(line)
            continue
        new = copy.copy(line)
        new.unit_price, new.cost_price = change.unit_price, change.cost_price
        repriced.append(new)
    before, after = revision_totals(revision, list(lines)), revision_totals(revision, repriced)
    return RepriceEffect(
        net_before=before.net if before.net is not None else before.subtotal,
        net_after=after.net if after.net is not None else after.subtotal,
        margin_before=revision_margin(revision, list(lines)).pct,
        margin_after=revision_margin(revision, repriced).pct,
    )


@dataclass(frozen=True)
class LineMove:
    """A line whose unit price or lead time differs from the previous revision's."""

    position: int
    description: str
    old_unit_price: Decimal | None  # None: the line is new
    new_unit_price: Decimal
    old_weeks: Decimal | None
    new_weeks: Decimal | None

    @property
    def price_moved(self) -> bool:
        return self.old_unit_price is not None and self.old_unit_price != self.new_unit_price

    @property
    def weeks_moved(self) -> bool:
        return self.old_weeks != self.new_weeks and self.new_weeks is not None


@dataclass(frozen=True)
class RevisionDifferences:
    previous: QuoteRevision
    lines: list[LineMove]
    net_before: Decimal
    net_after: Decimal


def _weeks(delivery: dict[str, str] | None) -> Decimal | None:
    if not delivery:
        return None
    return Decimal(0) if delivery.get("in_stock") else Decimal(delivery["lead_time_weeks"])


def since_previous(
    revision: QuoteRevision, lines: Sequence[QuoteLine]
) -> RevisionDifferences | None:
    """A draft against the same option of the revision before it, as it was sent (its
    snapshot): the lines whose unit price or lead time moved, and the net total before and
    now. None for a first revision, a sent one, or when nothing moved."""
    if not revision.is_draft or revision.seq < 2:
        return None
    previous = (
        QuoteRevision.objects.filter(
            quote_id=revision.quote_id,
            seq=revision.seq - 1,
            option_letter=revision.option_letter,
        )
        .exclude(status=Status.DRAFT)
        .first()
    )
    if previous is None or not previous.snapshot:
        return None
    old = {int(row["position"]): row for row in previous.snapshot.get("lines", [])}
    moves = []
    for line in lines:
        row = old.get(line.position)
        new_weeks = (
            (Decimal(0) if line.in_stock else line.lead_time_weeks)
            if line.kind == LineKind.SERVER
            else None
        )
        move = LineMove(
            position=line.position,
            description=line.description,
            old_unit_price=Decimal(row["unit_price"]) if row else None,
            new_unit_price=line.unit_price,
            old_weeks=_weeks(row.get("delivery")) if row else None,
            new_weeks=new_weeks,
        )
        if move.price_moved or (row is not None and move.weeks_moved):
            moves.append(move)
    totals = revision_totals(revision, list(lines))
    net_after = totals.net if totals.net is not None else totals.subtotal
    old_totals = previous.snapshot.get("totals", {})
    net_before = Decimal(old_totals.get("net") or old_totals.get("subtotal") or 0)
    if not moves and net_before == net_after:
        return None
    return RevisionDifferences(previous, moves, net_before, net_after)
