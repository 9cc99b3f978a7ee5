"""What the buyer page shows (the proposal, the decision form and the acceptance form),
shared by the buyer pages (quotes.py) and the acceptance form's answer (acceptance.py)."""

from __future__ import annotations

from typing import Any

from .. import services
from ..forms import AcceptanceForm, DecisionForm
from ..models import AcceptanceRecord, QuoteRevision, Status


def acceptance_context(
    revision: QuoteRevision, form: AcceptanceForm | None = None
) -> dict[str, Any]:
    """What the buyer page needs for the acceptance form: the PDF offered and its hash."""
    offered = services.accepted_render(revision=revision)
    return {
        "accept_form": form
        or AcceptanceForm(initial={"pdf_sha256": offered.sha256 if offered else ""}),
        "offered_pdf": offered,
        "acceptance": AcceptanceRecord.objects.filter(revision=revision).defer("pdf").first(),
    }


def buyer_context(revision: Any, token: str, form: DecisionForm | None = None) -> dict[str, Any]:
    from ..pdf import revision_context  # WeasyPrint loads on the first PDF, not with the URLs

    return {
        **acceptance_context(revision),
        **revision_context(revision.snapshot),
        "revision": revision,
        "token": token,
        "form": form or DecisionForm(),
        "open": revision.status in (Status.SENT, Status.VIEWED)
        and services.revision_is_latest(revision=revision),
    }
