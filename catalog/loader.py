"""Read catalog data files, check every cell, compare with the catalog, write all or nothing.

One path serves the seed loader (`load_catalog`, CSV files) and the staff price import
(`import_prices`, /catalog/import/, CSV or XLSX): `read_table` turns the bytes of a file
into a header and rows of text, `validate_rows` checks each cell against a `TableSpec`,
`diff_table` compares the rows with the catalog (new, changed, unchanged) and
`write_plans` writes them, with their price history, in one transaction.

A file with any error writes nothing: writing is only attempted once every row of every
file has passed its checks. Row numbers are those a spreadsheet shows: the header is
row 1, the first data row is row 2, for CSV and XLSX alike.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, connections, models, transaction

from .models import PriceChange
from .schema import (
    ALL_SPECS,
    NUMERIC_PARSERS,
    CellError,
    Reference,
    TableSpec,
    decimal_comma_cell,
    unneutralise,
)
from .signals import catalog_written

DATA_DIR = Path(__file__).resolve().parent / "data"

FILE_FORMATS = ("csv", "xlsx")
# Rows per INSERT/UPDATE statement when writing: bounds the statement size and memory.
BATCH_SIZE = 1000

# pandas reports a ragged CSV row as "Expected 13 fields in line 7, saw 14".
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
# Control characters (NUL among them) cannot be stored by PostgreSQL or written to XLSX.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# No catalog field holds more (the longest are sources and URLs, 300 characters).
MAX_CELL_LENGTH = 1000
# A date typed into Excel comes back from pandas as "2025-07-01 00:00:00".
_MIDNIGHT = re.compile(r"^(\d{4}-\d{2}-\d{2}) 00:00:00$")


@dataclass(frozen=True)
class RowError:
    file: str
    row: int
    column: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}, row {self.row}" + (
            f", column {self.column!r}" if self.column else ""
        )
        return f"{where}: {self.reason}"


class CatalogLoadError(Exception):
    def __init__(self, errors: Sequence[RowError]):
        self.errors = list(errors)
        super().__init__("\n".join(str(error) for error in self.errors))


@dataclass
class ParsedTable:
    spec: TableSpec
    file: str
    rows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # Keys named in the file, even on rows with other errors, so that rows referring to
    # them are not reported a second time as "unknown".
    declared_keys: set[str] = field(default_factory=set)
    # Optional columns the file does not have (TableSpec.optional_columns): read as blank,
    # and an updated row keeps the catalog's value of them.
    absent: set[str] = field(default_factory=set)


@dataclass
class LoadSummary:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    # Seed rows not loaded because the catalog holds a newer row (kind → keys).
    kept_newer: dict[str, list[str]] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return sum(self.created.values()) + sum(self.updated.values())

    def lines(self) -> list[str]:
        lines = [
            f"{kind}: {self.created.get(kind, 0)} new, {self.updated.get(kind, 0)} changed, "
            f"{self.unchanged.get(kind, 0)} unchanged"
            for kind in self.created
        ]
        lines += [
            f"{kind}: kept {len(keys)} newer price(s) from imports, skipped the older seed "
            f"row(s): {', '.join(keys)}"
            for kind, keys in self.kept_newer.items()
            if keys
        ]
        return lines


# --- reading -------------------------------------------------------------------------


def file_format_of(filename: str) -> str | None:
    suffix = Path(filename).suffix.lower().lstrip(".")
    return suffix if suffix in FILE_FORMATS else None


def read_csv_text(data: bytes, file: str) -> tuple[str | None, list[RowError]]:
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        row = data[: exc.start].count(b"\n") + 1
        return None, [RowError(file, row, "", "the file is not UTF-8 text (save it as CSV UTF-8)")]


@dataclass
class RawTable:
    """A file as text cells: the header (row 1) and the data rows (row 2 onwards)."""

    header: list[str]
    rows: list[list[str]]
    # Semicolon-separated with decimal commas (how Dutch or German Excel saves "CSV").
    decimal_comma: bool = False
    # A sheet wider than the columns read (read_table's max_columns): its declared width
    # and how many of its columns were read.
    sheet_width: int = 0
    columns_read: int = 0

    @property
    def notes(self) -> list[str]:
        notes = []
        if self.decimal_comma:
            notes.append(
                "read as a semicolon-separated file with decimal commas (1234,5), as Dutch or "
                "German Excel saves CSV; numbers with a point are refused"
            )
        if self.sheet_width:
            notes.append(
                f"the sheet is {self.sheet_width:,} columns wide; only its first "
                f"{self.columns_read} columns were read"
            )
        return notes


def read_table(
    data: bytes,
    file: str,
    *,
    file_format: str = "csv",
    max_rows: int | None = None,
    max_columns: int | None = None,
    sheet: str | None = None,
) -> tuple[RawTable | None, list[RowError]]:
    """Read CSV (UTF-8) or XLSX bytes into text cells; never raises on bad input.

    Cells stay text (pandas dtype=str, no NA guessing) so that every value is checked by
    the same parsers whatever the file type. At most `max_rows` data rows are read: a
    longer file is refused without reading the rest. With `max_columns`, a CSV file whose
    header has more cells is refused before it is parsed, and a workbook's columns past
    it are not read. A workbook whose parts unpack to more than
    PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES, or to more than XLSX_MAX_RATIO times its own size,
    is refused before it is parsed (a "zip bomb": 1.5 MB holding a 1.5 GB cell). For a
    workbook, the sheet named `sheet` is read if there is one (an export of every kind has
    one sheet per kind), otherwise the first.
    """
    import pandas as pd  # here, not at start-up: only reading a file needs it (1.2 s cold)

    limit = None if max_rows is None else max_rows + 2  # header + one row too many
    decimal_comma = False
    sheet_width = 0
    try:
        if file_format == "xlsx":
            bomb = _unpacked_size_problem(data)
            if bomb:
                return None, [RowError(file, 0, "", bomb)]
            cells, sheet_width = _read_xlsx(data, sheet, limit, max_columns)
        else:
            text, errors = read_csv_text(data, file)
            if text is None:
                return None, errors
            decimal_comma = _semicolon_separated(text)
            separator = ";" if decimal_comma else ","
            width = _header_width(text, separator)
            if max_columns is not None and width > max_columns:
                reason = f"the header has {width:,} columns; at most {max_columns} are read"
                return None, [RowError(file, 1, "", reason)]
            frame = pd.read_csv(
                io.StringIO(text),
                sep=separator,
                header=None,
                dtype=str,
                keep_default_na=False,
                skip_blank_lines=False,  # keeps row numbers equal to the file's lines
                nrows=limit,
            )
            cells = [
                ["" if cell is None else str(cell) for cell in row]
                for row in frame.fillna("").to_numpy(dtype=object).tolist()
            ]
    except _NotAWorkbook:
        return None, [RowError(file, 1, "", "the file is not an Excel workbook (.xlsx)")]
    except pd.errors.EmptyDataError:
        return None, [RowError(file, 1, "", "the file is empty")]
    except pd.errors.ParserError as exc:
        ragged = _RAGGED.search(str(exc))
        if ragged:
            expected, line, saw = ragged.groups()
            reason = f"has {saw} cells, expected {expected}"
            return None, [RowError(file, int(line), "", reason)]
        return None, [RowError(file, 1, "", f"the file cannot be read as CSV ({exc})")]
    except (ValueError, UnicodeError, OverflowError, MemoryError) as exc:
        return None, [RowError(file, 1, "", f"the file cannot be read ({exc})")]

    if not cells:
        return None, [RowError(file, 1, "", "the file is empty")]
    if file_format == "xlsx":
        cells = _tidy_sheet(cells)
    if max_rows is not None and len(cells) - 1 > max_rows:
        reason = f"the file has more than {max_rows:,} data rows; split it into smaller files"
        return None, [RowError(file, max_rows + 2, "", reason)]
    raw = RawTable(cells[0], cells[1:], decimal_comma=decimal_comma)
    if max_columns is not None and sheet_width > max_columns:
        raw.sheet_width, raw.columns_read = sheet_width, max_columns
    return raw, []


def _header_width(text: str, separator: str) -> int:
    """The number of cells in the first line of a CSV text.

    >>> _header_width('key,"a,b",c\\n1,2,3\\n', ","), _header_width("", ",")
    (3, 0)
    >>> _header_width("key,price\\r1,2", ",")
    2
    """
    import csv

    # splitlines: a bare carriage return ends the line too (csv refuses one inside a field).
    lines = text.splitlines()
    first = next(csv.reader([lines[0]], delimiter=separator), []) if lines else []
    return len(first)


def _semicolon_separated(text: str) -> bool:
    """Is the header row separated by semicolons rather than commas?

    >>> _semicolon_separated("key;price_per_hour;currency\\n"), _semicolon_separated("a,b\\n")
    (True, False)
    """
    header = text.split("\n", 1)[0]
    return header.count(";") > header.count(",")


class _NotAWorkbook(Exception):
    pass


# A workbook is a zip of XML parts; a price list's parts unpack to 5–20 times the file.
XLSX_MAX_RATIO = 100


def _unpacked_size_problem(data: bytes) -> str | None:
    """Why a workbook would unpack to too much, read from the zip's directory alone."""
    import zipfile

    from django.conf import settings

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError):
        return None  # not a zip: reading it says so
    limit = settings.PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES
    if unpacked > limit or unpacked > XLSX_MAX_RATIO * max(len(data), 1):
        return (
            f"the workbook unpacks to {unpacked:,} bytes; price workbooks may unpack to at "
            f"most {limit:,} bytes and {XLSX_MAX_RATIO} times their size "
            "(PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES)"
        )
    return None


