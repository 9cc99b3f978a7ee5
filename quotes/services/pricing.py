"""Lines and their prices: adding catalog items, re-pricing, removing, and the totals."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel
from catalog.selectors import latest_fx_rate

from ..models import (
    LineKind,
    QuoteLine,
    QuoteRevision,
)
from ..money import HUNDRED, convert, line_amount, to_cents
from ..selectors import revision_price_changes
from .analysis import plain
from .descriptions import line_description
from .drafts import _ensure_draft, _locked_revision
from .errors import QuoteError

logger = logging.getLogger(__name__)


def _to_currency(amount: Decimal, source: str, target: str) -> Decimal:
    if source == target:
        return amount
    fx = latest_fx_rate("EUR", "USD")
    if fx is None:
        raise QuoteError(_("No EUR/USD exchange rate in the catalog."))
    return convert(amount, source, target, fx.rate)


def catalog_choices() -> list[tuple[str, str]]:
    """What a line can be: every server model and infrastructure/service item."""
    servers = [
        (f"server:{s.key}", f"{s.vendor} {s.sku} ({s.gpu_count}× {s.gpu.name})")
        for s in ServerModel.objects.select_related("gpu").order_by("vendor", "sku")
    ]
    items = [(f"item:{i.key}", i.name) for i in InfrastructureItem.objects.order_by("name")]
    return servers + items


@transaction.atomic
def revision_add_line(
    *,
    revision: QuoteRevision,
    catalog_key: str,
    quantity: Decimal,
    discount_pct: Decimal = Decimal("0"),
    optional: bool = False,
) -> QuoteLine:
    """Add a catalog item at today's catalog price (converted to the quote's currency)."""
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    kind_name, _sep, key = catalog_key.partition(":")
    if kind_name == "server":
        server = ServerModel.objects.select_related("gpu").filter(key=key).first()
        if server is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind.SERVER
        description = line_description(server, revision.quote.customer.language)
        unit = _to_currency(server.list_price, server.currency, revision.currency)
        as_of, estimate = server.as_of, server.price_is_estimate
    elif kind_name == "item":
        item = InfrastructureItem.objects.filter(key=key).first()
        if item is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind(item.category)
        as_of, estimate = item.as_of, item.is_estimate
        if item.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR:
            hardware = sum(
                (
                    line.quantity * line.unit_price
                    for line in revision.lines.filter(kind=LineKind.SERVER, optional=False)
                ),
                Decimal(0),
            )
            if not hardware:
                raise QuoteError(_("Add the servers first: this item is priced per hardware."))
            unit = hardware * item.price / HUNDRED
        else:
            unit = _to_currency(item.price, item.currency, revision.currency)
        description = line_description(item, revision.quote.customer.language)
    else:
        raise QuoteError(_("Unknown catalog item."))
    position = (revision.lines.aggregate(m=Max("position"))["m"] or 0) + 1
    line = QuoteLine(
        revision=revision,
        position=position,
        kind=kind,
        catalog_key=catalog_key,
        description=description[:300],
        quantity=quantity,
        unit_price=to_cents(unit),
        discount_pct=discount_pct,
        optional=optional,
        price_as_of=as_of,
        price_is_estimate=estimate,
        priced_at=timezone.now(),
    )
    line.full_clean(exclude=["revision"])
    line.save()
    return line


def _percent_description(item: InfrastructureItem) -> str:
    return _("%(name)s: %(pct)s %% of hardware per year") % {
        "name": item.name,
        "pct": formats.number_format(plain(item.price), use_l10n=True),
    }


@transaction.atomic
def revision_reprice(*, revision: QuoteRevision, actor: AbstractBaseUser) -> int:
    """Give the draft's out-of-date lines today's catalog prices; returns how many lines.

    The lines are those of selectors.revision_price_changes (a catalog price or the
    EUR/USD rate changed after the line was priced): each takes the current price,
    converted to the quote's currency as when a line is added, with its date and estimate
    flag, and is marked priced now. Quantities, discounts and options stay; the totals
    follow from the lines. A sent revision is refused (RevisionLocked).
    """
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    now = timezone.now()
    changes = revision_price_changes(revision=revision)
    for change in changes:
        line = change.line
        line.unit_price = change.unit_price
        line.price_as_of = change.price_as_of
        line.price_is_estimate = change.price_is_estimate
        line.priced_at = now
        fields = ["unit_price", "price_as_of", "price_is_estimate", "priced_at"]
        if change.item is not None:  # "% of hardware": the percentage may have changed
            language = revision.quote.customer.language
            line.description = line_description(change.item, language)[:300]
            fields.append("description")
        line.save(update_fields=fields)
    if changes:
        logger.info(
            "%s re-priced %d line(s) of revision %s", actor, len(changes), revision.public_id
        )
    return len(changes)


@transaction.atomic
def revision_remove_line(*, revision: QuoteRevision, line_id: int) -> None:
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    deleted, _detail = QuoteLine.objects.filter(revision=revision, pk=line_id).delete()
    if not deleted:
        raise QuoteError(_("That line is not on this revision."))


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    vat: Decimal
    total: Decimal
    optional_subtotal: Decimal


def totals_for(*, lines: list[dict[str, Any]] | list[QuoteLine], vat_rate: Decimal) -> Totals:
    """Subtotal of the non-optional line amounts, VAT on it (rounded once), total."""
    subtotal = Decimal("0.00")
    optional = Decimal("0.00")
    for line in lines:
        if isinstance(line, QuoteLine):
            amount = line_amount(line.quantity, line.unit_price, line.discount_pct)
            is_optional = line.optional
        else:
            amount = Decimal(line["amount"])
            is_optional = line["optional"]
        if is_optional:
            optional += amount
        else:
            subtotal += amount
    vat = to_cents(subtotal * vat_rate / HUNDRED)
    return Totals(subtotal, vat, subtotal + vat, optional)
