"""The configurator in Chromium: the sales engineer starts from the chassis's default,
takes memory down to 8 modules and sees why that is not valid, fixes it as they type, adds
two systems to option A with the keyboard, and the proposal lists the parts' numbers; on a
390 px phone in Dutch the configurator reads in Dutch and fits the screen."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import pytest
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from catalog.configure.rules import Finding
from catalog.configure.wording import describe
from quotes import pdf, services
from quotes.models import LineKind

from .conftest import pdf_text
from .test_lines_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SERVER = "smc-821ge-tnhr-h100"
PARTS = ("Xeon Platinum 8468", "MEM-DR564MC-ER48", "MZQL23T8HCLS-00A07", "MCX75310AAS-NEAT")
BALANCE = {"dimms": 8, "channels": 16, "cpus": 2, "family": "xeon-4", "fits": [16, 32]}
# The time from an edit to its checked result in the page: the input event → htmx settled.
TIMER = """() => {
  const times = (window.configuratorTimes = {});
  const now = (key) => () => { times[key] = performance.now(); };
  document.addEventListener("input", now("input"), true);
  document.addEventListener("htmx:afterSettle", now("settled"));
}"""
ELAPSED = "() => window.configuratorTimes.settled - window.configuratorTimes.input"
SETTLED = "() => window.configuratorTimes.settled > window.configuratorTimes.input"
VIOLATION = "8 DIMMs do not populate the 16 channels of two 4th-generation Xeon CPUs evenly"


def test_configure_see_a_violation_fix_it_add_it_and_the_pdf_lists_the_parts(
    chromium: Browser,
    live_server: LiveServer,
    page: Page,
    seed_catalog: object,
    customer: Any,
    sales_user: Any,
) -> None:
    revision = services.quote_create(customer=customer, owner=sales_user).revisions.get()
    url = reverse("quotes:configure", args=[revision.public_id]) + f"?server={SERVER}"
    log_in(page, live_server, sales_user.username, url)
    page.wait_for_selector("#configuration-valid")

    # Memory down to 8 modules: the check says why, as the engineer types.
    memory = page.locator("#qty-1")
    page.evaluate(TIMER)
    memory.fill("8")
    page.wait_for_selector("#configuration-invalid")
    assert VIOLATION in page.locator("#violations").inner_text()
    assert page.locator("#configuration-price").inner_text() == "$270,880.00"  # 24 × $380 less
    # From the keystroke to the swapped result (reported; target 250 ms on this machine).
    page.wait_for_function(SETTLED)
    first = page.evaluate(ELAPSED)

    # Fixed: 16 modules, one per channel; two systems added with the keyboard.
    memory.fill("16")
    page.wait_for_selector("#configuration-valid")
    page.wait_for_function(SETTLED)
    print(f"configurator: {first:.0f} ms, then {page.evaluate(ELAPSED):.0f} ms")
    systems = page.locator("#systems")
    systems.fill("2")
    systems.press("Enter")
    page.wait_for_url(re.compile(r"/quotes/[^/]+/#draft-lines$"))
    system = revision.lines.get(kind=LineKind.SERVER)
    assert system.quantity == 2 and system.children.count() == 5
    for part in PARTS:
        assert page.locator(".part-number", has_text=part).count() == 1, part

    # The proposal (its preview) lists the parts' numbers under the system.
    preview = pdf.render_revision(
        services.proposal_snapshot(revision=revision),
        language="en",
        draft=True,
        with_charts=False,
    )
    text = re.sub(r"\s+", " ", pdf_text(preview.pdf)[0])
    assert "Bill of materials" in text
    for part in PARTS:
        assert part in text, part

    # On a phone, in Dutch: the violation in Dutch, and nothing wider than the screen.
    phone = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        small = phone.new_page()
        small.set_default_timeout(15_000)
        log_in(small, live_server, sales_user.username, url)
        small.goto(f"{live_server.url}/language/?language=nl&next={quote(url)}")
        small.locator("#qty-1").fill("8")
        small.wait_for_selector("#configuration-invalid")
        with translation.override("nl"):  # worded by catalog/configure/wording.py
            dutch = describe(Finding("memory_balance", BALANCE))
        assert small.locator("#violations").inner_text() == dutch
        assert small.locator("#configuration-result h2").inner_text() == "Niet geldig"
        width = small.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert width[0] <= width[1], width
    finally:
        phone.close()
    assert Decimal(2) == revision.lines.get(kind=LineKind.SERVER).quantity
