"""Money that reaches a buyer: Decimal, rounded once (ROUND_HALF_UP to cents) at the boundary."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

CENT = Decimal("0.01")
HUNDRED = Decimal(100)


def to_cents(value: Decimal | int | str) -> Decimal:
    """Round an exact amount to cents, half up: the only rounding an amount gets.

    >>> to_cents(Decimal("2.345"))
    Decimal('2.35')
    >>> to_cents(Decimal("-2.345"))
    Decimal('-2.35')
    """
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def line_amount(quantity: Decimal | int, unit_price: Decimal, discount_pct: Decimal) -> Decimal:
    """quantity × unit price less the discount, rounded once.

    >>> line_amount(3, Decimal("100.00"), Decimal("12.5"))
    Decimal('262.50')
    >>> line_amount(1, Decimal("0.05"), Decimal("50"))
    Decimal('0.03')
    """
    exact = Decimal(quantity) * unit_price * (HUNDRED - discount_pct) / HUNDRED
    return to_cents(exact)


def convert(amount: Decimal, source: str, target: str, eur_usd: Decimal | None) -> Decimal:
    """An amount in `source` currency in `target` (EUR or USD), not rounded.

    `eur_usd` is how many USD one EUR buys (the catalog's EUR/USD rate); it is needed only
    when the currencies differ.

    >>> to_cents(convert(Decimal("116"), "USD", "EUR", Decimal("1.16")))
    Decimal('100.00')
    >>> convert(Decimal("100"), "EUR", "USD", Decimal("1.16"))
    Decimal('116.00')
    """
    if source == target:
        return amount
    if eur_usd is None:
        raise ValueError("an EUR/USD rate is needed to convert")
    return amount / eur_usd if source == "USD" else amount * eur_usd


UNIT = Decimal(1)
PERCENT_OF_HARDWARE = "pct_hw_year"  # catalog.models.PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR


# The kinds a "% of hardware" line is priced on: the hardware value the TCO engine applies
# support to (servers, their networking and storage; not installation or services). A
# configured system's components are part of its hardware: its line is the barebone.
HARDWARE_KINDS = ("server", "networking", "storage", "component")


def hardware_total(lines: Iterable[Any]) -> Decimal:
    """quantity × unit price of the non-optional hardware lines (servers, networking,
    storage): what a "% of hardware" item is a percentage of.

    >>> from types import SimpleNamespace as L
    >>> hardware_total([L(kind="server", optional=False, quantity=Decimal(2),
    ...     unit_price=Decimal("100")), L(kind="networking", optional=False,
    ...     quantity=Decimal(2), unit_price=Decimal("10")), L(kind="support", optional=False,
    ...     quantity=Decimal(5), unit_price=Decimal("22")), L(kind="server", optional=True,
    ...     quantity=Decimal(1), unit_price=Decimal("100"))])
    Decimal('220')
    """
    return sum(
        (
            line.quantity * line.unit_price
            for line in lines
            if line.kind in HARDWARE_KINDS and not line.optional
        ),
        Decimal(0),
    )


class PriceUnavailable(ValueError):
    """A catalog row cannot be priced now: no EUR/USD rate, or no hardware for a % item."""


def to_whole(value: Decimal) -> Decimal:
    """Round to whole currency units, half up (converted catalog prices).

    >>> to_whole(Decimal("241379.31")), to_whole(Decimal("0.5")), to_whole(Decimal("2.49"))
    (Decimal('241379'), Decimal('1'), Decimal('2'))
    """
    return Decimal(value).quantize(UNIT, rounding=ROUND_HALF_UP)


def catalog_unit_amount(
    value: Decimal,
    *,
    row_currency: str,
    percent_of_hardware: bool,
    currency: str,
    fx_rate: Decimal | None,
    hardware_total: Decimal | None,
) -> Decimal:
    """One catalog figure (a price or a cost) per unit in the quote's currency: THE rule.

    - A "% of hardware per year" item: `value` % of the hardware total (the revision's
      non-optional server, networking and storage lines: `hardware_total`), rounded to
      cents.
    - Same currency as the quote: the catalog figure as it is (cents).
    - Another currency: converted with the EUR/USD rate and rounded to whole currency
      units, half up (docs/quotes.md, "Pricing rule").

    >>> catalog_unit_amount(Decimal("280000"), row_currency="USD", percent_of_hardware=False,
    ...                     currency="EUR", fx_rate=Decimal("1.16"), hardware_total=None)
    Decimal('241379')
    >>> catalog_unit_amount(Decimal("4999.50"), row_currency="EUR", percent_of_hardware=False,
    ...                     currency="EUR", fx_rate=None, hardware_total=None)
    Decimal('4999.50')
    >>> catalog_unit_amount(Decimal("10"), row_currency="USD", percent_of_hardware=True,
    ...                     currency="EUR", fx_rate=None, hardware_total=Decimal("482758.5"))
    Decimal('48275.85')
    """
    if percent_of_hardware:
        if not hardware_total:
            raise PriceUnavailable("no hardware to take a percentage of")
        return to_cents(hardware_total * value / HUNDRED)
    return fixed_catalog_amount(value, row_currency, currency, fx_rate)


def fixed_catalog_amount(
    value: Decimal, row_currency: str, currency: str, fx_rate: Decimal | None
) -> Decimal:
    """A catalog amount (not a "% of hardware") in the quote's currency: as it is (cents)
    in the same currency, else converted and rounded to whole units (catalog_unit_amount).

    >>> fixed_catalog_amount(Decimal("290000"), "USD", "EUR", Decimal("1.16"))
    Decimal('250000')
    """
    if row_currency == currency:
        return to_cents(value)
    if fx_rate is None:
        raise PriceUnavailable("an EUR/USD rate is needed to convert")
    return to_whole(convert(value, row_currency, currency, fx_rate))


def _row_amount(
    row: Any,
    value: Decimal,
    currency: str,
    fx_rate: Decimal | None,
    hardware_total: Decimal | None,
) -> Decimal:
    """One of a catalog row's figures (its price or its cost) in `currency`: the row says
    its currency and whether it is a "% of hardware" item (catalog_unit_amount)."""
    return catalog_unit_amount(
        value,
        row_currency=row.currency,
        percent_of_hardware=getattr(row, "unit", "") == PERCENT_OF_HARDWARE,
        currency=currency,
        fx_rate=fx_rate,
        hardware_total=hardware_total,
    )


def catalog_unit_price(
    row: Any, currency: str, fx_rate: Decimal | None, hardware_total: Decimal | None = None
) -> Decimal:
    """The unit price of a catalog row (server model or item) on a quote in `currency`.

    The one pricing function: adding a line, re-pricing and the price-change check all
    call it, so the same row gives the same price everywhere (catalog_unit_amount).

    >>> from types import SimpleNamespace as Row
    >>> server = Row(list_price=Decimal("199000"), currency="USD")
    >>> catalog_unit_price(server, "EUR", Decimal("1.08"))
    Decimal('184259')
    >>> catalog_unit_price(server, "USD", None)
    Decimal('199000.00')
    """
    value = row.list_price if hasattr(row, "list_price") else row.price
    return _row_amount(row, value, currency, fx_rate, hardware_total)


def catalog_unit_cost(
    row: Any, currency: str, fx_rate: Decimal | None, hardware_total: Decimal | None = None
) -> Decimal | None:
    """The unit cost of a catalog row by the same rule as its price; None when unknown.

    >>> from types import SimpleNamespace as Row
    >>> catalog_unit_cost(Row(cost_price=None, currency="USD"), "EUR", None) is None
    True
    >>> catalog_unit_cost(Row(cost_price=Decimal("169150"), currency="USD"), "EUR", Decimal("1.08"))
    Decimal('156620')
    """
    cost = getattr(row, "cost_price", None)
    if cost is None:
        return None
    try:
        return _row_amount(row, cost, currency, fx_rate, hardware_total)
    except PriceUnavailable:
        return None
