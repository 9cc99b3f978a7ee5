"""The buyer's acceptance with evidence (signed link, no login) and the signed copy's PDF.

The buyer page (quotes.buyer_view) shows the proposal PDF and this form; posting it runs
services.revision_accept, which records the evidence and emails the signed copy.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.views.decorators.http import require_POST, require_safe

from common.client_ip import client_ip
from common.downloads import pdf_download

from .. import selectors, services
from ..forms import AcceptanceForm
from ..models import AcceptanceRecord, QuoteRevision
from .access import buyer_language, buyer_link, sales_required
from .actions import saved
from .buyer_page import acceptance_context, buyer_context


@require_POST
@buyer_link
def buyer_accept(request: HttpRequest, revision: QuoteRevision, token: str) -> HttpResponse:
    form = AcceptanceForm(request.POST)

    def accept(data: dict[str, Any]) -> None:
        services.revision_accept(
            revision=revision,
            name=data["name"],
            role=data["role"],
            po_number=data["po_number"],
            terms_accepted=data["terms"],
            ip_address=client_ip(request),
            user_agent=request.headers.get("User-Agent", ""),
            offered_sha256=data["pdf_sha256"] or "",
            option=data["option"] or "",
        )

    with translation.override(buyer_language(revision)):
        if saved(form, accept):  # post/redirect/get: a reload of the thank-you page posts nothing
            return redirect("quotes:buyer_done", token=token)
        context = {**buyer_context(revision, token), **acceptance_context(revision, form)}
        return render(request, "quotes/buyer.html", context, status=400)


def _signed_copy(revision: QuoteRevision) -> HttpResponse:
    """The signed copy of the revision's acceptance (404 while it has none)."""
    record = (
        AcceptanceRecord.objects.filter(revision=revision).select_related("revision__quote").first()
    )
    if record is None:
        return HttpResponse(status=404)
    return pdf_download(record.pdf, filename=record.filename, sha256=record.sha256)


@require_safe
@sales_required
def acceptance_pdf(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """The signed copy (accepted PDF + acceptance page), for the quote's team."""
    return _signed_copy(selectors.revision_for_user(user=request.user, public_id=public_id))


@require_safe
@buyer_link
def buyer_acceptance_pdf(request: HttpRequest, revision: QuoteRevision, token: str) -> HttpResponse:
    return _signed_copy(revision)
