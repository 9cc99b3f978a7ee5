"""The analysis PDF of a buyer with terms: the ruled-out options say why, in the buyer's
language, and the summary does not name a cloud option the terms forbid."""

from __future__ import annotations

import pytest

from .conftest import lead_analysis_text

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
    _snapshot, text = lead_analysis_text("preset=eu-own-premises", language, "Zorg BV")
    assert ruled_out in text
    assert "+−" not in text and "+-" not in text  # a cheaper ruled-out option: "−€…", no "+"
    assert "()" not in text  # no "Cheapest cloud option ()" when the terms allow none
    label = "Cloud options your terms allow" if language == "en" else "Cloudopties die uw eisen"
    assert f"{label}" in text and no_cloud in text
