"""Price data operations: import (preview, apply, discard), export, stale-price notices.

Views, the `import_prices` command and the Celery task stay thin and call these. The
checks themselves are the loader's (catalog/loader.py), shared with `load_catalog`.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.mail import EmailMessage, mailers
from django.db import models, transaction
from django.utils import formats, timezone, translation

from . import selectors
from .loader import (
    CHANGED,
    NEW,
    CatalogLoadError,
    RowDiff,
    RowError,
    WriteContext,
    diff_table,
    file_format_of,
    price_change,
    read_table,
    referenced_keys,
    validate_rows,
    write_plans,
)
from .models import ImportStatus, PriceImport, StalePriceNotice
from .schema import (
    PRICE_SPECS,
    PRICE_SPECS_BY_KIND,
    SERVER_AVAILABILITY,
    Reference,
    TableSpec,
    neutralise,
)
from .stock_feed import in_feed_terms, is_stock_feed, stock_table

# How many rows of each category the summary stored with an import keeps (the counts are
# always complete); the preview page recomputes the full lists from the stored file.
SUMMARY_ROWS = 200
# Errors listed for one file (the rest are counted): a file with 200,000 unexpected columns
# made an 11.9 MB error page.
MAX_ERRORS_LISTED = 100
# Columns read past a price list's own: enough to name a few unexpected ones.
EXTRA_COLUMNS_READ = 10


class PriceImportError(Exception):
    """The file cannot be imported as it stands; `preview.errors` says why."""

    def __init__(self, preview: ImportPreview):
        self.preview = preview
        super().__init__("\n".join(str(error) for error in preview.errors))


# --- preview ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviewRow:
    row: int
    label: str
    history_key: str
    old_price: Decimal | None
    new_price: Decimal | None
    currency: str
    pct_change: float | None
    changed_fields: tuple[str, ...]

    @classmethod
    def of(cls, diff: RowDiff) -> PreviewRow:
        return cls(
            row=diff.row,
            label=diff.label,
            history_key=diff.history_key,
            old_price=diff.old_price,
            new_price=diff.new_price,
            currency=diff.spec.history_currency(diff.values),
            pct_change=diff.pct_change,
            changed_fields=diff.changed,
        )

    @property
    def price_changed(self) -> bool:
        return (
            self.old_price is not None
            and self.new_price is not None
            and self.old_price != self.new_price
        )

    @property
    def other_changes(self) -> tuple[str, ...]:
        return tuple(name for name in self.changed_fields if name not in PRICE_FIELDS)

    def change_text(self) -> str:
        """`55.04 → 50 USD (-9.2 %)`, for the command line and the summary."""
        text = f"{_plain(self.old_price)} → {_plain(self.new_price)} {self.currency}"
        if self.pct_change is not None:
            text += f" ({self.pct_change * 100:+.1f} %)"
        return text


PRICE_FIELDS = {spec.price_field for spec in PRICE_SPECS}


@dataclass
class ImportPreview:
    """What a price file would do: new rows, changed prices, unchanged rows, errors."""

    kind: str
    filename: str
    new: list[PreviewRow] = field(default_factory=list)
    changed: list[PreviewRow] = field(default_factory=list)
    unchanged: list[PreviewRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    # Errors found beyond the MAX_ERRORS_LISTED in `errors`.
    more_errors: int = 0
    # How the file was read, when that is not the plain format (decimal commas, …).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def add_errors(self, errors: Sequence[RowError]) -> None:
        """List errors up to MAX_ERRORS_LISTED; count the others."""
        room = max(0, MAX_ERRORS_LISTED - len(self.errors))
        self.errors += errors[:room]
        self.more_errors += max(0, len(errors) - room)

    @property
    def error_count(self) -> int:
        return len(self.errors) + self.more_errors

    @property
    def spec(self) -> TableSpec:
        return PRICE_SPECS_BY_KIND[self.kind]

    @property
    def price_changes(self) -> list[PreviewRow]:
        return [row for row in self.changed if row.price_changed]

    def counts(self) -> dict[str, int]:
        return {
            "new": len(self.new),
            "changed": len(self.changed),
            "price_changes": len(self.price_changes),
            "unchanged": len(self.unchanged),
            "errors": self.error_count,
        }

    def summary(self) -> dict[str, Any]:
        """A JSON-safe record of the preview, kept with the import."""
        return {
            "kind": self.kind,
            "filename": self.filename,
            "counts": self.counts(),
            "changes": [
                {"row": row.row, "key": row.label, "change": row.change_text()}
                for row in self.price_changes[:SUMMARY_ROWS]
            ],
            "errors": [str(error) for error in self.errors[:SUMMARY_ROWS]],
            "notes": self.notes,
        }

    def lines(self) -> list[str]:
        counts = self.counts()
        lines = [
            f"{self.spec.label}: {counts['new']} new, {counts['changed']} changed "
            f"({counts['price_changes']} price changes), {counts['unchanged']} unchanged, "
            f"{counts['errors']} error(s)"
        ]
        lines += [f"  note: {note}" for note in self.notes]
        lines += [f"  {row.label}: {row.change_text()}" for row in self.price_changes]
        lines += [
            f"  {row.label}: new at {_plain(row.new_price)} {row.currency}" for row in self.new
        ]
        return lines


def _plain(value: Decimal | None) -> str:
    return "–" if value is None else decimal_text(value)


def decimal_text(value: Decimal) -> str:
    """A Decimal as a plain number without trailing zeros: 55.0400 → 55.04, 4E+4 → 40000."""
    text = format(value.normalize(), "f")
    return "0" if text in {"-0", ""} else text


def _size_error(filename: str, size: int) -> RowError | None:
    limit = settings.PRICE_IMPORT_MAX_BYTES
    if size <= limit:
        return None
    return RowError(
        filename,
        0,
        "",
        f"the file is {size:,} bytes; price files may be at most {limit:,} bytes "
        f"(PRICE_IMPORT_MAX_BYTES); split it into smaller files",
    )


def check_upload(*, filename: str, size: int) -> list[RowError]:
    """What can be refused before reading a byte: the size and the file type."""
    errors = []
    size_error = _size_error(filename, size)
    if size_error:
        errors.append(size_error)
    if file_format_of(filename) is None:
        errors.append(RowError(filename, 0, "", "only .csv and .xlsx files can be imported"))
    return errors


def _prepare(*, kind: str, filename: str, data: bytes) -> tuple[ImportPreview, list[RowDiff]]:
    preview = ImportPreview(kind=kind, filename=filename)
    spec = PRICE_SPECS_BY_KIND.get(kind)
    if spec is None:
        kinds = ", ".join(PRICE_SPECS_BY_KIND)
        preview.errors.append(RowError(filename, 0, "", f"unknown kind {kind!r} ({kinds})"))
        return preview, []
    preview.errors += check_upload(filename=filename, size=len(data))
    if preview.errors:
        return preview, []
    raw, errors = read_table(
        data,
        filename,
        file_format=file_format_of(filename) or "csv",
        max_rows=settings.PRICE_IMPORT_MAX_ROWS,
        max_columns=len(spec.columns) + EXTRA_COLUMNS_READ,
        sheet=kind,
    )
    if raw is None:
        preview.errors += errors
        return preview, []
    preview.notes += raw.notes
    feed_errors: list[RowError] = []
    feed = spec is SERVER_AVAILABILITY and is_stock_feed(raw.header)
    if feed:
        # An ERP's stock feed (SKU, quantity, lead time, date): the stock table row for row.
        table_raw, feed_errors = stock_table(raw, filename)
        if table_raw is None:
            preview.add_errors(feed_errors)
            return preview, []
        raw = table_raw
        preview.notes.append("read as a stock feed: SKU, quantity, lead time in weeks, date")
    table, errors = validate_rows(
        spec,
        filename,
        raw.header,
        raw.rows,
        referenced_keys([spec]),
        decimal_comma=raw.decimal_comma,
    )
    if feed:  # in the feed's terms; a row without its server says so once, on its SKU
        unmatched = {error.row for error in feed_errors}
        errors = feed_errors + [
            in_feed_terms(e) for e in errors if e.row not in unmatched or e.column != "server"
        ]
        errors.sort(key=lambda error: error.row)
    if errors:
        preview.add_errors(errors)
        return preview, []
    diffs, errors = diff_table(table)
    preview.add_errors(errors)
    for diff in diffs:
        row = PreviewRow.of(diff)
        if diff.status == NEW:
            preview.new.append(row)
        elif diff.status == CHANGED:
            preview.changed.append(row)
        else:
            preview.unchanged.append(row)
    return preview, diffs


def preview_price_file(*, kind: str, filename: str, data: bytes) -> ImportPreview:
    """Check a price file and compare it with the catalog; writes nothing."""
    preview, _diffs = _prepare(kind=kind, filename=filename, data=data)
    return preview


def _write(preview: ImportPreview, diffs: list[RowDiff], *, source: str, changed_by: Any) -> None:
    try:
        write_plans([(preview.spec, diffs)], WriteContext(source=source, changed_by=changed_by))
    except CatalogLoadError as exc:
        preview.errors += exc.errors
        raise PriceImportError(preview) from exc


def import_price_file(
    *,
    kind: str,
    filename: str,
    data: bytes,
    source: str,
    changed_by: User | None = None,
    dry_run: bool = False,
) -> ImportPreview:
    """Check and (unless `dry_run`) apply a price file in one transaction.

    Raises PriceImportError, having written nothing, when any row has an error.
    """
    with transaction.atomic():
        preview, diffs = _prepare(kind=kind, filename=filename, data=data)
        if not preview.ok:
            raise PriceImportError(preview)
        if not dry_run:
            _write(preview, diffs, source=source, changed_by=changed_by)
    return preview


# --- stored imports: upload → preview → apply or discard --------------------------------


def create_price_import(
    *, kind: str, filename: str, data: bytes, uploaded_by: User
) -> tuple[ImportPreview, PriceImport | None]:
    """Check an uploaded file; keep it as a pending import only if it has no errors."""
    preview = preview_price_file(kind=kind, filename=filename, data=data)
    if not preview.ok:
        return preview, None
    price_import = PriceImport.objects.create(
        kind=kind,
        filename=filename[:255],
        content=data,
        uploaded_by=uploaded_by,
        summary=preview.summary(),
    )
    return preview, price_import


def pending_preview(price_import: PriceImport) -> ImportPreview:
    """The preview of a stored import against the catalog as it is now."""
    return preview_price_file(
        kind=price_import.kind,
        filename=price_import.filename,
        data=bytes(price_import.content),
    )


@dataclass(frozen=True)
class ApplyOutcome:
    applied: bool
    status: str
    preview: ImportPreview | None = None


def apply_price_import(*, price_import_id: int, user: User) -> ApplyOutcome:
    """Apply a pending import once, in one transaction, re-checking it first.

    The catalog may have changed since the preview, so the stored file is checked again
    and compared with the catalog as it is now. An import that is no longer pending
    (applied or discarded, perhaps by a second click) is left alone. Raises
    PriceImportError, writing nothing, when the file no longer passes its checks.
    """
    with transaction.atomic():
        price_import = PriceImport.objects.select_for_update().get(pk=price_import_id)
        if price_import.status != ImportStatus.PENDING:
            return ApplyOutcome(applied=False, status=price_import.status)
        preview, diffs = _prepare(
            kind=price_import.kind,
            filename=price_import.filename,
            data=bytes(price_import.content),
        )
        if not preview.ok:
            raise PriceImportError(preview)
        source = f"price import #{price_import.pk}: {price_import.filename}"
        _write(preview, diffs, source=source, changed_by=user)
        price_import.status = ImportStatus.APPLIED
        price_import.decided_at = timezone.now()
        price_import.summary = preview.summary()
        price_import.save(update_fields=["status", "decided_at", "summary"])
    return ApplyOutcome(applied=True, status=price_import.status, preview=preview)


def discard_price_import(*, price_import_id: int) -> bool:
    """Discard a pending import; False when it was no longer pending."""
    discarded = PriceImport.objects.filter(pk=price_import_id, status=ImportStatus.PENDING).update(
        status=ImportStatus.DISCARDED, decided_at=timezone.now()
    )
    return discarded == 1


# --- export ----------------------------------------------------------------------------


def cell_text(value: object) -> str:
    """A value written the way the import reads it back as the same value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return decimal_text(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, models.Model):
        return str(value.serializable_value("key"))  # a related row: its key
    return str(value)


