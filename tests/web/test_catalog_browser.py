"""The catalog page in a real headless Chromium: tables render, language switch works."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_catalog_page_in_chromium_switches_to_dutch(
    live_server: LiveServer, page: Page, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/catalog/")
    assert page.locator("h1").inner_text() == "Catalog"
    row = page.locator("tr", has_text="p5.48xlarge").first
    assert "$55.04" in row.inner_text()
    page.select_option("#language-select", "nl")
    page.wait_for_url("**/catalog/")
    page.wait_for_selector("html[lang=nl]")
    row = page.locator("tr", has_text="p5.48xlarge").first
    assert "55,04" in row.inner_text()


def test_catalog_page_fits_a_phone_screen(
    live_server: LiveServer, chromium: Browser, seed_catalog: object
) -> None:
    context = chromium.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    page.goto(f"{live_server.url}/catalog/")
    # Wide tables scroll inside their own box instead of widening the page.
    width = page.evaluate("document.documentElement.scrollWidth")
    context.close()
    assert width <= 375
