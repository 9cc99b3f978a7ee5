"""The deal-terms panel of a draft: the end customer a reseller buys for, the deal
registration (number, expiry, registered net price per catalog line) and the days of
price protection (quotes/services/tiers.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from common.numbers import LocalizedDecimalField

from .models import QuoteLine
from .vat import country_choices


def _registered_price(label: str) -> forms.DecimalField:
    """A registered unit price, typed in the reader's number format (2,5 in Dutch)."""
    field = LocalizedDecimalField(
        label=label,
        required=False,
        decimal_places=2,
        min_value=Decimal(0),
        max_value=Decimal("999999999999"),
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    field.error_messages["min_value"] = _("An amount cannot be negative.")
    return field


def _date_input() -> forms.DateInput:
    # A date input's value is ISO in every language (the browser shows it localised).
    return forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})


class DealTermsForm(forms.Form):
    end_company = forms.CharField(label=_("End customer"), max_length=200, required=False)
    end_country = forms.ChoiceField(label=_("End customer's country"), required=False)
    end_contact = forms.CharField(label=_("End customer's contact"), max_length=200, required=False)
    end_email = forms.EmailField(label=_("End customer's email"), required=False)
    registration = forms.CharField(
        label=_("Deal registration or special-bid number"), max_length=60, required=False
    )
    registration_expires = forms.DateField(
        label=_("Registration expires"),
        required=False,
        widget=_date_input(),
        input_formats=["%Y-%m-%d"],
    )
    protection_days = forms.IntegerField(
        label=_("Price protection (days)"), min_value=0, max_value=365, initial=0
    )

    def __init__(self, *args: Any, lines: list[QuoteLine], **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "deal_%s")  # ids apart from the page's other forms
        super().__init__(*args, **kwargs)
        country = self.fields["end_country"]
        assert isinstance(country, forms.ChoiceField)
        country.choices = [("", "—"), *country_choices()]
        self.catalog_lines = [line for line in lines if line.catalog_key]
        for line in self.catalog_lines:
            label = _("Registered net unit price, line %(position)s") % {"position": line.position}
            self.fields[f"registered_{line.pk}"] = _registered_price(label)

    def registered_fields(self) -> list[tuple[QuoteLine, forms.BoundField]]:
        return [(line, self[f"registered_{line.pk}"]) for line in self.catalog_lines]
