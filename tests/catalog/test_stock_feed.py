"""A distributor's stock feed (catalog/stock_feed.py): the import_stock command and the
import page take an ERP's file (sku, quantity, lead time, date); a file with a bad row is
refused with each row's line number and changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from catalog.models import ImportStatus, PriceImport, ServerAvailability

pytestmark = pytest.mark.django_db

B200 = "smc-822gs-nbrt-b200"  # SKU SYS-822GS-NBRT: seed 0 in stock, 12 (–16) weeks, 7 days


def day() -> str:
    return (timezone.localdate() - timedelta(days=1)).isoformat()


def feed(*rows: str) -> bytes:
    return ("sku,quantity,lead_time_weeks,as_of\n" + "".join(f"{r}\n" for r in rows)).encode()


def stock(key: str) -> tuple[int, Decimal, Decimal | None, Decimal, str, bool]:
    row = ServerAvailability.objects.get(server__key=key)
    return (
        row.units_in_stock,
        row.lead_time_weeks,
        row.lead_time_weeks_max,
        row.install_days,
        row.source,
        row.is_estimate,
    )


def test_command_imports_the_feed(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "erp-stock.csv"
    path.write_bytes(feed(f"SYS-822GS-NBRT,4,6,{day()}", f"DGX B200,0,10,{day()}"))
    call_command("import_stock", str(path))
    # The feed's figures; the longest lead time and installation days stay the catalog's.
    assert stock(B200) == (
        4,
        Decimal(6),
        Decimal(16),
        Decimal(7),
        "Stock feed erp-stock.csv",
        False,
    )
    assert stock("nvidia-dgx-b200")[:2] == (0, Decimal(10))


def test_bad_rows_are_refused_with_their_line_numbers_and_nothing_is_applied(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = list(ServerAvailability.objects.order_by("pk").values())
    path = tmp_path / "erp-stock.csv"
    path.write_bytes(
        feed(
            f"SYS-822GS-NBRT,4,6,{day()}",  # line 2: fine
            f"SYS-821GE-TNHR,2,10,{day()}",  # line 3: H100 or H200?
            f"DGX B200,-1,10,{day()}",  # line 4: negative stock
            f"NO-SUCH-SKU,1,1,{day()}",  # line 5
            "DGX H100,1,10,2099-01-01",  # line 6: a count from the future
        )
    )
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_stock", str(path))
    errors = capsys.readouterr().err
    assert "row 3, column 'sku': 'SYS-821GE-TNHR' is sold with several GPUs" in errors
    assert "row 4, column 'quantity': -1 is negative" in errors
    assert "row 5, column 'sku': 'NO-SUCH-SKU' is not in the catalog" in errors
    assert "row 6, column 'as_of': 2099-01-01 is in the future" in errors
    assert list(ServerAvailability.objects.order_by("pk").values()) == before


def test_a_gpu_column_tells_one_sku_apart(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "erp.csv"
    path.write_text(
        f"sku,gpu,quantity,lead_time_weeks,as_of\nSYS-821GE-TNHR,h200-sxm,3,30,{day()}\n"
    )
    call_command("import_stock", str(path))
    assert stock("smc-821ge-tnhr-h200")[:2] == (3, Decimal(30))
    assert stock("smc-821ge-tnhr-h100")[0] == 0


def test_the_import_page_takes_a_stock_feed(
    client: Client, django_user_model: type[User], seed_catalog: object
) -> None:
    client.force_login(django_user_model.objects.create_user("sam", is_staff=True))
    upload = SimpleUploadedFile("erp.csv", feed(f"SYS-822GS-NBRT,4,6,{day()}"))
    response = client.post("/catalog/import/", {"kind": "stock", "file": upload})
    assert response.status_code == 302
    preview = re.sub(r"\s+", " ", client.get(response["Location"]).content.decode())
    assert "read as a stock feed" in preview and "0 new, 1 changed, 0 unchanged" in preview
    assert stock(B200)[0] == 0  # not before it is applied
    price_import = PriceImport.objects.get()
    client.post(f"/catalog/import/{price_import.pk}/apply/")
    price_import.refresh_from_db()
    assert price_import.status == ImportStatus.APPLIED
    assert stock(B200)[:2] == (4, Decimal(6))

    bad = SimpleUploadedFile("erp.csv", feed(f"SYS-822GS-NBRT,four,6,{day()}"))
    page = client.post("/catalog/import/", {"kind": "stock", "file": bad})
    html = page.content.decode()
    assert "Row 2, column “quantity”: &#x27;four&#x27; is not a whole number" in html
    assert stock(B200)[:2] == (4, Decimal(6))


@pytest.mark.dates
def test_count_dates_and_lead_times_outside_their_ranges_are_refused(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The audit's values (common/bounds.py: lead times 0-260 weeks written as plain
    # numbers; a count date from 2000-01-01 to today).
    before = list(ServerAvailability.objects.order_by("pk").values())
    path = tmp_path / "erp-stock.csv"
    path.write_bytes(
        feed(
            f"SYS-822GS-NBRT,0,9999.9,{day()}",  # line 2: 192 years
            f"DGX B200,0,1e3,{day()}",  # line 3: a spreadsheet's exponent
            "DGX H100,1,10,0001-01-01",  # line 4: a count 2025 years old
            "DGX B300,1,10,1999-12-31",  # line 5: one day before the range
        )
    )
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_stock", str(path))
    errors = capsys.readouterr().err
    assert "row 2, column 'lead_time_weeks': 9999.9 weeks is more than 260 weeks" in errors
    assert "row 3, column 'lead_time_weeks': '1e3' is not written as a duration" in errors
    assert "row 4, column 'as_of': 0001-01-01 is before 2000-01-01" in errors
    assert "row 5, column 'as_of': 1999-12-31 is before 2000-01-01" in errors
    assert list(ServerAvailability.objects.order_by("pk").values()) == before


@pytest.mark.dates
def test_the_ends_of_the_ranges_are_accepted(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "erp-stock.csv"
    path.write_bytes(feed("SYS-822GS-NBRT,0,260,2000-01-01", f"DGX B200,0,0,{day()}"))
    call_command("import_stock", str(path))
    assert stock(B200)[:2] == (0, Decimal(260))
    assert stock("nvidia-dgx-b200")[:2] == (0, Decimal(0))