def _xlsx_text(value: object) -> str:
    """A workbook value as the text pandas' dtype=str gave it (whole floats without .0).

    >>> [_xlsx_text(v) for v in (None, 55.04, 7.0, 12, True, "h100")]
    ['', '55.04', '7', '12', 'True', 'h100']
    """
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _read_xlsx(
    data: bytes, sheet: str | None, limit: int | None, max_columns: int | None
) -> tuple[list[list[str]], int]:
    """The cells of one sheet as text, and the width the sheet declares (0: none): at
    most `limit` rows and `max_columns` columns are read (openpyxl's read-only mode: one
    row at a time, columns past the bound skipped)."""
    import openpyxl

    try:
        workbook = openpyxl.load_workbook(
            io.BytesIO(data), read_only=True, data_only=True, keep_links=False
        )
    except Exception as exc:  # zipfile, XML and openpyxl errors: any of them means "not xlsx"
        raise _NotAWorkbook from exc
    try:
        names = [str(name) for name in workbook.sheetnames]
        chosen = workbook[sheet if sheet in names else names[0]]
        declared = int(chosen.max_column or 0)  # the sheet's <dimension>, not a scan
        rows = [
            [_xlsx_text(value) for value in values]
            for values in chosen.iter_rows(max_row=limit, max_col=max_columns, values_only=True)
        ]
    except MemoryError:
        raise
    except Exception as exc:  # a damaged sheet inside a valid zip
        raise _NotAWorkbook from exc
    finally:
        workbook.close()
    while rows and not any(cell.strip() for cell in rows[-1]):
        rows.pop()  # trailing empty rows (as pandas drops them)
    width = max((len(row) for row in rows), default=0)
    return [row + [""] * (width - len(row)) for row in rows], declared


