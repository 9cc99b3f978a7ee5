"""Quotes and leads as CSV or XLSX for the sales team: team-scoped and formula-safe.

A spreadsheet program runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in
some programs, a tab or carriage return) as a formula, so text from customers or leads
could run in the reader's spreadsheet ("CSV injection"). Such text is prefixed with ``'``
in CSV and written as a plain string cell in XLSX; numbers and dates stay numbers and
dates.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _

from catalog.schema import neutralise

from . import selectors, services
from .models import ApprovalState, Lead, Quote, QuoteRevision
from .system_bom import part_number

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"

QUOTE_COLUMNS = (
    ("number", "Quote"),
    ("revision", "Revision"),
    ("status", "Status"),
    ("company", "Customer"),
    ("contact_name", "Contact"),
    ("customer_email", "Customer email"),
    ("team", "Team"),
    ("owner", "Owner"),
    ("currency", "Currency"),
    ("subtotal", "Subtotal"),
    ("discount", "Quote discount"),
    ("net", "Net"),
    ("vat", "VAT"),
    ("total", "Total"),
    ("valid_until", "Valid until"),
    ("created_at", "Created"),
)
LEAD_COLUMNS = (
    ("name", "Name"),
    ("company", "Company"),
    ("email", "Email"),
    ("country", "Country"),
    ("language", "Language"),
    ("team", "Team"),
    ("owner", "Owner"),
    ("status", "Status"),
    ("verdict", "Verdict"),
    ("consent_at", "Consent given"),
    ("created_at", "Created"),
)


def _revision_totals(revision: QuoteRevision) -> services.Totals:
    return services.revision_totals(revision, list(revision.lines.all()))


def quote_rows(
    *, user: Any, search: str = "", status: str = "", owner: int | None = None
) -> list[dict[str, Any]]:
    """One row per quote the user may see (their teams'; staff: all), its latest revision,
    filtered like the quotes list (search on number/customer, status, owner)."""
    quotes = selectors.quote_list_with_lines(user=user, search=search, status=status, owner=owner)
    rows = []
    for quote in quotes:
        rows.append(quote_row(quote))
    return rows


def quote_row(quote: Quote) -> dict[str, Any]:
    revision = max(
        (r for r in quote.revisions.all() if r.option_of_id is None), key=lambda r: r.seq
    )  # the latest, however prefetched (option A: alternatives share its sequence)
    totals = _revision_totals(revision)
    owner = quote.owner
    return {
        "public_id": str(quote.public_id),
        "number": quote.number,
        "revision": revision.letter,
        "status": revision.status,
        "awaiting_approval": revision.is_draft
        and revision.approval_state == ApprovalState.REQUESTED,
        "company": quote.customer.company,
        "contact_name": quote.customer.contact_name,
        "customer_email": quote.customer.email,
        "team": quote.team.name,
        "owner": owner.get_full_name() or owner.get_username(),
        "currency": revision.currency,
        "subtotal": totals.subtotal,
        "discount": totals.discount,
        "net": totals.net,
        "vat": totals.vat,
        "total": totals.total,
        "valid_until": revision.valid_until,
        "created_at": quote.created_at,
    }


def lead_rows(*, user: Any) -> list[dict[str, Any]]:
    """The leads the user sees on the leads page (their teams'; staff: all), newest first."""
    leads = selectors.lead_list(user=user).select_related("team", "owner")
    return [lead_row(lead) for lead in leads]


def lead_row(lead: Lead) -> dict[str, Any]:
    tco = lead.tco or {}
    headline = (tco.get("executive") or {}).get("headline")
    report = None if headline else services.stored_report(tco)
    return {
        "public_id": str(lead.public_id),
        "name": lead.name,
        "company": lead.company,
        "email": lead.email,
        "country": lead.country,
        "language": lead.language,
        "team": lead.team.name if lead.team else "",
        "owner": (lead.owner.get_full_name() or lead.owner.get_username()) if lead.owner else "",
        "status": str(lead.get_status_display()),
        # The verdict as worded for the lead, in their language, when the PDF was asked for.
        "verdict": headline or (report.verdict.text if report else ""),
        "consent_at": lead.consent_at,
        "created_at": lead.created_at,
    }


def _plain(value: Any) -> Any:
    """Aware datetimes in local time without zone (spreadsheets have no time zones)."""
    if isinstance(value, datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value)
        return value.replace(tzinfo=None, microsecond=0)
    return value


def to_csv(rows: Iterable[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([title for _key, title in columns])
    for row in rows:
        cells = []
        for key, _title in columns:
            value = _plain(row.get(key))
            if value is None:
                cells.append("")
            elif isinstance(value, datetime | date):
                cells.append(
                    value.isoformat(sep=" ") if isinstance(value, datetime) else str(value)
                )
            elif isinstance(value, Decimal | int | float) and not isinstance(value, bool):
                cells.append(str(value))
            else:
                cells.append(neutralise(str(value)))
        writer.writerow(cells)
    return ("\ufeff" + out.getvalue()).encode("utf-8")  # BOM: Excel then reads UTF-8


def to_xlsx(
    rows: Iterable[dict[str, Any]], columns: Sequence[tuple[str, str]], title: str
) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell.cell import TYPE_STRING
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = title[:31]
    ws.append([t for _k, t in columns])
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for r, row in enumerate(rows, start=2):
        for c, (key, _title) in enumerate(columns, start=1):
            value = _plain(row.get(key))
            cell = ws.cell(row=r, column=c)
            if isinstance(value, Decimal):
                cell.value = float(value)
                cell.number_format = "#,##0.00"
            elif isinstance(value, datetime):
                cell.value = value
                cell.number_format = "yyyy-mm-dd hh:mm"
            elif isinstance(value, date):
                cell.value = value
                cell.number_format = "yyyy-mm-dd"
            elif value is None:
                continue
            else:
                # Set as a string cell: openpyxl would otherwise store "=…" as a formula.
                cell.value = str(value)
                cell.data_type = TYPE_STRING
    ws.freeze_panes = "A2"
    for c, (_key, title) in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(c)].width = max(12, len(title) + 4)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def bom_columns() -> tuple[tuple[str, str], ...]:
    """The BOM export's columns, titled in the active language."""
    return (
        ("option", _("Option")),
        ("system", _("System line")),
        ("position", _("Line")),
        ("part_number", _("Part number")),
        ("description", _("Description")),
        ("per_system", _("Per system")),
        ("quantity", _("Quantity")),
        ("unit_price", _("Unit price")),
        ("amount", _("Amount")),
        ("subtotal", _("System subtotal")),
        ("note", _("Note")),
    )


def bom_rows(revision: QuoteRevision, language: str) -> list[dict[str, Any]]:
    """An option's bill of materials as rows: each system with the lines under it (or the
    parts included in its price) and its subtotal, then the lines under no system; the
    amounts of the quote lines add up to the option's subtotal (before the quote
    discount)."""
    from .proposal import boms
    from .services.snapshots import revision_lines

    lines = revision_lines(revision, language)
    letter = revision.option_letter
    rows: list[dict[str, Any]] = []
    placed: set[int] = set()
    with translation.override(language):
        for bom in boms(lines):
            for row in bom.rows:
                rows.append(
                    {
                        "option": letter,
                        "system": bom.position,
                        "position": row.position,
                        "part_number": row.part_number,
                        "description": row.description,
                        "per_system": row.per_system,
                        "quantity": row.quantity,
                        "unit_price": row.unit_price,
                        "amount": row.amount,
                        "note": _("included in the system price") if row.included else "",
                    }
                )
                if row.position is not None:
                    placed.add(row.position)
            rows.append(
                {
                    "option": letter,
                    "system": bom.position,
                    "description": _("Subtotal of line %(n)s and the lines under it")
                    % {"n": bom.position},
                    "note": _("subtotal"),
                    "subtotal": bom.subtotal,
                }
            )
        for line in lines:
            if int(line["position"]) in placed:
                continue
            rows.append(
                {
                    "option": letter,
                    "position": line["position"],
                    "part_number": part_number(line),
                    "description": line["description"],
                    "quantity": Decimal(line["quantity"]),
                    "unit_price": Decimal(line["unit_price"]),
                    "amount": Decimal(line["amount"]),
                    "note": _("optional") if line.get("optional") else "",
                }
            )
    return rows
