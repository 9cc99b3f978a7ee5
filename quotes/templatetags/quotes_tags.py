"""Template helpers for the quote pages and the calculator's quote actions."""

import uuid
from typing import Any

from django import template

from quotes.services import is_sales as _is_sales

register = template.Library()


@register.filter
def is_sales(user: Any) -> bool:
    return _is_sales(user)


@register.simple_tag
def new_uuid() -> str:
    """A fresh idempotency key for a form that performs one action."""
    return str(uuid.uuid4())


@register.filter
def qty(value: Any) -> str:
    """A quantity as the buyer reads it: 19 (not "19,00"); 2.5 → "2,5" in Dutch."""
    from decimal import Decimal, InvalidOperation

    from django.utils import formats

    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return "–"
    if number == number.to_integral_value():
        return formats.number_format(number, 0, use_l10n=True, force_grouping=True)
    decimals = max(0, min(2, -number.normalize().as_tuple().exponent))  # type: ignore[operator]
    return formats.number_format(number, decimals, use_l10n=True, force_grouping=True)
