"""Lines and their prices: adding catalog items, re-pricing, removing, and the totals."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel, past_sale_life
from catalog.selectors import latest_fx_rate

from ..models import (
    LineKind,
    LineUnit,
    QuoteLine,
    QuoteRevision,
)
from ..money import (
    HUNDRED,
    PriceUnavailable,
    catalog_unit_cost,
    catalog_unit_price,
    hardware_total,
    line_amount,
    to_cents,
)
from ..selectors import pricing_terms, revision_price_changes
from ..tiers import LIST_BASIS, TierPrice, line_price
from .availability import apply_catalog_delivery, refresh_deliveries
from .bom import attach_to_system
from .descriptions import line_description
from .drafts import locked_draft, next_position
from .errors import QuoteError
from .validity import shorten_for

logger = logging.getLogger(__name__)


def catalog_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """What a line can be, in groups: the servers on sale, the infrastructure and service
    items, and last the servers past their sale life (catalog.models.past_sale_life), each
    labelled so: the list starts at a system we sell, and an old one is chosen knowingly."""
    servers = list(ServerModel.objects.select_related("gpu").order_by("vendor", "sku"))
    past = past_sale_life(servers)
    current = [(f"server:{s.key}", server_label(s, False)) for s in servers if s.key not in past]
    old = [(f"server:{s.key}", server_label(s, True)) for s in servers if s.key in past]
    items = [(f"item:{i.key}", i.name) for i in InfrastructureItem.objects.order_by("name")]
    groups = [(_("Servers"), current), (_("Infrastructure and services"), items)]
    if old:
        groups.append((_("Servers past their sale life"), old))
    return [(str(name), choices) for name, choices in groups if choices]


def server_label(server: ServerModel, past: bool) -> str:
    """A server in a line's choices; one past its sale life says so, with its price date."""
    label = f"{server.vendor} {server.sku} ({server.gpu_count}× {server.gpu.name})"
    if not past:
        return label
    return _("%(server)s, past its sale life (price of %(date)s)") % {
        "server": label,
        "date": date_format(server.as_of, "DATE_FORMAT"),
    }


def _hardware_total(revision: QuoteRevision) -> Decimal:
    """What the revision's "% of hardware" items are a percentage of (money.hardware_total)."""
    return hardware_total(revision.lines.all())


def past_sale_life_lines(lines: list[QuoteLine]) -> set[int]:
    """The primary keys of the server lines whose server is past its sale life: the draft
    flags them."""
    past = past_sale_life(ServerModel.objects.all())
    return {
        line.pk
        for line in lines
        if line.catalog_key.startswith("server:") and line.catalog_key[len("server:") :] in past
    }


def follow_hardware(revision: QuoteRevision) -> int:
    """Price every "% of hardware" line of a draft on its hardware lines as they are now
    (a support line at 10 % stays 10 % when a server line changes); returns how many lines
    changed. Lines a sales engineer priced by hand (no share kept) stay as typed."""
    lines = list(revision.lines.all())
    hardware = hardware_total(lines)
    items = {
        i.key: i
        for i in InfrastructureItem.objects.filter(
            key__in=[
                line.catalog_key.partition(":")[2]
                for line in lines
                if line.hardware_share_pct is not None
            ]
        )
    }
    changed = 0
    for line in lines:
        if line.hardware_share_pct is None:
            continue
        price = to_cents(hardware * line.hardware_share_pct / HUNDRED)
        item = items.get(line.catalog_key.partition(":")[2])
        cost = (
            catalog_unit_cost(item, revision.currency, None, hardware)
            if item is not None and hardware
            else line.cost_price
        )
        if (price, cost) == (line.unit_price, line.cost_price):
            continue
        line.unit_price, line.cost_price = price, cost
        line.save(update_fields=["unit_price", "cost_price"])
        changed += 1
    return changed


