"""A proposal that argues for itself: when the analysis of the quoted deal recommends
renting, the draft says so before sending and the sales engineer chooses how the proposal
presents it (docs/quotes.md, "When the analysis recommends renting"):

- without the analysis (the prices, terms and signatures only), or
- as a like-for-like comparison with the buyer's reason for owning (for example data that
  must stay on their premises): the proposal then states what renting would cost instead of
  recommending it.

Sending with the analysis as it is stays refused while it recommends renting.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from ..models import AnalysisPresentation, QuoteRevision
from .deal import deal_analysis
from .drafts import locked_draft
from .errors import QuoteError


def argues_against_itself(tco: dict[str, Any] | None) -> bool:
    """The deal's analysis recommends renting (or a hosted API) while the quote sells
    servers."""
    executive = (tco or {}).get("executive") or {}
    return executive.get("buy") is False


def presentation_needed(revision: QuoteRevision, tco: dict[str, Any] | None) -> bool:
    """Sending waits for the engineer's choice: the analysis argues against the quote and
    the proposal would show it as it is."""
    return (
        argues_against_itself(tco) and revision.analysis_presentation == AnalysisPresentation.FULL
    )


def ensure_analysis_presented(revision: QuoteRevision) -> None:
    """Refuse (QuoteError) to send a proposal whose analysis argues against it unsent."""
    if presentation_needed(revision, deal_analysis(revision=revision)):
        raise QuoteError(
            _(
                "The analysis of this deal recommends renting: choose how the proposal "
                "presents it (without the analysis, or like for like with the reason)."
            )
        )


@transaction.atomic
def revision_set_presentation(
    *, revision: QuoteRevision, presentation: str, reason: str = ""
) -> QuoteRevision:
    """How the draft's proposal presents its analysis (a like-for-like comparison needs the
    buyer's reason for owning)."""
    revision = locked_draft(revision)
    if presentation not in AnalysisPresentation.values:
        raise QuoteError(_("Choose how the proposal presents the analysis."))
    reason = " ".join(reason.split())[:500]
    if presentation == AnalysisPresentation.LIKE_FOR_LIKE and not reason:
        raise QuoteError(_("Give the buyer's reason for owning: the proposal states it."))
    revision.analysis_presentation = presentation
    revision.analysis_reason = reason if presentation == AnalysisPresentation.LIKE_FOR_LIKE else ""
    revision.save(update_fields=["analysis_presentation", "analysis_reason"])
    return revision


def frozen_presentation(
    revision: QuoteRevision, tco: dict[str, Any] | None, language: str
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(the analysis the snapshot keeps, how it is presented): without the analysis the
    snapshot keeps none; like for like, the headline that replaces the recommendation, in
    the buyer's language."""
    choice = AnalysisPresentation(revision.analysis_presentation)
    if not argues_against_itself(tco):
        return tco, {"presentation": AnalysisPresentation.FULL.value}
    if choice == AnalysisPresentation.WITHOUT:
        return None, {"presentation": choice.value}
    executive = (tco or {}).get("executive") or {}
    with translation.override(language):
        headline = _(
            "You asked us for owned servers: %(reason)s Compared like for like, renting "
            "(%(option)s) would cost less; the figures below show by how much."
        ) % {
            "reason": revision.analysis_reason.rstrip(".") + ".",
            "option": executive.get("best_cloud") or "",
        }
    return tco, {
        "presentation": choice.value,
        "reason": revision.analysis_reason,
        "headline": headline,
    }
