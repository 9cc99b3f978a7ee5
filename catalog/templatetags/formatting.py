"""The `formatting` template library: thin filters over common/formatting.py (numbers and
money in the active language) and the public kind of a catalog price change."""

from django import template
from django.utils.translation import gettext_lazy as _

from catalog.audience import source_name as public_name
from common import formatting

register = template.Library()

register.filter("money", formatting.money)
register.filter("money0", formatting.money0)
register.filter("number", formatting.number)
register.filter("percent", formatting.percent)
register.filter("price", formatting.price)


_PUBLIC_SOURCES = {
    "seed catalog": _("seed catalog"),
    "price list import": _("price list import"),
    "catalog edit": _("catalog edit"),
    "catalog update": _("catalog update"),
}


@register.filter
def public_source(source: str) -> str:
    """The kind of a price change, without file names (catalog.selectors)."""
    from catalog.selectors import public_change_source

    return str(_PUBLIC_SOURCES[public_change_source(source or "")])


@register.filter
def source_name(source: str) -> str:
    """A source as the public reads it: the publication's name, without our remarks
    (text after ";" or in parentheses), as the PDF proposal prints it (quotes/pdf.py).

    >>> source_name("Supermicro product page (6 × 3000 W PSU); max power estimated")
    'Supermicro product page'
    """
    return public_name(source)