def export_values(spec: TableSpec) -> list[list[object]]:
    """The rows of one price list as values, in the spec's column order."""
    return [
        [getattr(row, column.name) for column in spec.columns] for row in selectors.price_rows(spec)
    ]


@dataclass(frozen=True)
class ExportFile:
    filename: str
    content_type: str
    content: bytes


XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _csv_bytes(spec: TableSpec) -> bytes:
    buffer = io.StringIO()
    # CRLF as RFC 4180 has it: the writer then also quotes a cell holding a lone CR,
    # which would otherwise split the row for every reader.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(spec.column_names)
    # Text that a spreadsheet would run as a formula gets a leading apostrophe (the
    # import removes it again); numbers and dates are never text here.
    writer.writerows(
        [cell_text(value) if _is_number(value) else neutralise(cell_text(value)) for value in row]
        for row in export_values(spec)
    )
    # With a byte-order mark Excel opens the file as UTF-8 (€, –); the import accepts both.
    return buffer.getvalue().encode("utf-8-sig")


def _xlsx_bytes(specs: Sequence[TableSpec]) -> bytes:
    # Imported here: the admin imports this module at start-up, only exports need openpyxl.
    import openpyxl
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    workbook = openpyxl.Workbook()
    for default_sheet in workbook.worksheets:  # the one empty sheet a new workbook has
        workbook.remove(default_sheet)
    for spec in specs:
        sheet = workbook.create_sheet(spec.kind)
        sheet.append(spec.column_names)
        for values in export_values(spec):
            row: list[float | int | str] = []
            for value in values:
                # Numbers stay numbers so that the sheet can compute with them; floats hold
                # every catalog price exactly enough (≤ 12 digits) to read back equal.
                if isinstance(value, Decimal):
                    row.append(float(value))
                elif isinstance(value, int) and not isinstance(value, bool):
                    row.append(value)
                else:
                    row.append(ILLEGAL_CHARACTERS_RE.sub("", cell_text(value)))
            sheet.append(row)
            # openpyxl turns any string starting with "=" into a live formula: every text
            # cell is written as a string, whatever it starts with.
            for cell in sheet[sheet.max_row]:
                if isinstance(cell.value, str):
                    cell.data_type = "s"
        # Text columns are formatted as text so that Excel does not turn a typed date or
        # key into something else.
        for index, column in enumerate(spec.columns, start=1):
            if isinstance(column.parse, Reference) or column.name not in _numeric(spec):
                for (cell,) in sheet.iter_rows(min_col=index, max_col=index, min_row=2):
                    cell.number_format = "@"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _is_number(value: object) -> bool:
    return isinstance(value, Decimal | int | float) and not isinstance(value, bool)


