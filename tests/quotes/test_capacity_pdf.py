"""Time to capacity in the analysis PDF: the delivery schedule and the bridge plan, read
from the PDF's text in English and Dutch (docs/methodology.md § 3i)."""

from __future__ import annotations

import pytest

from .conftest import lead_analysis_text

pytestmark = pytest.mark.django_db

# Serving a 70B model on one HGX B200 server (catalog: none in stock, 12 weeks' lead time,
# 7 days' installation), needed in 30 days: ready on day 91, bridged from day 30.
QUERY = "preset=serve-70b&server=smc-822gs-nbrt-b200&needed_in_days=30"


def test_analysis_pdf_states_the_delivery_schedule_and_the_bridge(seed_catalog: object) -> None:
    snapshot, text = lead_analysis_text(QUERY, "en", "Acme AI")
    summary = snapshot["tco"]["summary"] if "tco" in snapshot else snapshot["summary"]
    own = next(o for o in summary["options"] if o["kind"] == "onprem")
    assert own["ready_in_days"] == 91.0  # 12 weeks × 7 + 7 days' installation
    assert own["bridge"]["days"] == 61.0  # day 30 to day 91
    assert "Delivery schedule" in text
    assert "Server lead time (weeks) 12.0" in text
    assert "Servers ready for work" in text
    assert "Bridge plan" in text and "for 61 days" in text
    assert "ships in 12 weeks" in text


def test_dutch_analysis_pdf_states_the_delivery_schedule(seed_catalog: object) -> None:
    _snapshot, text = lead_analysis_text(QUERY, "nl", "Acme AI")
    assert "Leverschema" in text
    assert "Overbruggingsplan" in text and "gedurende 61 dagen" in text
    assert "geleverd over 12 weken" in text
    assert "Delivery schedule" not in text


def test_the_served_models_bridge_is_billed_around_the_clock(seed_catalog: object) -> None:
    # The serving bridge above holds its instances 61 days × 24 = 1,464 hours each, not
    # the fleet's small busy share of them; the PDF says how it is billed.
    snapshot, text = lead_analysis_text(QUERY, "en", "Acme AI")
    summary = snapshot["tco"]["summary"] if "tco" in snapshot else snapshot["summary"]
    bridge = next(o for o in summary["options"] if o["kind"] == "onprem")["bridge"]
    assert bridge["hours"] == 1_464.0
    assert bridge["cost"] == pytest.approx(
        bridge["instances"] * 1_464.0 * bridge["price_per_instance_hour"], rel=1e-5
    )
    assert "On demand, billed for every hour held: 1,464 hours per instance." in text
    assert "not guaranteed" not in text  # 8 GPUs: within what is taken to be free


# The issue's training run: 70B, recurring, B200 servers in 10 weeks + 7 days'
# installation (ready on day 77), needed in 30 days: 17 × 8 B200 for 47 days.
TRAINING = "preset=pretrain-70b&server=smc-822gs-nbrt-b200&needed_in_days=30&lead_time_weeks=10"


def test_a_large_bridge_is_billed_every_hour_and_its_risk_named(seed_catalog: object) -> None:
    # 47 days × 24 = 1,128 hours per instance (it billed 786.78 h, the fleet's 69.75 %
    # busy share). 17 × 8 = 136 GPUs is above the 64 taken to be free on demand, and the
    # catalog books no B200 (no capacity block, no reserved term): the risk is named.
    snapshot, text = lead_analysis_text(TRAINING, "en", "Acme AI")
    summary = snapshot["tco"]["summary"] if "tco" in snapshot else snapshot["summary"]
    bridge = next(o for o in summary["options"] if o["kind"] == "onprem")["bridge"]
    assert (bridge["instances"], bridge["days"], bridge["hours"]) == (17, 47.0, 1_128.0)
    assert (bridge["gpus"], bridge["risk"]) == (136, "not_guaranteed")
    assert "On-demand capacity of 136 GPUs is not guaranteed" in text
    assert "more than 64 GPUs free at once" in text


def test_the_dutch_pdf_names_the_bridges_risk(seed_catalog: object) -> None:
    _snapshot, text = lead_analysis_text(TRAINING, "nl", "Acme AI")
    assert "On-demandcapaciteit van 136 GPU's is niet gegarandeerd" in text
    assert "gefactureerd voor elk gehuurd uur: 1.128 uur per instance" in text
    assert "not guaranteed" not in text


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_timeline_is_drawn_in_every_language_without_renderer_warnings(
    seed_catalog: object, language: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The timeline's bars are placed by CSS percentages. Written through the Dutch number
    # format ("left: 32,47%") the renderer ignored every one of them (about a hundred
    # warnings) and the Dutch timeline came out empty; numbers in CSS are never localized.
    with caplog.at_level("WARNING", logger="weasyprint"):
        _snapshot, text = lead_analysis_text(TRAINING, language, "Acme AI")
    assert ("Bridge plan" if language == "en" else "Overbruggingsplan") in text
    ignored = [r.getMessage() for r in caplog.records if r.name.startswith("weasyprint")]
    assert ignored == []
