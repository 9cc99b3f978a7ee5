"""Forms parse and validate what browsers post; the services decide what it means."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.utils.translation import gettext_lazy as _

from catalog.models import PriceTier
from common.numbers import LocalizedDecimalField

from .models import Customer, DeclineReason, LeadStatus, Status, Team
from .selectors import AWAITING_APPROVAL
from .vat import country_choices, normalise_vat_id, vat_id_problem


def _field[F: forms.Field](form: forms.BaseForm, name: str, kind: type[F]) -> F:
    """The form's field `name`, of the class it is declared with."""
    field = form.fields[name]
    assert isinstance(field, kind)
    return field


def _clean_vat_id(form: forms.BaseForm, data: dict[str, Any]) -> None:
    """An invalid VAT ID is a form error (never a silent reverse charge); a valid one is
    stored compact with its country prefix."""
    country = data.get("country") or ""
    vat_id = data.get("vat_number") or ""
    if not vat_id or "vat_number" in form.errors:
        return
    problem = vat_id_problem(vat_id, country)
    if problem:
        form.add_error("vat_number", problem)
    else:
        data["vat_number"] = normalise_vat_id(vat_id, country)


class CustomerForm(forms.ModelForm[Customer]):
    class Meta:
        model = Customer
        fields = ["company", "contact_name", "email", "country", "vat_number", "language", "tier"]
        help_texts = {
            "vat_number": _(
                "EU customers outside the Netherlands: with a valid VAT ID the supply is "
                "VAT-free (intra-Community); without one, Dutch VAT (21 %) applies."
            )
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Names in the reader's language, not the stored ISO codes.
        _field(self, "country", forms.ChoiceField).choices = country_choices()

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _clean_vat_id(self, data)
        return data


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
    country = forms.ChoiceField(label=_("Country"), choices=country_choices, initial="NL")
    vat_number = forms.CharField(label=_("VAT number"), max_length=30, required=False)
    language = forms.ChoiceField(
        label=_("Preferred language"), choices=[("en", _("English")), ("nl", _("Dutch"))]
    )
    # A new customer's tier (empty: list price).
    tier = forms.ModelChoiceField(
        label=_("Price tier"),
        queryset=PriceTier.objects.all(),
        required=False,
        to_field_name="key",
        empty_label=_("list price"),
    )
    currency = forms.ChoiceField(
        label=_("Currency"), choices=[("EUR", "EUR"), ("USD", "USD")], required=False
    )
    calc = forms.CharField(widget=forms.HiddenInput, required=False, max_length=4000)
    # From a calculator result: the next cheapest servers with another GPU as options B–D.
    alternatives = forms.TypedChoiceField(
        label=_("Also offer as options"),
        choices=[
            (0, _("no alternatives")),
            (1, _("the next cheapest server with another GPU")),
            (2, _("the next two, each with another GPU")),
            (3, _("the next three, each with another GPU")),
        ],
        coerce=int,
        initial=0,
        required=False,
    )
    # From a calculator result: the lease of the recommended servers as the last option,
    # over one of the engine's default lease terms (services.options.option_add_lease).
    lease_term_months = forms.TypedChoiceField(
        label=_("Also offer a lease"),
        choices=[
            (0, _("no lease")),
            (36, _("the recommended servers leased over 36 months")),
            (48, _("the recommended servers leased over 48 months")),
            (60, _("the recommended servers leased over 60 months")),
        ],
        coerce=int,
        initial=0,
        required=False,
    )
    # The lead the quote is started from ("Start a quote" on the leads page).
    lead = forms.UUIDField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, customers: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _field(self, "customer", forms.ModelChoiceField).queryset = customers

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("customer"):
            for name in ("company", "contact_name", "email"):
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, _("Needed for a new customer."))
            _clean_vat_id(self, data)
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

    def __init__(self, *args: Any, choices: list[tuple[str, Any]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _field(self, "catalog_key", forms.ChoiceField).choices = choices


class RevisionForm(forms.Form):
    valid_until = forms.DateField(
        label=_("Valid until"),
        # A date input's value is ISO in every language (the browser shows it localised);
        # Dutch "01-01-2027" left it blank.
        widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"}),
        input_formats=["%Y-%m-%d"],
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
    # Declining asks why (a reason from the list, words of the buyer's own beside it).
    reason = forms.ChoiceField(
        label=_("Why do you decline?"),
        choices=[("", ""), *DeclineReason.choices],
        required=False,
    )
    note = forms.CharField(max_length=2000, required=False)

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Please type your name."))
        return name

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if cleaned.get("decision") == "decline" and not cleaned.get("reason"):
            self.add_error("reason", _("Please choose why you decline."))
        return cleaned


class AcceptanceForm(forms.Form):
    """The buyer's acceptance: terms ticked, name and role typed, a PO number if any."""

    terms = forms.BooleanField(
        label=_("I have read the proposal and accept it with its terms."),
        error_messages={"required": _("Please tick that you accept the terms.")},
    )
    name = forms.CharField(
        label=_("Your name"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    role = forms.CharField(
        label=_("Your role"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "organization-title"}),
    )
    po_number = forms.CharField(
        label=_("Purchase order number (optional)"), max_length=100, required=False
    )
    # The option accepted, when the proposal offers several (services.options).
    option = forms.CharField(max_length=1, required=False)
    # The SHA-256 of the PDF shown on the page (the buyer accepts that document).
    pdf_sha256 = forms.RegexField(
        regex=r"^[0-9a-f]{64}$",
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid": _("The page is out of date; please reload it.")},
    )

    def clean_name(self) -> str:
        return _required_text(self.cleaned_data["name"], _("Please type your name."))

    def clean_role(self) -> str:
        return _required_text(self.cleaned_data["role"], _("Please type your role."))


def _required_text(value: str, message: Any) -> str:
    if not value.strip():
        raise forms.ValidationError(message)
    return value.strip()


LEAD_FORM_SALT = "quotes.lead-form"
# A URL, an address or markup in a name: spam wants those in the email we would send.
_NOT_A_NAME = re.compile(r"https?:|://|www\.|@|[<>{}\[\]\\/]|\.(com|net|org|ru|io)\b", re.I)


def lead_form_stamp() -> str:
    """The signed time the lead form was handed out (its `started` field)."""
    return signing.TimestampSigner(salt=LEAD_FORM_SALT).sign("lead-form")


def _countries_or_none() -> list[tuple[str, str]]:
    """The lead form's countries, after a "no country" choice (the field is optional)."""
    return [("", "—"), *country_choices()]


class LeadForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    company = forms.CharField(label=_("Company"), max_length=200)
    email = forms.EmailField(label=_("Email"))
    # Optional: routes the lead to the team for that country (LeadRoute).
    country = forms.ChoiceField(label=_("Country"), choices=_countries_or_none, required=False)
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
    # The proof of work the page solves (common/challenge.py), needed past a network's
    # share (quotes/services/leads.py: lead_rate_limit).
    challenge = forms.CharField(widget=forms.HiddenInput, required=False, max_length=200)
    proof = forms.CharField(widget=forms.HiddenInput, required=False, max_length=20)

    def clean_name(self) -> str:
        name = _strip_required(self.cleaned_data["name"])
        if _NOT_A_NAME.search(name):
            raise forms.ValidationError(_("Please type just your name."))
        return name

    def clean_company(self) -> str:
        # It is printed on the analysis' cover ("Prepared for …"): the same rules as names.
        company = _strip_required(self.cleaned_data["company"])
        if _NOT_A_NAME.search(company):
            raise forms.ValidationError(_("Please type just the name of your company."))
        return company

    def clean_website(self) -> str:
        if self.cleaned_data["website"]:
            raise forms.ValidationError(_("This request looks automated and was not sent."))
        return ""

    def clean_started(self) -> str:
        stamp: str = self.cleaned_data["started"]
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
        label=_("Status"),
        required=False,
        choices=[
            ("", _("any status")),
            (AWAITING_APPROVAL, _("awaiting approval")),
            *Status.choices,
        ],
    )
    owner = forms.TypedChoiceField(
        label=_("Owner"), required=False, coerce=int, empty_value=None, choices=()
    )

    def __init__(self, *args: Any, owners: Sequence[tuple[int, str]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _field(self, "owner", forms.ChoiceField).choices = [("", _("any owner")), *owners]

    def filters(self) -> dict[str, Any]:
        """The valid filters (an invalid one is ignored rather than refused)."""
        self.is_valid()
        data = self.cleaned_data  # only the fields that passed
        return {
            "search": data.get("q") or "",
            "status": data.get("status") or "",
            "owner": data.get("owner"),
        }


class LeadUpdateForm(forms.Form):
    """Who follows a lead up, and how far it got."""

    owner: forms.ModelChoiceField[User] = forms.ModelChoiceField(
        label=_("Owner"),
        queryset=None,
        required=False,
        empty_label=_("— nobody —"),
    )
    status = forms.ChoiceField(label=_("Status"), choices=LeadStatus.choices)

    def __init__(self, *args: Any, owners: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _field(self, "owner", forms.ModelChoiceField).queryset = owners
        # In a table row: the column header shows the words, the controls name themselves.
        self.fields["owner"].widget.attrs["aria-label"] = _("Owner")
        self.fields["status"].widget.attrs["aria-label"] = _("Status")


class TeamJoinForm(forms.Form):
    """Staff without a team: join one, or create one and join it."""

    team = forms.ModelChoiceField(
        label=_("Join the team"),
        queryset=Team.objects.order_by("name"),
        required=False,
        empty_label=_("— pick a team —"),
    )
    new_name = forms.CharField(label=_("or create a team named"), max_length=100, required=False)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("team") and not (data.get("new_name") or "").strip() and not self.errors:
            raise forms.ValidationError(_("Pick a team or type the name of a new one."))
        return data


class WinLossForm(forms.Form):
    """The win/loss page's period (?from=&to=, ISO dates) and team (one of the user's)."""

    team = forms.TypedChoiceField(
        label=_("Team"), required=False, coerce=int, empty_value=None, choices=()
    )

    def __init__(self, *args: Any, teams: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        date_input = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
        # "from" and "to" are the query's names; "from" cannot be a class attribute.
        self.fields["from"] = forms.DateField(label=_("From"), required=False, widget=date_input)
        self.fields["to"] = forms.DateField(label=_("To"), required=False, widget=date_input)
        self.order_fields(["from", "to", "team"])
        _field(self, "team", forms.ChoiceField).choices = [
            ("", _("all my teams")),
            *[(team.pk, team.name) for team in teams],
        ]

    def period(self, default: tuple[date, date]) -> tuple[date, date, int | None]:
        """(from, to, team id): the valid values, the defaults for the others; a period
        given backwards is turned round."""
        self.is_valid()
        data = self.cleaned_data
        start = data.get("from") or default[0]
        end = data.get("to") or default[1]
        return min(start, end), max(start, end), data.get("team")


class RateForm(forms.Form):
    """Fix a draft's EUR/USD rate by hand, with a reason, or release it (services.fx)."""

    rate = LocalizedDecimalField(
        label=_("1 EUR = … USD"),
        min_value=Decimal("0.0001"),
        max_digits=12,
        decimal_places=6,
        required=False,
    )
    reason = forms.CharField(
        label=_("Reason (internal)"),
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=2000,
        required=False,
    )
    release = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("release") and data.get("rate") is None and "rate" not in self.errors:
            self.add_error("rate", _("Give the rate to fix, e.g. 1.0800."))
        return data
