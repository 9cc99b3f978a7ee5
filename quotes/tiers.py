"""Tier prices: which price-book row prices a catalog line, and at what net unit price.

Pure rules (no queries): the rows are whatever objects carry a price-book row's fields
(catalog.models.PriceBookRow). The services (quotes/services/tiers.py) fetch them and
store on each line its `list_price` and `price_basis`, the code written by `basis_of`
that tells the re-price check whether the rule that priced a line still holds.
docs/quotes.md, "Price books and tiers".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from .money import HUNDRED, fixed_catalog_amount, to_cents

LIST_BASIS = ""


@dataclass(frozen=True)
class TierPrice:
    """A line's net unit price and the rule that made it (`basis`, stored on the line)."""

    unit_price: Decimal
    basis: str


def book_row_for(rows: Iterable[Any], catalog_key: str, category: str, day: date) -> Any | None:
    """The price-book row that prices `catalog_key` (of `category`) on `day`, or None.

    A row for the item itself comes before a row for its category; among rows of the same
    kind, the one valid from the latest day, then the last key.

    >>> from types import SimpleNamespace as Row
    >>> d = date(2026, 12, 6)
    >>> servers = Row(key="p-servers", catalog_key="", category="server",
    ...               valid_from=date(2026, 1, 1), valid_to=None)
    >>> h100 = Row(key="p-h100", catalog_key="server:h100", category="",
    ...            valid_from=date(2026, 12, 7), valid_to=None)
    >>> book_row_for([servers, h100], "server:h100", "server", d).key  # h100's starts tomorrow
    'p-servers'
    >>> book_row_for([servers, h100], "server:h100", "server", date(2026, 12, 7)).key
    'p-h100'
    >>> book_row_for([servers], "item:nic", "networking", d) is None
    True
    """
    valid = [
        row
        for row in rows
        if row.valid_from <= day
        and (row.valid_to is None or day <= row.valid_to)
        and (row.catalog_key == catalog_key or (not row.catalog_key and row.category == category))
    ]
    if not valid:
        return None
    return max(valid, key=lambda row: (row.catalog_key == catalog_key, row.valid_from, row.key))


def basis_of(tier_key: str, row: Any) -> str:
    """The code of a price-book row's rule: it changes when the row's price does.

    >>> from types import SimpleNamespace as Row
    >>> basis_of("partner", Row(key="p-servers", discount_pct=Decimal("12"), net_price=None,
    ...                         currency=""))
    'book:partner:p-servers:pct:12'
    >>> basis_of("reseller", Row(key="r-h100", discount_pct=None,
    ...                          net_price=Decimal("255000.00"), currency="EUR"))
    'book:reseller:r-h100:net:255000.00:EUR'
    """
    if row.discount_pct is not None:
        return f"book:{tier_key}:{row.key}:pct:{row.discount_pct.normalize():f}"
    return f"book:{tier_key}:{row.key}:net:{row.net_price}:{row.currency}"


def deal_basis(number: str, price: Decimal) -> str:
    """The code of a registered deal price (a new price or number is a new rule)."""
    return f"deal:{number}:{price}"


def book_unit_price(
    list_unit: Decimal, row: Any, *, currency: str, fx_rate: Decimal | None
) -> Decimal:
    """The net unit price a price-book row gives an item listed at `list_unit`.

    A discount: list × (100 − discount) / 100, rounded to cents. A net price: the row's
    price in the quote's currency by the catalog's rule (money.fixed_catalog_amount:
    converted prices rounded to whole units).

    Hand calculation: list €300,000, partner −12 % → 300,000 × 88 / 100 = €264,000.00.

    >>> from types import SimpleNamespace as Row
    >>> partner = Row(discount_pct=Decimal("12"), net_price=None, currency="")
    >>> book_unit_price(Decimal("300000"), partner, currency="EUR", fx_rate=None)
    Decimal('264000.00')
    >>> net = Row(discount_pct=None, net_price=Decimal("290000"), currency="USD")
    >>> book_unit_price(Decimal("300000"), net, currency="EUR", fx_rate=Decimal("1.16"))
    Decimal('250000')
    """
    if row.discount_pct is not None:
        return to_cents(list_unit * (HUNDRED - row.discount_pct) / HUNDRED)
    return fixed_catalog_amount(row.net_price, row.currency, currency, fx_rate)


