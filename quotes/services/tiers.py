"""A reseller's deal: the end customer it buys for, the deal registered with the vendor
(its number, expiry and registered net price per line) and price protection.

docs/quotes.md, "Two-tier quotes and deal registration". The prices themselves follow
quotes.tiers.line_price; here the terms are set on a draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import PriceTier
from common.formatting import format_money, number

from ..models import EndCustomer, Quote, QuoteLine, QuoteRevision
from ..selectors import deal_root, pricing_terms, protected_until
from ..tiers import basis_price, deal_basis, discount_off_list
from .drafts import locked_draft
from .errors import QuoteError
from .pricing import follow_hardware

# The revision's fields that hold the deal terms: the registration with the vendor and the
# price protection given to the buyer (kept on option A: selectors.deal_root).
DEAL_TERM_FIELDS = (
    "deal_registration",
    "deal_registration_expires",
    "price_protection_days",
    "price_protection_from",
)


@dataclass(frozen=True)
class DealTerms:
    """What the deal-terms form sets on a draft (empty strings and None clear a term)."""

    end_company: str = ""
    end_country: str = ""
    end_contact: str = ""
    end_email: str = ""
    registration: str = ""
    registration_expires: date | None = None
    protection_days: int = 0


def end_customer_of(quote: Quote) -> EndCustomer | None:
    try:
        return quote.end_customer
    except EndCustomer.DoesNotExist:
        return None


def _set_end_customer(quote: Quote, terms: DealTerms) -> None:
    current = end_customer_of(quote)
    if not terms.end_company.strip():
        if current is not None:
            current.delete()
        return
    end = current or EndCustomer(quote=quote)
    end.company = terms.end_company.strip()
    end.country = terms.end_country.upper()
    end.contact_name = terms.end_contact.strip()
    end.contact_email = terms.end_email.strip()
    try:
        end.full_clean(exclude=["quote"])
    except ValidationError as exc:
        raise QuoteError(" ".join(exc.messages)) from exc
    end.save()


@transaction.atomic
def revision_set_deal_terms(*, revision: QuoteRevision, terms: DealTerms) -> QuoteRevision:
    """Set the end customer, the deal registration and the price protection of a draft.

    Protection counts from today when its days are set or changed; the same days keep
    their start (a revised quote keeps the protection the buyer was given).
    """
    revision = locked_draft(deal_root(revision))
    if not 0 <= terms.protection_days <= 365:
        raise QuoteError(_("Price protection lies between 0 and 365 days."))
    if terms.registration_expires is not None and not terms.registration.strip():
        raise QuoteError(_("Give the deal registration number with its expiry date."))
    _set_end_customer(revision.quote, terms)
    revision.deal_registration = terms.registration.strip()[:60]
    revision.deal_registration_expires = terms.registration_expires
    if terms.protection_days != revision.price_protection_days:
        revision.price_protection_from = timezone.localdate() if terms.protection_days else None
    revision.price_protection_days = terms.protection_days
    revision.save(update_fields=DEAL_TERM_FIELDS)
    return revision


@transaction.atomic
def line_set_registered_price(
    *, revision: QuoteRevision, line_id: int, price: Decimal | None
) -> QuoteLine:
    """Give a catalog line the net unit price registered with the vendor (None: none).

    While the revision's deal registration holds, the line takes that price at once and
    keeps it through re-pricing; once the registration expires, re-pricing moves it to
    the tier's price (selectors.revision_price_changes).
    """
    revision = locked_draft(revision)
    line = QuoteLine.objects.filter(revision=revision, pk=line_id).first()
    if line is None or not line.catalog_key:
        raise QuoteError(_("That line is not a catalog line of this revision."))
    if price is not None and price < 0:
        raise QuoteError(_("The unit price cannot be negative."))
    line.registered_price = price
    fields = ["registered_price"]
    terms = pricing_terms(revision)
    if price is not None and terms.deal:
        line.unit_price, line.price_basis = price, deal_basis(terms.deal, price)
        line.hardware_share_pct = None
        line.priced_at = timezone.now()
        fields += ["unit_price", "price_basis", "hardware_share_pct", "priced_at"]
    line.save(update_fields=fields)
    follow_hardware(revision)
    return line


def protection_state(revision: QuoteRevision) -> date | None:
    """The last protected day while it is today or later (shown on the page), else None."""
    until = protected_until(revision)
    return until if until is not None and timezone.localdate() <= until else None


def price_notes(revision: QuoteRevision, lines: list[QuoteLine]) -> dict[int, str]:
    """Per catalog line priced below list by a tier or a deal, what the sales view shows
    beside its unit price: "list €300,000.00, Partner −12 %" or "list …, deal
    registration DR-1 −20 %" (internal: never on the proposal)."""
    tiers = {tier.key: tier for tier in PriceTier.objects.all()}
    notes: dict[int, str] = {}
    for line in lines:
        kind, _sep, rest = line.price_basis.partition(":")
        if kind not in {"book", "deal"} or line.list_price is None:
            continue
        off = discount_off_list(line.list_price, line.unit_price)
        params = {
            "list": format_money(line.list_price, revision.currency),
            "off": number(off, 0 if off is None or off == off.to_integral() else 1),
        }
        ruled = basis_price(line.price_basis, line.list_price, revision.currency)
        if ruled is not None and ruled != line.unit_price:  # typed over the tier's price
            notes[line.pk] = _("list %(list)s, −%(off)s %% (price typed by hand)") % params
            continue
        if kind == "deal":
            params["number"] = rest.partition(":")[0]
            notes[line.pk] = _("list %(list)s, deal registration %(number)s −%(off)s %%") % params
            continue
        tier = tiers.get(rest.partition(":")[0])
        params["tier"] = tier.display_name() if tier is not None else rest.partition(":")[0]
        notes[line.pk] = _("list %(list)s, %(tier)s −%(off)s %%") % params
    return notes


def deal_snapshot(revision: QuoteRevision) -> dict[str, Any]:
    """What the proposal states of the deal: "for end customer …", the vendor's deal
    registration and "prices protected until …" (while that day is still to come)."""
    end = end_customer_of(revision.quote)
    root = deal_root(revision)
    until = protection_state(revision)
    return {
        "end_customer": (
            {"company": end.company, "country": end.country, "contact_name": end.contact_name}
            if end is not None
            else None
        ),
        "deal_registration": (
            {
                "number": root.deal_registration,
                "expires": (
                    root.deal_registration_expires.isoformat()
                    if root.deal_registration_expires
                    else None
                ),
            }
            if root.deal_registration
            else None
        ),
        "protected_until": until.isoformat() if until is not None else None,
    }
