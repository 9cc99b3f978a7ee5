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
