"""The buyer accepts on a 390 px phone without scrolling sideways; the quote page shows the
acceptance, and its hash is the SHA-256 of the PDF the buyer was offered."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from quotes import services
from quotes.models import AcceptanceRecord, Quote, Status

from .conftest import send
from .test_acceptance import finish_render

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Set SCREENSHOTS=/some/dir to keep the pages this test looks at.
SHOTS = os.environ.get("SCREENSHOTS", "")


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS, f"{name}.png")), full_page=True)


def _no_sideways_scroll(page: Page) -> None:
    width = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width[0] <= width[1], f"the page scrolls sideways: {width}"


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_buyer_accepts_on_a_phone_and_the_quote_shows_it(
    chromium: Browser, live_server: LiveServer, draft_quote: Quote, sales_user: User, language: str
) -> None:
    customer = draft_quote.customer
    customer.language = language
    customer.save()
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    render = finish_render(revision)
    path = reverse("quotes:buyer", args=[services.buyer_link_token(revision=revision)])
    url = live_server.url + path

    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True
    )
    page = phone.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(url)
        page.wait_for_selector("#accept-form")
        _no_sideways_scroll(page)
        # The schedules and the decline form with its reasons fit the phone too.
        assert page.locator("#delivery-schedule, #payment-schedule").count() == 2
        page.locator("details.decline summary").click()
        page.wait_for_selector("#id_decline_reason_price")
        _no_sideways_scroll(page)
        _shot(page, f"buyer-390-{language}")
        href = page.locator("#accept-pdf-link").get_attribute("href")
        assert href is not None
        offered = page.request.get(live_server.url + href)
        offered_sha = hashlib.sha256(offered.body()).hexdigest()
        assert page.locator("#offered-sha256").inner_text() == offered_sha == render.sha256
        page.check("#id_terms")
        page.fill("#id_name", "Jan de Vries")
        page.fill("#id_role", "CTO")
        page.fill("#id_po_number", "PO-77")
        page.locator("#accept-button").click()
        page.wait_for_selector("#acceptance-done")
        _no_sideways_scroll(page)
        _shot(page, f"buyer-done-390-{language}")
    finally:
        phone.close()

    record = AcceptanceRecord.objects.get()
    assert record.accepted_sha256 == offered_sha
    assert (record.name, record.role, record.po_number) == ("Jan de Vries", "CTO", "PO-77")
    assert record.ip_address == "127.0.0.1" and record.user_agent
    revision.refresh_from_db()
    assert revision.status == Status.ACCEPTED

    desk = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = desk.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(f"{live_server.url}/accounts/login/?next=/quotes/{draft_quote.public_id}/")
        page.fill("#id_username", "anna")
        page.fill("#id_password", "pw-anna")
        page.locator("form [type=submit]").last.click()
        page.wait_for_selector("#acceptance")
        assert page.locator("#acceptance-name").inner_text() == "Jan de Vries"
        assert page.locator("#acceptance-role").inner_text() == "CTO"
        assert page.locator("#acceptance-po").inner_text() == "PO-77"
        assert page.locator("#acceptance-sha256").inner_text() == offered_sha
        _shot(page, f"quote-accepted-1366-{language}")
        href = page.locator("#acceptance-pdf").get_attribute("href")
        assert href is not None
        copy = page.request.get(live_server.url + href)
        assert hashlib.sha256(copy.body()).hexdigest() == record.sha256
    finally:
        desk.close()
