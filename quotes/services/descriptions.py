"""Line descriptions in the buyer's language, from the catalog's English and Dutch names."""

from __future__ import annotations

from django.utils import formats, translation
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel

from .analysis import plain


def catalog_name(row: ServerModel | InfrastructureItem, language: str) -> str:
    """The row's name in `language`: the Dutch name for "nl" when the catalog has one."""
    if language == "nl" and row.name_nl:
        return str(row.name_nl)
    return str(row.name)


def line_description(row: ServerModel | InfrastructureItem, language: str) -> str:
    """What a quote line says about a catalog row, in the buyer's language.

    Servers: vendor, SKU, name and GPUs; "% of hardware per year" items: the name and the
    percentage; other items: the name.
    """
    name = catalog_name(row, language)
    if isinstance(row, ServerModel):
        return f"{row.vendor} {row.sku} — {name} ({row.gpu_count}× {row.gpu.name})"
    if row.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR:
        with translation.override(language):
            return _("%(name)s: %(pct)s %% of hardware per year") % {
                "name": name,
                "pct": formats.number_format(plain(row.price), use_l10n=True),
            }
    return name
