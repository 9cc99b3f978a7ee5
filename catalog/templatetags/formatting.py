"""The `formatting` template library: thin filters over common/formatting.py (numbers and
money in the active language), a source's public name (catalog/audience.py) and the public
kind of a catalog price change."""

from django import template
from django.utils.translation import gettext_lazy as _

from catalog.audience import source_name
from common import formatting

register = template.Library()

register.filter("money", formatting.money)
register.filter("money0", formatting.money0)
register.filter("number", formatting.number)
register.filter("percent", formatting.percent)
register.filter("price", formatting.price)
register.filter("source_name", source_name)


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
