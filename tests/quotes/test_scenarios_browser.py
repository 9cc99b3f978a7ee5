"""The issue's walk with saved scenarios, in Chromium on a 390 px phone in Dutch: save two
calculator results for a customer → compare them (the inputs that differ highlighted, one
chart) → start a quote with both as options A and B."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from quotes import services
from quotes.models import LineKind, Quote, SavedScenario

from .test_scenarios import H100_QUERY, H200_QUERY

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _phone_in_dutch(chromium: Browser, live_server: LiveServer, user: Any) -> Page:
    """A 390 px phone signed in as `user`, reading Dutch."""
    client = Client()
    client.force_login(user)
    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, locale="nl-NL"
    )
    phone.add_cookies(
        [
            {"name": name, "value": value, "url": live_server.url}
            for name, value in (
                (settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value),
                (settings.LANGUAGE_COOKIE_NAME, "nl"),
            )
        ]
    )
    page = phone.new_page()
    page.set_default_timeout(15_000)
    return page


def _save(page: Page, live_server: LiveServer, query: str, customer: Any, name: str) -> None:
    """From the calculator's result: "Bewaren voor een klant", the customer, a name."""
    page.goto(f"{live_server.url}/calculator/?{query}")
    page.locator("#save-scenario").click()
    page.wait_for_selector("#scenario-save-form")
    page.select_option("#id_customer", str(customer.public_id))
    page.fill("#id_name", name)
    page.locator("#scenario-save-button").click()
    page.wait_for_url(f"**/quotes/customers/{customer.public_id}/")


def _fits_the_phone(page: Page) -> bool:
    scroll, client = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    return bool(scroll <= client)


def test_save_two_scenarios_compare_them_and_quote_both_as_options(
    chromium: Browser, live_server: LiveServer, seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    page = _phone_in_dutch(chromium, live_server, sales_user)
    try:
        _save(page, live_server, H100_QUERY, customer, "H100")
        _save(page, live_server, H200_QUERY, customer, "H200 op 50 %")
        assert "Bewaarde scenario's" in page.content() and _fits_the_phone(page)
        assert SavedScenario.objects.filter(customer=customer).count() == 2

        # Compare both: the server and the utilization differ, the work does not.
        page.locator("#choose-1").check()
        page.locator("#choose-2").check()
        page.locator("#compare-button").click()
        page.wait_for_selector("#scenario-figures")
        assert page.locator("h1").inner_text() == "Scenario's vergelijken"
        differing = page.locator("#scenario-inputs-differ tr.differs")
        assert differing.count() == 2
        assert page.locator('#scenario-inputs-differ [data-path="server.key"] mark').count() == 2
        assert page.locator('[data-chart="scenarios"] svg').first.is_visible()
        assert _fits_the_phone(page)

        # Start a quote with both, in the list's order (newest first): options A and B,
        # each with its scenario's servers.
        page.locator("#scenario-quote-button").click()
        page.wait_for_selector("#option-tab-B")
        assert "Optie A: H200 op 50 %" in page.locator("#option-tab-A").inner_text()
        assert "Optie B: H100" in page.locator("#option-tab-B").inner_text()
        assert _fits_the_phone(page)
    finally:
        page.context.close()
    quote = Quote.objects.get(customer=customer)
    main = quote.revisions.get(option_of__isnull=True)
    saved = {s.name: s for s in SavedScenario.objects.filter(customer=customer)}
    for option, name in zip(services.options_of(main), ("H200 op 50 %", "H100"), strict=True):
        server = option.lines.get(kind=LineKind.SERVER)
        assert server.catalog_key == f"server:{saved[name].document['server']['key']}"
