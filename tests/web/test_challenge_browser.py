"""The lead form's proof of work is solved by the page, unnoticed (issue 44, item 1).

One page load in headless Chromium: every request of the network needs a proof (share 0),
and the visitor just fills in the form and sends it.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page
from pytest_django.fixtures import Settings
from pytest_django.live_server_helper import LiveServer

from common import challenge
from quotes.models import Lead

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_page_solves_the_challenge_and_the_request_goes_through(
    live_server: LiveServer, page: Page, seed_catalog: object, settings: Settings
) -> None:
    settings.QUOTES_LEAD_NETWORK_SHARE_PER_HOUR = 0  # a proof for every request
    settings.QUOTES_LEAD_MIN_FILL_SECONDS = 0
    settings.PUBLIC_FORM_CHALLENGE_BITS = 14  # 16,384 hashes on average
    page.goto(f"{live_server.url}/quotes/analysis-pdf/form/?preset=finetune-8b")
    page.wait_for_function("() => document.querySelector('#lead-proof').value !== ''")
    issued = page.locator("#lead-challenge").get_attribute("value") or ""
    proof = page.locator("#lead-proof").get_attribute("value") or ""
    # The proof found in the browser is the one the server checks (with one hash).
    assert challenge.bits_of(issued) == 14 and challenge.solved(issued, proof)
    page.fill("#lead-name", "Kim")
    page.fill("#lead-company", "Startup")
    page.fill("#lead-email", "kim@startup.example")
    page.check("input[name=consent]")
    page.click("button[type=submit]")
    page.wait_for_selector("#lead-confirm-sent")
    assert Lead.objects.get().email == "kim@startup.example"
    # The answer brought a fresh challenge for a next request, solved again.
    page.wait_for_function(
        f"() => document.querySelector('#lead-challenge').value !== {issued!r}"
        " && document.querySelector('#lead-proof').value !== ''"
    )
    fresh = page.locator("#lead-challenge").get_attribute("value") or ""
    assert challenge.solved(fresh, page.locator("#lead-proof").get_attribute("value") or "")