def fx_rate_for(row_currency: str, revision: QuoteRevision) -> Decimal | None:
    """The EUR/USD rate a catalog row is converted at: the revision's fixed rate when it
    has one (services.fx), else the latest; None when no conversion is needed."""
    if row_currency == revision.currency:
        return None
    if revision.fixed_fx_rate is not None:
        return revision.fixed_fx_rate
    fx = latest_fx_rate("EUR", "USD")
    if fx is None:
        raise QuoteError(_("No EUR/USD exchange rate in the catalog."))
    return fx.rate


def tier_price(
    revision: QuoteRevision,
    catalog_key: str,
    kind: str,
    list_price: Decimal,
    fx_rate: Decimal | None,
) -> TierPrice:
    """A new catalog line's net unit price: the customer's tier price valid today (a new
    line has no registered deal price yet)."""
    terms = pricing_terms(revision)

    def priced(rate: Decimal | None) -> TierPrice:
        return line_price(
            terms,
            catalog_key=catalog_key,
            category=kind,
            list_unit=list_price,
            registered_price=None,
            currency=revision.currency,
            fx_rate=rate,
        )

    try:
        return priced(fx_rate)
    except PriceUnavailable:  # a net price in the other currency than the catalog's
        other = "EUR" if revision.currency == "USD" else "USD"
        return priced(fx_rate_for(other, revision))


@transaction.atomic
def revision_add_line(
    *,
    revision: QuoteRevision,
    catalog_key: str,
    quantity: Decimal,
    discount_pct: Decimal = Decimal("0"),
    optional: bool = False,
    unit: str | None = None,
) -> QuoteLine:
    """Add a catalog item at today's catalog price (money.catalog_unit_price: converted
    prices rounded to whole currency units) and cost, in the quote's currency.

    The unit defaults to years for items priced per year ("% of hardware per year"),
    pieces otherwise.
    """
    revision = locked_draft(revision)
    kind_name, _sep, key = catalog_key.partition(":")
    row: ServerModel | InfrastructureItem | None
    hardware: Decimal | None = None
    if kind_name == "server":
        row = ServerModel.objects.select_related("gpu", "availability").filter(key=key).first()
        if row is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind.SERVER
        description = line_description(row, revision.quote.customer.language)
        as_of, estimate = row.price_as_of, row.price_is_estimate
        default_unit = LineUnit.PCS
    elif kind_name == "item":
        row = InfrastructureItem.objects.filter(key=key).first()
        if row is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind(row.category)
        as_of, estimate = row.as_of, row.is_estimate
        default_unit = LineUnit.KW if row.unit == PricingUnit.PER_KW else LineUnit.PCS
        description = line_description(row, revision.quote.customer.language)
        if row.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR:
            hardware = _hardware_total(revision)
            if not hardware:
                raise QuoteError(_("Add the servers first: this item is priced per hardware."))
            default_unit = LineUnit.YEARS
    else:
        raise QuoteError(_("Unknown catalog item."))
    fx_rate = None if hardware is not None else fx_rate_for(row.currency, revision)
    try:
        list_price = catalog_unit_price(row, revision.currency, fx_rate, hardware)
    except PriceUnavailable as exc:  # pragma: no cover - both causes are checked above
        raise QuoteError(str(exc)) from exc
    price, basis = list_price, LIST_BASIS
    if hardware is None:  # a "% of hardware" item follows the (tier-priced) hardware
        priced_by_tier = tier_price(revision, catalog_key, kind, list_price, fx_rate)
        price, basis = priced_by_tier.unit_price, priced_by_tier.basis
    line = QuoteLine(
        revision=revision,
        position=next_position(revision),
        kind=kind,
        catalog_key=catalog_key,
        description=description[:300],
        quantity=quantity,
        unit=unit or default_unit,
        unit_price=price,
        cost_price=catalog_unit_cost(row, revision.currency, fx_rate, hardware),
        discount_pct=discount_pct,
        optional=optional,
        price_as_of=as_of,
        price_is_estimate=estimate,
        priced_at=timezone.now(),
        hardware_share_pct=(
            row.price if isinstance(row, InfrastructureItem) and hardware is not None else None
        ),
        list_price=list_price,
        price_basis=basis,
    )
    if isinstance(row, ServerModel):
        apply_catalog_delivery(line, row)
    attach_to_system(line, revision)
    line.full_clean(exclude=["revision", "parent"])
    line.save()
    follow_hardware(revision)
    shorten_for(revision, [line])  # a volatile component shortens the validity
    return line