def _numeric(spec: TableSpec) -> set[str]:
    fields = {f.name: f for f in spec.model._meta.get_fields() if hasattr(f, "get_internal_type")}
    return {
        name
        for name in spec.column_names
        if name in fields
        and fields[name].get_internal_type()
        in {"DecimalField", "PositiveSmallIntegerField", "PositiveIntegerField"}
    }


def export_price_list(*, kind: str, file_format: str) -> ExportFile:
    """One kind (or "all") as CSV or XLSX, in exactly the format the import reads.

    "all" gives a workbook with one sheet per kind (the import reads the sheet named after
    the kind it imports) or, as CSV, a zip of one file per kind named like the seed files.
    """
    stamp = timezone.localdate().isoformat()
    specs = list(PRICE_SPECS) if kind == "all" else [PRICE_SPECS_BY_KIND[kind]]
    if file_format == "xlsx":
        return ExportFile(f"prices-{kind}-{stamp}.xlsx", XLSX_TYPE, _xlsx_bytes(specs))
    if kind != "all":
        return ExportFile(
            f"prices-{kind}-{stamp}.csv", "text/csv; charset=utf-8", _csv_bytes(specs[0])
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for spec in specs:
            archive.writestr(spec.filename, _csv_bytes(spec))
    return ExportFile(f"prices-all-{stamp}.zip", "application/zip", buffer.getvalue())


# --- stale-price notices ---------------------------------------------------------------


@dataclass(frozen=True)
class StaleNoticeResult:
    stale: int
    sent: int
    already_sent: bool = False


def notify_stale_prices(*, today: date | None = None) -> StaleNoticeResult:
    """Mail every active staff user one summary of the stale prices, at most once a day.

    Staleness is computed from `as_of` whenever a price is shown, so there is no flag to
    refresh; this tells people, who can then import fresh prices. Nothing is sent when no
    price is stale. The day is recorded in the same transaction as the sending, so a
    second run that day sends nothing, and a run whose sending failed can be retried.
    """
    today = today or timezone.localdate()
    stale = selectors.stale_prices(today)
    if not stale:
        return StaleNoticeResult(stale=0, sent=0)
    recipients = list(
        get_user_model()
        .objects.filter(is_staff=True, is_active=True)
        .exclude(email="")
        .values_list("email", flat=True)
        .order_by("email")
    )
    if not recipients:
        return StaleNoticeResult(stale=len(stale), sent=0)
    with transaction.atomic():
        _notice, created = StalePriceNotice.objects.get_or_create(
            sent_on=today,
            defaults={"stale_count": len(stale), "recipient_count": len(recipients)},
        )
        if not created:
            return StaleNoticeResult(stale=len(stale), sent=0, already_sent=True)
        subject = f"{len(stale)} stale price(s) in the GPU TCO catalog"
        body = _stale_body(stale)
        # One message per person: staff addresses are not shown to each other.
        messages = [EmailMessage(subject, body, None, [email]) for email in recipients]
        sent = mailers.default.send_messages(messages) or 0
    return StaleNoticeResult(stale=len(stale), sent=sent)


def _stale_body(stale: Sequence[selectors.StalePrice]) -> str:
    days = settings.PRICE_STALE_AFTER_DAYS
    lines = [
        f"These catalog prices are older than {days} days. Check them and import current "
        "prices on /catalog/import/ (or with `manage.py import_prices`).",
        "",
    ]
    # Dates in the pages' style ("15 Jan 2026"), in English like the rest of this text.
    with translation.override("en"):
        for price in stale:
            lines.append(
                f"- {price.kind}: {price.label} — {decimal_text(price.price)} {price.currency}, "
                f"as of {formats.date_format(price.as_of)} ({price.age_days} days) "
                f"/catalog/prices/{price.kind}/{price.key}/"
            )
    return "\n".join(lines) + "\n"


# --- edits in the Django admin ---------------------------------------------------------


def record_price_edit(
    *,
    spec: TableSpec,
    instance: models.Model,
    old_price: Decimal | None,
    created: bool,
    user: User | None,
) -> None:
    """Keep the history complete when a price is edited one row at a time (the admin)."""
    from .models import FxRate

    assert spec.price_field is not None
    values = {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}
    if isinstance(instance, FxRate) and created:
        old_price = (
            FxRate.objects.filter(
                base=instance.base, quote=instance.quote, as_of__lt=instance.as_of
            )
            .order_by("-as_of")
            .values_list("rate", flat=True)
            .first()
        )
    elif created:
        old_price = None
    elif old_price == values[spec.price_field]:
        return
    price_change(spec, values, old_price=old_price, changed_by=user, source="admin").save()
