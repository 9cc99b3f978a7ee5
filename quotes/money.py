"""Money that reaches a buyer: Decimal, rounded once (ROUND_HALF_UP to cents) at the boundary."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

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
