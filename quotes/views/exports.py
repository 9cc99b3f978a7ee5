"""Downloads for the sales team: quotes and leads as CSV/XLSX, a revision's Excel model."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone, translation
from django.views.decorators.http import require_GET

from common.downloads import attachment
from tco.presentation.downloads import XLSX_CONTENT_TYPE, workbook_filename

from .. import exports, selectors, services
from .access import sales_required


def _download(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = attachment(filename)
    return response


def table_response(
    rows: list[dict[str, object]], columns: tuple[tuple[str, str], ...], name: str, fmt: str
) -> HttpResponse:
    stamp = timezone.localdate().isoformat()
    if fmt == "csv":
        return _download(
            exports.to_csv(rows, columns), exports.CSV_CONTENT_TYPE, f"{name}-{stamp}.csv"
        )
    if fmt == "xlsx":
        content = exports.to_xlsx(rows, columns, name.capitalize())
        return _download(content, XLSX_CONTENT_TYPE, f"{name}-{stamp}.xlsx")
    raise Http404("unknown format")


@require_GET
@sales_required
def quotes_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """The quotes list as CSV/XLSX, with the list's filters (?q=&status=&owner=)."""
    from ..forms import QuoteFilterForm

    form = QuoteFilterForm(request.GET, owners=selectors.quote_owners(user=request.user))
    rows = exports.quote_rows(user=request.user, **form.filters())
    return table_response(rows, exports.QUOTE_COLUMNS, "quotes", fmt)


@require_GET
@sales_required
def leads_export(request: HttpRequest, fmt: str) -> HttpResponse:
    return table_response(exports.lead_rows(user=request.user), exports.LEAD_COLUMNS, "leads", fmt)


@require_GET
@sales_required
def revision_workbook_download(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    # The revision's model needs the engine (numpy): loaded here, not when the URLs load.
    from ..workbook import revision_workbook

    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    try:
        content, name = revision_workbook(revision=revision)
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect("quotes:detail", public_id=revision.quote.public_id)
    return _download(content, XLSX_CONTENT_TYPE, workbook_filename(name))


@require_GET
@sales_required
def revision_bom_export(request: HttpRequest, public_id: uuid.UUID, fmt: str) -> HttpResponse:
    """One option's bill of materials as CSV/XLSX (part numbers, quantities, a subtotal per
    system), in the reader's language; the user's teams' revisions only."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    rows = exports.bom_rows(revision, translation.get_language() or "en")
    name = f"bom-{revision.quote.number}-{revision.option_letter}"
    return table_response(rows, exports.bom_columns(), name, fmt)
