"""The analysis PDF of a buyer with terms: the ruled-out options say why, in the buyer's
language, and the summary does not name a cloud option the terms forbid."""

from __future__ import annotations

import re

import pytest

from quotes import pdf, services

from .conftest import pdf_text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "ruled_out", "no_cloud"),
    [
        ("en", "Not allowed by your terms: Data would leave your own premises.", "none"),
        ("nl", "Niet toegestaan volgens uw eisen:", "geen"),
    ],
)
def test_the_terms_are_named_in_the_analysis_pdf(
    seed_catalog: object, language: str, ruled_out: str, no_cloud: str
) -> None:
    lead = services.lead_request_pdf(
        name="Kim",
        company="Zorg BV",
        email="kim@zorg.example",
        query="preset=eu-own-premises",
        language=language,
        ip_address="10.1.1.3",
        idempotency_key=f"terms-{language}",
    )
    document = pdf.render_lead(
        services.lead_snapshot(lead=lead), language=language, with_charts=False
    )
    text = re.sub(r"\s+", " ", pdf_text(document.pdf)[0].replace("\u00a0", " "))
    assert ruled_out in text
    assert "+−" not in text and "+-" not in text  # a cheaper ruled-out option: "−€…", no "+"
    assert "()" not in text  # no "Cheapest cloud option ()" when the terms allow none
    label = "Cloud options your terms allow" if language == "en" else "Cloudopties die uw eisen"
    assert f"{label}" in text and no_cloud in text
