"""Issue 31 item 5: numbers and dates as a person types them, in English and Dutch.

Before: "2,5" typed as a discount in the English form became 25 %, "1.5" in the Dutch form
15, "1,234" meant a thousand in one language and one and a bit in the other, all silently;
the Dutch draft page gave the date input "01-01-2027", which a date input cannot show, so
the terms could not be saved without retyping the date.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django import forms
from django.test import Client
from django.urls import reverse
from django.utils import translation

from common.numbers import LocalizedDecimalField
from quotes.forms import RevisionForm
from quotes.line_forms import QuoteDiscountForm

ACCEPTED = [
    ("en", "2.5", Decimal("2.5")),
    ("nl", "2,5", Decimal("2.5")),
    ("en", "12", Decimal("12")),
    ("en", "0.125", Decimal("0.125")),
    ("nl", "0,125", Decimal("0.125")),
    ("en", "1,234,567.5", Decimal("1234567.5")),
    ("nl", "1.234.567,5", Decimal("1234567.5")),
    ("en", "1234", Decimal("1234")),
]
REFUSED = [
    # (language, typed, words the message must hold)
    ("en", "2,5", "Write decimals with a point: 2.5."),
    ("nl", "2.5", "Schrijf decimalen met een komma: 2,5."),
    ("en", "1,234", "“1,234” can be read as 1234 or as 1.234"),
    ("nl", "1,234", "„1,234” kan gelezen worden als 1234 of als 1,234"),
    ("en", "1.234", "can be read as 1234 or as 1.234"),
    ("nl", "1.234", "kan gelezen worden als 1234 of als 1,234"),
    ("en", "1,2,3", "Write decimals with a point, without other separators."),
]


def clean(language: str, typed: str) -> Any:
    field = LocalizedDecimalField()
    with translation.override(language):
        return field.clean(typed)


@pytest.mark.parametrize(("language", "typed", "value"), ACCEPTED)
def test_a_clear_number_is_read_in_the_readers_language(
    language: str, typed: str, value: Decimal
) -> None:
    assert clean(language, typed) == value


@pytest.mark.parametrize(("language", "typed", "message"), REFUSED)
def test_a_number_that_reads_two_ways_is_refused_with_what_to_type(
    language: str, typed: str, message: str
) -> None:
    with pytest.raises(forms.ValidationError) as refused:
        clean(language, typed)
    assert message in " ".join(refused.value.messages)


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_quote_discount_refuses_an_english_25_that_was_meant_as_2_5(language: str) -> None:
    typed = "2,5" if language == "en" else "2.5"
    with translation.override(language):
        form = QuoteDiscountForm({"discount_pct": typed})
        assert not form.is_valid()
        assert "discount_pct" in form.errors


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_date_input_holds_an_iso_date_in_every_language(language: str) -> None:
    with translation.override(language):
        form = RevisionForm(initial={"valid_until": date(2027, 1, 1), "terms": ""})
        html = str(form["valid_until"])
        assert 'value="2027-01-01"' in html, html
        bound = RevisionForm({"valid_until": "2027-01-01", "terms": ""})
        assert bound.is_valid() and bound.cleaned_data["valid_until"] == date(2027, 1, 1)


@pytest.mark.django_db
def test_the_dutch_draft_page_shows_the_valid_until_date(
    client: Client, draft_quote: Any, sales_user: Any
) -> None:
    client.force_login(sales_user)
    client.cookies["django_language"] = "nl"
    html = client.get(reverse("quotes:detail", args=[draft_quote.public_id])).content.decode()
    field = re.search(r'<input type="date" name="valid_until"[^>]*>', html)
    assert field, "no date input"
    assert re.search(r'value="\d{4}-\d{2}-\d{2}"', field.group(0)), field.group(0)