@transaction.atomic
def revision_reprice(*, revision: QuoteRevision, actor: User) -> int:
    """Give the draft's out-of-date lines today's catalog prices; returns how many lines.

    The lines are those of selectors.revision_price_changes (a catalog price or the
    EUR/USD rate changed after the line was priced): each takes the current price,
    converted to the quote's currency as when a line is added, with its date and estimate
    flag, and is marked priced now. Quantities, discounts and options stay; the totals
    follow from the lines. A sent revision is refused (RevisionLocked).
    """
    revision = locked_draft(revision)
    now = timezone.now()
    changes = revision_price_changes(revision=revision)
    for change in changes:
        line = change.line
        line.unit_price = change.unit_price
        line.price_as_of = change.price_as_of
        line.price_is_estimate = change.price_is_estimate
        line.cost_price = change.cost_price
        line.priced_at = now
        fields = ["unit_price", "cost_price", "price_as_of", "price_is_estimate", "priced_at"]
        if change.price_basis is not None:  # a catalog line: today's list and tier rule
            line.list_price, line.price_basis = change.list_price, change.price_basis
            fields += ["list_price", "price_basis"]
        if change.item is not None:  # "% of hardware": the percentage may have changed
            language = revision.quote.customer.language
            line.description = line_description(change.item, language)[:300]
            fields.append("description")
        if change.item is not None:
            line.hardware_share_pct = change.item.price  # back to following the hardware
            fields.append("hardware_share_pct")
        line.save(update_fields=fields)
    follow_hardware(revision)
    deliveries = refresh_deliveries(revision)
    if changes or deliveries:
        logger.info(
            "%s re-priced %d line(s) of revision %s", actor, len(changes), revision.public_id
        )
    return len(changes) + deliveries


@transaction.atomic
def revision_remove_line(*, revision: QuoteRevision, line_id: int) -> None:
    revision = locked_draft(revision)
    deleted, _detail = QuoteLine.objects.filter(revision=revision, pk=line_id).delete()
    if not deleted:
        raise QuoteError(_("That line is not on this revision."))
    follow_hardware(revision)


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    vat: Decimal
    total: Decimal
    optional_subtotal: Decimal
    discount: Decimal = Decimal("0.00")  # the quote-level discount on the subtotal
    net: Decimal | None = None  # subtotal − discount (what VAT is charged on)
    discount_pct: Decimal = Decimal(0)


def totals_for(
    *,
    lines: list[dict[str, Any]] | list[QuoteLine],
    vat_rate: Decimal,
    discount_pct: Decimal | int | str = 0,
) -> Totals:
    """Subtotal of the non-optional line amounts, less the quote discount (rounded once)
    gives the net amount; VAT on the net (rounded once); total = net + VAT.

    Optional lines are totalled apart and get no quote discount.
    """
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
    pct = Decimal(discount_pct or 0)
    discount = to_cents(subtotal * pct / HUNDRED)
    net = subtotal - discount
    vat = to_cents(net * vat_rate / HUNDRED)
    return Totals(subtotal, vat, net + vat, optional, discount, net, pct)


def revision_totals(revision: QuoteRevision, lines: list[QuoteLine] | None = None) -> Totals:
    """The totals of a revision from its current lines and its quote discount."""
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    return totals_for(lines=lines, vat_rate=revision.vat_rate, discount_pct=revision.discount_pct)
