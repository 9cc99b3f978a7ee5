"""A request past its time budget answers 503 with Retry-After instead of its worker being
killed by gunicorn's timeout (issue 32, "a time budget per request"); no `except Exception`
can swallow the budget, and the import commands have one of their own (issue 44)."""

from __future__ import annotations

import io
import signal
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy  # noqa: F401 - see below
import openpyxl  # noqa: F401
import pandas  # noqa: F401
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from pytest_django.fixtures import Settings

from config.middleware import RequestTimeBudgetMiddleware


def busy_for(seconds: float) -> Any:
    def view(request: HttpRequest) -> HttpResponse:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # Python work: the budget can stop it
            sum(range(1000))
        return HttpResponse("done")

    return view


def test_a_request_over_its_budget_is_stopped_with_a_503(settings: Settings) -> None:
    settings.REQUEST_TIME_BUDGET_SECONDS = 0.2
    middleware = RequestTimeBudgetMiddleware(busy_for(3))
    started = time.monotonic()
    response = middleware(RequestFactory().get("/calculator/"))
    assert time.monotonic() - started < 1
    assert response.status_code == 503 and response["Retry-After"] == "30"
    api = RequestTimeBudgetMiddleware(busy_for(3))(RequestFactory().post("/api/v1/estimate"))
    assert api.status_code == 503 and api["Content-Type"] == "application/problem+json"


def test_a_request_within_its_budget_is_untouched_and_leaves_no_timer(
    settings: Settings,
) -> None:
    settings.REQUEST_TIME_BUDGET_SECONDS = 2
    response = RequestTimeBudgetMiddleware(busy_for(0.05))(RequestFactory().get("/"))
    assert response.status_code == 200 and response.content == b"done"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None)


def swallows_everything(request: HttpRequest) -> HttpResponse:
    """A view with the broad handler a file reader has: it must not hide the budget."""
    try:
        busy_for(3)(request)
    except Exception:
        return HttpResponse("not an Excel workbook", status=400)
    return HttpResponse("done")


def test_no_except_exception_can_swallow_the_budget(settings: Settings) -> None:
    settings.REQUEST_TIME_BUDGET_SECONDS = 0.2
    response = RequestTimeBudgetMiddleware(swallows_everything)(RequestFactory().get("/"))
    assert response.status_code == 503 and response["Retry-After"] == "30"


def _cell(column: int) -> str:
    letters = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def wide_workbook(columns: int, rows: int) -> bytes:
    """The audit's width bomb, smaller: a stock-feed header followed by `columns - 4`
    more columns, and `rows` rows of 5-letter cells (inline strings: no shared table).
    Written as raw parts so that building it costs milliseconds."""
    header = ["sku", "quantity", "lead_time_weeks", "as_of"] + [f"x{i}" for i in range(columns - 4)]

    def row_xml(number: int, values: list[str]) -> str:
        cells = "".join(
            f'<c r="{_cell(i)}{number}" t="inlineStr"><is><t>{value}</t></is></c>'
            for i, value in enumerate(values)
        )
        return f'<row r="{number}">{cells}</row>'

    body = [row_xml(1, header)] + [row_xml(n, ["abcde"] * columns) for n in range(2, rows + 2)]
    sheet = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"<sheetData>{''.join(body)}</sheetData></worksheet>"
    )
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>"
        ),
        "xl/workbook.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{main}" xmlns:r="{rel}">'
            '<sheets><sheet name="stock" sheetId="1" r:id="rId1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
            "</Relationships>"
        ),
        "xl/worksheets/sheet1.xml": sheet,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# 16,384 columns × 6 data rows: openpyxl parses every cell of a row even past the columns
# asked for, about 3 s here (the audit's 57 rows held a worker 25 s). A budget of 0.5 s
# must stop it: 503 in 0.5 s + the answer (400 after the whole parse before).
WIDE = {"columns": 16_384, "rows": 6}
# The readers import openpyxl and pandas (with numpy) lazily; they are imported above so
# that a 0.5 s budget never lands in the middle of a first import, which would leave the
# module half-loaded for the rest of the test process.
# The first shot of the budget may land in a finalizer, where Python prints and drops it;
# the timer's next shot stops the work (common/time_budget.py). That report is expected.
DROPPED_SHOT = "ignore::pytest.PytestUnraisableExceptionWarning"


@pytest.mark.django_db
@pytest.mark.filterwarnings(DROPPED_SHOT)
def test_a_wide_workbook_upload_answers_503_within_the_budget(
    client: Client, django_user_model: type[User], settings: Settings
) -> None:
    data = wide_workbook(**WIDE)
    client.force_login(django_user_model.objects.create_user("sam", is_staff=True))
    settings.REQUEST_TIME_BUDGET_SECONDS = 0.5
    upload = SimpleUploadedFile("erp.xlsx", data)
    started = time.monotonic()
    response = client.post("/catalog/import/", {"kind": "stock", "file": upload})
    assert time.monotonic() - started < 2.5  # slack for a busy shared machine
    # Before the budget derived from BaseException this was a 400 "not an Excel workbook".
    assert response.status_code == 503 and response["Retry-After"] == "30"
    assert "took too long" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.filterwarnings(DROPPED_SHOT)
def test_the_import_commands_run_under_their_own_budget(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "erp.xlsx"
    path.write_bytes(wide_workbook(**WIDE))
    settings.IMPORT_TIME_BUDGET_SECONDS = 0.5
    started = time.monotonic()
    with pytest.raises(CommandError, match=r"Stopped after 0\.5 s .*nothing was imported"):
        call_command("import_stock", str(path), "--dry-run")
    with pytest.raises(CommandError, match=r"Stopped after 0\.5 s"):
        call_command("import_prices", str(path), "--kind", "servers", "--dry-run")
    assert time.monotonic() - started < 5  # two stops of 0.5 s, on a busy machine
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
