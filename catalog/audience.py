"""Who reads a price: the distributor's own people, or the public.

The distributor's own list prices (its servers and the items it sells) carry internal
flags — an estimate mark, the price list's date and its staleness — that tell staff which
prices to check. They stay internal (docs/architecture: what the buyer sees and what the
seller sees are separate views): a visitor, a lead or a buyer reads an own price as the
distributor's list price, without its date or flags. Third-party prices (cloud offerings,
hosted APIs, exchange rates) keep their source, date and age for everyone: they are facts
about someone else's offer.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

# The kinds of price list (catalog.models.PriceKind values) that are the distributor's own.
OWN_PRICE_KINDS = frozenset({"servers", "items", "components"})

# An own list price's source as the public reads it.
OWN_PRICE_SOURCE = _("Our price list")


def source_name(source: str) -> str:
    """A source as the public reads it: the publication's name, without our remarks
    (text after ";" or in parentheses), as the PDF proposal prints it (quotes/pdf.py).

    >>> source_name("Supermicro product page (6 × 3000 W PSU); max power estimated")
    'Supermicro product page'
    """
    return (source or "").split(";")[0].split(" (")[0].strip()


def sees_internal_prices(user: Any) -> bool:
    """Whether `user` reads the internal flags of own prices: staff and sales engineers
    (members of the "sales" group — the same people who reach the quote pages)."""
    if not (getattr(user, "is_authenticated", False) and user.is_active):
        return False
    return bool(user.is_staff or user.groups.filter(name="sales").exists())
