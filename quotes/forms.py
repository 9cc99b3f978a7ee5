"""Forms parse and validate what browsers post; the services decide what it means."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Customer, Status
from .vat import COUNTRY_CHOICES


class CustomerForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Customer
        fields = ["company", "contact_name", "email", "country", "vat_number", "language"]


class QuoteStartForm(forms.Form):
    """Pick a customer of the team, or describe a new one."""

    customer = forms.ModelChoiceField(
        label=_("Customer"),
        queryset=Customer.objects.none(),
        required=False,
        to_field_name="public_id",
        empty_label=_("— new customer —"),
    )
    company = forms.CharField(label=_("Company"), max_length=200, required=False)
    contact_name = forms.CharField(label=_("Contact name"), max_length=200, required=False)
    email = forms.EmailField(label=_("Email"), required=False)
    country = forms.ChoiceField(label=_("Country"), choices=COUNTRY_CHOICES, initial="NL")
    vat_number = forms.CharField(label=_("VAT number"), max_length=30, required=False)
    language = forms.ChoiceField(
        label=_("Preferred language"), choices=[("en", _("English")), ("nl", _("Dutch"))]
    )
    currency = forms.ChoiceField(
        label=_("Currency"), choices=[("EUR", "EUR"), ("USD", "USD")], required=False
    )
    calc = forms.CharField(widget=forms.HiddenInput, required=False, max_length=4000)

    def __init__(self, *args: Any, customers: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["customer"].queryset = customers

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("customer"):
            for name in ("company", "contact_name", "email"):
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, _("Needed for a new customer."))
        return data


class LineForm(forms.Form):
    catalog_key = forms.ChoiceField(label=_("Catalog item"), choices=())
    quantity = forms.DecimalField(
        label=_("Quantity"),
        min_value=Decimal("0.01"),
        max_value=Decimal("100000"),
        max_digits=10,
        decimal_places=2,
        initial=1,
    )
    discount_pct = forms.DecimalField(
        label=_("Discount %"),
        min_value=Decimal(0),
        max_value=Decimal(100),
        max_digits=5,
        decimal_places=2,
        initial=0,
        required=False,
    )
    optional = forms.BooleanField(label=_("Optional item"), required=False)

    def __init__(self, *args: Any, choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["catalog_key"].choices = choices


class RevisionForm(forms.Form):
    valid_until = forms.DateField(
        label=_("Valid until"), widget=forms.DateInput(attrs={"type": "date"})
    )
    terms = forms.CharField(
        label=_("Terms"), widget=forms.Textarea(attrs={"rows": 4}), max_length=5000, required=False
    )


class ActionForm(forms.Form):
    """A send/resend action: the key makes a double submit one action."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput)


class DecisionForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200)
    decision = forms.ChoiceField(choices=[("accept", _("Accept")), ("decline", _("Decline"))])

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Please type your name."))
        return name


class LeadForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=200)
    company = forms.CharField(label=_("Company"), max_length=200)
    email = forms.EmailField(label=_("Email"))
    consent = forms.BooleanField(
        label=_("I agree that a sales engineer may contact me about this analysis."),
        error_messages={"required": _("Please agree so that we may send you the PDF.")},
    )
    query = forms.CharField(widget=forms.HiddenInput, required=False, max_length=4000)
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput)

    def clean_name(self) -> str:
        return _strip_required(self.cleaned_data["name"])

    def clean_company(self) -> str:
        return _strip_required(self.cleaned_data["company"])


def _strip_required(value: str) -> str:
    if not value.strip():
        raise forms.ValidationError(_("This field is required."))
    return value.strip()


class QuoteFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=100)
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("any status")), *Status.choices]
    )
