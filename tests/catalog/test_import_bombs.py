"""Price files built to exhaust a worker are refused cheaply (issue 32, finding 7), and names
that a spreadsheet would run as formulas are refused at import (finding 5).

- a workbook whose parts unpack to far more than the file (a "zip bomb") is refused from
  the zip's directory, before a part is unpacked;
- a sheet 16,384 columns wide is read up to the price list's own columns (+10);
- a CSV header 200,000 columns wide is refused before parsing, with one error;
- a cell longer than 1,000 characters is refused; at most 100 errors are listed.
"""

from __future__ import annotations

import io
import time
import zipfile
from typing import Any

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pytest_django.fixtures import Settings

from catalog.services import MAX_ERRORS_LISTED, preview_price_file
from tests.catalog.price_files import csv_bytes, exported_rows, set_cell, xlsx_bytes

pytestmark = pytest.mark.django_db


def _zip_bomb(cell_bytes: int) -> bytes:
    """A valid price workbook one of whose cells holds `cell_bytes` repeated letters (more
    than Excel's 32,767 characters a cell, which openpyxl will not write: the part is
    rewritten in the zip)."""
    rows: list[list[Any]] = [list(row) for row in exported_rows("cloud")]
    rows[1][rows[0].index("source")] = "BOMB"
    original = zipfile.ZipFile(io.BytesIO(xlsx_bytes(rows)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in original.infolist():
            part = original.read(info.filename)
            if b">BOMB<" in part:
                part = part.replace(b">BOMB<", b">" + b"a" * cell_bytes + b"<")
            bomb.writestr(info.filename, part)
    return buffer.getvalue()


def test_a_workbook_that_unpacks_to_far_more_than_its_size_is_refused_unopened(
    seed_catalog: object,
) -> None:
    data = _zip_bomb(30_000_000)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        unpacked = sum(info.file_size for info in archive.infolist())
    assert unpacked > 100 * len(data)  # the ratio a real bomb has (1.5 MB → 1.5 GB: 1,000)
    started = time.perf_counter()
    preview = preview_price_file(kind="cloud", filename="bomb.xlsx", data=data)
    assert time.perf_counter() - started < 1
    assert [error.reason for error in preview.errors] == [
        f"the workbook unpacks to {unpacked:,} bytes; price workbooks may unpack to at most "
        f"{64 * 1024 * 1024:,} bytes and 100 times their size "
        "(PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES)"
    ]


def test_the_unpacked_size_has_a_ceiling_of_its_own(
    seed_catalog: object, settings: Settings
) -> None:
    export = xlsx_bytes([list(row) for row in exported_rows("cloud")])
    assert preview_price_file(kind="cloud", filename="p.xlsx", data=export).ok
    settings.PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES = 10_000
    preview = preview_price_file(kind="cloud", filename="p.xlsx", data=export)
    assert len(preview.errors) == 1 and "unpacks to" in preview.errors[0].reason


def test_a_sheet_16384_columns_wide_is_read_up_to_the_price_lists_columns(
    seed_catalog: object,
) -> None:
    rows = exported_rows("cloud")
    width = len(rows[0])
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    for number, row in enumerate(rows, start=1):
        for column, value in enumerate(row, start=1):
            sheet.cell(row=number, column=column, value=value)
        for column in range(width + 1, width + 31):  # 30 unexpected named columns
            sheet.cell(row=number, column=column, value=f"extra{column}" if number == 1 else "")
        sheet.cell(row=number, column=16_384, value="x")  # and the last column Excel has
    buffer = io.BytesIO()
    workbook.save(buffer)
    started = time.perf_counter()
    preview = preview_price_file(kind="cloud", filename="wide.xlsx", data=buffer.getvalue())
    assert time.perf_counter() - started < 2
    read = width + 10
    assert preview.notes == [
        f"the sheet is 16,384 columns wide; only its first {read} columns were read"
    ]
    reasons = {(error.column, error.reason) for error in preview.errors}
    # The ten columns read past the list's own are named; nothing further is read.
    expected = {(f"extra{c}", "column is not expected") for c in range(width + 1, width + 11)}
    assert reasons == expected


def test_a_csv_header_200000_columns_wide_is_one_short_error_on_the_page(
    admin_client: Any, seed_catalog: object
) -> None:
    rows = exported_rows("cloud")
    rows[0] += [f"c{i}" for i in range(200_000)]
    upload = SimpleUploadedFile("wide.csv", csv_bytes(rows[:1]), content_type="text/csv")
    started = time.perf_counter()
    response = admin_client.post("/catalog/import/", {"kind": "cloud", "file": upload})
    assert time.perf_counter() - started < 2
    page = response.content.decode()
    assert len(page) < 50_000
    assert f"the header has {len(rows[0]):,} columns; at most" in page


def test_more_errors_than_the_cap_are_counted_not_listed(
    admin_client: Any, seed_catalog: object
) -> None:
    rows = exported_rows("cloud")
    header, row = rows[0], rows[1]
    many = [header] + [[f"bad-{i}", *row[1:]] for i in range(300)]
    price = header.index("price_per_hour")
    for bad in many[1:]:
        bad[price] = "not a number"
    preview = preview_price_file(kind="cloud", filename="p.csv", data=csv_bytes(many))
    assert len(preview.errors) == MAX_ERRORS_LISTED
    assert preview.error_count > MAX_ERRORS_LISTED
    upload = SimpleUploadedFile("p.csv", csv_bytes(many), content_type="text/csv")
    page = admin_client.post("/catalog/import/", {"kind": "cloud", "file": upload}).content
    text = page.decode()
    assert f"{preview.error_count} problems: nothing was imported" in text
    assert f"…and {preview.error_count - MAX_ERRORS_LISTED} more problems, not listed." in text


def test_a_cell_longer_than_1000_characters_is_refused(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    line = set_cell(rows, "aws-p5-48xlarge-od", "source", "s" * 5000)
    preview = preview_price_file(kind="cloud", filename="p.csv", data=csv_bytes(rows))
    assert [(e.row, e.column, e.reason) for e in preview.errors] == [
        (line, "source", "is longer than 1,000 characters")
    ]


@pytest.mark.parametrize("column", ["provider", "instance_type", "region"])
@pytest.mark.parametrize("text", ['=HYPERLINK("http://evil.example")', "+1+cmd", "@SUM(1)"])
def test_names_that_begin_with_a_formula_trigger_are_refused(
    seed_catalog: object, column: str, text: str
) -> None:
    rows = exported_rows("cloud")
    # As the export writes it (neutralised with an apostrophe), and as typed.
    for value in ("'" + text, text):
        line = set_cell(rows, "aws-p5-48xlarge-od", column, value)
        preview = preview_price_file(kind="cloud", filename="p.csv", data=csv_bytes(rows))
        assert [(e.row, e.column) for e in preview.errors] == [(line, column)]
        assert "a spreadsheet would run it as a formula" in preview.errors[0].reason
