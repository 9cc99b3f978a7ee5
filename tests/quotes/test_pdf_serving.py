"""The analysis PDF of a demand in users and requests: the derivation and per-request costs."""

from __future__ import annotations

import re

import pytest

from quotes import pdf, services

from .conftest import pdf_text

pytestmark = pytest.mark.django_db


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " "))


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Per request", "Per user a month", "1,333.3 tokens/s in the busiest hour"]),
        ("nl", ["Per verzoek", "Per gebruiker per maand", "1.333,3 tokens/s in het drukste uur"]),
    ],
)
def test_customer_service_analysis_pdf_shows_the_derivation_and_unit_costs(
    seed_catalog: object, language: str, expected: list[str]
) -> None:
    lead = services.lead_request_pdf(
        name="Kim",
        company="Helpdesk BV",
        email="kim@helpdesk.example",
        query="preset=customer-service",
        language=language,
        ip_address="10.1.1.2",
        idempotency_key=f"cs-{language}",
    )
    snapshot = services.lead_snapshot(lead=lead)
    document = pdf.render_lead(snapshot, language=language, with_charts=False)
    flat = _flat(pdf_text(document.pdf)[0])
    for text in expected:
        assert text in flat
    # Every option row ends with its cost per request and per user a month.
    options = snapshot["tco"]["summary"]["options"]
    assert all(o["cost_per_request"] and o["cost_per_user_month"] for o in options)
