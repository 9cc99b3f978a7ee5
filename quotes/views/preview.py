"""The draft's "Preview PDF": the proposal as the buyer would get it, watermarked DRAFT.

Rendered synchronously from the same snapshot function as the send (so the preview is
what sending would freeze, analysis of the quoted deal included) and never stored: the
sent PDF is rendered at send time from the frozen snapshot.
"""

from __future__ import annotations

import logging
import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from .. import selectors, services
from .access import sales_required

logger = logging.getLogger(__name__)


@never_cache
@require_safe
@sales_required
def revision_preview_pdf(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    if not revision.is_draft:
        messages.info(request, _("Only a draft has a preview; a sent revision has its PDF."))
        return redirect("quotes:detail", revision.quote.public_id)
    from .. import pdf  # WeasyPrint and Plotly load on the first PDF, not with the URLs

    snapshot = services.proposal_snapshot(revision=revision)  # with every option
    language = snapshot["language"]
    try:
        document = pdf.render_revision(snapshot, language=language, draft=True)
    except Exception:  # the charts' browser failed: the preview still shows the content
        logger.warning("preview charts failed for %s", revision.public_id, exc_info=True)
        document = pdf.render_revision(snapshot, language=language, draft=True, with_charts=False)
    response = HttpResponse(document.pdf, content_type="application/pdf")
    filename = f"{revision.quote.number}-{revision.letter}-draft.pdf"
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
