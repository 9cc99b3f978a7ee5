"""The site fit on the calculator page, in headless Chromium: the rack-scale preset whose
air-cooled server room cannot take GB300 NVL72 racks, at 1366 and 390 px in both languages,
and the "Your site" section changing the answer in place."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The preset's server room is a default the visitor never described.
SITE_SENTENCE = {
    "en": "The default site, On-premises server room (NL), cannot take the NVIDIA GB300 NVL72",
    "nl": "De standaardlocatie, Eigen serverruimte (NL), kan de NVIDIA GB300 NVL72 niet aan",
}
COLOCATION = {
    "en": "Liquid-ready colocation Amsterdam area (NL)",
    "nl": "Colocatie met vloeistofkoeling regio Amsterdam (NL)",
}
DUTY = {"en": "Energy Efficiency Directive", "nl": "Energie-efficiëntierichtlijn"}


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_site_decides_where_the_racks_stand(
    live_server: Any, chromium: Any, seed_catalog: object, language: str, width: int
) -> None:
    context = chromium.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/calculator/?preset=rack-scale-nvl72")
    page.wait_for_selector("#verdict-site")
    verdict = page.locator("#verdict-site").inner_text()
    plan = page.locator("#site-fit").inner_text()
    duties = page.locator(".site-duty").all_inner_texts()
    legends = page.locator("fieldset.site legend").inner_text()
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=f"/tmp/site-fit-{language}-{width}.png", full_page=False)
    context.close()
    assert SITE_SENTENCE[language] in verdict and COLOCATION[language] in verdict
    assert COLOCATION[language] in plan
    assert "140" in plan
    assert any(DUTY[language] in duty for duty in duties)
    assert legends == ("Your site" if language == "en" else "Uw locatie")
    assert scroll_width <= width


def test_a_liquid_cooled_room_takes_the_racks_with_a_build_out(
    live_server: Any, page: Any, seed_catalog: object
) -> None:
    """Facility water, 150 kW a rack and 4 MW of IT power free: the room takes the racks
    once CDUs and the loop are built — the verdict no longer sends them to a colocation
    (without the power typed, the room is taken to hold 30 kW)."""
    page.goto(f"{live_server.url}/calculator/?preset=rack-scale-nvl72")
    page.wait_for_selector("#verdict-site")
    page.select_option("#id_site_cooling", "facility_water")
    page.fill("#id_rack_power_limit", "150")
    page.fill("#id_available_it_kw", "4000")
    page.locator("#id_available_it_kw").dispatch_event("change")
    page.wait_for_function("() => !document.querySelector('#verdict-site')")
    plan = page.locator("#site-fit").inner_text()
    assert "Build-out: coolant distribution units (CDUs), liquid-cooling loop" in plan
    assert "26 weeks" in plan
    assert "site_cooling=facility_water" in page.url
