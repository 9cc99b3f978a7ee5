"""What the buyer sees, as plain JSON: the frozen content of a sent revision or a lead."""

from __future__ import annotations

from typing import Any

from django.utils import timezone, translation

from ..models import (
    Lead,
    LineUnit,
    QuoteLine,
    QuoteRevision,
)
from ..money import line_amount
from .analysis import plain
from .pricing import totals_for


def _unit_label(unit: str) -> str:
    try:
        return str(LineUnit(unit).label)
    except ValueError:
        return unit


def _line_snapshot(line: QuoteLine) -> dict[str, Any]:
    """A line as the buyer sees it: never its cost or margin (those stay internal)."""
    return {
        "position": line.position,
        "kind": line.kind,
        "catalog_key": line.catalog_key,
        "description": line.description,
        "quantity": plain(line.quantity),
        "unit": line.unit,
        "unit_label": _unit_label(line.unit),
        "unit_price": str(line.unit_price),
        "discount_pct": plain(line.discount_pct),
        "optional": line.optional,
        "amount": str(line_amount(line.quantity, line.unit_price, line.discount_pct)),
        "price_as_of": line.price_as_of.isoformat() if line.price_as_of else None,
        "price_is_estimate": line.price_is_estimate,
    }


def revision_snapshot(*, revision: QuoteRevision) -> dict[str, Any]:
    """What the buyer sees, as plain JSON (the frozen content of a sent revision)."""
    quote = revision.quote
    customer = quote.customer
    with translation.override(customer.language):  # unit labels in the buyer's language
        lines = [_line_snapshot(line) for line in revision.lines.order_by("position")]
    totals = totals_for(lines=lines, vat_rate=revision.vat_rate, discount_pct=revision.discount_pct)
    return {
        "number": quote.number,
        "revision": revision.letter,
        "currency": revision.currency,
        "language": customer.language,
        "customer": {
            "company": customer.company,
            "contact_name": customer.contact_name,
            "email": customer.email,
            "country": customer.country,
            "vat_number": customer.vat_number,
        },
        "owner": {
            "name": quote.owner.get_full_name() or quote.owner.get_username(),
            "email": quote.owner.email,
        },
        "valid_until": revision.valid_until.isoformat(),
        "issued": timezone.localdate().isoformat(),
        "terms": revision.terms,
        "vat": {"rate": plain(revision.vat_rate), "kind": revision.vat_kind},
        "lines": lines,
        "totals": {
            "subtotal": str(totals.subtotal),
            "discount_pct": plain(totals.discount_pct),
            "discount": str(totals.discount),
            "net": str(totals.net),
            "vat": str(totals.vat),
            "total": str(totals.total),
            "optional_subtotal": str(totals.optional_subtotal),
        },
        "tco": revision.tco,
    }


def lead_snapshot(*, lead: Lead) -> dict[str, Any]:
    return {
        "lead": {"name": lead.name, "company": lead.company, "email": lead.email},
        "issued": lead.created_at.date().isoformat(),
        "language": lead.language,
        "tco": lead.tco,
    }
