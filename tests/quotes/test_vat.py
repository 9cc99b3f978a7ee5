"""VAT for a Dutch seller of goods to businesses: every case gives the legal rate and text."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings
from stdnum.eu import vat as eu_vat

from quotes import services, vat
from quotes.forms import CustomerForm
from quotes.models import Customer, Quote

from .conftest import send

pytestmark = pytest.mark.django_db

EN_IC = "VAT reverse charged — intra-Community supply, Article 138 of Council Directive 2006/112/EC"
NL_IC = "Btw verlegd — intracommunautaire levering, artikel 138 van Richtlijn 2006/112/EG"
EN_EXPORT = "Export outside the EU, VAT 0 % (Article 146 of Directive 2006/112/EC)"
NL_EXPORT = "Export buiten de EU, 0 % btw (artikel 146 Richtlijn 2006/112/EG)"


@pytest.mark.parametrize(
    ("country", "vat_id", "rate", "kind", "text_en", "text_nl"),
    [
        # Dutch business, ID or not: 21 %, no special wording.
        ("NL", "NL004495445B01", "21", vat.STANDARD, "", ""),
        ("NL", "", "21", vat.STANDARD, "", ""),
        # EU business with a valid ID of its own country: intra-Community supply.
        ("DE", "DE136695976", "0", vat.REVERSE_CHARGE, EN_IC, NL_IC),
        ("GR", "EL094259216", "0", vat.REVERSE_CHARGE, EN_IC, NL_IC),
        ("AT", "atu 135 856 27", "0", vat.REVERSE_CHARGE, EN_IC, NL_IC),
        # EU business with an invalid ID (check digit, other country, garbage): Dutch VAT.
        ("DE", "DE136695978", "21", vat.STANDARD, "", ""),
        ("FR", "DE136695976", "21", vat.STANDARD, "", ""),
        ("DE", "x", "21", vat.STANDARD, "", ""),
        # EU business without an ID: Dutch VAT, never the destination rate.
        ("DE", "", "21", vat.STANDARD, "", ""),
        ("HU", "", "21", vat.STANDARD, "", ""),
        # Outside the EU: export at 0 %, ID or not.
        ("US", "", "0", vat.EXPORT, EN_EXPORT, NL_EXPORT),
        ("CH", "CHE-116.281.710", "0", vat.EXPORT, EN_EXPORT, NL_EXPORT),
    ],
)
def test_every_vat_case_has_the_legal_rate_and_text(
    country: str, vat_id: str, rate: str, kind: str, text_en: str, text_nl: str
) -> None:
    treatment = vat.vat_for(country=country, vat_number=vat_id)
    assert (treatment.rate, treatment.kind) == (Decimal(rate), kind)
    assert vat.vat_legal_text(kind, "en").startswith(text_en)
    assert vat.vat_legal_text(kind, "nl").startswith(text_nl)


def test_any_string_is_no_longer_a_vat_id() -> None:
    assert vat.vat_for(country="DE", vat_number="x").kind == vat.STANDARD
    assert vat.vat_for(country="DE", vat_number="x").rate == Decimal("21")


def test_intra_community_text_names_the_buyers_vat_id() -> None:
    text = vat.vat_legal_text(vat.REVERSE_CHARGE, "nl", "DE136695976")
    assert text.startswith(NL_IC) and "DE136695976" in text


@pytest.mark.parametrize(
    ("country", "vat_id", "message"),
    [
        ("DE", "DE136695978", "not a valid VAT ID for DE"),
        ("DE", "FR40303265045", "starts with DE"),
        ("GR", "GR094259216", "starts with EL"),
        ("BE", "BE12", "format: BE0403019261"),
    ],
)
def test_an_invalid_vat_id_is_a_form_error(country: str, vat_id: str, message: str) -> None:
    form = CustomerForm(
        {
            "company": "Tensor GmbH",
            "contact_name": "Lena",
            "email": "lena@tensor.example",
            "country": country,
            "vat_number": vat_id,
            "language": "en",
        }
    )
    assert not form.is_valid()
    assert message in " ".join(str(error) for error in form.errors["vat_number"])


def test_a_valid_vat_id_is_stored_compact_with_its_prefix() -> None:
    form = CustomerForm(
        {
            "company": "Tensor GmbH",
            "contact_name": "Lena",
            "email": "lena@tensor.example",
            "country": "DE",
            "vat_number": "136 695 976",
            "language": "en",
        }
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["vat_number"] == "DE136695976"


def test_the_quote_form_refuses_an_invalid_vat_id_without_a_500(
    client: Client, seed_catalog: object, sales_user: User
) -> None:
    client.force_login(sales_user)
    response = client.post(
        reverse("quotes:new"),
        {
            "company": "Tensor GmbH",
            "contact_name": "Lena",
            "email": "lena@tensor.example",
            "country": "DE",
            "vat_number": "DE999999999",
            "language": "en",
            "currency": "EUR",
        },
    )
    assert response.status_code == 200
    assert "not a valid VAT ID for DE" in response.content.decode()
    assert not Customer.objects.filter(company="Tensor GmbH").exists()
    assert not Quote.objects.exists()


def test_vies_is_not_asked_when_the_setting_is_off(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert settings.QUOTES_VIES_LOOKUP is False  # the default: no network

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("VIES must not be called")

    monkeypatch.setattr(eu_vat, "check_vies", no_network)
    assert vat.vat_id_problem("DE136695976", "DE") is None
    assert vat.vat_for(country="DE", vat_number="DE136695976").reverse_charge


def test_vies_decides_when_the_setting_is_on(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # VIES is a remote service the tests cannot reach; its answer is stood in for here.
    settings.QUOTES_VIES_LOOKUP = True
    asked: list[str] = []

    def vies(number: str, timeout: float = 30) -> dict[str, Any]:
        asked.append(number)
        return {"valid": False}

    monkeypatch.setattr(eu_vat, "check_vies", vies)
    assert "VIES" in (vat.vat_id_problem("DE136695976", "DE") or "")
    assert asked == ["DE136695976"]


def test_the_sent_snapshot_carries_the_legal_text_in_the_buyers_language(
    seed_catalog: object, sales_user: User
) -> None:
    from quotes.models import Team

    customer = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Tensor GmbH",
        contact_name="Lena",
        email="lena@tensor.example",
        country="DE",
        vat_number="DE136695976",
        language="nl",
    )
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    legal = revision.snapshot["vat"]["legal_text"]
    assert legal.startswith(NL_IC) and "DE136695976" in legal
    assert revision.snapshot["vat"]["rate"] == "0" and revision.snapshot["totals"]["vat"] == "0.00"


def test_every_vat_example_passes_its_own_check() -> None:
    """Issue 43: "not a valid VAT ID for NL: check the digits (format: NL123456789B01)"
    refused its own example. Each country's example is shown when an ID is refused, so
    each passes the check digits of that country."""
    assert set(vat.VAT_FORMAT_HINTS) == set(vat.EU_VAT_RATES)
    refused = [hint for hint in vat.VAT_FORMAT_HINTS.values() if not eu_vat.is_valid(hint)]
    assert refused == []


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", ">Germany</option>"), ("nl", ">Duitsland</option>")],
)
def test_the_lead_form_names_countries_in_the_readers_language(
    client: Client, language: str, shown: str
) -> None:
    """Issue 43: the lead form listed ISO codes (AE, AT, BE, …)."""
    from django.conf import settings

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(reverse("quotes:lead_form")).content.decode()
    assert f'<option value="DE"{shown}' in page
    assert ">DE</option>" not in page and ">AE</option>" not in page
    with translation.override(language):
        select = str(CustomerForm()["country"])  # the sales engineer's customer form
        labels = [label for _code, label in vat.country_choices()]
    assert f'<option value="DE"{shown}' in select
    assert labels == sorted(labels) and "DE" not in labels
