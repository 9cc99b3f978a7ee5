"""The analysis PDF of a demand in users and requests: the derivation and per-request costs."""

from __future__ import annotations

import pytest

from .conftest import lead_analysis_text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "Per request",
                "Per user a month",
                "1,333.3 tokens/s in the busiest hour",
                "Latency: At the peak each answer streams at",
                "(target 50 ms)",
            ],
        ),
        (
            "nl",
            [
                "Per verzoek",
                "Per gebruiker per maand",
                "1.333,3 tokens/s in het drukste uur",
                "Latentie: Op het drukste moment verschijnt elk antwoord met",
                "(doel 50 ms)",
            ],
        ),
    ],
)
def test_customer_service_analysis_pdf_shows_the_derivation_and_unit_costs(
    seed_catalog: object, language: str, expected: list[str]
) -> None:
    snapshot, flat = lead_analysis_text("preset=customer-service", language, "Helpdesk BV")
    for text in expected:
        assert text in flat
    # Every option row ends with its cost per request and per user a month.
    options = snapshot["tco"]["summary"]["options"]
    assert all(o["cost_per_request"] and o["cost_per_user_month"] for o in options)
