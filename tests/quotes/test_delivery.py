"""The delivery pipeline with real parts: Redis, Celery worker processes, SMTP on loopback.

The workers run config.settings.test against the pytest-django test database; the tests
commit their rows (transaction=True) so the workers see them.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from quotes.models import OutboxEmail, OutboxStatus, ProposalRender, Quote, RenderStatus

from .conftest import (
    SmtpServer,
    Worker,
    pdf_attachment,
    pdf_text,
    send,
    wait_quiescent,
    wait_until,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUYER = "jan@buyer.example"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " "))


def test_a_sent_quote_arrives_by_smtp_with_its_pdf(
    celery_worker: Worker, smtp_server: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    smtp_server.recorder.reset()
    revision = draft_quote.revisions.get()
    outbox = send(revision, sales_user)
    messages = wait_until(
        lambda: smtp_server.recorder.to(BUYER), timeout=90, what="the proposal email"
    )
    assert len(messages) == 1
    message = messages[0]
    assert draft_quote.number in str(message["Subject"])
    assert message["Message-ID"] == outbox.message_id
    body = message.get_body(preferencelist=("plain",))
    assert body is not None and "/quotes/p/" in body.get_content()
    text, pages = pdf_text(pdf_attachment(message))
    flat = _flat(text)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    totals = revision.snapshot["totals"]
    assert draft_quote.number in flat and "Deep Learning BV" in flat
    for amount in (totals["subtotal"], totals["vat"], totals["total"]):
        assert f"€{float(amount):,.2f}" in flat
    assert f"1 of {pages}" in flat and pages >= 5
    wait_until(
        lambda: OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT,
        timeout=10,
        what="the outbox row to be marked sent",
    )
    render = ProposalRender.objects.get(revision=revision)
    assert render.pdf is not None
    assert render.status == RenderStatus.DONE and bytes(render.pdf) == pdf_attachment(message)


def test_smtp_refusals_are_retried_and_exactly_one_email_arrives(
    celery_worker: Worker, smtp_server: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    smtp_server.recorder.reset()
    smtp_server.recorder.refuse_next = 3
    outbox = send(draft_quote.revisions.get(), sales_user)
    wait_until(lambda: smtp_server.recorder.to(BUYER), timeout=90, what="the email")
    wait_quiescent(smtp_server.recorder)  # room for a duplicate to show up, if one were coming
    assert smtp_server.recorder.refused == 3
    assert len(smtp_server.recorder.to(BUYER)) == 1
    row = wait_until(
        lambda: OutboxEmail.objects.filter(pk=outbox.pk, status=OutboxStatus.SENT).first(),
        timeout=10,
        what="the outbox row to be marked sent",
    )
    assert row.attempts == 4 and row.last_error == ""


@pytest.mark.browser
def test_browser_start_a_quote_send_and_watch_it_arrive(
    celery_worker: Worker,
    smtp_server: SmtpServer,
    live_server: LiveServer,
    page: Page,
    seed_catalog: object,
    sales_user: User,
) -> None:
    smtp_server.recorder.reset()
    page.goto(f"{live_server.url}/accounts/login/?next=/calculator/%3Fpreset%3Dpretrain-7b")
    page.fill("#id_username", "anna")
    page.fill("#id_password", "pw-anna")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector(".recommendation")
    page.get_by_role("link", name="Start a quote").click()
    page.wait_for_selector("#quote-new-form")
    page.fill("#id_company", "Browser Buyer BV")
    page.fill("#id_contact_name", "Bo Buyer")
    page.fill("#id_email", "bo@browser.example")
    page.select_option("#id_country", "NL")
    page.get_by_role("button", name="Create quote").click()
    page.wait_for_selector("#send-button")
    number = page.locator("h1").inner_text().split()[0]
    assert re.fullmatch(r"Q-\d{4}-\d{4}", number)
    assert page.locator("#lines tbody tr").count() >= 3
    # One 7B pre-training run: the analysis recommends renting, so the draft says so and
    # Send waits until the engineer chooses how the proposal presents it.
    assert page.locator("#presentation").is_visible()
    assert page.locator("#send-button").is_disabled()
    page.locator("#presentation-like").check()
    page.fill("#presentation-reason", "The training data may not leave our premises")
    page.locator("#presentation-save").click()
    page.wait_for_selector("text=Saved: how the proposal presents the analysis.")
    assert not page.locator("#send-button").is_disabled()
    page.locator("#send-button").click()
    # htmx polls the delivery badge until the worker has rendered and sent the email.
    page.wait_for_selector("#delivery-state[data-state=sent]", timeout=90_000)
    assert page.locator("#revision-status").inner_text().strip().lower() == "sent"
    assert page.locator("#delivery-state").inner_text().strip() == "sent"
    assert page.locator("a.pdf-link").count() == 1
    messages = smtp_server.recorder.to("bo@browser.example")
    assert len(messages) == 1 and number in str(messages[0]["Subject"])
