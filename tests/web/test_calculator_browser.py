"""The calculator in headless Chromium: preset, live update, charts, Dutch, validation."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from tests.accessibility import serious_accessibility_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def servers_headline(page: Page) -> str:
    return page.locator(".recommendation .headline").inner_text()


def test_calculator_flow_in_chromium(
    live_server: LiveServer, page: Page, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    page.get_by_role("link", name="Serve a 70B model at 5,000 tokens/s").click()
    page.wait_for_selector(".recommendation")
    assert page.locator("#id_kind").input_value() == "inference"
    # Every chart is drawn by Plotly.
    page.wait_for_function(
        "() => document.querySelectorAll('[data-drawn=true]').length === 6", timeout=30_000
    )
    assert page.locator(".plot .main-svg").count() >= 6
    before = servers_headline(page)

    # Change a field: htmx swaps in new results without a page load, and the URL follows.
    page.evaluate("window.__marker = 'same page'")
    page.fill("#id_target_tokens_per_second", "40000")
    page.locator("#id_target_tokens_per_second").dispatch_event("change")
    page.wait_for_function(
        "(before) => document.querySelector('.recommendation .headline').innerText !== before",
        arg=before,
    )
    assert page.evaluate("window.__marker") == "same page"
    assert "target_tokens_per_second=40000" in page.url
    page.wait_for_function(
        "() => document.querySelectorAll('[data-drawn=true]').length === 6", timeout=30_000
    )

    # An invalid value: the message appears next to the field.
    page.fill("#id_params_billion", "-3")
    page.locator("#id_params_billion").dispatch_event("change")
    page.wait_for_selector("#error-params_billion span")
    assert "greater than or equal to 0.1" in page.locator("#error-params_billion").inner_text()

    # Switch to Dutch: labels and number formats follow.
    page.goto(f"{live_server.url}/calculator/?preset=pretrain-7b")
    page.select_option("#language-select", "nl")
    page.wait_for_selector("html[lang=nl]")
    assert (
        page.locator("label[for=id_params_billion]").inner_text()
        != "Model size (billion parameters)"
    )
    headline = page.locator(".verdict-headline").inner_text()
    assert headline.startswith(("Huur ", "Koop ")), headline
    total = page.locator("table.tco tr.onprem td").first.inner_text()
    assert re.fullmatch(r"€\s\d{1,3}(\.\d{3})+", total), total


def test_calculator_works_without_javascript(
    live_server: LiveServer, chromium: Browser, seed_catalog: object
) -> None:
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/calculator/?preset=lora-70b")
    assert 'id="verdict"' in page.content()
    page.fill("#id_params_billion", "8")
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_load_state()
    assert "params_billion=8" in page.url
    assert 'id="verdict"' in page.content()
    context.close()


def test_calculator_fits_a_phone(
    live_server: LiveServer, chromium: Browser, seed_catalog: object
) -> None:
    context = chromium.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    page.goto(f"{live_server.url}/calculator/?preset=pretrain-7b")
    page.wait_for_selector(".recommendation")
    width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path="/tmp/calculator-phone.png", full_page=False)
    context.close()
    assert width <= 375


@pytest.mark.parametrize("width", [1366, 390])
def test_every_preset_shows_its_verdict_above_the_fold(
    live_server: LiveServer, chromium: Browser, seed_catalog: object, width: int
) -> None:
    from tco.inputs.presets import PRESETS

    context = chromium.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    try:
        for preset in PRESETS:
            page.goto(f"{live_server.url}/calculator/?preset={preset.slug}")
            # Beside the form; on a phone, below it, and in the bar at the screen's foot.
            headline = page.locator(".verdict-headline" if width >= 960 else "#verdict-bar")
            box = headline.bounding_box()
            assert box is not None and box["y"] + 24 <= 800, (preset.slug, box)
            assert headline.inner_text().startswith(("Buy ", "Rent ", "Use ")), preset.slug
            # The options, cheapest first, with what each costs more than the best.
            rows = page.locator("table.options tbody tr")
            assert rows.count() >= 3
            assert page.locator("table.options tr.recommended").count() == 1
            assert "More than the best" in page.locator("table.options thead").inner_text()
            totals = page.eval_on_selector_all(
                "table.options tbody tr td:nth-child(2)",
                "cells => cells.map(c => Number(c.innerText.replace(/[^0-9]/g, '')))",
            )
            assert totals == sorted(totals), preset.slug
            widths = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1], (preset.slug, widths)
            if width >= 1366:  # beside the form, every column visible without scrolling
                table = page.evaluate(
                    "(e => [e.scrollWidth, e.clientWidth])"
                    "(document.querySelector('table.options').closest('.table-wrap'))"
                )
                assert table[0] <= table[1], (preset.slug, table)
            assert not serious_accessibility_violations(page), preset.slug
    finally:
        context.close()


def test_dutch_pages_show_a_dutch_verdict_and_pass_the_accessibility_check(
    live_server: LiveServer, chromium: Browser, seed_catalog: object
) -> None:
    from tco.inputs.presets import PRESETS

    context = chromium.new_context(viewport={"width": 1366, "height": 800}, locale="nl-NL")
    context.add_cookies([{"name": "django_language", "value": "nl", "url": live_server.url}])
    page = context.new_page()
    try:
        for preset in PRESETS:
            page.goto(f"{live_server.url}/calculator/?preset={preset.slug}")
            assert page.locator("html").get_attribute("lang") == "nl"
            headline = page.locator(".verdict-headline").inner_text()
            assert headline.startswith(("Koop ", "Huur ", "Gebruik ")), headline
            assert not serious_accessibility_violations(page), preset.slug
    finally:
        context.close()


def test_the_buyers_terms_grey_options_and_decide_the_verdict(
    live_server: LiveServer, page: Page, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/?preset=eu-own-premises")
    headline = page.locator(".verdict-headline").inner_text()
    assert headline.startswith("Buy") and "Your terms decided this, not cost" in headline
    clouds = page.locator("table.options tbody tr.cloud")
    assert clouds.count() >= 5
    assert clouds.count() == page.locator("table.options tbody tr.cloud.ineligible").count()
    scaleway = page.locator("table.options tbody tr", has_text="Scaleway 8x H100 SXM").first
    assert "Not allowed by your terms: Data would leave your own premises." in (
        scaleway.inner_text()
    )
    aws = page.locator("table.options tbody tr", has_text="AWS p5.48xlarge").first
    assert "outside the EU (US)" in aws.inner_text()
    # The horizon view: owning and every cloud option at 3, 5, 7 and 10 years.
    header = page.locator("table.horizons thead").inner_text()
    assert all(f"{n} years" in header for n in (3, 5, 7, 10))
    assert "bought again" not in header and "replaced after 5 years" in page.inner_text("#results")
    # Allowing the cloud (data may leave the premises, but not the EU) makes renting win.
    page.locator("#id_own_premises_only").uncheck()
    page.wait_for_function(
        "() => !document.querySelector('.verdict-headline').innerText.includes('Your terms')"
    )
    headline = page.locator(".verdict-headline").inner_text()
    assert headline.startswith("Rent") and "Scaleway" in headline
    assert page.locator("table.options tr.recommended", has_text="Scaleway").count() == 1
    assert "Your terms rule out" in page.locator(".verdict-terms").inner_text()


ALL_DRAWN = (
    "() => document.querySelectorAll('[data-drawn=true]').length"
    " === document.querySelectorAll('[data-chart]').length"
)


def test_the_first_chart_is_drawn_without_plotly_and_plotly_takes_it_over_in_place(
    live_server: LiveServer, chromium: Browser, seed_catalog: object
) -> None:
    url = f"{live_server.url}/calculator/?preset=serve-70b"
    boxes = []
    for plotly in (False, True):
        context = chromium.new_context(viewport={"width": 1366, "height": 900})
        page = context.new_page()
        if not plotly:  # Plotly never arrives: the server's drawing is the chart
            page.route("**/plotly-basic*.js", lambda route: route.abort())
        page.goto(url)
        chart = page.locator("[data-chart=cumulative]")
        if plotly:
            page.wait_for_function(ALL_DRAWN, timeout=30_000)
            # Plotly's drawing replaced the server's: one chart in the box, not two.
            assert chart.locator(":scope > svg").count() == 0
            assert chart.locator(".main-svg").count() >= 1
        else:
            page.wait_for_timeout(500)
            drawn = chart.locator(":scope > svg")
            assert drawn.count() == 1 and drawn.is_visible()
            assert drawn.get_attribute("aria-label") == "Cumulative cost over time"
            svg_box = drawn.bounding_box()
            assert svg_box is not None and svg_box["width"] > 600 and svg_box["height"] > 250
            assert page.locator("[data-chart] svg").count() == 1  # only the first chart
        boxes.append(chart.bounding_box())
        context.close()
    # The same box before and after Plotly: nothing on the page moves.
    assert boxes[0] == boxes[1]


def test_a_corrected_field_clears_its_message_and_back_shows_the_previous_result(
    live_server: LiveServer, page: Page, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/?preset=pretrain-70b")
    first = page.locator(".verdict-headline").inner_text()
    page.fill("#id_params_billion", "-3")
    page.press("#id_params_billion", "Tab")
    page.wait_for_selector("#error-params_billion span")
    page.fill("#id_params_billion", "8")
    page.press("#id_params_billion", "Tab")
    page.wait_for_function("() => location.search.includes('params_billion=8')")
    page.wait_for_function("() => !document.querySelector('#error-params_billion span')")
    assert page.locator("#error-params_billion").inner_text() == ""
    assert page.locator("#results-stale").inner_text() == ""
    assert page.locator(".verdict-headline").inner_text() != first
    page.wait_for_function(ALL_DRAWN, timeout=30_000)
    # Back: the previous inputs' result, loaded afresh (no snapshot of the page is kept).
    with page.expect_event("load"):
        page.go_back()
    assert "params_billion=8" not in page.url
    page.wait_for_function(ALL_DRAWN, timeout=30_000)
    assert page.locator(".verdict-headline").inner_text() == first
    assert page.locator("#id_params_billion").input_value() == "70"
