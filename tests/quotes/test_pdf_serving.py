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


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "Bought, the 1 × NVIDIA GB300 NVL72 (72 GPUs) would use",
                "of its capacity even at the peak",
                "a smaller system does this work: 1 × ",
            ],
        ),
        (
            "nl",
            [
                "Gekocht zou de 1 × NVIDIA GB300 NVL72 (72 GPU's) zelfs op het drukste moment",
                "een kleiner systeem doet dit werk: 1 × ",
            ],
        ),
    ],
)
def test_the_analysis_pdf_says_the_rack_would_stand_idle(
    seed_catalog: object, language: str, expected: list[str]
) -> None:
    """An 8B model for the customer-service users on a GB300 NVL72 (issue 40): the PDF's
    summary carries the page's warning and the verdict's smaller server."""
    query = "preset=customer-service&params_billion=8&server=nvidia-gb300-nvl72"
    _snapshot, flat = lead_analysis_text(query, language, "Helpdesk BV")
    for text in expected:
        assert text in flat
