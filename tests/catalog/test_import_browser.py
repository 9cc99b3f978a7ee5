"""A sales engineer imports a price list in headless Chromium: log in, upload, preview, apply."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import FilePayload, Page
from pytest_django.live_server_helper import LiveServer

from catalog.models import CloudOffering
from tests.catalog.price_files import csv_bytes, exported_rows, set_cell

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

P5 = "aws-p5-48xlarge-od"


def test_staff_uploads_a_changed_price_previews_and_applies_it(
    live_server: LiveServer, page: Page, seed_catalog: object, django_user_model: type[User]
) -> None:
    django_user_model.objects.create_user("sam", "sam@example.com", "s3cret-pass", is_staff=True)
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "49.536")

    page.goto(f"{live_server.url}/admin/login/?next=/catalog/import/")
    page.fill("#id_username", "sam")
    page.fill("#id_password", "s3cret-pass")
    page.click("input[type=submit]")
    page.wait_for_url("**/catalog/import/")

    page.select_option("#id_kind", "cloud")
    upload: FilePayload = {"name": "cloud.csv", "mimeType": "text/csv", "buffer": csv_bytes(rows)}
    page.set_input_files("#id_file", files=[upload])
    page.get_by_role("button", name="Check and preview").click()
    page.wait_for_url("**/catalog/import/*/")
    changed = page.locator("tr", has_text=P5).first
    assert "55.04 → 49.536 USD" in changed.inner_text()
    assert CloudOffering.objects.get(key=P5).price_per_hour == Decimal("55.04")

    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("text=Import applied")
    assert CloudOffering.objects.get(key=P5).price_per_hour == Decimal("49.536")