def _tidy_sheet(cells: list[list[str]]) -> list[list[str]]:
    """Undo what Excel does to text: typed dates become datetimes, wide unused columns."""
    width = len(cells[0])
    while width and not any(row[width - 1].strip() for row in cells):
        width -= 1
    return [[_MIDNIGHT.sub(r"\1", cell) for cell in row[:width]] for row in cells]


# --- checking --------------------------------------------------------------------------


def _header_errors(spec: TableSpec, file: str, header: list[str]) -> list[RowError]:
    """Missing, unexpected and repeated column names (row 1)."""
    errors: list[RowError] = []
    missing = [
        name
        for name in spec.column_names
        if name not in header and name not in spec.optional_columns
    ]
    extra = [name for name in header if name not in spec.column_names]
    errors += [RowError(file, 1, name, "column is missing") for name in missing]
    errors += [RowError(file, 1, name, "column is not expected") for name in extra]
    if len(set(header)) != len(header):
        errors.append(RowError(file, 1, "", "a column name appears twice"))
    return errors


def _row_values(
    spec: TableSpec,
    file: str,
    row_number: int,
    raw: dict[str, str],
    known_keys: dict[type[models.Model], set[str]],
    model_fields: dict[str, Any],
    decimal_comma: bool,
) -> tuple[dict[str, Any], list[RowError]]:
    """One row's cells parsed by their columns (references checked against `known_keys`,
    values against the model's field limits), and the errors of the cells that failed."""
    values: dict[str, Any] = {}
    row_errors: list[RowError] = []
    for column in spec.columns:
        cell = unneutralise(raw[column.name])
        if len(cell) > MAX_CELL_LENGTH:
            reason = f"is longer than {MAX_CELL_LENGTH:,} characters"
            row_errors.append(RowError(file, row_number, column.name, reason))
            continue
        if _CONTROL.search(cell):
            reason = "contains control characters"
            row_errors.append(RowError(file, row_number, column.name, reason))
            continue
        if isinstance(column.parse, Reference):
            if cell not in known_keys.get(column.parse.model, set()):
                reason = f"unknown {column.parse.label} {cell!r}" if cell else "is empty"
                row_errors.append(RowError(file, row_number, column.name, reason))
            values[column.name] = cell
            continue
        try:
            if decimal_comma and column.parse in NUMERIC_PARSERS and cell:
                cell = decimal_comma_cell(cell)
            value = column.parse(cell)
            model_fields[column.name].run_validators(value)
        except CellError as exc:
            row_errors.append(RowError(file, row_number, column.name, str(exc)))
        except ValidationError as exc:
            reason = " ".join(str(message) for message in exc.messages)
            row_errors.append(RowError(file, row_number, column.name, reason))
        else:
            values[column.name] = value
    return values, row_errors


