"""Serving in users and requests, in headless Chromium: the fields the load needs, a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

USERS_FIELDS = ("users", "requests_per_user_per_day", "peak_factor", "hours_per_day")


def visible(page: Page, name: str) -> bool:
    return bool(page.locator(f"#id_{name}").is_visible())


def test_the_load_is_asked_in_users_or_in_tokens(
    live_server: LiveServer, page: Page, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/?preset=customer-service")
    page.wait_for_selector("#serving-derivation")
    assert all(visible(page, name) for name in USERS_FIELDS)
    assert not visible(page, "target_tokens_per_second")
    assert not visible(page, "utilization_pct")  # derived from the requests
    assert (
        "1,333.3 tokens/s in the busiest hour" in page.locator("#serving-derivation").inner_text()
    )

    # More users: the page recomputes in place and the derivation follows.
    page.fill("#id_users", "4000")
    page.locator("#id_users").dispatch_event("change")
    page.wait_for_function(
        "() => document.querySelector('#serving-derivation')"
        ".innerText.includes('2,666.7 tokens/s in the busiest hour')"
    )
    assert "users=4000" in page.url

    # Experts give tokens/s: the users fields go, the target and the utilization come back.
    page.select_option("#id_serving_load", "tokens")
    assert not any(visible(page, name) for name in USERS_FIELDS)
    assert visible(page, "target_tokens_per_second")
    # Training asks for neither.
    page.select_option("#id_kind", "pretrain")
    assert not visible(page, "users") and not visible(page, "target_tokens_per_second")


@pytest.mark.parametrize("language", ["en", "nl"])
def test_customer_service_result_fits_a_phone(
    live_server: LiveServer, chromium: Browser, seed_catalog: object, language: str
) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/calculator/?preset=customer-service")
    page.wait_for_selector("#serving-derivation")
    width = page.evaluate("document.documentElement.scrollWidth")
    context.close()
    assert width <= 390
