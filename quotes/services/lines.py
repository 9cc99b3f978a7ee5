"""Editing a draft's lines as sales engineers work: quantity, unit, price, discount and cost
of a line, free-text lines, and the quote-level discount.

Every change re-reads the revision under a row lock and refuses a sent revision
(RevisionLocked). A margin approval holds only for the lines it was given on
(approvals.pricing_fingerprint), so any change here makes sending need it again when the
margin is below the team's floor.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import ServerModel

from ..models import LineKind, LineUnit, QuoteLine, QuoteRevision
from .availability import apply_catalog_delivery
from .bom import attach_to_system, follow_systems, set_child_quantity
from .drafts import locked_draft, next_position, revision_line
from .errors import QuoteError
from .pricing import follow_hardware

MAX_QUANTITY = Decimal("100000")


def _check_line(line: QuoteLine) -> None:
    if line.quantity is None or line.quantity <= 0:
        raise QuoteError(_("The quantity must be greater than zero."))
    if line.quantity > MAX_QUANTITY:
        raise QuoteError(_("The quantity is too large."))
    if line.unit_price is None or line.unit_price < 0:
        raise QuoteError(_("The unit price cannot be negative."))
    if line.cost_price is not None and line.cost_price < 0:
        raise QuoteError(_("The unit cost cannot be negative."))
    if not Decimal(0) <= line.discount_pct <= Decimal(100):
        raise QuoteError(_("The discount must lie between 0 and 100 %."))
    if not line.description.strip():
        raise QuoteError(_("A line needs a description."))
    try:
        line.full_clean(exclude=["revision", "parent"])
    except ValidationError as exc:
        raise QuoteError(" ".join(exc.messages)) from exc


@transaction.atomic
def revision_update_line(
    *,
    revision: QuoteRevision,
    line_id: int,
    quantity: Decimal,
    unit_price: Decimal,
    discount_pct: Decimal,
    unit: str | None = None,
    cost_price: Decimal | None = None,
    description: str | None = None,
    quantity_reason: str = "",
) -> QuoteLine:
    """Change a draft line's quantity, unit price, discount and unit.

    A free line (no catalog item) also takes a new description and unit cost; a catalog
    line keeps its description, and its cost follows the catalog. A unit price typed
    here stays until the line is re-priced from the catalog. A system line's per-system
    lines follow its new quantity; a per-system line takes another quantity than its
    system's only with `quantity_reason` (services.bom).
    """
    revision = locked_draft(revision)
    line = revision_line(revision, line_id)
    if line.hardware_share_pct is not None and unit_price != line.unit_price:
        line.hardware_share_pct = None  # a price typed by hand no longer follows the hardware
    if line.parent_id is not None:
        set_child_quantity(line, quantity, quantity_reason)
    else:
        line.quantity = quantity
    line.unit_price = unit_price
    line.discount_pct = discount_pct
    if unit is not None:
        line.unit = unit
    if not line.catalog_key:
        line.cost_price = cost_price
        if description is not None:
            line.description = description.strip()[:300]
    if line.kind == LineKind.SERVER and not line.delivery_reason:
        server = (
            ServerModel.objects.select_related("availability")
            .filter(key=line.catalog_key.partition(":")[2])
            .first()
        )
        if server is not None:  # the stock may cover another quantity
            apply_catalog_delivery(line, server)
    _check_line(line)
    line.save()
    if line.kind == LineKind.SERVER:
        follow_systems(revision)
    follow_hardware(revision)
    line.refresh_from_db()
    return line


@transaction.atomic
def revision_add_free_line(
    *,
    revision: QuoteRevision,
    description: str,
    quantity: Decimal,
    unit: str,
    unit_price: Decimal,
    cost_price: Decimal | None,
    kind: str = LineKind.OTHER,
    discount_pct: Decimal = Decimal(0),
    optional: bool = False,
) -> QuoteLine:
    """A line typed by the sales engineer (not from the catalog): description, unit,
    quantity, price and cost. Re-pricing never touches it."""
    revision = locked_draft(revision)
    if kind not in LineKind.values:
        raise QuoteError(_("Unknown kind of line."))
    if unit not in LineUnit.values:
        raise QuoteError(_("Unknown unit."))
    line = QuoteLine(
        revision=revision,
        position=next_position(revision),
        kind=kind,
        catalog_key="",
        description=description.strip()[:300],
        quantity=quantity,
        unit=unit,
        unit_price=unit_price,
        cost_price=cost_price,
        discount_pct=discount_pct,
        optional=optional,
        price_as_of=timezone.localdate(),
        price_is_estimate=False,
        priced_at=timezone.now(),
    )
    attach_to_system(line, revision)
    _check_line(line)
    line.save()
    follow_hardware(revision)
    return line


@transaction.atomic
def revision_set_discount(*, revision: QuoteRevision, discount_pct: Decimal) -> QuoteRevision:
    """The quote-level discount (%) on the subtotal of the non-optional lines."""
    revision = locked_draft(revision)
    if discount_pct is None or not Decimal(0) <= discount_pct <= Decimal(100):
        raise QuoteError(_("The discount must lie between 0 and 100 %."))
    revision.discount_pct = discount_pct
    revision.save(update_fields=["discount_pct"])
    return revision
