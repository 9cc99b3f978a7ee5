"""In headless Chromium at 1366 and 390 px: the payment panel of a draft saves with htmx,
shows a wrong schedule's error inside the panel and keeps what was typed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from quotes.models import Quote

from .test_lines_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_payment_schedule_errors_show_in_the_panel_and_saving_needs_no_reload(
    live_server: LiveServer, page: Page, draft_quote: Quote, sales_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    url = f"/quotes/{draft_quote.public_id}/"
    log_in(page, live_server, sales_user.username, url)
    panel = page.locator("#payment-terms")
    panel.scroll_into_view_if_needed()
    page.fill("#id_pct_2", "60")
    page.click("#payment-terms-save")
    alert = page.locator("#payment-terms [role=alert]")
    alert.wait_for()
    assert "add up to 90 %" in alert.inner_text()
    assert page.input_value("#id_pct_2") == "60"  # what was typed stays
    page.fill("#id_pct_2", "70")
    page.click("#payment-terms-save")
    page.locator("#payment-terms [role=status]").wait_for()
    assert page.locator("#payment-terms [role=alert]").count() == 0
    revision = draft_quote.revisions.get()
    assert [m["pct"] for m in revision.payment_schedule] == ["30", "70"]
    for field in page.locator("#payment-terms input:visible, #payment-terms select:visible").all():
        box = field.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
