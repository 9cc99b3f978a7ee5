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
from ..vat import REVERSE_CHARGE, normalise_vat_id, vat_legal_text
from . import offer
from .analysis import plain
from .availability import delivery_snapshot
from .bom import bom_order
from .deal import deal_analysis
from .leads import display_company, display_name
from .lease import lease_figures, lease_payment
from .presentation import frozen_presentation
from .pricing import totals_for
from .seller import owner_snapshot, seller_snapshot
from .tiers import deal_snapshot


def line_snapshot(line: QuoteLine) -> dict[str, Any]:
    """A line as the buyer sees it: never its cost or margin (those stay internal)."""
    return {
        "position": line.position,
        "kind": line.kind,
        "catalog_key": line.catalog_key,
        "description": line.description,
        "quantity": plain(line.quantity),
        "unit": line.unit,
        "unit_label": LineUnit.label_for(line.unit),
        "unit_price": str(line.unit_price),
        "discount_pct": plain(line.discount_pct),
        "optional": line.optional,
        "billing": line.billing,
        "amount": str(line_amount(line.quantity, line.unit_price, line.discount_pct)),
        "price_as_of": line.price_as_of.isoformat() if line.price_as_of else None,
        "price_is_estimate": line.price_is_estimate,
        # A server line's stock or lead time, from the day the revision is issued.
        "delivery": delivery_snapshot(line, timezone.localdate()),
        # A per-system line: its system line's position and, while it follows the system,
        # how many per system (a quantity set by hand is not "n per system").
        "parent": line.parent.position if line.parent else None,
        "per_parent": plain(line.per_parent)
        if line.per_parent is not None and line.follows_system
        else None,
    }


def frozen_lines(
    line_rows: list[QuoteLine], rows: offer.CatalogRows, language: str
) -> list[dict[str, Any]]:
    """The lines (in bill-of-materials order) as the buyer sees them, with their catalog
    facts, unit labels in `language`."""
    with translation.override(language):
        return [
            {**line_snapshot(line), **offer.line_facts(line, rows, language)} for line in line_rows
        ]


def revision_lines(revision: QuoteRevision, language: str) -> list[dict[str, Any]]:
    """A revision's lines as its snapshot would freeze them now (the BOM export's rows)."""
    line_rows = bom_order(list(revision.lines.order_by("position").select_related("parent")))
    return frozen_lines(line_rows, offer.catalog_rows(line_rows), language)


def revision_snapshot(*, revision: QuoteRevision) -> dict[str, Any]:
    """What the buyer sees, as plain JSON (the frozen content of a sent revision)."""
    quote = revision.quote
    customer = quote.customer
    line_rows = bom_order(list(revision.lines.order_by("position").select_related("parent")))
    rows = offer.catalog_rows(line_rows)
    lines = frozen_lines(line_rows, rows, customer.language)
    totals = totals_for(lines=lines, vat_rate=revision.vat_rate, discount_pct=revision.discount_pct)
    deal = deal_analysis(revision=revision, lines=line_rows)
    tco, presentation = frozen_presentation(revision, deal, customer.language)
    buyer_vat_id = (
        normalise_vat_id(customer.vat_number, customer.country)
        if revision.vat_kind == REVERSE_CHARGE
        else ""
    )
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
        "owner": owner_snapshot(quote.owner, customer.language),
        "seller": seller_snapshot(),
        "valid_until": revision.valid_until.isoformat(),
        "issued": timezone.localdate().isoformat(),
        # The end customer of a reseller's quote, the deal registration and the price
        # protection (services.tiers); absent in revisions frozen before them.
        **deal_snapshot(revision),
        "terms": revision.terms,
        "vat": {
            "rate": plain(revision.vat_rate),
            "kind": revision.vat_kind,
            "buyer_vat_id": buyer_vat_id,
            # The legal wording in the buyer's language (quotes/vat.py).
            "legal_text": vat_legal_text(revision.vat_kind, customer.language, buyer_vat_id),
        },
        "lines": lines,
        # The proposal prints each system's bill of materials (quotes/system_bom.py);
        # revisions frozen before it print the parts under the line, as they were sent.
        "bill_of_materials": True,
        "totals": {
            "subtotal": str(totals.subtotal),
            "discount_pct": plain(totals.discount_pct),
            "discount": str(totals.discount),
            "net": str(totals.net),
            "vat": str(totals.vat),
            "total": str(totals.total),
            "optional_subtotal": str(totals.optional_subtotal),
        },
        # What a vendor's proposal states beside the prices (services.offer).
        "payment": offer.payment_plan(revision=revision, lines=lines, totals=totals),
        "currency_clause": offer.currency_clause(revision=revision, lines=line_rows, rows=rows),
        "site": offer.site_prerequisites(lines=lines, tco=tco),
        "general_terms": offer.general_terms(customer.language),
        # Delivery and warranty referred to the proposal's own schedule and lines, the
        # export-control and cancellation clauses (absent from older snapshots).
        "clauses": offer.clauses(lines=lines, language=customer.language),
        # The analysis of the quoted deal, exactly as the draft page and preview showed it
        # (none when the engineer chose to send it without: services.presentation).
        "tco": tco,
        "analysis": presentation,
        # A leased option's payment terms (services.lease.lease_figures); None: bought.
        "lease": lease_payment(lease_figures(deal, revision.lease_term_months)),
    }


def lead_snapshot(*, lead: Lead) -> dict[str, Any]:
    return {
        # Printed on the cover: reduced to the characters names and companies have, so a
        # visitor's text cannot say anything else there (leads.display_name, …_company).
        "lead": {
            "name": display_name(lead.name),
            "company": display_company(lead.company),
            "email": lead.email,
        },
        "issued": lead.created_at.date().isoformat(),
        "language": lead.language,
        "seller": seller_snapshot(),
        "tco": lead.tco,
    }
