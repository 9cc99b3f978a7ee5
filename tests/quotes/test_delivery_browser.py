"""In headless Chromium, as a sales engineer would: import a stock feed, see the calculator
price the new lead time, start a quote, see the delivery on the server line, set it by
hand with a reason, and find the delivery schedule in the proposal preview's PDF."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from quotes import pdf, services
from quotes.models import Customer, LineKind, Quote

from .conftest import pdf_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUERY = "preset=serve-70b&server=smc-822gs-nbrt-b200&needed_in_days=30"


def test_stock_feed_to_quote_line_to_proposal(
    live_server: Any, page: Any, seed_catalog: object, sales_user: Any, customer: Customer
) -> None:
    sales_user.is_staff = True
    sales_user.save()
    page.goto(f"{live_server.url}/accounts/login/?next=/catalog/import/")
    page.fill("#id_username", sales_user.username)
    page.fill("#id_password", f"pw-{sales_user.username}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/catalog/import/")

    # The ERP says: none in stock, 6 weeks (the seed said 12).
    day = (timezone.localdate() - timedelta(days=1)).isoformat()
    feed = f"sku,quantity,lead_time_weeks,as_of\nSYS-822GS-NBRT,0,6,{day}\n".encode()
    page.select_option("#id_kind", "stock")
    page.set_input_files(
        "#id_file", files=[{"name": "erp.csv", "mimeType": "text/csv", "buffer": feed}]
    )
    page.get_by_role("button", name="Check and preview").click()
    page.wait_for_url("**/catalog/import/*/")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("text=Import applied")

    # 6 weeks + 7 days' installation = day 49; needed on day 30: bridged for 19 days.
    page.goto(f"{live_server.url}/calculator/?{QUERY}")
    assert "ships in 6 weeks" in page.inner_text("#verdict-time")
    page.click("#start-quote")
    page.select_option("select[name=customer]", index=1)  # the one customer
    page.get_by_role("button", name="Create quote").click()
    page.wait_for_selector("#draft-lines")
    delivery = page.locator("[id$=-delivery]").first
    assert delivery.inner_text().startswith("Ships in 6 weeks")

    page.locator("#draft-lines a", has_text="change").first.click()
    page.fill("input[name=lead_time_weeks]", "2")
    page.fill("input[name=reason]", "Vendor confirmed a faster slot")
    page.click("#delivery-form button[type=submit]")
    page.wait_for_selector("#draft-lines")
    assert page.locator("[id$=-delivery]").first.inner_text().startswith("Ships in 2 weeks")

    quote = Quote.objects.get()
    revision = quote.revisions.get()
    line = revision.lines.get(kind=LineKind.SERVER)
    assert line.delivery_reason == "Vendor confirmed a faster slot"
    text, _pages = pdf_text(
        pdf.render_revision(services.revision_snapshot(revision=revision), language="en").pdf
    )
    expected = timezone.localdate() + timedelta(weeks=2)
    flat = " ".join(text.replace("\u00a0", " ").split())
    assert "Delivery schedule" in flat
    assert f"expected delivery {expected.day} {expected:%b} {expected.year}" in flat
    assert "Vendor confirmed" not in flat
