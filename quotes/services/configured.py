"""A configured system on a quote: the configurator's figures and adding the system to a
quote option as a system line with its component lines (docs/configure.md, "Quote lines").

The system line is priced as the barebone (the catalog's server less its default
components) and each component line carries its own catalog price, so the default
configuration adds up to the server's list price (in the server's currency; a converted
quote rounds each line to whole units, as every converted catalog price is). The
components hang under the system line (services.bom): they follow its quantity, and the
deal analysis prices and powers the system from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.configure.rules import Check, Configuration
from catalog.configure.service import (
    NotConfigurable,
    check_configuration,
    component_key,
)
from catalog.configure.wording import describe
from catalog.models import Component, ServerModel

from ..models import LineKind, LineUnit, QuoteLine, QuoteRevision
from ..money import PriceUnavailable, catalog_unit_cost, catalog_unit_price
from ..selectors import barebone_prices
from .bom import hang_components
from .drafts import locked_draft, next_position
from .errors import QuoteError
from .pricing import follow_hardware, fx_rate_for, revision_add_line, tier_price


@dataclass(frozen=True)
class Figures:
    """What the configurator shows per system, in the server's currency: list price, cost
    (None when a cost is unknown), margin on the list price, typical and maximum power."""

    list_price: Decimal
    cost: Decimal | None
    margin_pct: Decimal | None
    typical_w: int | None
    max_w: int


def figures(result: Check) -> Figures:
    """The check's price and power as the configurator shows them; margin = (list − cost)
    ÷ list, in per cent to one decimal.

    >>> from catalog.configure.rules import Check
    >>> f = figures(Check(True, (), (), 6000, 4000, 10200, Decimal("300000"),
    ...                   Decimal("255000"), Decimal("200000"), Decimal("170000")))
    >>> f.margin_pct
    Decimal('15.0')
    """
    margin = None
    if result.cost is not None and result.list_price:
        margin = ((result.list_price - result.cost) / result.list_price * 100).quantize(
            Decimal("0.1")
        )
    return Figures(result.list_price, result.cost, margin, result.typical_w, result.max_w)


def component_description(component: Component, language: str) -> str:
    """A component line's description in the buyer's language (the part number is the
    line's own: its catalog key)."""
    name = component.name_nl if language == "nl" and component.name_nl else component.name
    return name[:300]


def _component_line(
    revision: QuoteRevision, component: Component, position: int, fx_rate: Decimal | None
) -> QuoteLine:
    """An unsaved component line at the catalog's price and cost in the quote's currency,
    by the rule that re-prices it (selectors: catalog_unit_price and catalog_unit_cost)."""
    line = QuoteLine(
        revision=revision,
        position=position,
        kind=LineKind.COMPONENT,
        catalog_key=component_key(component.part_number),
        description=component_description(component, revision.quote.customer.language),
        quantity=Decimal(0),  # hang_components: per system × systems
        unit=LineUnit.PCS,
        unit_price=catalog_unit_price(component, revision.currency, fx_rate),
        cost_price=catalog_unit_cost(component, revision.currency, fx_rate),
        discount_pct=Decimal(0),
        price_as_of=component.price_as_of,
        price_is_estimate=component.price_is_estimate,
        priced_at=timezone.now(),
    )
    _price(line, revision, line.unit_price, fx_rate)
    return line


def _price(
    line: QuoteLine, revision: QuoteRevision, list_unit: Decimal, fx_rate: Decimal | None
) -> None:
    """The line at the customer's tier price of its list price (price books), as every
    catalog line is priced (services.pricing.revision_add_line)."""
    priced = tier_price(revision, line.catalog_key, str(line.kind), list_unit, fx_rate)
    line.list_price, line.unit_price, line.price_basis = list_unit, priced.unit_price, priced.basis


def check_or_refuse(server: ServerModel, configuration: Configuration) -> Check:
    """The check of a configuration; QuoteError with the first violation (worded) when it
    is not valid or the chassis cannot be configured."""
    try:
        result = check_configuration(server, configuration)
    except NotConfigurable as exc:
        raise QuoteError(_("This system cannot be configured part by part.")) from exc
    if not result.valid:
        raise QuoteError(
            _("The configuration is not valid: %(reason)s")
            % {"reason": describe(result.violations[0])}
        )
    return result


@transaction.atomic
def revision_add_configured_system(
    *, revision: QuoteRevision, configuration: Configuration, quantity: Decimal
) -> QuoteLine:
    """Add `quantity` systems of a valid configuration to a draft option: the system line
    at the barebone price and its component lines under it; QuoteError when the
    configuration is not valid. Returns the system line."""
    revision = locked_draft(revision)
    server = ServerModel.objects.filter(key=configuration.server_key).first()
    if server is None:
        raise QuoteError(_("Unknown catalog item."))
    if quantity <= 0 or quantity != quantity.to_integral_value():
        raise QuoteError(_("Give a whole number of systems."))
    check_or_refuse(server, configuration)
    system = revision_add_line(
        revision=revision, catalog_key=f"server:{server.key}", quantity=quantity
    )
    fx_rate = fx_rate_for(server.currency, revision)
    try:  # the barebone: the catalog's server less its default components
        list_unit, system.cost_price = barebone_prices(server, revision.currency, fx_rate)
    except PriceUnavailable as exc:  # pragma: no cover - the check above needs the rules
        raise QuoteError(str(exc)) from exc
    _price(system, revision, list_unit, fx_rate)
    system.save(update_fields=["unit_price", "list_price", "price_basis", "cost_price"])
    quantities = configuration.quantities()
    components = {c.part_number: c for c in Component.objects.filter(part_number__in=quantities)}
    position = next_position(revision)
    lines = []
    for offset, (part, per_system) in enumerate(quantities.items()):
        component = components[part]  # a valid configuration knows every part
        rate = fx_rate_for(component.currency, revision)
        lines.append(_component_line(revision, component, position + offset, rate))
        lines[-1].per_parent = Decimal(per_system)
    hang_components(system, lines)
    follow_hardware(revision)  # support as a share of the hardware follows the components
    return system
