"""Forms parse and validate what browsers post; the services decide what it means."""

from __future__ import annotations

import re
import time
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.core import signing
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


LEAD_FORM_SALT = "quotes.lead-form"
# A URL, an address or markup in a name: spam wants those in the email we would send.
_NOT_A_NAME = re.compile(r"https?:|://|www\.|@|[<>{}\[\]\\/]|\.(com|net|org|ru|io)\b", re.I)


def lead_form_stamp() -> str:
    """The signed time the lead form was handed out (its `started` field)."""
    return signing.TimestampSigner(salt=LEAD_FORM_SALT).sign("lead-form")


class LeadForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    company = forms.CharField(label=_("Company"), max_length=200)
    email = forms.EmailField(label=_("Email"))
    consent = forms.BooleanField(
        label=_("I agree that a sales engineer may contact me about this analysis."),
        error_messages={"required": _("Please agree so that we may send you the PDF.")},
    )
    query = forms.CharField(widget=forms.HiddenInput, required=False, max_length=4000)
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput)
    # Anti-abuse: a field people do not see (bots fill it in) and the time the form was
    # handed out (bots post at once).
    website = forms.CharField(required=False, max_length=200)
    started = forms.CharField(widget=forms.HiddenInput, max_length=200)

    def clean_name(self) -> str:
        name = _strip_required(self.cleaned_data["name"])
        if _NOT_A_NAME.search(name):
            raise forms.ValidationError(_("Please type just your name."))
        return name

    def clean_company(self) -> str:
        return _strip_required(self.cleaned_data["company"])

    def clean_website(self) -> str:
        if self.cleaned_data["website"]:
            raise forms.ValidationError(_("This request looks automated and was not sent."))
        return ""

    def clean_started(self) -> str:
        stamp = self.cleaned_data["started"]
        signer = signing.TimestampSigner(salt=LEAD_FORM_SALT)
        expired = _("The form has expired; reload the page and try again.")
        try:
            signer.unsign(stamp, max_age=24 * 3600)
            # The signed time itself (unsign with max_age only bounds it from above).
            issued = signing.b62_decode(stamp.rsplit(signer.sep, 2)[1])
        except (signing.BadSignature, IndexError, ValueError) as exc:
            raise forms.ValidationError(expired) from exc
        if time.time() - issued < settings.QUOTES_LEAD_MIN_FILL_SECONDS:
            raise forms.ValidationError(
                _("That was quick: please check your details and send the form again.")
            )
        return stamp


def _strip_required(value: str) -> str:
    if not value.strip():
        raise forms.ValidationError(_("This field is required."))
    return value.strip()


class QuoteFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=100)
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("any status")), *Status.choices]
    )
    owner = forms.TypedChoiceField(
        label=_("Owner"), required=False, coerce=int, empty_value=None, choices=()
    )

    def __init__(self, *args: Any, owners: list[tuple[int, str]] = (), **kwargs: Any) -> None:  # type: ignore[assignment]
        super().__init__(*args, **kwargs)
        self.fields["owner"].choices = [("", _("any owner")), *owners]

    def filters(self) -> dict[str, Any]:
        """The valid filters (an invalid one is ignored rather than refused)."""
        self.is_valid()
        data = self.cleaned_data  # only the fields that passed
        return {
            "search": data.get("q") or "",
            "status": data.get("status") or "",
            "owner": data.get("owner"),
        }
