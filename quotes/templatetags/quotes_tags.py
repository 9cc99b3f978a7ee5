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
