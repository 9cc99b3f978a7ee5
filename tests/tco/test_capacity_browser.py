"""Time to capacity on the calculator page, in headless Chromium at 1366 and 390 px, in
English and Dutch: the ready dates, the bridge and the timeline are visible and the page
does not scroll sideways (docs/methodology.md § 3i)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# One HGX B200 server (catalog: none in stock, 12 weeks' lead, 7 days' installation) for
# a 70B model, needed in 30 days: ready on 4 Mar 2027 from 3 Dec 2026 (the frozen day:
# 12 × 7 + 7 = 91 days), bridged meanwhile.
QUERY = "preset=serve-70b&server=smc-822gs-nbrt-b200&needed_in_days=30"
WORDS = {
    "en": ("ships in 12 weeks", "to meet your 30-day deadline", "Bridge:", "Ready"),
    "nl": (
        "geleverd over 12 weken",
        "om uw termijn van 30 dagen te halen",
        "Overbrugging:",
        "Klaar",
    ),
}


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("width", [1366, 390])
def test_ready_dates_bridge_and_timeline_are_visible(
    live_server: Any,
    page: Any,
    seed_catalog: object,
    frozen_today: object,
    language: str,
    width: int,
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/language/?language={language}&next=/")
    page.goto(f"{live_server.url}/calculator/?{QUERY}")
    page.wait_for_selector("#verdict-time")
    shipping, deadline, bridge, ready = WORDS[language]
    sentence = page.locator("#verdict-time")
    assert sentence.is_visible()
    assert shipping in sentence.inner_text() and deadline in sentence.inner_text()

    timeline = page.locator("#timeline")
    timeline.scroll_into_view_if_needed()
    assert timeline.is_visible()
    assert page.locator("#timeline .tl-bridge").first.is_visible()
    assert page.locator("#timeline .tl-wait").first.bounding_box()["width"] > 20
    assert bridge in timeline.inner_text()

    # Buying's row in the options table: its ready date and its bridge.
    own = page.locator("table.options tr.onprem").first
    own.scroll_into_view_if_needed()
    text = own.inner_text()
    assert bridge in text
    assert ("4 Mar 2027" if language == "en" else "4 mrt. 2027") in text
    cell = own.locator(f'td[data-label="{ready}"]')  # the phone layout labels each cell
    assert cell.is_visible() and "2027" in cell.inner_text()
    if width == 1366:
        assert page.locator("table.options th", has_text=ready).first.is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
