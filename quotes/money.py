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