def _duplicate_errors(
    spec: TableSpec,
    file: str,
    row_number: int,
    values: dict[str, Any],
    seen: dict[tuple[str, ...], dict[tuple[object, ...], int]],
) -> list[RowError]:
    """A row that repeats an earlier row's unique columns; else it is remembered in `seen`."""
    errors: list[RowError] = []
    for unique in spec.unique:
        identity = tuple(values[name] for name in unique)
        if identity in seen[unique]:
            first = seen[unique][identity]
            errors.append(
                RowError(
                    file,
                    row_number,
                    ", ".join(unique),
                    f"duplicate of row {first} ({', '.join(map(str, identity))})",
                )
            )
        else:
            seen[unique][identity] = row_number
    return errors


def validate_rows(
    spec: TableSpec,
    file: str,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    known_keys: dict[type[models.Model], set[str]],
    *,
    decimal_comma: bool = False,
) -> tuple[ParsedTable, list[RowError]]:
    """Check the header and every cell of one table; return the parsed rows and all errors.

    `rows` are the data rows as text, numbered from 2 (the header is row 1). With
    `decimal_comma`, numeric cells are written 1234,5 and may not contain a point.
    """
    table = ParsedTable(spec, file)
    header = [name.strip() for name in header]
    errors = _header_errors(spec, file, header)
    if errors:
        return table, errors
    table.absent = {name for name in spec.optional_columns if name not in header}

    # The model's own field limits (text length, digits, decimal places, slug keys), so
    # that a value the database would refuse is reported here, on its row and column.
    model_fields = {
        column.name: _concrete_field(spec.model, column.name)
        for column in spec.columns
        if not isinstance(column.parse, Reference)
    }
    seen: dict[tuple[str, ...], dict[tuple[object, ...], int]] = {u: {} for u in spec.unique}
    for row_number, cells in enumerate(rows, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            errors.append(
                RowError(file, row_number, "", f"has {len(cells)} cells, expected {len(header)}")
            )
            continue
        raw = {name: cell.strip() for name, cell in zip(header, cells, strict=True)}
        raw.update(dict.fromkeys(table.absent, ""))
        values, row_errors = _row_values(
            spec, file, row_number, raw, known_keys, model_fields, decimal_comma
        )
        if not row_errors and spec.row_check is not None:
            row_errors += [
                RowError(file, row_number, name, reason) for name, reason in spec.row_check(values)
            ]
        if not row_errors:
            row_errors += _duplicate_errors(spec, file, row_number, values, seen)
        key = values.get(spec.lookup[0])
        if len(spec.lookup) == 1 and isinstance(key, str):
            table.declared_keys.add(key)
        errors += row_errors
        if not row_errors:
            table.rows.append((row_number, values))
    return table, errors


def referenced_keys(specs: Iterable[TableSpec]) -> dict[type[models.Model], set[str]]:
    """The catalog's keys of every model the specs' columns refer to (GPUs, servers)."""
    models_referred = {
        column.parse.model: column.parse.field
        for spec in specs
        for column in spec.columns
        if isinstance(column.parse, Reference)
    }
    return {
        model: set(model._default_manager.values_list(field, flat=True))
        for model, field in models_referred.items()
    }


# --- comparing with the catalog ---------------------------------------------------------

NEW = "new"
CHANGED = "changed"
UNCHANGED = "unchanged"


@dataclass
class RowDiff:
    """One checked row beside the catalog row it would create or update."""

    spec: TableSpec
    row: int
    values: dict[str, Any]
    existing: models.Model | None
    changed: tuple[str, ...] = ()
    # The price before this row takes effect: the current price of a changed row, for a
    # new FX rate the rate of the day before; None when the row brings a first price.
    old_price: Decimal | None = None

    @property
    def status(self) -> str:
        if self.existing is None:
            return NEW
        return CHANGED if self.changed else UNCHANGED

    @property
    def new_price(self) -> Decimal | None:
        name = self.spec.price_field
        return self.values[name] if name else None

    @property
    def price_changed(self) -> bool:
        name = self.spec.price_field
        return name is not None and name in self.changed

    @property
    def records_price(self) -> bool:
        """Whether writing this row adds a line to the price history."""
        return self.spec.price_field is not None and (self.existing is None or self.price_changed)

    @property
    def pct_change(self) -> float | None:
        if self.old_price is None or self.new_price is None or self.old_price == 0:
            return None
        return float((self.new_price - self.old_price) / self.old_price)

    @property
    def history_key(self) -> str:
        return self.spec.history_key(self.values)

    @property
    def label(self) -> str:
        return ", ".join(str(self.values[name]) for name in self.spec.lookup)


def _comparable(row: models.Model, name: str, references: set[str]) -> Any:
    if name in references:
        return getattr(row, name).key
    return getattr(row, name)


def diff_table(
    table: ParsedTable, *, keep_newer: list[str] | None = None
) -> tuple[list[RowDiff], list[RowError]]:
    """Compare checked rows with the catalog (one query); report conflicts with it.

    Conflicts only the catalog can reveal: a row that takes another row's unique
    identity (an SKU and GPU already used under another key), and a price change dated
    before the current price, which would rewrite history instead of adding to it.
    """
    spec = table.spec
    references = {c.name for c in spec.columns if isinstance(c.parse, Reference)}
    rows = spec.model._default_manager.all()
    existing_rows = list(rows.select_related(*references) if references else rows)
    current = {
        row.pk: {name: _comparable(row, name, references) for name in spec.column_names}
        for row in existing_rows
    }
    by_pk = {row.pk: row for row in existing_rows}
    by_lookup = {tuple(c[name] for name in spec.lookup): pk for pk, c in current.items()}

    diffs: list[RowDiff] = []
    errors: list[RowError] = []
    for row_number, values in table.rows:
        pk = by_lookup.get(tuple(values[name] for name in spec.lookup))
        if pk is None:
            diffs.append(RowDiff(spec, row_number, values, None))
            continue
        values.update({name: current[pk][name] for name in table.absent})
        changed = tuple(name for name in spec.column_names if values[name] != current[pk][name])
        old = current[pk][spec.price_field] if spec.price_field else None
        diff = RowDiff(spec, row_number, values, by_pk[pk], changed, old)
        dated = spec.price_date
        if keep_newer is not None and changed and values[dated] < current[pk][dated]:
            # The seed is older than what staff imported since: keep the catalog's row.
            keep_newer.append(diff.history_key)
            continue
        if diff.price_changed and values[dated] < current[pk][dated]:
            errors.append(
                RowError(
                    table.file,
                    row_number,
                    dated,
                    f"{values[dated]} is before the date of the current price "
                    f"({current[pk][dated]}); a price change takes effect on or after it",
                )
            )
        diffs.append(diff)

    errors += _identity_conflicts(table, diffs, current)
    if spec.kind == "fx":
        _previous_fx_rates(diffs, current)
    return diffs, errors


def _identity_conflicts(
    table: ParsedTable, diffs: list[RowDiff], current: dict[Any, dict[str, Any]]
) -> list[RowError]:
    spec = table.spec
    errors: list[RowError] = []
    lookups_in_file = {tuple(d.values[n] for n in spec.lookup): d for d in diffs}
    for unique in spec.unique[1:]:
        owners = {
            tuple(c[n] for n in unique): tuple(c[n] for n in spec.lookup) for c in current.values()
        }
        for diff in diffs:
            identity = tuple(diff.values[n] for n in unique)
            owner = owners.get(identity)
            mine = tuple(diff.values[n] for n in spec.lookup)
            if owner is None or owner == mine:
                continue
            moved = lookups_in_file.get(owner)
            if moved is not None and tuple(moved.values[n] for n in unique) != identity:
                continue  # the file gives the other row a new identity at the same time
            errors.append(
                RowError(
                    table.file,
                    diff.row,
                    ", ".join(unique),
                    f"already used by {', '.join(map(str, owner))} in the catalog",
                )
            )
    return errors


def _previous_fx_rates(diffs: list[RowDiff], current: dict[Any, dict[str, Any]]) -> None:
    """Give each new FX rate the rate it follows: the pair's latest rate before its date."""
    rates: dict[tuple[str, str], dict[date, Decimal]] = {}
    for values in current.values():
        rates.setdefault((values["base"], values["quote"]), {})[values["as_of"]] = values["rate"]
    for diff in diffs:
        pair = (diff.values["base"], diff.values["quote"])
        rates.setdefault(pair, {})[diff.values["as_of"]] = diff.values["rate"]
    for diff in diffs:
        if diff.existing is not None:
            continue
        history = rates[(diff.values["base"], diff.values["quote"])]
        earlier = [day for day in history if day < diff.values["as_of"]]
        diff.old_price = history[max(earlier)] if earlier else None


# --- writing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WriteContext:
    """Who is writing and why, for the price history."""

    source: str
    changed_by: User | None = None


def _write_table(
    spec: TableSpec, diffs: list[RowDiff], context: WriteContext, summary: LoadSummary
) -> None:
    manager = spec.model._default_manager
    references = {c.name: c.parse for c in spec.columns if isinstance(c.parse, Reference)}
    # Referenced rows are looked up now, not when checked: a GPU may have been created by
    # an earlier table of the same load.
    pks = {
        name: dict(
            reference.model._default_manager.filter(
                **{
                    f"{reference.field}__in": {
                        d.values[name] for d in diffs if d.status != UNCHANGED
                    }
                }
            ).values_list(reference.field, "pk")
        )
        for name, reference in references.items()
    }

    def fields(values: dict[str, Any]) -> dict[str, Any]:
        resolved = dict(values)
        for name in references:
            if name in resolved:
                resolved[f"{name}_id"] = pks[name][resolved.pop(name)]
        return resolved

    new = [spec.model(**fields(d.values)) for d in diffs if d.status == NEW]
    created = manager.bulk_create(new, batch_size=BATCH_SIZE)
    # Changed rows in bulk, grouped by the columns that changed, so that a row is written
    # only in the columns the file changes (as save(update_fields=…) did, one row at a time).
    by_columns: dict[tuple[str, ...], list[models.Model]] = {}
    for diff in diffs:
        if diff.status != CHANGED:
            continue
        instance = diff.existing
        assert instance is not None
        for name, value in fields({name: diff.values[name] for name in diff.changed}).items():
            setattr(instance, name, value)
        by_columns.setdefault(diff.changed, []).append(instance)
    for columns, instances in by_columns.items():
        _update_rows(spec.model, instances, columns, using=manager.db)
    updated = sum(len(instances) for instances in by_columns.values())

    PriceChange.objects.bulk_create(
        [
            price_change(
                spec,
                diff.values,
                old_price=diff.old_price,
                changed_by=context.changed_by,
                source=context.source,
            )
            for diff in diffs
            if diff.records_price
        ],
        batch_size=BATCH_SIZE,
    )
    summary.created[spec.kind] = len(created)
    summary.updated[spec.kind] = updated
    summary.unchanged[spec.kind] = sum(1 for d in diffs if d.status == UNCHANGED)


def price_change(
    spec: TableSpec,
    values: dict[str, Any],
    *,
    old_price: Decimal | None,
    changed_by: User | None,
    source: str,
) -> PriceChange:
    """The price-history line of a row of a price list (`values`, its new price included)
    whose price was `old_price` (None: the row brings its first price). Loads and imports
    write these in bulk, the admin one per edit."""
    assert spec.price_field is not None
    return PriceChange(
        kind=spec.kind,
        key=spec.history_key(values),
        field=spec.price_field,
        old_value=old_price,
        new_value=values[spec.price_field],
        currency=spec.history_currency(values),
        effective_from=values[spec.price_date],
        changed_by=changed_by,
        source=source[:300],
    )


def _concrete_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """The model's field `name`: a column of its table, never a reverse relation."""
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field


def _update_rows(
    model: type[models.Model], instances: list[models.Model], names: Sequence[str], *, using: str
) -> None:
    """Write `names` of each instance: one UPDATE by primary key, sent with executemany.

    psycopg sends the statements in a pipeline (no round trip per row): 10,000 changed
    prices take a fraction of a second, where Django's bulk_update, which builds a CASE
    expression per row and column, took ~10 s.
    """
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = [_concrete_field(model, name) for name in names]
    pk = model._meta.pk
    assert pk is not None
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        quote(model._meta.db_table),
        ", ".join(f"{quote(str(field.column))} = %s" for field in fields),
        quote(str(pk.column)),
    )
    with connection.cursor() as cursor:
        for start in range(0, len(instances), BATCH_SIZE):
            cursor.executemany(
                sql,
                [
                    [
                        *(
                            field.get_db_prep_save(getattr(instance, field.attname), connection)
                            for field in fields
                        ),
                        instance.pk,
                    ]
                    for instance in instances[start : start + BATCH_SIZE]
                ],
            )


