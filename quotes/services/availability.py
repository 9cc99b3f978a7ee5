"""When a quote's servers can be delivered: each server line's stock or lead time, copied
from the catalog when the line is priced, or set by the sales engineer with a reason
(docs/quotes.md, "Delivery").

A line is in stock when the catalog's units in stock cover its quantity (0 weeks); else it
carries the catalog's lead time. The expected delivery date is counted from the day the
revision is issued (its snapshot). A later change of the catalog's stock or lead time
shows on the draft like a price change (`revision_lead_time_changes`) and is taken over
by a re-price; a line set by hand keeps its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from catalog.models import ServerAvailability, ServerModel
from common.bounds import LEAD_TIME_WEEKS

from ..models import LineKind, QuoteLine, QuoteRevision
from .drafts import locked_draft, revision_line
from .errors import QuoteError


@dataclass(frozen=True)
class CatalogDelivery:
    in_stock: bool
    lead_time_weeks: Decimal
    as_of: date | None


def catalog_delivery(server: ServerModel, quantity: Decimal) -> CatalogDelivery | None:
    """The catalog's delivery of `quantity` servers; None when it has no stock row."""
    try:
        row = server.availability
    except ServerAvailability.DoesNotExist:
        return None
    in_stock = row.units_in_stock >= quantity
    return CatalogDelivery(in_stock, Decimal(0) if in_stock else row.lead_time_weeks, row.as_of)


def apply_catalog_delivery(line: QuoteLine, server: ServerModel) -> None:
    """Give a server line the catalog's delivery (unsaved)."""
    delivery = catalog_delivery(server, line.quantity)
    if delivery is None:
        line.lead_time_weeks, line.in_stock, line.availability_as_of = None, False, None
        return
    line.lead_time_weeks = delivery.lead_time_weeks
    line.in_stock = delivery.in_stock
    line.availability_as_of = delivery.as_of


def delivery_snapshot(line: QuoteLine, issued: date) -> dict[str, Any] | None:
    """A server line's delivery as the buyer sees it (never the engineer's reason).

    >>> from decimal import Decimal
    >>> line = QuoteLine(kind="server", lead_time_weeks=Decimal("12"), in_stock=False)
    >>> delivery_snapshot(line, date(2026, 12, 3))["expected_delivery"]
    '2027-02-25'
    """
    if line.kind != LineKind.SERVER or line.lead_time_weeks is None:
        return None
    weeks = line.lead_time_weeks
    return {
        "in_stock": line.in_stock,
        "lead_time_weeks": format(weeks.normalize(), "f"),
        "expected_delivery": (issued + timedelta(weeks=float(weeks))).isoformat(),
        "as_of": line.availability_as_of.isoformat() if line.availability_as_of else None,
        "set_by_hand": bool(line.delivery_reason),
    }


@transaction.atomic
def revision_set_line_delivery(
    *, revision: QuoteRevision, line_id: int, lead_time_weeks: Decimal | None, reason: str
) -> QuoteLine:
    """Set a draft server line's delivery by hand (0 weeks: from stock), with a reason; or,
    with no lead time, give it back the catalog's."""
    revision = locked_draft(revision)
    line = revision_line(revision, line_id)
    if line.kind != LineKind.SERVER:
        raise QuoteError(_("Only server lines have a delivery time."))
    if lead_time_weeks is None:
        server = _server_of(line)
        if server is not None:
            apply_catalog_delivery(line, server)
        line.delivery_reason = ""
    else:
        if not LEAD_TIME_WEEKS.contains(lead_time_weeks):
            raise QuoteError(
                _("A lead time lies between %(low)s and %(high)s weeks.")
                % {"low": LEAD_TIME_WEEKS.low, "high": LEAD_TIME_WEEKS.high}
            )
        if not reason.strip():
            raise QuoteError(_("Say why this line's delivery differs from the catalog."))
        line.lead_time_weeks = lead_time_weeks
        line.in_stock = lead_time_weeks == 0
        line.delivery_reason = reason.strip()[:300]
    line.save(
        update_fields=["lead_time_weeks", "in_stock", "availability_as_of", "delivery_reason"]
    )
    return line


def _server_of(line: QuoteLine) -> ServerModel | None:
    kind, _sep, key = line.catalog_key.partition(":")
    if kind != "server":
        return None
    return ServerModel.objects.select_related("availability").filter(key=key).first()


@dataclass(frozen=True)
class LeadTimeChange:
    line: QuoteLine
    old_weeks: Decimal | None
    new_weeks: Decimal
    in_stock: bool


def revision_lead_time_changes(
    *, revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> list[LeadTimeChange]:
    """Draft server lines whose catalog stock or lead time changed since they were priced
    (lines set by hand keep their own and are not listed)."""
    if not revision.is_draft:
        return []
    lines = lines if lines is not None else list(revision.lines.order_by("position"))
    servers = [line for line in lines if line.kind == LineKind.SERVER and not line.delivery_reason]
    keys = {line.catalog_key.partition(":")[2] for line in servers}
    models = {
        s.key: s for s in ServerModel.objects.select_related("availability").filter(key__in=keys)
    }
    changes = []
    for line in servers:
        server = models.get(line.catalog_key.partition(":")[2])
        delivery = catalog_delivery(server, line.quantity) if server is not None else None
        if delivery is None:
            continue
        if delivery.lead_time_weeks != line.lead_time_weeks or delivery.in_stock != line.in_stock:
            changes.append(
                LeadTimeChange(
                    line, line.lead_time_weeks, delivery.lead_time_weeks, delivery.in_stock
                )
            )
    return changes


def refresh_deliveries(revision: QuoteRevision) -> int:
    """Give the draft's changed server lines the catalog's delivery (a re-price does)."""
    changes = revision_lead_time_changes(revision=revision)
    for change in changes:
        line = change.line
        server = _server_of(line)
        if server is None:
            continue
        apply_catalog_delivery(line, server)
        line.save(update_fields=["lead_time_weeks", "in_stock", "availability_as_of"])
    return len(changes)