@dataclass(frozen=True)
class PricingTerms:
    """What prices a customer's catalog line besides the catalog: the tier's rows and a
    deal registration valid today (`deal` empty when there is none, or it expired)."""

    tier_key: str
    rows: tuple[Any, ...]
    day: date
    deal: str = ""


def line_price(
    terms: PricingTerms,
    *,
    catalog_key: str,
    category: str,
    list_unit: Decimal,
    registered_price: Decimal | None,
    currency: str,
    fx_rate: Decimal | None,
) -> TierPrice:
    """A catalog line's net unit price: the registered deal price while the deal holds,
    else the tier's price-book price valid on the day, else list.

    >>> from types import SimpleNamespace as Row
    >>> row = Row(key="p-servers", catalog_key="", category="server",
    ...           discount_pct=Decimal("12"), net_price=None, currency="",
    ...           valid_from=date(2026, 1, 1), valid_to=date(2026, 12, 31))
    >>> terms = PricingTerms("partner", (row,), date(2026, 12, 6), deal="DR-1")
    >>> args = dict(catalog_key="server:h100", category="server", list_unit=Decimal("300000"),
    ...             currency="EUR", fx_rate=None)
    >>> line_price(terms, registered_price=Decimal("250000.00"), **args)
    TierPrice(unit_price=Decimal('250000.00'), basis='deal:DR-1:250000.00')
    >>> line_price(terms, registered_price=None, **args)
    TierPrice(unit_price=Decimal('264000.00'), basis='book:partner:p-servers:pct:12')
    >>> line_price(PricingTerms("partner", (row,), date(2027, 1, 1)), registered_price=None,
    ...            **args)
    TierPrice(unit_price=Decimal('300000'), basis='')
    """
    row, basis = line_rule(
        terms, catalog_key=catalog_key, category=category, registered_price=registered_price
    )
    if basis.startswith("deal:"):
        assert registered_price is not None
        return TierPrice(registered_price, basis)
    if row is None:
        return TierPrice(list_unit, basis)
    unit = book_unit_price(list_unit, row, currency=currency, fx_rate=fx_rate)
    return TierPrice(unit, basis)


def line_rule(
    terms: PricingTerms, *, catalog_key: str, category: str, registered_price: Decimal | None
) -> tuple[Any | None, str]:
    """The rule that prices a catalog line under `terms`: the price-book row (None for a
    deal price or list) and its basis code (line_price)."""
    if terms.deal and registered_price is not None:
        return None, deal_basis(terms.deal, registered_price)
    row = book_row_for(terms.rows, catalog_key, category, terms.day)
    if row is None:
        return None, LIST_BASIS
    return row, basis_of(terms.tier_key, row)


def discount_off_list(list_unit: Decimal | None, unit_price: Decimal) -> Decimal | None:
    """How far below list a net price is, in % to one decimal (for "partner −12 %").

    >>> discount_off_list(Decimal("300000"), Decimal("264000")), discount_off_list(None, 1)
    (Decimal('12.0'), None)
    """
    if not list_unit:
        return None
    return ((list_unit - unit_price) * HUNDRED / list_unit).quantize(Decimal("0.1"))


def basis_price(basis: str, list_unit: Decimal, currency: str) -> Decimal | None:
    """The unit price a line's rule gives (None: list, or a net price in another
    currency, whose conversion the basis does not keep): a line whose unit price differs
    was priced by hand since.

    >>> basis_price("book:partner:p-servers:pct:12", Decimal("300000"), "USD")
    Decimal('264000.00')
    >>> basis_price("book:reseller:r-h100:net:255000.00:USD", Decimal("300000"), "USD")
    Decimal('255000.00')
    >>> basis_price("deal:DR-1:240000.00", Decimal("300000"), "USD")
    Decimal('240000.00')
    >>> basis_price("book:reseller:r-h100:net:255000.00:USD", Decimal("300000"), "EUR") is None
    True
    """
    parts = basis.split(":")
    if parts[0] == "deal":
        return Decimal(parts[-1])
    if parts[0] != "book":
        return None
    if parts[3] == "pct":
        return to_cents(list_unit * (HUNDRED - Decimal(parts[4])) / HUNDRED)
    return Decimal(parts[4]) if parts[5] == currency else None