def write_plans(
    plans: Sequence[tuple[TableSpec, list[RowDiff]]],
    context: WriteContext,
    *,
    dry_run: bool = False,
) -> LoadSummary:
    """Write checked and compared tables in one transaction, in order; all or nothing.

    Rows are written in bulk (no post_save per row): listeners hear `catalog_written` once,
    when the transaction has committed, however many rows it wrote.
    """
    summary = LoadSummary()
    try:
        with transaction.atomic():
            for spec, diffs in plans:
                _write_table(spec, diffs, context, summary)
            if dry_run:
                transaction.set_rollback(True)
            elif summary.changed:
                transaction.on_commit(lambda: catalog_written.send(sender=LoadSummary))
    except (IntegrityError, DataError) as exc:
        error = RowError("catalog", 0, "", f"rejected by the database: {exc}")
        raise CatalogLoadError([error]) from exc
    return summary


def load_tables(
    sources: Iterable[tuple[TableSpec, str, bytes]],
    *,
    dry_run: bool = False,
    context: WriteContext | None = None,
    keep_newer: bool = False,
) -> LoadSummary:
    """Check every (spec, file name, content) source, then write them all or nothing.

    Sources are processed in order, so a later file may refer to keys an earlier one adds.
    With `keep_newer`, a row whose catalog counterpart is dated after it is skipped (and
    listed in the summary) instead of refused: the seed never undoes a later import.
    Raises CatalogLoadError listing every problem found; nothing is written then.
    """
    sources = list(sources)
    known_keys = referenced_keys(spec for spec, _file, _data in sources)
    tables: list[ParsedTable] = []
    errors: list[RowError] = []
    for spec, file, data in sources:
        raw, read_errors = read_table(data, file, file_format=file_format_of(file) or "csv")
        if raw is None:
            errors += read_errors
            continue
        table, table_errors = validate_rows(
            spec, file, raw.header, raw.rows, known_keys, decimal_comma=raw.decimal_comma
        )
        errors += table_errors
        tables.append(table)
        if spec.model in known_keys:  # later files may refer to the keys this one adds
            known_keys[spec.model] |= table.declared_keys
    if errors:
        raise CatalogLoadError(errors)

    plans: list[tuple[TableSpec, list[RowDiff]]] = []
    kept_newer: dict[str, list[str]] = {}
    for table in tables:
        kept: list[str] | None = [] if keep_newer else None
        diffs, diff_errors = diff_table(table, keep_newer=kept)
        errors += diff_errors
        plans.append((table.spec, diffs))
        if kept:
            kept_newer[table.spec.kind] = kept
    if errors:
        raise CatalogLoadError(errors)
    summary = write_plans(plans, context or WriteContext(source="load_catalog"), dry_run=dry_run)
    summary.kept_newer = kept_newer
    return summary


def load_catalog(
    *, data_dir: Path = DATA_DIR, specs: Sequence[TableSpec] = ALL_SPECS, dry_run: bool = False
) -> LoadSummary:
    """Load the seed catalog files from `data_dir` (one per spec), all or nothing."""
    sources: list[tuple[TableSpec, str, bytes]] = []
    missing: list[RowError] = []
    for spec in specs:
        path = data_dir / spec.filename
        if not path.exists():
            missing.append(RowError(spec.filename, 0, "", f"file not found in {data_dir}"))
            continue
        sources.append((spec, spec.filename, path.read_bytes()))
    if missing:
        raise CatalogLoadError(missing)
    # Staff imports after the seed are newer than it: re-running the load (every `make
    # run`) keeps them instead of failing.
    return load_tables(
        sources, dry_run=dry_run, context=WriteContext(source="load_catalog"), keep_newer=True
    )
