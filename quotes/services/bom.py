"""A quote's bill of materials: system lines and the per-system lines under them.

A system line sells servers or rack-scale systems (kind ``server``). Networking and
installation counted in pieces are bought per system: such a line hangs under a system
line (``parent``) and counts ``per_parent`` of it, so changing the system's quantity changes
its own (``follow_systems``). The deal's analysis prices them per system (services.deal),
so a line of these kinds that cannot hang under a system is refused rather than priced for
servers that are not sold. A child's quantity can still be set by hand, with a reason kept
internal (like a delivery date set by hand); it then stops following. Formulas and an
example: docs/quotes.md, "Bill of materials".
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.utils.translation import gettext as _

from common.formatting import grouped

from ..models import LineKind, LineUnit, QuoteLine, QuoteRevision
from .errors import QuoteError

# Kinds bought once per system (when counted in pieces); support is a share of the
# hardware (services.pricing.follow_hardware), storage and site build-out are per cluster.
PER_SYSTEM_KINDS = (LineKind.NETWORKING, LineKind.INSTALLATION)

# The installation a system's kind needs (catalog items): a rack-scale system with its own
# liquid loop is connected and commissioned as a rack, not racked and stacked per server.
RACK_INSTALLATION = "liquid-rack-installation"
SERVER_INSTALLATION = "installation-per-server"


def installation_item(*, whole_rack: bool) -> str:
    """The catalog installation item for a system of this kind."""
    return RACK_INSTALLATION if whole_rack else SERVER_INSTALLATION


def is_per_system(line: QuoteLine) -> bool:
    """Networking or installation in pieces and not optional: bought once per system."""
    return line.kind in PER_SYSTEM_KINDS and line.unit == LineUnit.PCS and not line.optional


def main_system(revision: QuoteRevision) -> QuoteLine | None:
    """The revision's largest non-optional system line (the first of equals)."""
    systems = revision.lines.filter(kind=LineKind.SERVER, optional=False)
    return systems.order_by("-quantity", "position").first()


def attach_to_system(line: QuoteLine, revision: QuoteRevision) -> None:
    """Hang a new per-system line (unsaved) under the revision's system, counting its
    quantity per system; QuoteError when there is no system or the quantity is not a whole
    number per system. Other lines are left as they are."""
    if not is_per_system(line):
        return
    system = main_system(revision)
    if system is None:
        raise QuoteError(
            _(
                "Add a server or rack-scale system first: networking and installation are "
                "bought per system. (An optional line can be added without one.)"
            )
        )
    per_system = line.quantity / system.quantity
    if per_system <= 0 or per_system != per_system.to_integral_value():
        raise QuoteError(
            _(
                "Networking and installation are bought per system: give %(systems)s or a "
                "multiple of it (one or more per system)."
            )
            % {"systems": grouped(system.quantity, 0)}
        )
    line.parent = system
    line.per_parent = per_system


def follow_systems(revision: QuoteRevision) -> int:
    """Give every child line that follows its system the system's quantity × per system;
    returns how many lines changed."""
    changed = 0
    children = QuoteLine.objects.filter(revision=revision, parent__isnull=False, quantity_reason="")
    for child in children.select_related("parent"):
        assert child.parent is not None and child.per_parent is not None
        expected = child.parent.quantity * child.per_parent
        if child.quantity != expected:
            child.quantity = expected
            child.save(update_fields=["quantity"])
            changed += 1
    return changed


def set_child_quantity(line: QuoteLine, quantity: Decimal, reason: str) -> None:
    """A child line's new quantity (unsaved): its system's × per system follows again; any
    other needs a reason (QuoteError without one)."""
    assert line.parent is not None and line.per_parent is not None
    expected = line.parent.quantity * line.per_parent
    if quantity == expected:
        line.quantity_reason = ""
    elif not reason.strip():
        raise QuoteError(
            _(
                "This line follows its system: %(expected)s (%(per)s per system). To quote "
                "another quantity, say why."
            )
            % {"expected": grouped(expected, 0), "per": grouped(line.per_parent, 0)}
        )
    else:
        line.quantity_reason = reason.strip()[:300]
    line.quantity = quantity


def bom_order(lines: Sequence[QuoteLine]) -> list[QuoteLine]:
    """The lines with each system's children right under it (by position), the rest in
    position order."""
    children: dict[int, list[QuoteLine]] = {}
    for line in lines:
        if line.parent_id is not None:
            children.setdefault(line.parent_id, []).append(line)
    ordered: list[QuoteLine] = []
    known = {line.pk for line in lines}
    for line in lines:
        if line.parent_id is not None and line.parent_id in known:
            continue  # placed under its system
        ordered.append(line)
        ordered.extend(children.get(line.pk, []))
    return ordered


def copy_lines(source: QuoteRevision, target: QuoteRevision) -> None:
    """The source's lines on the target, with their prices, delivery and bill of
    materials (each child under the copy of its system)."""
    copied = {
        line.pk: QuoteLine(
            revision=target,
            position=line.position,
            kind=line.kind,
            catalog_key=line.catalog_key,
            description=line.description,
            quantity=line.quantity,
            unit=line.unit,
            unit_price=line.unit_price,
            cost_price=line.cost_price,
            discount_pct=line.discount_pct,
            optional=line.optional,
            hardware_share_pct=line.hardware_share_pct,
            billing=line.billing,
            price_as_of=line.price_as_of,
            price_is_estimate=line.price_is_estimate,
            priced_at=line.priced_at,
            lead_time_weeks=line.lead_time_weeks,
            in_stock=line.in_stock,
            availability_as_of=line.availability_as_of,
            delivery_reason=line.delivery_reason,
            per_parent=line.per_parent,
            quantity_reason=line.quantity_reason,
            list_price=line.list_price,
            price_basis=line.price_basis,
            registered_price=line.registered_price,
        )
        for line in source.lines.order_by("position")
    }
    QuoteLine.objects.bulk_create(copied.values())
    children = []
    for line in source.lines.filter(parent__isnull=False):
        assert line.parent_id is not None
        child = copied[line.pk]
        child.parent = copied[line.parent_id]
        children.append(child)
    QuoteLine.objects.bulk_update(children, ["parent"])


def hang_components(system: QuoteLine, components: Sequence[QuoteLine]) -> None:
    """Save a configured system's component lines (unsaved, each with its `per_parent`)
    under its system line: each counts per system × the system's quantity and follows it
    (follow_systems)."""
    for line in components:
        assert line.per_parent is not None
        line.parent = system
        line.quantity = system.quantity * line.per_parent
        line.full_clean(exclude=["revision", "parent"])
    QuoteLine.objects.bulk_create(components)
