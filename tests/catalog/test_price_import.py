"""Price list import: preview before writing, all or nothing, row/column errors."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks

from catalog.models import ApiOffering, CloudOffering, FxRate, PriceChange, ServerModel
from catalog.services import (
    PriceImportError,
    import_price_file,
    preview_price_file,
)
from tests.catalog.price_files import (
    catalog_state,
    csv_bytes,
    exported_rows,
    set_cell,
    xlsx_bytes,
)

pytestmark = pytest.mark.django_db

P5 = "aws-p5-48xlarge-od"


def test_preview_shows_new_changed_and_unchanged_rows_and_writes_nothing(
    seed_catalog: object,
) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "49.536")
    new = list(rows[1])
    new[0], new[2] = "aws-p5-48xlarge-eu", "p5.48xlarge-eu"
    rows.append(new)
    before = catalog_state()
    preview = preview_price_file(kind="cloud", filename="cloud.csv", data=csv_bytes(rows))
    assert preview.ok, preview.errors
    assert [row.label for row in preview.new] == ["aws-p5-48xlarge-eu"]
    assert [row.label for row in preview.changed] == [P5]
    change = preview.changed[0]
    assert (change.old_price, change.new_price) == (Decimal("55.04"), Decimal("49.536"))
    assert change.pct_change == pytest.approx(-0.1)
    assert change.change_text() == "55.04 → 49.536 USD (-10.0 %)"
    assert len(preview.unchanged) == CloudOffering.objects.count() - 1
    assert catalog_state() == before


@pytest.mark.dates
def test_applying_writes_every_row_and_records_history(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    today = timezone.localdate().isoformat()
    set_cell(rows, P5, "price_per_hour", "30.8224")
    set_cell(rows, P5, "as_of", today)
    preview = import_price_file(
        kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test"
    )
    assert len(preview.changed) == 1
    offer = CloudOffering.objects.get(key=P5)
    assert offer.price_per_hour == Decimal("30.8224") and offer.as_of.isoformat() == today
    change = PriceChange.objects.filter(kind="cloud", key=P5).latest("changed_at")
    assert (change.old_value, change.new_value) == (Decimal("55.04"), Decimal("30.8224"))
    assert change.effective_from.isoformat() == today and change.source == "test"
    assert change.changed_by is None


@pytest.mark.parametrize("kind", ["cloud", "servers", "items", "fx", "api"])
@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_export_then_import_changes_nothing(
    seed_catalog: object, kind: str, file_format: str
) -> None:
    from catalog.services import export_price_list

    exported = export_price_list(kind=kind, file_format=file_format)
    before = catalog_state()
    preview = import_price_file(
        kind=kind, filename=exported.filename, data=exported.content, source="round trip"
    )
    assert preview.ok and not preview.new and not preview.changed
    assert len(preview.unchanged) > 0
    assert catalog_state() == before


@pytest.mark.dates
def test_hosted_api_prices_import_like_the_others(seed_catalog: object) -> None:
    """Input and output price per million tokens; the history follows the output price."""
    rows = exported_rows("api")
    today = timezone.localdate().isoformat()
    key = "groq-llama-3-3-70b"
    set_cell(rows, key, "price_input_per_million", "0.50")
    set_cell(rows, key, "price_output_per_million", "0.69")
    set_cell(rows, key, "as_of", today)
    new = list(rows[1])
    new[0], new[2] = "groq-llama-3-1-70b", "Llama 3.1 70B"
    rows.append(new)
    preview = import_price_file(kind="api", filename="api.csv", data=csv_bytes(rows), source="t")
    assert preview.ok, preview.errors
    assert [row.label for row in preview.new] == ["groq-llama-3-1-70b"]
    api = ApiOffering.objects.get(key=key)
    assert (api.price_input_per_million, api.price_output_per_million) == (
        Decimal("0.50"),
        Decimal("0.69"),
    )
    change = PriceChange.objects.filter(kind="api", key=key).latest("changed_at")
    assert (change.old_value, change.new_value) == (Decimal("0.79"), Decimal("0.69"))
    bad = exported_rows("api")
    set_cell(bad, key, "jurisdiction", "USA")
    with pytest.raises(PriceImportError) as refused:
        import_price_file(kind="api", filename="a.csv", data=csv_bytes(bad), source="t")
    assert "column 'jurisdiction': 'USA' is not a two-letter country code" in str(refused.value)


def test_a_whole_catalog_workbook_imports_the_sheet_of_the_kind(seed_catalog: object) -> None:
    from catalog.services import export_price_list

    workbook = export_price_list(kind="all", file_format="xlsx")
    for kind, model in (("cloud", CloudOffering), ("fx", FxRate), ("servers", ServerModel)):
        preview = preview_price_file(kind=kind, filename="all.xlsx", data=workbook.content)
        assert preview.ok and len(preview.unchanged) == model.objects.count()


def _tomorrow() -> str:
    return (timezone.localdate() + timedelta(days=1)).isoformat()


BAD_CELLS = [
    ("cloud", "price_per_hour", "cheap", "'cheap' is not a number"),
    ("cloud", "price_per_hour", "-3", "-3 is negative"),
    ("cloud", "gpu", "h900", "unknown GPU 'h900'"),
    ("cloud", "currency", "GBP", "'GBP' is not one of USD, EUR"),
    ("cloud", "as_of", "2025-02-30", "is not a date in YYYY-MM-DD form"),
    ("cloud", "as_of", "yesterday", "is not a date in YYYY-MM-DD form"),
    ("cloud", "as_of", "TOMORROW", "is in the future"),
    ("cloud", "price_per_hour", "1.123456", "no more than 4 decimal places"),
    ("servers", "gpu", "h900", "unknown GPU 'h900'"),
    ("servers", "list_price", "", "is empty"),
    ("servers", "idle_power_kw", "99", "is above max_power_kw"),
    ("items", "price", "Infinity", "is not a finite number"),
    ("items", "price", "1e20", "no more than 12 digits in total"),
    ("items", "currency", "usd", "is not one of USD, EUR"),
    ("fx", "rate", "0", "must be greater than zero"),
    ("fx", "quote", "EUR", "is the same currency as base"),
]


@pytest.mark.parametrize(("kind", "column", "value", "reason"), BAD_CELLS)
@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_bad_cell_names_row_and_column_and_imports_nothing(
    seed_catalog: object, kind: str, column: str, value: str, reason: str, file_format: str
) -> None:
    rows = exported_rows(kind)
    value = _tomorrow() if value == "TOMORROW" else value
    rows[2][rows[0].index(column)] = value
    rows[1][rows[0].index("source")] = "edited"  # a valid change elsewhere is not applied
    data = csv_bytes(rows) if file_format == "csv" else xlsx_bytes(rows)
    filename = f"prices.{file_format}"
    before = catalog_state()
    with pytest.raises(PriceImportError) as caught:
        import_price_file(kind=kind, filename=filename, data=data, source="test")
    messages = [str(error) for error in caught.value.preview.errors]
    assert any(
        m.startswith(f"{filename}, row 3, column {column!r}:") and reason in m for m in messages
    ), messages
    assert catalog_state() == before


def test_missing_and_extra_columns_are_named(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    rows[0][rows[0].index("region")] = "zone"
    preview = preview_price_file(kind="cloud", filename="c.csv", data=csv_bytes(rows))
    assert [str(e) for e in preview.errors] == [
        "c.csv, row 1, column 'region': column is missing",
        "c.csv, row 1, column 'zone': column is not expected",
    ]


def test_duplicate_keys_within_the_file_are_refused(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    rows.append(list(rows[1]))
    before = catalog_state()
    with pytest.raises(PriceImportError) as caught:
        import_price_file(kind="cloud", filename="c.csv", data=csv_bytes(rows), source="t")
    assert f"c.csv, row {len(rows)}, column 'key': duplicate of row 2" in str(caught.value)
    assert catalog_state() == before


def test_a_key_that_takes_another_rows_identity_is_refused(seed_catalog: object) -> None:
    rows = exported_rows("servers")
    copy = list(rows[1])
    copy[0] = "a-new-key-same-sku-and-gpu"
    preview = preview_price_file(kind="servers", filename="s.csv", data=csv_bytes([rows[0], copy]))
    assert any(e.column == "sku, gpu" and "already used by" in e.reason for e in preview.errors), (
        preview.errors
    )


def test_price_change_dated_before_the_current_price_is_refused(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    row = set_cell(rows, P5, "price_per_hour", "40")
    set_cell(rows, P5, "as_of", "2025-01-01")
    preview = preview_price_file(kind="cloud", filename="c.csv", data=csv_bytes(rows))
    assert [str(e) for e in preview.errors] == [
        f"c.csv, row {row}, column 'as_of': 2025-01-01 is before the date of the current price "
        "(2025-07-01); a price change takes effect on or after it"
    ]


def test_file_that_is_not_utf8_is_refused(seed_catalog: object) -> None:
    rows = exported_rows("items")
    data = csv_bytes(rows).replace("–".encode(), "–".encode("cp1252"))
    preview = preview_price_file(kind="items", filename="items.csv", data=data)
    assert len(preview.errors) == 1
    assert "the file is not UTF-8 text" in str(preview.errors[0])
    assert str(preview.errors[0]).startswith("items.csv, row ")


@pytest.mark.parametrize("data", [b"key,price\n1,2\n", b"PK\x03\x04broken zip", b""])
def test_file_named_xlsx_that_is_not_a_workbook_is_refused(
    seed_catalog: object, data: bytes
) -> None:
    preview = preview_price_file(kind="cloud", filename="cloud.xlsx", data=data)
    assert [str(e) for e in preview.errors] == [
        "cloud.xlsx, row 1: the file is not an Excel workbook (.xlsx)"
    ]


def test_empty_and_ragged_csv_files_are_refused(seed_catalog: object) -> None:
    empty = preview_price_file(kind="cloud", filename="c.csv", data=b"")
    assert [str(e) for e in empty.errors] == ["c.csv, row 1: the file is empty"]
    rows = exported_rows("cloud")
    rows[3].append("one too many")
    ragged = preview_price_file(kind="cloud", filename="c.csv", data=csv_bytes(rows))
    columns = len(rows[0])
    assert [str(e) for e in ragged.errors] == [
        f"c.csv, row 4: has {columns + 1} cells, expected {columns}"
    ]


def test_xlsx_row_numbers_are_spreadsheet_rows(seed_catalog: object) -> None:
    rows: list[list[object]] = [list(r) for r in exported_rows("cloud")]
    rows.insert(3, [])  # a blank line stays a line
    rows[5][rows[0].index("gpu_count")] = "eight"
    preview = preview_price_file(kind="cloud", filename="c.xlsx", data=xlsx_bytes(rows))
    assert [str(e) for e in preview.errors] == [
        "c.xlsx, row 6, column 'gpu_count': 'eight' is not a whole number"
    ]


def test_excel_dates_and_numbers_read_as_the_text_they_show(seed_catalog: object) -> None:
    import datetime as dt

    rows: list[list[object]] = [list(r) for r in exported_rows("cloud")]
    number = next(i for i, r in enumerate(rows) if r[0] == P5)
    rows[number][rows[0].index("price_per_hour")] = 55.04
    rows[number][rows[0].index("gpu_count")] = 8
    rows[number][rows[0].index("as_of")] = dt.datetime(2025, 7, 1)
    rows[number][rows[0].index("is_estimate")] = False
    preview = preview_price_file(kind="cloud", filename="c.xlsx", data=xlsx_bytes(rows))
    assert preview.ok and not preview.changed, preview.errors


@override_settings(PRICE_IMPORT_MAX_BYTES=1000)
def test_huge_file_is_refused_before_it_is_read(seed_catalog: object) -> None:
    data = csv_bytes(exported_rows("cloud"))
    assert len(data) > 1000
    preview = preview_price_file(kind="cloud", filename="c.csv", data=data)
    assert len(preview.errors) == 1
    assert "at most 1,000 bytes (PRICE_IMPORT_MAX_BYTES)" in preview.errors[0].reason


@override_settings(PRICE_IMPORT_MAX_ROWS=5)
def test_file_with_too_many_rows_is_refused(seed_catalog: object) -> None:
    preview = preview_price_file(
        kind="cloud", filename="c.csv", data=csv_bytes(exported_rows("cloud"))
    )
    assert [str(e) for e in preview.errors] == [
        "c.csv, row 7: the file has more than 5 data rows; split it into smaller files"
    ]


def test_unknown_kind_and_file_type_are_refused(seed_catalog: object) -> None:
    assert "unknown kind 'gpus'" in str(
        preview_price_file(kind="gpus", filename="g.csv", data=b"key\n").errors[0]
    )
    assert "only .csv and .xlsx" in str(
        preview_price_file(kind="cloud", filename="c.ods", data=b"x").errors[0]
    )


# --- property: random malformed rows never crash and never import part of a file ----------

cell_values = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["\x1f", "a\x00b", "\t", "\r\n"]),
    st.sampled_from(
        [
            "",
            "-1",
            "0",
            "1e400",
            "nan",
            "NaN",
            "inf",
            "1,5",
            "12.34567",
            "2025-07-01",
            "2999-01-01",
            "h100-sxm",
            "h900",
            "USD",
            "GBP",
            "true",
            "maybe",
            "on_demand",
            '"',
            "\x00",
            "=1+1",
            " 8 ",
            "99999999999999999999",
        ]
    ),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(["cloud", "servers", "items", "fx"]),
    edits=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 20), cell_values), min_size=1, max_size=6
    ),
    extra_rows=st.lists(st.lists(cell_values, max_size=16), max_size=3),
    file_format=st.sampled_from(["csv", "xlsx"]),
)
def test_random_malformed_rows_never_crash_or_import_part_of_a_file(
    seed_catalog: object,
    kind: str,
    edits: list[tuple[int, int, str]],
    extra_rows: list[list[str]],
    file_format: str,
) -> None:
    rows = exported_rows(kind)
    for row, column, value in edits:
        target = rows[1 + row % (len(rows) - 1)]
        target[column % len(target)] = value
    rows += extra_rows
    if file_format == "csv":
        data = csv_bytes(rows)
    else:
        data = xlsx_bytes([[ILLEGAL_CHARACTERS_RE.sub("", c) for c in r] for r in rows])
    before = catalog_state()
    try:
        preview = import_price_file(
            kind=kind, filename=f"p.{file_format}", data=data, source="property"
        )
    except PriceImportError as exc:
        assert exc.preview.errors
        assert all(e.reason for e in exc.preview.errors)
        assert catalog_state() == before
    else:
        # Accepted: every accepted row is now in the catalog exactly as previewed.
        after = preview_price_file(kind=kind, filename=f"p.{file_format}", data=data)
        assert after.ok and not after.new and not after.changed
        assert len(after.unchanged) == len(preview.new + preview.changed + preview.unchanged)


# --- the command -----------------------------------------------------------------------


def _write(tmp_path: Path, rows: list[list[str]], name: str = "cloud.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(csv_bytes(rows))
    return path


def test_command_dry_run_prints_changes_and_writes_nothing(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "49.536")
    before = catalog_state()
    call_command("import_prices", str(_write(tmp_path, rows)), "--kind", "cloud", "--dry-run")
    out = capsys.readouterr().out
    assert "cloud offerings: 0 new, 1 changed (1 price changes)" in out
    assert f"{P5}: 55.04 → 49.536 USD (-10.0 %)" in out
    assert "nothing was written" in out
    assert catalog_state() == before


def test_command_applies_with_history_source(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "49.536")
    path = _write(tmp_path, rows)
    call_command("import_prices", str(path), "--kind", "cloud")
    assert "Imported cloud.csv: 1 row(s) changed." in capsys.readouterr().out
    change = PriceChange.objects.filter(kind="cloud", key=P5).latest("changed_at")
    assert change.new_value == Decimal("49.536")
    assert change.source == f"import_prices {path}" and change.changed_by is None


def test_command_reports_errors_and_exits_non_zero(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "-1")
    before = catalog_state()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_prices", str(_write(tmp_path, rows)), "--kind", "cloud")
    assert "cloud.csv, row 2, column 'price_per_hour': -1 is negative" in capsys.readouterr().err
    assert catalog_state() == before


@override_settings(PRICE_IMPORT_MAX_BYTES=100)
def test_command_refuses_a_huge_file_by_its_size(seed_catalog: object, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="at most 100 bytes"):
        call_command(
            "import_prices", str(_write(tmp_path, exported_rows("cloud"))), "--kind", "cloud"
        )
    with pytest.raises(CommandError, match="cannot be read"):
        call_command("import_prices", str(tmp_path / "missing.csv"), "--kind", "cloud")


@pytest.mark.dates
def test_changed_rows_are_written_in_the_columns_they_change(seed_catalog: object) -> None:
    """Rows changing different columns, written in bulk: each row gets its own values."""
    rows = exported_rows("cloud")
    today = timezone.localdate().isoformat()
    set_cell(rows, P5, "price_per_hour", "30.8224")
    set_cell(rows, P5, "as_of", today)
    other = rows[2][0]
    set_cell(rows, other, "source", "the provider's new price page")
    before = {o.key: o for o in CloudOffering.objects.all()}
    preview = import_price_file(
        kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test"
    )
    assert sorted(row.label for row in preview.changed) == sorted([P5, other])
    p5, changed_source = CloudOffering.objects.get(key=P5), CloudOffering.objects.get(key=other)
    assert (p5.price_per_hour, p5.as_of.isoformat()) == (Decimal("30.8224"), today)
    assert p5.source == before[P5].source
    assert changed_source.source == "the provider's new price page"
    assert changed_source.price_per_hour == before[other].price_per_hour
    assert changed_source.as_of == before[other].as_of
    # History records the price change only, once.
    assert PriceChange.objects.filter(kind="cloud", key=P5, source="test").count() == 1
    assert not PriceChange.objects.filter(kind="cloud", key=other, source="test").exists()


def test_an_import_invalidates_the_calculator_caches_once_when_it_commits(
    seed_catalog: object, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    """One bump of the catalog generation per import, however many rows, after the commit
    (it used to be two Redis writes per row)."""
    from catalog.generation import catalog_generation

    rows = exported_rows("cloud")
    for row in rows[1:]:
        row[rows[0].index("source")] = "a new source for every row"
    new = list(rows[1])
    new[0], new[2] = "aws-p5-48xlarge-eu", "p5.48xlarge-eu"
    rows.append(new)
    before = catalog_generation()
    with django_capture_on_commit_callbacks() as callbacks:
        preview = import_price_file(
            kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test"
        )
        assert len(preview.changed) == len(rows) - 2 and len(preview.new) == 1
        assert catalog_generation() == before  # not before the commit
    for callback in callbacks:
        callback()
    assert catalog_generation() == before + 1


@pytest.mark.dates
def test_a_dry_run_leaves_the_calculator_caches_alone(
    seed_catalog: object,
    tmp_path: Path,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """A seed load with --dry-run writes rows and rolls them back: no invalidation."""
    import shutil

    from catalog.generation import catalog_generation
    from catalog.loader import DATA_DIR, load_catalog

    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "30.8224")
    set_cell(rows, P5, "as_of", timezone.localdate().isoformat())
    (data_dir / "cloud_offerings.csv").write_bytes(csv_bytes(rows))
    before = catalog_generation()
    with django_capture_on_commit_callbacks(execute=True):
        summary = load_catalog(data_dir=data_dir, dry_run=True)
    assert summary.updated["cloud"] == 1
    assert catalog_generation() == before


@pytest.mark.dates
def test_an_export_from_before_the_dutch_columns_imports_and_keeps_the_dutch_texts(
    seed_catalog: object,
) -> None:
    """A sales engineer's price list saved before the Dutch source columns existed: its
    price change applies, the Dutch texts already in the catalog stay."""
    server = ServerModel.objects.get(key="smc-821ge-tnhr-h100")
    assert server.name_nl and server.source_nl and server.price_source_nl
    rows = exported_rows("servers")
    dutch = [i for i, name in enumerate(rows[0]) if name.endswith("_nl")]
    assert len(dutch) >= 3
    rows = [[cell for i, cell in enumerate(row) if i not in dutch] for row in rows]
    set_cell(rows, server.key, "list_price", "270000")
    set_cell(rows, server.key, "price_as_of", timezone.localdate().isoformat())
    preview = import_price_file(
        kind="servers", filename="servers.csv", data=csv_bytes(rows), source="old export"
    )
    assert preview.ok, preview.errors
    assert [row.label for row in preview.changed] == [server.key]
    after = ServerModel.objects.get(key=server.key)
    assert after.list_price == Decimal("270000")
    assert (after.name_nl, after.source_nl, after.price_source_nl) == (
        server.name_nl,
        server.source_nl,
        server.price_source_nl,
    )
