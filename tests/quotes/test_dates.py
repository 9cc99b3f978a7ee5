"""The proposal email and PDF write dates as the pages do: "15 Mar 2027", "15 mrt. 2027"."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from quotes import pdf, services
from quotes.models import Customer, OutboxEmail, Quote

from .conftest import pdf_text, send

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "email_sentence", "pdf_label"),
    [
        ("en", "The proposal and this link are valid until {date}.", "Prices valid until {date}"),
        ("nl", "Het voorstel en deze link zijn geldig tot {date}.", "Prijzen geldig tot {date}"),
    ],
)
@pytest.mark.dates
def test_the_proposal_email_and_pdf_give_the_validity_date_in_the_buyers_language(
    draft_quote: Quote,
    customer: Customer,
    sales_user: User,
    language: str,
    email_sentence: str,
    pdf_label: str,
) -> None:
    customer.language = language
    customer.save(update_fields=["language"])
    # The next 15 March: a validity lies within a year (common/bounds.py VALID_UNTIL).
    today = timezone.localdate()
    year = today.year if today < date(today.year, 3, 15) else today.year + 1
    revision = draft_quote.revisions.get()
    services.revision_update(revision=revision, valid_until=date(year, 3, 15), terms="")
    send(revision, sales_user)
    revision.refresh_from_db()
    when = {"en": f"15 Mar {year}", "nl": f"15 mrt. {year}"}[language]

    email = OutboxEmail.objects.get(revision=revision)
    assert email_sentence.format(date=when) in email.body

    assert revision.snapshot is not None
    document = pdf.render_revision(revision.snapshot, language=language, with_charts=False)
    text = re.sub(r"\s+", " ", pdf_text(document.pdf)[0].replace("\u00a0", " "))
    assert pdf_label.format(date=when) in text
