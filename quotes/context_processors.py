"""What every page's layout shows of the seller (templates/base.html)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from catalog.audience import sees_internal_prices

from .models import CompanyProfile


def company(request: HttpRequest) -> dict[str, Any]:
    """The company profile (the one the PDF proposal prints) for the header and footer,
    and whether the reader sees own prices' internal flags. Both are read only when a
    template uses them: an htmx fragment costs no query."""
    return {
        "company": SimpleLazyObject(CompanyProfile.current),
        "internal_prices": SimpleLazyObject(lambda: sees_internal_prices(request.user)),
    }
