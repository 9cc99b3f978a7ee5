"""In headless Chromium: a sales engineer edits a line inline with the keyboard, the totals
and the deal analysis update without a page reload, the margin falls below the floor,
approval is requested, a sales manager approves, the engineer previews the PDF and sends
the proposal (delivered by a real worker)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from quotes.models import ApprovalState, LineKind, Quote, Status
from tests.accessibility import serious_accessibility_violations

from .conftest import SmtpServer, Worker, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def log_in(page: Page, live_server: LiveServer, username: str, next_url: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("#id_username", username)
    page.fill("#id_password", f"pw-{username}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{next_url}")


def test_engineer_edits_inline_gets_approval_and_sends(
    celery_worker: Worker,
    smtp_server: SmtpServer,
    live_server: LiveServer,
    chromium: Browser,
    page: Page,
    draft_quote: Quote,
    sales_user: User,
    make_sales_user: Callable[..., User],
) -> None:
    smtp_server.recorder.reset()
    manager = make_sales_user("marta")
    manager.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    revision = draft_quote.revisions.get()
    line = revision.lines.get(kind=LineKind.SERVER)
    detail = f"/quotes/{draft_quote.public_id}/"

    log_in(page, live_server, "anna", detail)
    assert not serious_accessibility_violations(page)
    for url in ("/quotes/", "/quotes/customers/", "/quotes/leads/", "/quotes/new/"):
        page.goto(live_server.url + url)
        assert not serious_accessibility_violations(page), url
    page.goto(live_server.url + detail)
    page.evaluate("window.notReloaded = true")
    total_before = page.locator("#total").inner_text()
    hardware_before = page.locator("#deal-hardware").inner_text()
    assert page.locator("#request-approval-button").count() == 0

    # Escape undoes what was typed.
    quantity = page.locator(f"#id_line-{line.pk}-quantity")
    quantity.click()
    quantity.fill("99")
    quantity.press("Escape")
    # As saved, a whole number without decimals.
    assert quantity.input_value() == str(int(line.quantity)) != "99"

    # Tab to the discount, type 12 and press Enter: the line is saved through htmx.
    quantity.press("Tab")  # → the unit
    page.keyboard.press("Tab")  # → the unit price
    page.keyboard.press("Tab")  # → the discount
    focused = page.evaluate("document.activeElement.id")
    assert focused == f"id_line-{line.pk}-discount_pct"
    page.keyboard.press("Control+A")
    page.keyboard.type("12")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "before => document.querySelector('#total').innerText !== before", arg=total_before
    )
    assert page.evaluate("window.notReloaded") is True  # no page reload
    line.refresh_from_db()
    assert line.discount_pct == Decimal(12)
    assert page.locator(f"#id_line-{line.pk}-discount_pct").input_value() == "12"
    # The analysis of the deal follows the edited line (it re-reads itself, no reload).
    page.wait_for_function(
        "before => document.querySelector('#deal-hardware').innerText !== before",
        arg=hardware_before,
    )
    assert page.evaluate("window.notReloaded") is True
    hardware = page.locator("#deal-hardware").inner_text()
    assert page.locator("#deal-upfront").inner_text() == hardware

    # The margin is now below the team's floor: sending needs approval.
    page.wait_for_selector("#request-approval-button")
    page.fill("#id_approval_note", "Reference customer in Eindhoven")
    page.locator("#request-approval-button").click()
    page.wait_for_selector("text=Approval requested: 1 sales manager of team Benelux was emailed.")
    assert page.locator("#approve-button").count() == 0
    assert page.locator("#send-button").is_disabled()  # with its reason beside it
    assert "waits for a sales manager" in page.locator("#send-blocked-reason").inner_text()
    # The manager is told by email (the outbox, delivered by the real worker).
    wait_until(lambda: smtp_server.recorder.to(manager.email), timeout=60, what="the request")
    assert draft_quote.number in str(smtp_server.recorder.to(manager.email)[0]["Subject"])

    # The sales manager approves in a browser of their own.
    context = chromium.new_context(locale="en-US")
    try:
        other = context.new_page()
        other.set_default_timeout(15_000)
        log_in(other, live_server, "marta", detail)
        assert "Reference customer in Eindhoven" in other.locator("#approval").inner_text()
        other.fill("#id_approval_reason", "Strategic account")
        other.locator("#approve-button").click()
        other.wait_for_selector("text=Margin approved.")
    finally:
        context.close()
    revision.refresh_from_db()
    assert revision.approval_state == ApprovalState.APPROVED

    # The engineer previews the PDF (watermarked draft), then sends.
    page.reload()
    assert "approved by marta" in page.locator("#approval").inner_text()
    assert not page.locator("#send-button").is_disabled()
    wait_until(lambda: smtp_server.recorder.to(sales_user.email), timeout=60, what="the decision")
    href = page.locator("#preview-pdf").get_attribute("href")
    assert href is not None
    preview = page.request.get(live_server.url + href)
    assert preview.status == 200
    assert preview.headers["content-type"] == "application/pdf"
    assert preview.body().startswith(b"%PDF")
    revision.refresh_from_db()
    assert revision.status == Status.DRAFT  # a preview sends nothing
    page.locator("#send-button").click()
    page.wait_for_selector("#delivery-state[data-state=sent]", timeout=90_000)
    revision.refresh_from_db()
    assert revision.status == Status.SENT
    assert revision.snapshot is not None
    assert revision.snapshot["totals"]["total"] == str(
        Decimal(page.locator("#total").inner_text().replace("€", "").replace(",", ""))
    )
    assert len(smtp_server.recorder.to("jan@buyer.example")) == 1
